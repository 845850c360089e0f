// Prims that cannot be lowered are reported with the reason.
// RUN: opal-opt %s --opal-lower-to-linalg --split-input-file --verify-diagnostics

func.func @shapes(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'prims.add' op cannot be lowered to linalg: it needs operands of the result's shape (tensor<3xf32>), but operand #1 is tensor<4xf32>; broadcast with prims.broadcast_in_dim first}}
  %r = prims.add %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @mixed(%a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{'prims.mul' op cannot be lowered to linalg: it needs operands of one element type, got f32 and f64; convert with prims.convert_element_type first}}
  %r = prims.mul %a, %b : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @exp_of_int(%a: tensor<3xi64>) {
  // expected-error @+1 {{'prims.exp' op cannot be lowered to linalg: it needs a floating-point element type, got i64}}
  %r = prims.exp %a : (tensor<3xi64>) -> tensor<3xi64>
  return
}

// -----

func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'prims.sin' op cannot be lowered to linalg: it needs a ranked result tensor, got tensor<*xf32>}}
  %r = prims.sin %a : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @bool_sub(%a: tensor<3xi1>) {
  // expected-error @+1 {{'prims.sub' op cannot be lowered to linalg: it does not support bool (i1) elements}}
  %r = prims.sub %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @wrong_result(%a: tensor<3xf32>) {
  // expected-error @+1 {{'prims.lt' op cannot be lowered to linalg: it produces i1 elements, but its result is tensor<3xf32>}}
  %r = prims.lt %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @convert_mismatch(%a: tensor<3xf32>) {
  %long = arith.constant 4 : i64
  // expected-error @+1 {{'prims.convert_element_type' op cannot be lowered to linalg: it converts to i64 (dtype 4), but its result is tensor<3xf64>}}
  %r = prims.convert_element_type %a, %long : (tensor<3xf32>, i64) -> tensor<3xf64>
  return
}

// -----

func.func @broadcast_bad(%x: tensor<3x2xf32>) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %shape = opal.list %c2, %c3, %c4 : i64, i64, i64 -> !opal.list<i64>
  %dims = opal.list %c1, %c2 : i64, i64 -> !opal.list<i64>
  // expected-error @+1 {{'prims.broadcast_in_dim' op cannot be lowered to linalg: it cannot broadcast dimension 1 of size 2 to size 4}}
  %r = prims.broadcast_in_dim %x, %shape, %dims : (tensor<3x2xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @dims_not_constant(%x: tensor<3x2xf32>, %dims: !opal.list<i64>) {
  %none = opal.none
  // expected-error @+1 {{'prims.sum' op cannot be lowered to linalg: it needs a constant dims list (or None)}}
  %r = prims.sum %x, %dims, %none : (tensor<3x2xf32>, !opal.list<i64>, !opal.none) -> tensor<3xf32>
  return
}

// -----

func.func @inner_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'prims.mm' op cannot be lowered to linalg: it has mismatched inner dimensions: tensor<2x3xf32> and tensor<4x5xf32>}}
  %r = prims.mm %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x6xf32>) {
  %c5 = arith.constant 5 : i64
  %shape = opal.list %c5, %c5 : i64, i64 -> !opal.list<i64>
  // expected-error @+1 {{'prims.reshape' op cannot be lowered to linalg: it reshapes 12 elements into 25}}
  %r = prims.reshape %x, %shape : (tensor<2x6xf32>, !opal.list<i64>) -> tensor<5x5xf32>
  return
}

// -----

func.func @squeeze_not_one(%x: tensor<2x3xf32>) {
  %c0 = arith.constant 0 : i64
  %l = opal.list %c0 : i64 -> !opal.list<i64>
  // expected-error @+1 {{'prims.squeeze' op cannot be lowered to linalg: it can only remove dimensions of static size 1, but dimension 0 of tensor<2x3xf32> is not}}
  %r = prims.squeeze %x, %l : (tensor<2x3xf32>, !opal.list<i64>) -> tensor<3xf32>
  return
}

// -----

func.func @adaptive_backward_of_other_dtype(%g: tensor<1x3x2x2xf32>, %x: tensor<1x3x5x5xf64>) {
  // expected-error @+1 {{'prims.adaptive_avg_pool_backward' op cannot be lowered to linalg: it needs a gradient of the input's rank and element type}}
  %r = prims.adaptive_avg_pool_backward %g, %x : (tensor<1x3x2x2xf32>, tensor<1x3x5x5xf64>) -> tensor<1x3x5x5xf32>
  return
}
