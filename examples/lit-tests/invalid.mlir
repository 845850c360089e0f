// RUN: opal-opt --op-library=%S/Inputs/mylib.opal.mlir %s --verify-diagnostics

func.func @two_args(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mylib.softplus2' op expects 1 operands (mylib::softplus2(Tensor x) -> Tensor), but got 2}}
  %r = "mylib.softplus2"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
