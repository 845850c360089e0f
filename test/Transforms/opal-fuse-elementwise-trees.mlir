// RUN: opal-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(opal-fuse-elementwise-trees))' | FileCheck %s

// A chain and a branch of single-use elementwise producers become one
// generic, each body copied once; a leaf used twice with one map is one
// operand.
#id = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @tree
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%arg0, %arg1 : tensor<?xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:   %[[N:.*]] = arith.negf %[[Y]] : f32
// CHECK-NEXT:   %[[A:.*]] = math.absf %[[E]] : f32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[A]], %[[N]] : f32
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[S]], %[[X]] : f32
// CHECK-NEXT:   linalg.yield %[[M]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @tree(%x: tensor<?xf32>, %y: tensor<?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.absf %in : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %n : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %x : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.mulf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %m : tensor<?xf32>
}

// -----

// A broadcast producer (a 0-d tensor stretched over the rows) is indexed
// from the consumer's loops; a transposing consumer composes its map.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[I2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @maps
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[T]], #[[I2]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<f32>, tensor<3x2xf32>)
// CHECK-NOT: linalg.generic
#scalar = affine_map<(d0, d1) -> ()>
#i2 = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @maps(%c: tensor<f32>, %x: tensor<3x2xf32>, %init: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = linalg.generic {indexing_maps = [#scalar, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<f32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %n = linalg.generic {indexing_maps = [#i2, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [#i2, #t, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%b, %n : tensor<2x3xf32>, tensor<3x2xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Producers with two uses, or whose body reads the loop indices, stay.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @kept(%x: tensor<4xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %i = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%init : tensor<4xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %ki = arith.index_cast %k : index to i32
    %v = arith.sitofp %ki : i32 to f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%e, %i : tensor<4xf32>, tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = arith.negf %p : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A mask that a generic of no inputs computes as one constant, shared by
// two consumers (as CSE leaves addmm's `beta == 0`): each consumer reads
// the constant itself, and no longer the mask's values (the block
// argument goes unused; linalg-fuse-elementwise-ops drops the input).
// A generic whose value it computes itself fuses into its one consumer as
// before.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_value
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.generic
// CHECK: ^bb0(%[[M:.*]]: i1, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NOT: %[[M]]
// CHECK: arith.select %[[FALSE]]
// CHECK: linalg.generic
// CHECK: arith.select %[[FALSE]]
// CHECK: linalg.generic
// CHECK: %[[N:.*]] = arith.xori
// CHECK: arith.select %[[N]]
func.func @broadcast_value(%b: tensor<4xf32>, %c: tensor<4xf32>, %flag: i1) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %false = arith.constant false
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xi1>
  %mask = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x4xi1>) {
  ^bb0(%o: i1):
    linalg.yield %false : i1
  } -> tensor<8x4xi1>
  %computed = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x4xi1>) {
  ^bb0(%o: i1):
    %not = arith.xori %flag, %false : i1
    linalg.yield %not : i1
  } -> tensor<8x4xi1>
  %f = tensor.empty() : tensor<8x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %b : tensor<8x4xi1>, tensor<4xf32>) outs(%f : tensor<8x4xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %zero, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %c : tensor<8x4xi1>, tensor<4xf32>) outs(%f : tensor<8x4xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %zero, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %z = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%computed, %c : tensor<8x4xi1>, tensor<4xf32>) outs(%f : tensor<8x4xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %zero, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %x, %y, %z : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
