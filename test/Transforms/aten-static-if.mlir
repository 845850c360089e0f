// RUN: opal-opt %s --opal-decompose | FileCheck %s --implicit-check-not=prims.maximum --implicit-check-not=prims.erf --implicit-check-not=opal.static_if

// Only the branch a use picks is instantiated: clamp with min=None has no
// maximum, gelu with approximate="tanh" no erf, and no static_if remains.

// CHECK-LABEL: func.func @clamp_max_only
// CHECK: prims.minimum
func.func @clamp_max_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = opal.none
  %hi = arith.constant 1.0 : f64
  %r = aten.clamp %x, %n, %hi : (tensor<4xf32>, !opal.none, f64) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @gelu_tanh
// CHECK: prims.tanh
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = opal.str "tanh"
  %r = aten.gelu %x, %a : (tensor<4xf32>, !opal.str) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
