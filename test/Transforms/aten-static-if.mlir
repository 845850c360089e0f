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

// A convolution's input of 0 channels (a size 0 the key holds static) gives
// 0 channels: the weight's filters are sliced to none and no bias is
// added. opal.has_static_size is false for a dynamic dim: channels of any
// other count get the filters and the bias.
// CHECK-LABEL: func.func @convolution_of_no_channels
// CHECK: %[[NONE:.*]] = prims.slice_in_dim %arg1
// CHECK: prims.conv %arg0, %[[NONE]]
// CHECK-NOT: prims.add
// CHECK: return
func.func @convolution_of_no_channels(%x: tensor<2x0x?x?xf32>, %w: tensor<?x0x3x3xf32>, %b: tensor<?xf32>) -> tensor<2x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %s = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %p = opal.list %c0, %c0 : i64, i64 -> !opal.list<i64>
  %f = arith.constant false
  %r = aten.convolution %x, %w, %b, %s, %p, %s, %f, %p, %c1 : (tensor<2x0x?x?xf32>, tensor<?x0x3x3xf32>, tensor<?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> tensor<2x?x?x?xf32>
  return %r : tensor<2x?x?x?xf32>
}

// CHECK-LABEL: func.func @convolution_of_channels
// CHECK-NOT: prims.slice_in_dim
// CHECK: prims.conv %arg0, %arg1
// CHECK: prims.add
func.func @convolution_of_channels(%x: tensor<2x?x?x?xf32>, %w: tensor<?x?x3x3xf32>, %b: tensor<?xf32>) -> tensor<2x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %s = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %p = opal.list %c0, %c0 : i64, i64 -> !opal.list<i64>
  %f = arith.constant false
  %r = aten.convolution %x, %w, %b, %s, %p, %s, %f, %p, %c1 : (tensor<2x?x?x?xf32>, tensor<?x?x3x3xf32>, tensor<?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> tensor<2x?x?x?xf32>
  return %r : tensor<2x?x?x?xf32>
}
