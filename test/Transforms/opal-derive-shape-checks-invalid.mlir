// RUN: opal-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(opal-derive-shape-checks))"

// A condition that is not a comparison of sizes cannot be checked before
// the call.
func.func @flag(%x: tensor<?xf32>, %flag: i1) {
  // expected-error @+1 {{'opal.assert' op cannot be checked before the call: its condition is not made of comparisons (arith.cmpi, arith.andi) of sizes of the function's arguments}}
  opal.assert %flag, "no" groups []
  return
}

// -----

// (A runtime int argument is checked by its value; a value read from a
// tensor's data is not known before the call.)
func.func @value(%x: tensor<?xf32>, %t: tensor<i64>) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi ne, %d, %c0 : index
  %n = tensor.extract %t[] : tensor<i64>
  // expected-error @+1 {{'opal.assert' op cannot be checked before the call: a value of its message is not a size of the function's arguments}}
  opal.assert %ok, "got {0}" groups [1] (%n : i64)
  return
}

// -----

// A reshape to a size that is not a product of the arguments' sizes cannot
// be checked before the call (the JIT then compiles it per shape).
func.func @reshape_by_value(%x: tensor<?xf32>, %t: tensor<i64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %n = tensor.extract %t[] : tensor<i64>
  %half = arith.index_cast %n : i64 to index
  %shape = tensor.from_elements %half, %d : tensor<2xindex>
  // expected-error @+1 {{'tensor.reshape' op cannot be checked before the call: a size is not computed from the sizes of the function's arguments}}
  %r = tensor.reshape %x(%shape) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
