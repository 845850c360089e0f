// RUN: opal-opt %s --opal-decompose --split-input-file --verify-diagnostics

func.func @incompatible(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{while decomposing aten.mul.Tensor: 'opal.broadcast_tensors' cannot broadcast shapes [2, 3] and [4]: size 4 against 3 in dimension 1}}
  %r = aten.mul.Tensor %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @below {{while decomposing aten.relu: 'opal.broadcast_tensors' needs ranked tensors, got 'tensor<*xf32>'}}
  %r = aten.relu %x : (tensor<*xf32>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

func.func @result_dtype(%x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @below {{the decomposition of aten.exp produces 'tensor<3xf32>', but the op's result is 'tensor<3xi64>'}}
  %r = aten.exp %x : (tensor<3xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

opal.library "bad" {
  opal.def "f(Tensor x) -> Tensor"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor):
    // expected-error @below {{'opal.promote' op has 1 operands but 2 results; it needs one result per operand}}
    %a, %b = opal.promote %x : !opal.tensor -> !opal.tensor, !opal.tensor
    opal.yield %a : !opal.tensor
  }
}

// -----

opal.library "bad" {
  opal.def "f(Tensor x) -> Tensor"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor):
    %s = opal.str "no"
    // expected-error @below {{'opal.promote' op operand #1 has type '!opal.str'; expected a tensor, !opal.tensor, i1, i64 or f64}}
    %a, %b = opal.promote %x, %s : !opal.tensor, !opal.str -> !opal.tensor, !opal.tensor
    opal.yield %a : !opal.tensor
  }
}

// -----

func.func @outside(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'opal.promote' op expects parent op to be one of 'opal.decomposition, opal.static_if'}}
  %r = opal.promote %x : tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @dim_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %d = arith.constant 2 : i64
  %n = opal.none
  // expected-error @below {{while decomposing aten.softmax.int: 'opal.normalize_dims' dimension 2 is out of range for a tensor of rank 2}}
  %r = aten.softmax.int %x, %d, %n : (tensor<2x3xf32>, i64, !opal.none) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @dim_twice(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %a = arith.constant 1 : i64
  %b = arith.constant -1 : i64
  %l = opal.list %a, %b : i64, i64 -> !opal.list<i64>
  %k = arith.constant false
  // expected-error @below {{while decomposing aten.amax: 'opal.normalize_dims' dimension 1 is named twice}}
  %r = aten.amax %x, %l, %k : (tensor<2x3xf32>, !opal.list<i64>, i1) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @keepdim_unknown(%x: tensor<2x3xf32>, %k: i1) -> tensor<2xf32> {
  %l = opal.list -> !opal.list<i64>
  // expected-error @below {{while decomposing aten.amax: 'opal.keep_dims' needs constant dims and keepdim}}
  %r = aten.amax %x, %l, %k : (tensor<2x3xf32>, !opal.list<i64>, i1) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @approximate_unknown(%x: tensor<2xf32>, %a: !opal.str) -> tensor<2xf32> {
  // expected-error @below {{while decomposing aten.gelu: 'opal.str_eq' needs a constant string (opal.str)}}
  %r = aten.gelu %x, %a : (tensor<2xf32>, !opal.str) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
