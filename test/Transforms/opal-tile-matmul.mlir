// RUN: opal-opt %s --pass-pipeline="builtin.module(func.func(opal-tile-matmul{tile-k=16 tile-n=32}))" --split-input-file | FileCheck %s

// The product's loops run i, k, j (j innermost, contiguous in B and C),
// with k and j tiled.
// CHECK-LABEL: func.func @mm
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-NOT: linalg.matmul
func.func @mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @bmm
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "parallel"]
func.func @bmm(%a: memref<2x3x4xf64>, %b: memref<2x4x5xf64>, %c: memref<2x3x5xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf64>, memref<2x4x5xf64>) outs(%c : memref<2x3x5xf64>)
  return
}

// -----

// Products on tensors are left alone (the pass runs after bufferization).
// CHECK-LABEL: func.func @on_tensors
// CHECK: linalg.matmul
func.func @on_tensors(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
