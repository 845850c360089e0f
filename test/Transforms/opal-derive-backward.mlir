// RUN: opal-opt %s --opal-derive-backward=op=demo::mish | FileCheck %s
// RUN: opal-opt %s --opal-derive-backward=op=demo::scale_shift | FileCheck %s --check-prefix=TWO

// The backward recomputes the body, then runs it backwards: each op's
// derivative formula (aten_backward), each gradient summed to its operand
// with opal.sum_to, gradients that meet added.
opal.library "demo" {
  opal.def "demo::mish(Tensor x) -> Tensor"
  opal.decomposition "mish" {
  ^bb0(%x: !opal.tensor):
    %one = arith.constant 1 : i64
    %twenty = arith.constant 20 : i64
    %sp = aten.softplus %x, %one, %twenty : (!opal.tensor, i64, i64) -> !opal.tensor
    %t = aten.tanh %sp : (!opal.tensor) -> !opal.tensor
    %y = aten.mul.Tensor %x, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %y : !opal.tensor
  }
  opal.def "demo::scale_shift(Tensor x, Tensor w, float shift) -> Tensor"
  opal.decomposition "scale_shift" {
  ^bb0(%x: !opal.tensor, %w: !opal.tensor, %shift: f64):
    %one = arith.constant 1 : i64
    %m = aten.mul.Tensor %x, %w : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %y = aten.add.Scalar %m, %shift, %one : (!opal.tensor, f64, i64) -> !opal.tensor
    opal.yield %y : !opal.tensor
  }
}

// CHECK-LABEL: opal.library "demo_backward"
// CHECK: opal.def "demo_backward::mish(Tensor grad, Tensor x) -> Tensor x"
// CHECK: opal.decomposition "mish"
// CHECK-NEXT: ^bb0(%[[GRAD:.*]]: !opal.tensor, %[[X:.*]]: !opal.tensor):
// CHECK: %[[SP:.*]] = aten.softplus %[[X]]
// CHECK: %[[T:.*]] = aten.tanh %[[SP]]
// CHECK: %[[Y:.*]] = aten.mul.Tensor %[[X]], %[[T]]
// CHECK: %[[G:.*]] = opal.sum_to %[[GRAD]], %[[Y]]
// CHECK: %[[GX1:.*]] = aten_backward.mul.Tensor_self %[[G]], %[[T]]
// CHECK: %[[FX1:.*]] = opal.sum_to %[[GX1]], %[[X]]
// CHECK: %[[GT:.*]] = aten_backward.mul.Tensor_other %[[G]], %[[X]]
// CHECK: %[[FT:.*]] = opal.sum_to %[[GT]], %[[T]]
// CHECK: %[[GSP:.*]] = aten_backward.tanh %[[FT]], %[[T]]
// CHECK: %[[FSP:.*]] = opal.sum_to %[[GSP]], %[[SP]]
// CHECK: %[[GX2:.*]] = aten_backward.softplus %[[FSP]], %[[X]]
// CHECK: %[[FX2:.*]] = opal.sum_to %[[GX2]], %[[X]]
// CHECK: %[[SUM:.*]] = aten.add.Tensor %[[FX1]], %[[FX2]]
// CHECK: opal.yield %[[SUM]] : !opal.tensor

// Two tensor arguments: one result each, named after them; the float
// argument is passed through for the formulas.
// TWO: opal.def "demo_backward::scale_shift(Tensor grad, Tensor x, Tensor w, float shift) -> (Tensor x, Tensor w)"
// TWO: aten_backward.add.Scalar_self
// TWO: %[[GX:.*]] = aten_backward.mul.Tensor_self
// TWO: %[[FX:.*]] = opal.sum_to %[[GX]]
// TWO: %[[GW:.*]] = aten_backward.mul.Tensor_other
// TWO: %[[FW:.*]] = opal.sum_to %[[GW]]
// TWO: opal.yield %[[FX]], %[[FW]] : !opal.tensor, !opal.tensor
