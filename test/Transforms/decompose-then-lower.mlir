// RUN: opal-opt --op-library=%S/Inputs/composites.opal.mlir %s --opal-decompose --opal-lower-to-linalg | FileCheck %s

// A composite decomposed to prims, then lowered: one linalg.generic per prim.
// CHECK-LABEL: func.func @softplus
// CHECK-NOT: comp.
// CHECK-NOT: prims.
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: math.log1p
// CHECK: return
func.func @softplus(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = comp.softplus_unit %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
