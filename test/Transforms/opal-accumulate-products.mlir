// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-accumulate-products))" | FileCheck %s

// A recurrent layer's weight gradient: products of every step summed. Each
// later product starts from the sum so far; no addition is left.
// CHECK-LABEL: func.func @sum_of_products
// CHECK-SAME: (%[[A0:.*]]: tensor<8x4xf32>, %[[B0:.*]]: tensor<4x16xf32>, %[[A1:.*]]: tensor<8x4xf32>, %[[B1:.*]]: tensor<4x16xf32>, %[[A2:.*]]: tensor<8x4xf32>, %[[B2:.*]]: tensor<4x16xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[P0:.*]] = linalg.matmul ins(%[[A0]], %[[B0]] : tensor<8x4xf32>, tensor<4x16xf32>) outs(%[[ZERO]] : tensor<8x16xf32>)
// CHECK: %[[P1:.*]] = linalg.matmul ins(%[[A1]], %[[B1]] : tensor<8x4xf32>, tensor<4x16xf32>) outs(%[[P0]] : tensor<8x16xf32>)
// CHECK: %[[P2:.*]] = linalg.matmul ins(%[[A2]], %[[B2]] : tensor<8x4xf32>, tensor<4x16xf32>) outs(%[[P1]] : tensor<8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[P2]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @sum_of_products(%a0: tensor<8x4xf32>, %b0: tensor<4x16xf32>, %a1: tensor<8x4xf32>,
                           %b1: tensor<4x16xf32>, %a2: tensor<8x4xf32>, %b2: tensor<4x16xf32>)
    -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p0 = linalg.matmul ins(%a0, %b0 : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p1 = linalg.matmul ins(%a1, %b1 : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p0, %p1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %p2 = linalg.matmul ins(%a2, %b2 : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p2, %s1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %y, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %s2 : tensor<8x16xf32>
}

// -----

// A batched product added to an argument starts from it (bufferization
// copies the argument first: it is not the kernel's to write).
// CHECK-LABEL: func.func @batched_into_argument
// CHECK-SAME: (%[[ACC:.*]]: tensor<2x8x16xf64>, %[[A:.*]]: tensor<2x8x4xf64>, %[[B:.*]]: tensor<2x4x16xf64>)
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x8x4xf64>, tensor<2x4x16xf64>) outs(%[[ACC]] : tensor<2x8x16xf64>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batched_into_argument(%acc: tensor<2x8x16xf64>, %a: tensor<2x8x4xf64>, %b: tensor<2x4x16xf64>)
    -> tensor<2x8x16xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x8x16xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<2x8x16xf64>) -> tensor<2x8x16xf64>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x8x4xf64>, tensor<2x4x16xf64>) outs(%z : tensor<2x8x16xf64>) -> tensor<2x8x16xf64>
  %s = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %p : tensor<2x8x16xf64>, tensor<2x8x16xf64>) outs(%e : tensor<2x8x16xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %r = arith.addf %x, %y : f64
    linalg.yield %r : f64
  } -> tensor<2x8x16xf64>
  return %s : tensor<2x8x16xf64>
}

// -----

// Left alone: a product read twice (its sums are needed apart), one not
// started from zero, one added through a broadcast, an addition that does
// more than add, and a product of float16 (summed in another type than the
// addition's rounding would be).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: outs(%arg
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @left_alone(%acc: tensor<8x16xf32>, %row: tensor<16xf32>, %a: tensor<8x4xf32>, %b: tensor<4x16xf32>,
                      %ah: tensor<8x4xf16>, %bh: tensor<4x16xf16>, %acch: tensor<8x16xf16>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %zeroh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %twice = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %twice : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %fromone = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%o : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %fromone : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %p2 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s2 = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%row, %p2 : tensor<16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %p3 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %p3 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    %m = arith.mulf %r, %r : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %eh = tensor.empty() : tensor<8x16xf16>
  %zh = linalg.fill ins(%zeroh : f16) outs(%eh : tensor<8x16xf16>) -> tensor<8x16xf16>
  %ph = linalg.matmul ins(%ah, %bh : tensor<8x4xf16>, tensor<4x16xf16>) outs(%zh : tensor<8x16xf16>) -> tensor<8x16xf16>
  %sh = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acch, %ph : tensor<8x16xf16>, tensor<8x16xf16>) outs(%eh : tensor<8x16xf16>) {
  ^bb0(%x: f16, %y: f16, %out: f16):
    %r = arith.addf %x, %y : f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  return %s0, %twice, %s1, %s2, %s3, %sh : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>
}
