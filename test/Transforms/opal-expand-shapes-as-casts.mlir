// RUN: opal-opt %s --split-input-file --opal-expand-shapes-as-casts | FileCheck %s
// RUN: opal-opt %s --split-input-file --opal-expand-shapes-as-casts --expand-strided-metadata | FileCheck %s --check-prefix=LOWERED

// One dim of a dense buffer expanded into three of dynamic size (a
// convolution's rows seen as planes): a reinterpret_cast at offset 0 with
// the output sizes and dense strides (4, 4 * b, 4 * b * a). MLIR 22's
// expand-strided-metadata crashes on the expand_shape itself.
// CHECK-LABEL: func.func @planes
// CHECK-SAME: (%[[X:.*]]: memref<?x4xf32>, %[[N:.*]]: index, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[S1:.*]] = arith.muli %{{.*}}, %[[B]] : index
// CHECK: %[[S0:.*]] = arith.muli %[[S1]], %[[A]] : index
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[N]], %[[A]], %[[B]], 4], strides: [%[[S0]], %[[S1]], 4, 1] : memref<?x4xf32> to memref<?x?x?x4xf32>
// CHECK-NOT: memref.expand_shape
// LOWERED-LABEL: func.func @planes
// LOWERED-NOT: memref.expand_shape
// LOWERED: memref.reinterpret_cast
func.func @planes(%x: memref<?x4xf32>, %n: index, %a: index, %b: index) -> memref<?x?x?x4xf32> {
  %e = memref.expand_shape %x [[0, 1, 2], [3]] output_shape [%n, %a, %b, 4] : memref<?x4xf32> into memref<?x?x?x4xf32>
  return %e : memref<?x?x?x4xf32>
}

// -----

// A strided source (not dense) is left as it is.
// CHECK-LABEL: func.func @strided
// CHECK: memref.expand_shape
func.func @strided(%x: memref<?x8xf32, strided<[?, 1]>>, %n: index) -> memref<?x2x4xf32, strided<[?, 4, 1]>> {
  %e = memref.expand_shape %x [[0], [1, 2]] output_shape [%n, 2, 4] : memref<?x8xf32, strided<[?, 1]>> into memref<?x2x4xf32, strided<[?, 4, 1]>>
  return %e : memref<?x2x4xf32, strided<[?, 4, 1]>>
}
