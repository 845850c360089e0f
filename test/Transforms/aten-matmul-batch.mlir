// RUN: opal-opt %s --opal-decompose --split-input-file --verify-diagnostics | FileCheck %s
// RUN: opal-opt %s --opal-to-linalg --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=LOWER

// aten.matmul with batch dimensions (opal.batch_matmul): broadcast the
// batch, flatten it to one dimension, prims.bmm, restore it.
// CHECK-LABEL: func.func @four_by_two
// CHECK: prims.broadcast_in_dim %arg0, {{.*}} -> tensor<2x3x4x5xf32>
// CHECK: prims.reshape {{.*}} -> tensor<6x4x5xf32>
// CHECK: prims.broadcast_in_dim %arg1, {{.*}} -> tensor<2x3x5x6xf32>
// CHECK: prims.reshape {{.*}} -> tensor<6x5x6xf32>
// CHECK: prims.bmm {{.*}} : (tensor<6x4x5xf32>, tensor<6x5x6xf32>) -> tensor<6x4x6xf32>
// CHECK: prims.reshape {{.*}} -> tensor<2x3x4x6xf32>
// LOWER-LABEL: func.func @four_by_two
// LOWER: linalg.batch_matmul
func.func @four_by_two(%a: tensor<2x3x4x5xf32>, %b: tensor<5x6xf32>) -> tensor<2x3x4x6xf32> {
  %r = aten.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<5x6xf32>) -> tensor<2x3x4x6xf32>
  return %r : tensor<2x3x4x6xf32>
}

// -----

// Batch dims of size 1 broadcast: [3, 1] against [2] gives [3, 2].
// CHECK-LABEL: func.func @broadcast_batch
// CHECK: prims.bmm {{.*}} -> tensor<6x4x6xf64>
// CHECK: prims.reshape {{.*}} -> tensor<3x2x4x6xf64>
func.func @broadcast_batch(%a: tensor<3x1x4x5xf64>, %b: tensor<2x5x6xf64>) -> tensor<3x2x4x6xf64> {
  %r = aten.matmul %a, %b : (tensor<3x1x4x5xf64>, tensor<2x5x6xf64>) -> tensor<3x2x4x6xf64>
  return %r : tensor<3x2x4x6xf64>
}

// -----

// A vector against a batch of matrices: a row, then the row dim squeezed.
// CHECK-LABEL: func.func @vector_by_batch
// CHECK: prims.bmm
// CHECK: prims.squeeze {{.*}} -> tensor<2x3x6xf32>
func.func @vector_by_batch(%a: tensor<5xf32>, %b: tensor<2x3x5x6xf32>) -> tensor<2x3x6xf32> {
  %r = aten.matmul %a, %b : (tensor<5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// -----

// 3-d by 2-d stays shape-polymorphic: the matrix is broadcast over the batch.
// CHECK-LABEL: func.func @dynamic_three_by_two
// CHECK: prims.broadcast_in_dim %arg1
// CHECK: prims.bmm %arg0
// CHECK-NOT: prims.reshape
func.func @dynamic_three_by_two(%a: tensor<?x?x4xf32>, %b: tensor<4x?xf32>) -> tensor<?x?x?xf32> {
  %r = aten.matmul %a, %b : (tensor<?x?x4xf32>, tensor<4x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// Flattening more batch dims needs static shapes.
func.func @dynamic_four_by_two(%a: tensor<?x3x4x5xf32>, %b: tensor<5x6xf32>) -> tensor<?x3x4x6xf32> {
  // expected-error @+1 {{while decomposing aten.matmul: 'opal.batch_matmul' needs static shapes to flatten the batch dimensions of 'tensor<?x3x4x5xf32>' and 'tensor<5x6xf32>'}}
  %r = aten.matmul %a, %b : (tensor<?x3x4x5xf32>, tensor<5x6xf32>) -> tensor<?x3x4x6xf32>
  return %r : tensor<?x3x4x6xf32>
}
