// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-recompute-elementwise,canonicalize))" | FileCheck %s
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-recompute-elementwise{single-use=true},canonicalize))" | FileCheck %s --check-prefix=ONCE

// softmax's exp(x - max) feeds the row's sum (a linalg.reduce, which
// becomes a generic) and the division: it is computed again in each, and no
// tensor holds it.
// CHECK-NOT: linalg.reduce
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_tail(
// CHECK-COUNT-2: math.exp
// CHECK-NOT: math.exp
// CHECK: return
// With single-use (the CPU's way), exp(x - max), read twice, keeps its
// tensor: computed once, the reduction reads it.
// ONCE-LABEL: func.func @softmax_tail(
// ONCE-COUNT-1: math.exp
// ONCE-NOT: math.exp
// ONCE: linalg.reduce
// ONCE: return
func.func @softmax_tail(%x: tensor<?x?xf32>, %max: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %sum0 = tensor.empty(%rows) : tensor<?xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%sum0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%e : tensor<?x?xf32>) outs(%fill : tensor<?xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A producer whose payload is longer than max-ops keeps its tensor.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @long_payload(
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
// CHECK: return
func.func @long_payload(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %empty = tensor.empty(%n) : tensor<?xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%empty : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v0 = math.exp %a : f32
    %v1 = arith.mulf %v0, %v0 : f32
    %v2 = arith.mulf %v1, %v1 : f32
    %v3 = arith.mulf %v2, %v2 : f32
    %v4 = arith.mulf %v3, %v3 : f32
    %v5 = arith.mulf %v4, %v4 : f32
    %v6 = arith.mulf %v5, %v5 : f32
    %v7 = arith.mulf %v6, %v6 : f32
    %v8 = arith.mulf %v7, %v7 : f32
    %v9 = arith.mulf %v8, %v8 : f32
    %v10 = arith.mulf %v9, %v9 : f32
    %v11 = arith.mulf %v10, %v10 : f32
    %v12 = arith.mulf %v11, %v11 : f32
    %v13 = arith.mulf %v12, %v12 : f32
    %v14 = arith.mulf %v13, %v13 : f32
    %v15 = arith.mulf %v14, %v14 : f32
    %v16 = arith.mulf %v15, %v15 : f32
    linalg.yield %v16 : f32
  } -> tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf32>) outs(%empty : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf32>) outs(%empty : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.addf %v, %v : f32
    linalg.yield %w : f32
  } -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// -----

// Batch norm's variance over a matrix: (x - mean)^2, read once by the sum
// over the batch, is computed as the sum reads it (single-use: whatever its
// payload); no tensor holds it.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// ONCE-LABEL: func.func @squared_differences(
// ONCE-NOT: linalg.reduce
// ONCE: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// ONCE:   arith.subf
// ONCE:   arith.mulf
// ONCE:   arith.addf
// ONCE-NOT: linalg.generic
// ONCE: return
func.func @squared_differences(%x: tensor<?x?xf32>, %mean: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %sq = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %s = arith.mulf %d, %d : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %sum0 = tensor.empty(%cols) : tensor<?xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%sum0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%sq : tensor<?x?xf32>) outs(%fill : tensor<?xf32>) dimensions = [0]
    (%a: f32, %o: f32) {
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<?xf32>
}
