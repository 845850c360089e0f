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

// linear: the product of the input and the transposed weight (read in
// place through transposed indexing maps; the message shows the
// transposed shape, in x out, as PyTorch's), then the bias against the
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

// -----

// An op's own opal.check on sizes known per call: one check per comparison,
// in the op's order, before the derived ones; the message keeps its
// placeholders, filled with the call's sizes (a list's items, here the
// constant normalized_shape and the input's sizes).
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: opal.shape_checks = "expect,aten::native_layer_norm,eq,a1.0,3,Expected%20weight%20to%20be%20of%20same%20shape%20as%20normalized_shape%2C%20but%20got%20weight%20of%20shape%20[%7B0%7D]%20and%20normalized_shape%20=%20[%7B1%7D],a1.0/3 expect,aten::native_layer_norm,eq,a0.1,3,Given%20normalized_shape=[%7B0%7D]%2C%20expected%20input%20with%20shape%20[*%2C%20%7B0%7D]%2C%20but%20got%20input%20of%20size[%7B1%7D],3/a0.0xa0.1 broadcast,aten::native_layer_norm,1,a0.1,a1.0"
// CHECK-NOT: opal.assert
func.func @layer_norm(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> !opal.tensor {
  %c3 = arith.constant 3 : i64
  %s = opal.list %c3 : i64 -> !opal.list<i64>
  %none = opal.none
  %eps = arith.constant 1.0e-5 : f64
  %t = arith.constant true
  %r = aten.layer_norm %x, %s, %w, %none, %eps, %t : (tensor<?x?xf32>, !opal.list<i64>, tensor<?xf32>, !opal.none, f64, i1) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// amax over a dim that may be empty: the size must not be 0 (a `ne`
// check); a size known to be 0 is a check no call passes.
// CHECK-LABEL: func.func @amax
// CHECK-SAME: opal.shape_checks = "expect,aten::amax,ne,a0.0,0,amax():%20Expected%20reduction%20dim%20-2%20to%20have%20non-zero%20size.,"
// CHECK-LABEL: func.func @amax_static_empty
// CHECK-SAME: opal.shape_checks = "expect,aten::amax,eq,0,1,amax():%20Expected%20reduction%20dim%200%20to%20have%20non-zero%20size.,"
func.func @amax(%x: tensor<?x?xf32>) -> !opal.tensor {
  %c = arith.constant -2 : i64
  %d = opal.list %c : i64 -> !opal.list<i64>
  %f = arith.constant false
  %r = aten.amax %x, %d, %f : (tensor<?x?xf32>, !opal.list<i64>, i1) -> !opal.tensor
  return %r : !opal.tensor
}
func.func @amax_static_empty(%x: tensor<0x3xf32>) -> !opal.tensor {
  %c = arith.constant 0 : i64
  %d = opal.list %c : i64 -> !opal.list<i64>
  %f = arith.constant false
  %r = aten.amax %x, %d, %f : (tensor<0x3xf32>, !opal.list<i64>, i1) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// What a user's opal.check becomes (opal-decompose-local.mlir): its op is
// the one in its location.
// CHECK-LABEL: func.func @user
// CHECK-SAME: opal.shape_checks = "expect,mylib::pair,eq,a0.0,a1.0,rows%20differ:%20%7B0%7D%20vs%20%7B1%7D,a0.0/a1.0"
func.func @user(%a: tensor<?x2xf32>, %b: tensor<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %da = tensor.dim %a, %c0 : tensor<?x2xf32>
  %ra = arith.index_cast %da : index to i64
  %db = tensor.dim %b, %c0 : tensor<?x5xf32>
  %rb = arith.index_cast %db : index to i64
  %same = arith.cmpi eq, %ra, %rb : i64
  opal.assert %same, "rows differ: {0} vs {1}" groups [1, 1] (%ra, %rb : i64, i64) loc("mylib::pair")
  return
}

// -----

// A runtime int the kernel takes (a convolution's groups) is compared by
// its value: a1.value.
// CHECK-LABEL: func.func @groups
// CHECK-SAME: opal.shape_checks = "expect,aten::convolution,ge,a0.0,a1.value,at%20least%20%7B0%7D,a1.value"
func.func @groups(%w: tensor<?x1x3x3xf32>, %groups: i64) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %w, %c0 : tensor<?x1x3x3xf32>
  %w0 = arith.index_cast %d : index to i64
  %enough = arith.cmpi sge, %w0, %groups : i64
  opal.assert %enough, "at least {0}" groups [1] (%groups : i64) loc("aten::convolution")
  return
}

// -----

// A view of a dynamic input keeps its elements: the sizes asked for (one
// inferred) must divide the input's element count, checked before the call.
// CHECK-LABEL: func.func @view_inferred
// CHECK-SAME: opal.shape_checks = "numel_divides,aten::view,a0.0x6,4,-1/4"
func.func @view_inferred(%x: tensor<?x6xf32>) -> !opal.tensor {
  %a = arith.constant -1 : i64
  %b = arith.constant 4 : i64
  %l = opal.list %a, %b : i64, i64 -> !opal.list<i64>
  %r = aten.view %x, %l : (tensor<?x6xf32>, !opal.list<i64>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// Sizes computed from the input's sizes are products of them: the counts
// must be equal.
// CHECK-LABEL: func.func @view_products
// CHECK-SAME: opal.shape_checks = "numel,aten::reshape,a0.0xa0.1xa0.2,a0.0xa0.1xa0.2,a0.0xa0.1/a0.2"
func.func @view_products(%x: tensor<?x?x?xf32>) -> !opal.tensor {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %s0 = arith.index_cast %d0 : index to i64
  %s1 = arith.index_cast %d1 : index to i64
  %s2 = arith.index_cast %d2 : index to i64
  %rows = arith.muli %s0, %s1 : i64
  %l = opal.list %rows, %s2 : i64, i64 -> !opal.list<i64>
  %r = aten.reshape %x, %l : (tensor<?x?x?xf32>, !opal.list<i64>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A reshape a lowering marks regrouped (a view of a tensor it built, as a
// matrix whose sizes are products of the tensor's own: a convolution's
// im2col rows) needs no check, even where its sizes cannot be traced to
// the arguments' (a size computed with a division).
// CHECK-LABEL: func.func @regrouped
// CHECK-NOT: opal.shape_checks
// CHECK: tensor.reshape
func.func @regrouped(%x: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %half = arith.divui %d, %c2 : index
  %shape = tensor.from_elements %half, %c2 : tensor<2xindex>
  %r = tensor.reshape %x(%shape) {opal.regrouped} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
