// The schema-derived verifier rejects wrong operands and results.
// RUN: opal-opt --op-library=%S/Inputs/mylib.opal.mlir %s --split-input-file --verify-diagnostics

func.func @too_few(%x: tensor<?xf32>, %b: f64) {
  // expected-error @+1 {{'mylib.softplus' op expects 3 operands (mylib::softplus(Tensor x, float beta=1., float threshold=20.) -> Tensor), but got 2}}
  %r = mylib.softplus %x, %b : (tensor<?xf32>, f64) -> tensor<?xf32>
  return
}

// -----

func.func @f32_for_float(%x: tensor<?xf32>, %b: f32) {
  // expected-error @+1 {{'mylib.softplus' op operand #1 ('beta' of type float) must be f64, but got 'f32'}}
  %r = mylib.softplus %x, %b, %b : (tensor<?xf32>, f32, f32) -> tensor<?xf32>
  return
}

// -----

func.func @not_a_tensor(%x: f64) {
  // expected-error @+1 {{'mylib.softplus' op operand #0 ('x' of type Tensor) must be a tensor, but got 'f64'}}
  %r = mylib.softplus %x, %x, %x : (f64, f64, f64) -> tensor<?xf32>
  return
}

// -----

func.func @tensor_of_index(%x: tensor<4xindex>, %b: f64) {
  // expected-error @+1 {{operand #0 ('x' of type Tensor) must be a tensor, but got 'tensor<4xindex>'}}
  %r = mylib.softplus %x, %b, %b : (tensor<4xindex>, f64, f64) -> tensor<?xf32>
  return
}

// -----

func.func @scalar_str(%x: tensor<4xf32>, %s: !opal.str) {
  // expected-error @+1 {{operand #1 ('factor' of type Scalar) must be i64, f64, i1 or a complex, but got '!opal.str'}}
  %a = mylib.scale.out %x, %s, %x : (tensor<4xf32>, !opal.str, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @one_result(%x: tensor<2x3xf64>, %dims: !opal.list<i64>, %k: i1, %none: !opal.none) {
  // expected-error @+1 {{'mylib.pick' op expects 2 results}}
  %v = mylib.pick %x, %dims, %k, %none : (tensor<2x3xf64>, !opal.list<i64>, i1, !opal.none) -> tensor<2xf64>
  return
}

// -----

func.func @list_of_f64(%x: tensor<2x3xf64>, %dims: !opal.list<f64>, %k: i1, %none: !opal.none) {
  // expected-error @+1 {{operand #1 ('dims' of type int[2]) must be !opal.list of i64, but got '!opal.list<f64>'}}
  %v, %i = mylib.pick %x, %dims, %k, %none : (tensor<2x3xf64>, !opal.list<f64>, i1, !opal.none) -> (tensor<2xf64>, tensor<2xi64>)
  return
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'mylib.nope' is unknown}}
  %r = mylib.nope %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
