// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(opal-decompose,opal-lower-to-linalg,func.func(opal-derive-shape-checks))" | FileCheck %s

// Two dynamic sizes broadcast together must be equal: the check names the
// op whose body made the broadcast and the loop dim.
// CHECK-LABEL: func.func @add
// CHECK-SAME: opal.shape_checks = "broadcast,aten::add.Tensor,0,a0.0,a1.0"
func.func @add(%x: tensor<?xf32>, %y: tensor<?xf32>) -> !opal.tensor {
  %c1 = arith.constant 1 : i64
  %r = aten.add.Tensor %x, %y, %c1 : (tensor<?xf32>, tensor<?xf32>, i64) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A static 1 stretches: no check for that dim, one for the other.
// CHECK-LABEL: func.func @stretch
// CHECK-SAME: opal.shape_checks = "broadcast,aten::mul.Tensor,1,a0.1,a1.1"
func.func @stretch(%x: tensor<?x?xf32>, %y: tensor<1x?xf32>) -> !opal.tensor {
  %r = aten.mul.Tensor %x, %y : (tensor<?x?xf32>, tensor<1x?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A matrix product's contracted dims, with both operands' shapes for the
// message; a static 1 that meets a dynamic size is a constant.
// CHECK-LABEL: func.func @mm
// CHECK-SAME: opal.shape_checks = "matmul,aten::mm,2,a0.1,a1.0,a0.0xa0.1,a1.0xa1.1"
// CHECK-LABEL: func.func @mm_one
// CHECK-SAME: opal.shape_checks = "matmul,aten::mm,2,1,a1.0,a0.0x1,a1.0xa1.1"
func.func @mm(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> !opal.tensor {
  %r = aten.mm %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}
func.func @mm_one(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> !opal.tensor {
  %r = aten.mm %x, %y : (tensor<?x1xf32>, tensor<?x?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// linear: the product of the input and the transposed weight (sizes traced
// through linalg.transpose's destination), then the bias against the
// weight's rows (through the shape list's i64 casts).
// CHECK-LABEL: func.func @linear
// CHECK-SAME: opal.shape_checks = "matmul,aten::matmul,2,a0.1,a1.1,a0.0xa0.1,a1.1xa1.0 broadcast,aten::linear,1,a1.0,a2.0"
func.func @linear(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> !opal.tensor {
  %r = aten.linear %x, %w, %b : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A batched product: batch and contracted dims, PyTorch's bmm shapes.
// CHECK-LABEL: func.func @bmm
// CHECK-SAME: opal.shape_checks = "batch,aten::bmm,0,a0.0,a1.0,a0.0xa0.2,a1.0xa1.1 batch,aten::bmm,3,a0.2,a1.1,a0.0xa0.2,a1.0xa1.1"
func.func @bmm(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>) -> !opal.tensor {
  %r = aten.bmm %x, %y : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// Unary ops and ops on one input assume nothing.
// CHECK-LABEL: func.func @exp
// CHECK-NOT: opal.shape_checks
func.func @exp(%x: tensor<?x?xf32>) -> !opal.tensor {
  %r = aten.exp %x : (tensor<?x?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}
