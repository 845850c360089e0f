// RUN: opal-opt --op-library=%S/Inputs/composites.opal.mlir %s --opal-decompose --split-input-file | FileCheck %s
// RUN: opal-opt --op-library=%S/Inputs/composites.opal.mlir %s --opal-decompose="legal-ops=comp.square" --split-input-file | FileCheck %s --check-prefix=LEGAL

// A composite of a composite: the body's !opal.tensor types become concrete.
// CHECK-LABEL: func.func @nested
// CHECK: %[[SQ:.*]] = prims.mul %arg0, %arg0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[DIMS:.*]] = opal.list %{{.*}} : i64 -> !opal.list<i64>
// CHECK: prims.sum %[[SQ]], %[[DIMS]], %{{.*}} : (tensor<3x4xf32>, !opal.list<i64>, !opal.none) -> tensor<3xf32>
// CHECK-NOT: comp.
// With comp.square legal, it stays, typed from its own decomposition.
// LEGAL-LABEL: func.func @nested
// LEGAL: %[[SQ:.*]] = comp.square %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
// LEGAL: prims.sum %[[SQ]], %{{.*}}, %{{.*}} : (tensor<3x4xf32>, !opal.list<i64>, !opal.none) -> tensor<3xf32>
func.func @nested(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %c1 = arith.constant 1 : i64
  %s = comp.sumsq %x, %c1 : (tensor<3x4xf32>, i64) -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// Dynamic shapes and other dtypes flow through.
// CHECK-LABEL: func.func @dynamic
// CHECK: prims.exp %arg0 : (tensor<?xf64>) -> tensor<?xf64>
// CHECK: prims.log1p %{{.*}} : (tensor<?xf64>) -> tensor<?xf64>
func.func @dynamic(%y: tensor<?xf64>) -> tensor<?xf64> {
  %p = comp.softplus_unit %y : (tensor<?xf64>) -> tensor<?xf64>
  return %p : tensor<?xf64>
}

// -----

// Constants made in the body are copied per use.
// CHECK-LABEL: func.func @gram
// CHECK: prims.transpose %arg0, %{{.*}} : (tensor<3x4xf32>, !opal.list<i64>) -> tensor<4x3xf32>
// CHECK: prims.mm %arg0, %{{.*}} : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
func.func @gram(%x: tensor<3x4xf32>) -> tensor<3x3xf32> {
  %g = comp.gram %x : (tensor<3x4xf32>) -> tensor<3x3xf32>
  return %g : tensor<3x3xf32>
}

// -----

// A declared result less static than the body's gets a tensor.cast.
// CHECK-LABEL: func.func @cast
// CHECK: %[[M:.*]] = prims.mul %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: tensor.cast %[[M]] : tensor<4xf32> to tensor<?xf32>
func.func @cast(%x: tensor<4xf32>) -> tensor<?xf32> {
  %r = comp.square %x : (tensor<4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
