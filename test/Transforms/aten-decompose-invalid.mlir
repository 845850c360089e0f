// RUN: opal-opt %s --opal-decompose --split-input-file --verify-diagnostics

func.func @incompatible(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{while decomposing aten.mul.Tensor: 'opal.broadcast_tensors' cannot broadcast shapes [2, 3] and [4]: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1}}
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
  // expected-error @below {{aten::softmax.int: Dimension out of range (expected to be in range of [-2, 1], but got 2)}}
  %r = aten.softmax.int %x, %d, %n : (tensor<2x3xf32>, i64, !opal.none) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @dim_twice(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %a = arith.constant 1 : i64
  %b = arith.constant -1 : i64
  %l = opal.list %a, %b : i64, i64 -> !opal.list<i64>
  %k = arith.constant false
  // expected-error @below {{aten::amax: dim 1 appears multiple times in the list of dims}}
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

// -----

func.func @reshape_count(%x: tensor<2x6xf32>) -> tensor<5x2xf32> {
  %a = arith.constant 5 : i64
  %b = arith.constant 2 : i64
  %l = opal.list %a, %b : i64, i64 -> !opal.list<i64>
  // expected-error @below {{while decomposing aten.reshape: 'opal.infer_shape' cannot reshape 'tensor<2x6xf32>' (12 elements) to [5, 2]}}
  %r = aten.reshape %x, %l : (tensor<2x6xf32>, !opal.list<i64>) -> tensor<5x2xf32>
  return %r : tensor<5x2xf32>
}


func.func @expand_size(%x: tensor<3xf32>) -> tensor<4xf32> {
  %a = arith.constant 4 : i64
  %l = opal.list %a : i64 -> !opal.list<i64>
  %f = arith.constant false
  // expected-error @below {{while decomposing aten.expand: 'opal.broadcast_to' cannot expand dimension 0 of size 3 to size 4}}
  %r = aten.expand %x, %l, %f : (tensor<3xf32>, !opal.list<i64>, i1) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @layer_norm_shape(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c4 = arith.constant 4 : i64
  %ns = opal.list %c4 : i64 -> !opal.list<i64>
  %n = opal.none
  %eps = arith.constant 1.0e-5 : f64
  %t = arith.constant true
  // expected-error @below {{aten::layer_norm: in aten::native_layer_norm: Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 8]}}
  %r = aten.layer_norm %x, %ns, %n, %n, %eps, %t : (tensor<2x8xf32>, !opal.list<i64>, !opal.none, !opal.none, f64, i1) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// opal.check: a condition false for the use refuses it with its message.
func.func @gelu_bogus(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = opal.str "bogus"
  // expected-error @below {{aten::gelu: approximate argument must be either none or tanh.}}
  %r = aten.gelu %x, %a : (tensor<2xf32>, !opal.str) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @clamp_unbounded(%x: tensor<2xf32>) -> tensor<2xf32> {
  %none = opal.none
  // expected-error @below {{aten::clamp: torch.clamp: At least one of 'min' or 'max' must not be None}}
  %r = aten.clamp %x, %none, %none : (tensor<2xf32>, !opal.none, !opal.none) -> tensor<2xf32>
  return %r : tensor<2xf32>
}


// -----

// Checks whose sizes are known for the use refuse it with PyTorch's message
// and the sizes.
func.func @layer_norm_no_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = opal.list -> !opal.list<i64>
  %none = opal.none
  %eps = arith.constant 1.0e-5 : f64
  %t = arith.constant true
  // expected-error @below {{aten::layer_norm: in aten::native_layer_norm: Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []}}
  %r = aten.layer_norm %x, %s, %none, %none, %eps, %t : (tensor<2x3xf32>, !opal.list<i64>, !opal.none, !opal.none, f64, i1) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @layer_norm_weight(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c3 = arith.constant 3 : i64
  %s = opal.list %c3 : i64 -> !opal.list<i64>
  %none = opal.none
  %eps = arith.constant 1.0e-5 : f64
  %t = arith.constant true
  // expected-error @below {{aten::layer_norm: in aten::native_layer_norm: Expected weight to be of same shape as normalized_shape, but got weight of shape [2, 3] and normalized_shape = [3]}}
  %r = aten.layer_norm %x, %s, %w, %none, %eps, %t : (tensor<2x3xf32>, !opal.list<i64>, tensor<2x3xf32>, !opal.none, f64, i1) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A refusal reached through another op names both.
func.func @linear_bias_rank(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<5x2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{aten::linear: expand(torch.FloatTensor{[5, 2, 4]}, size=[2, 4]): the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)}}
  %r = aten.linear %x, %w, %b : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<5x2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

