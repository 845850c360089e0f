// RUN: opal-opt %s --pass-pipeline='builtin.module(func.func(opal-lower-unsigned))' --split-input-file --verify-diagnostics

// Ops other than prims that compute on uint8 are refused, not retyped.
func.func @extract(%a: tensor<4xui8>) -> ui8 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tensor.extract' op has uint8 operands or results; opal-lower-unsigned lowers uint8 through prims only}}
  %e = tensor.extract %a[%c0] : tensor<4xui8>
  return %e : ui8
}
