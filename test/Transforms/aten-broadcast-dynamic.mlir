// RUN: opal-opt %s --opal-decompose | FileCheck %s
// RUN: opal-opt %s --opal-to-linalg | FileCheck %s --check-prefix=LOWER

// Broadcasting to dynamic sizes: the shape list reads them at run time from
// the operand that has them (a dynamic size is taken to be the full size).

// LOWER-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// LOWER-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @bias
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0 : tensor<?x3xf32>
// CHECK: %[[D64:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[SHAPE:.*]] = opal.list %[[D64]], %c3_i64 : i64, i64 -> !opal.list<i64>
// CHECK: %[[B:.*]] = prims.broadcast_in_dim %{{.*}}, %[[SHAPE]], %{{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x3xf32>
// CHECK: prims.add %arg0, %[[B]] : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// LOWER-LABEL: func.func @bias
// LOWER: %[[D:.*]] = tensor.dim %arg0, %c0 : tensor<?x3xf32>
// LOWER: tensor.empty(%[[D]]) : tensor<?x3xf32>
// LOWER: arith.addf
func.func @bias(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
  %c1 = arith.constant 1 : i64
  %r = aten.add.Tensor %x, %y, %c1 : (tensor<?x3xf32>, tensor<3xf32>, i64) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// An outer product: both operands stretch, each along its static 1.
// CHECK-LABEL: func.func @outer
// CHECK-DAG: tensor.dim %arg0, %c0 : tensor<?x1xf32>
// CHECK-DAG: tensor.dim %arg1, %c1 : tensor<1x?xf32>
// CHECK: prims.broadcast_in_dim %arg0, {{.*}} -> tensor<?x?xf32>
// CHECK: prims.broadcast_in_dim %arg1, {{.*}} -> tensor<?x?xf32>
// CHECK: prims.mul {{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// LOWER-LABEL: func.func @outer
// LOWER: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// LOWER: linalg.generic {indexing_maps = [#[[ROW]]
// LOWER: linalg.generic {indexing_maps = [#[[COL]]
// LOWER: arith.mulf
func.func @outer(%x: tensor<?x1xf32>, %y: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %r = aten.mul.Tensor %x, %y : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
