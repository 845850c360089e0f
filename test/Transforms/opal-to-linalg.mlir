// RUN: opal-opt --op-library=%S/Inputs/composites.opal.mlir %s --opal-to-linalg | FileCheck %s
// RUN: opal-opt --op-library=%S/Inputs/composites.opal.mlir %s --opal-to-linalg="legal-ops=comp.square" | FileCheck %s --check-prefix=LEGAL

// The named pipeline: decompose, lower, canonicalize and CSE. The two equal
// sumsq uses fold into one multiply and one reduction.
// CHECK-LABEL: func.func @f
// CHECK-NOT: comp.
// CHECK-NOT: prims.
// CHECK: arith.mulf
// CHECK: %[[R:.*]] = linalg.reduce
// CHECK-NOT: linalg.reduce
// CHECK: ins(%[[R]], %[[R]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return

// With legal-ops, the kept op is left for a backend; the rest is linalg.
// LEGAL-LABEL: func.func @f
// LEGAL: comp.square %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
// LEGAL: linalg.reduce
// LEGAL-NOT: prims.
// LEGAL: comp.square %{{.*}} : (tensor<3xf32>) -> tensor<3xf32>
func.func @f(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %c1 = arith.constant 1 : i64
  %s = comp.sumsq %x, %c1 : (tensor<3x4xf32>, i64) -> tensor<3xf32>
  %t = comp.sumsq %x, %c1 : (tensor<3x4xf32>, i64) -> tensor<3xf32>
  %u = comp.square %t : (tensor<3xf32>) -> tensor<3xf32>
  %v = prims.add %s, %u : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %v : tensor<3xf32>
}
