// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-hoist-broadcast-work))" | FileCheck %s

// Batch norm's variance after elementwise fusion: the mean, sum / n per
// column, divided again for every element of [N, C]. The division runs
// over the columns in a generic of its own; the variance's body reads its
// result through the same map.
// CHECK-LABEL: func.func @per_column_mean
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[SUM:.*]]: tensor<?xf32>, %[[N:.*]]: f32)
// CHECK: %[[DIM:.*]] = tensor.dim %[[SUM]], %{{.*}} : tensor<?xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[DIM]]) : tensor<?xf32>
// CHECK: %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<?xf32>) outs(%[[EMPTY]] : tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[SUM]], %[[MEAN]] : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[MEANV:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: arith.divf
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[IN]], %[[MEANV]] : f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[SQ]] : f32
#xy = affine_map<(d0, d1) -> (d0, d1)>
#y = affine_map<(d0, d1) -> (d1)>
func.func @per_column_mean(%x: tensor<?x?xf32>, %sum: tensor<?xf32>, %n: f32) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#xy, #y, #xy], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %in, %m : f32
    %sq = arith.mulf %d, %d : f32
    linalg.yield %sq : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// log_softmax over dim 0: the log of a column's sum, and what depends only
// on it and on the column's max, computed once per column.
// CHECK-LABEL: func.func @per_column_log
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%arg1, %arg2 : tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[L:.*]] = math.log
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %[[L]] : f32
// CHECK: linalg.yield %[[A]] : f32
// CHECK: linalg.generic
// CHECK-NOT: math.log
// CHECK: arith.subf
// CHECK: return
#xy = affine_map<(d0, d1) -> (d0, d1)>
#y = affine_map<(d0, d1) -> (d1)>
func.func @per_column_log(%x: tensor<4x8xf32>, %max: tensor<8xf32>, %sum: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#xy, #y, #y, #xy], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %o: f32):
    %l = math.log %s : f32
    %shift = arith.addf %m, %l : f32
    %d = arith.subf %in, %shift : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Per-row values (the map drops the innermost loop) stay: LLVM hoists them
// out of the inner loop. A cheap per-column op (an addition) stays too.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
#xy = affine_map<(d0, d1) -> (d0, d1)>
#y = affine_map<(d0, d1) -> (d1)>
#x = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%x: tensor<4x8xf32>, %rows: tensor<4xf32>, %cols: tensor<8xf32>, %n: f32) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#xy, #x, #xy], iterator_types = ["parallel", "parallel"]} ins(%x, %rows : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#xy, #y, #xy], iterator_types = ["parallel", "parallel"]} ins(%x, %cols : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %m = arith.addf %s, %n : f32
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %r, %c : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Batch norm's affine part over [N, C] after elementwise fusion: alpha =
// invstd * weight and beta = bias - mean * alpha per element, from the
// mean and invstd read as [1, C] and the weight and bias as [C] (maps of
// the same loop). No op is costly, but four values per element become
// two: both computed once per column, the [1, C] operands read with their
// zero kept.
// CHECK-DAG: #[[ZERO:.*]] = affine_map<(d0) -> (0, d0)>
// CHECK-DAG: #[[ONE:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @per_column_affine
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[INVSTD:.*]]: tensor<1x?xf32>, %[[W:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?xf32>, %[[MEAN:.*]]: tensor<1x?xf32>)
// CHECK: %[[DIM:.*]] = tensor.dim %[[INVSTD]], %{{.*}} : tensor<1x?xf32>
// CHECK: %[[E0:.*]] = tensor.empty(%[[DIM]]) : tensor<?xf32>
// CHECK: %[[E1:.*]] = tensor.empty(%[[DIM]]) : tensor<?xf32>
// CHECK: %[[AB:.*]]:2 = linalg.generic {indexing_maps = [#[[ZERO]], #[[ONE]], #[[ONE]], #[[ZERO]], #[[ONE]], #[[ONE]]], iterator_types = ["parallel"]} ins(%[[INVSTD]], %[[W]], %[[B]], %[[MEAN]] : tensor<1x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>) outs(%[[E0]], %[[E1]] : tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: f32, %[[WV:.*]]: f32, %[[BV:.*]]: f32, %[[MV:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ALPHA:.*]] = arith.mulf %[[I]], %[[WV]] : f32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.mulf %[[MV]], %[[ALPHA]] : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.subf %[[BV]], %[[SHIFT]] : f32
// CHECK-NEXT: linalg.yield %[[ALPHA]], %[[BETA]] : f32, f32
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[INVSTD]], %[[W]], %[[B]], %[[MEAN]], %[[AB]]#0, %[[AB]]#1 : tensor<?x?xf32>, tensor<1x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[A:.*]]: f32, %[[BT:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[IN]], %[[A]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[S]], %[[BT]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
#xy = affine_map<(d0, d1) -> (d0, d1)>
#zy = affine_map<(d0, d1) -> (0, d1)>
#y = affine_map<(d0, d1) -> (d1)>
func.func @per_column_affine(%x: tensor<?x?xf32>, %invstd: tensor<1x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>, %mean: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#xy, #zy, #y, #y, #zy, #xy], iterator_types = ["parallel", "parallel"]} ins(%x, %invstd, %w, %b, %mean : tensor<?x?xf32>, tensor<1x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %i: f32, %wv: f32, %bv: f32, %mv: f32, %o: f32):
    %alpha = arith.mulf %i, %wv : f32
    %shift = arith.mulf %mv, %alpha : f32
    %beta = arith.subf %bv, %shift : f32
    %s = arith.mulf %in, %alpha : f32
    %y = arith.addf %s, %beta : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
