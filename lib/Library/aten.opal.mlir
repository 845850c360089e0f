// The aten library: PyTorch's operators with their schemas, names and
// semantics (broadcasting and type promotion included), each decomposed into
// prims. opal.promote and opal.broadcast_tensors stand for what depends on
// the types of a use; opal-decompose turns them into prims.convert_element_type,
// prims.full and prims.broadcast_in_dim. A `Scalar` argument is declared f64
// in the bodies; uses may pass i64, f64 or i1, which opal.promote takes as
// PyTorch's wrapped numbers.
opal.library "aten" {
  // Arithmetic: add and sub scale `other` by alpha first.
  opal.def "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  opal.decomposition "add.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor, %alpha: f64):
    %a, %o = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %ob, %alb = opal.broadcast_tensors %o2, %al : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %ob, %alb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %a2, %b = opal.promote %a, %scaled : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.add %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
  opal.decomposition "add.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64, %alpha: f64):
    %a, %o = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %o2, %al : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %a2, %s2 = opal.promote %a, %scaled : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %s2 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.add %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  opal.decomposition "sub.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor, %alpha: f64):
    %a, %o = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %ob, %alb = opal.broadcast_tensors %o2, %al : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %ob, %alb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %a2, %b = opal.promote %a, %scaled : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.sub %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
  opal.decomposition "sub.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64, %alpha: f64):
    %a, %o = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %o2, %al : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %a2, %s2 = opal.promote %a, %scaled : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %s2 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.sub %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "mul.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "mul.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.mul %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "mul.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "mul.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.mul %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // True division: integer operands give float32, as in PyTorch.
  opal.def "div.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "div.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other {to_float} : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.div %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "div.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "div.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other {to_float} : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.div %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor"
  opal.decomposition "pow.Tensor_Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.pow %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"
  opal.decomposition "pow.Tensor_Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.pow %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "maximum(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "maximum" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.maximum %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "minimum(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "minimum" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.minimum %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Comparisons: operands are promoted to one dtype, the result is bool.
  opal.def "eq.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "eq.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.eq %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "eq.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "eq.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.eq %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "ne.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "ne.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.ne %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "ne.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "ne.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.ne %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "lt.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "lt.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.lt %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "lt.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "lt.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.lt %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "le.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "le.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.le %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "le.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "le.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.le %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "gt.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "gt.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.gt %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "gt.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "gt.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.gt %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "ge.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "ge.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.ge %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "ge.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "ge.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.ge %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Unary math: neg and abs keep the dtype, the others compute in float.
  opal.def "neg(Tensor self) -> Tensor"
  opal.decomposition "neg" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self : !opal.tensor -> !opal.tensor
    %r = prims.neg %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "abs(Tensor self) -> Tensor"
  opal.decomposition "abs" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self : !opal.tensor -> !opal.tensor
    %r = prims.abs %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "exp(Tensor self) -> Tensor"
  opal.decomposition "exp" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.exp %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "log(Tensor self) -> Tensor"
  opal.decomposition "log" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.log %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "log1p(Tensor self) -> Tensor"
  opal.decomposition "log1p" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.log1p %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sqrt(Tensor self) -> Tensor"
  opal.decomposition "sqrt" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.sqrt %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "rsqrt(Tensor self) -> Tensor"
  opal.decomposition "rsqrt" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.rsqrt %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sin(Tensor self) -> Tensor"
  opal.decomposition "sin" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.sin %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "cos(Tensor self) -> Tensor"
  opal.decomposition "cos" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.cos %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "tanh(Tensor self) -> Tensor"
  opal.decomposition "tanh" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.tanh %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "erf(Tensor self) -> Tensor"
  opal.decomposition "erf" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.erf %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Activations.
  opal.def "relu(Tensor self) -> Tensor"
  opal.decomposition "relu" {
  ^bb0(%self: !opal.tensor):
    %c0 = arith.constant 0 : i64
    %a, %z = opal.promote %self, %c0 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %z : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.maximum %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sigmoid(Tensor self) -> Tensor"
  opal.decomposition "sigmoid" {
  ^bb0(%self: !opal.tensor):
    %c1 = arith.constant 1.0 : f64
    %a, %one = opal.promote %self, %c1 {to_float} : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %n = prims.neg %a : (!opal.tensor) -> !opal.tensor
    %e = prims.exp %n : (!opal.tensor) -> !opal.tensor
    %eb, %oneb = opal.broadcast_tensors %e, %one : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %d = prims.add %oneb, %eb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = prims.div %oneb, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "silu(Tensor self) -> Tensor"
  opal.decomposition "silu" {
  ^bb0(%self: !opal.tensor):
    %a = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %s = aten.sigmoid %a : (!opal.tensor) -> !opal.tensor
    %r = prims.mul %a, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Selection.
  opal.def "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "where.self" {
  ^bb0(%condition: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %c, %x, %y = opal.broadcast_tensors %condition, %a, %b : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %r = prims.where %c, %x, %y : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
