// The derivatives of aten's ops (Autograd/Formula.h says how they are found
// and bound): ops of the namespace aten_backward, one per op (results named
// after the inputs whose gradients they are) or one per input
// (`<overload>_<input>`, or `<input>` for an op without overload). Each is
// an op like any other, so a backward runs as compiled, cached kernels.
// Gradients come out at the shape of the forward's broadcast computation and
// in its dtype: the engine sums them to each input's shape and converts
// them to its dtype. The formulas follow PyTorch's derivatives.yaml.
// Formulas that only move or pass on the gradient (views, identities) also
// have native kernels (DerivativeKernels.cpp), so they copy nothing.
opal.library "aten_backward" {
  // --- Arithmetic ------------------------------------------------------------
  opal.def "add.Tensor_self(Tensor grad) -> Tensor"
  opal.decomposition "add.Tensor_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "add.Tensor_other(Tensor grad, Scalar alpha) -> Tensor"
  opal.decomposition "add.Tensor_other" {
  ^bb0(%grad: !opal.tensor, %alpha: f64):
    %g = aten.mul.Scalar %grad, %alpha : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "add.Scalar_self(Tensor grad) -> Tensor"
  opal.decomposition "add.Scalar_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "sub.Tensor_self(Tensor grad) -> Tensor"
  opal.decomposition "sub.Tensor_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "sub.Tensor_other(Tensor grad, Scalar alpha) -> Tensor"
  opal.decomposition "sub.Tensor_other" {
  ^bb0(%grad: !opal.tensor, %alpha: f64):
    %p = aten.mul.Scalar %grad, %alpha : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sub.Scalar_self(Tensor grad) -> Tensor"
  opal.decomposition "sub.Scalar_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "rsub.Scalar_self(Tensor grad, Scalar alpha) -> Tensor"
  opal.decomposition "rsub.Scalar_self" {
  ^bb0(%grad: !opal.tensor, %alpha: f64):
    %p = aten.mul.Scalar %grad, %alpha : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "mul.Tensor_self(Tensor grad, Tensor other) -> Tensor"
  opal.decomposition "mul.Tensor_self" {
  ^bb0(%grad: !opal.tensor, %other: !opal.tensor):
    %g = aten.mul.Tensor %grad, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "mul.Tensor_other(Tensor grad, Tensor self) -> Tensor"
  opal.decomposition "mul.Tensor_other" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %g = aten.mul.Tensor %grad, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "mul.Scalar_self(Tensor grad, Scalar other) -> Tensor"
  opal.decomposition "mul.Scalar_self" {
  ^bb0(%grad: !opal.tensor, %other: f64):
    %g = aten.mul.Scalar %grad, %other : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "div.Tensor_self(Tensor grad, Tensor other) -> Tensor"
  opal.decomposition "div.Tensor_self" {
  ^bb0(%grad: !opal.tensor, %other: !opal.tensor):
    %g = aten.div.Tensor %grad, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // -grad * self / other^2
  opal.def "div.Tensor_other(Tensor grad, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "div.Tensor_other" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %q = aten.div.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %q2 = aten.div.Tensor %q, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %q2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "div.Scalar_self(Tensor grad, Scalar other) -> Tensor"
  opal.decomposition "div.Scalar_self" {
  ^bb0(%grad: !opal.tensor, %other: f64):
    %g = aten.div.Scalar %grad, %other : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "neg(Tensor grad) -> Tensor self"
  opal.decomposition "neg" {
  ^bb0(%grad: !opal.tensor):
    %g = aten.neg %grad : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // exponent * self^(exponent - 1), and 0 where the exponent is 0.
  opal.def "pow.Tensor_Scalar(Tensor grad, Tensor self, Scalar exponent) -> Tensor self"
  opal.decomposition "pow.Tensor_Scalar" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %exponent: f64):
    // The exponent as a 0-d float64 tensor (it may be an int or a float).
    %none = opal.none
    %f64 = arith.constant 7 : i64
    %e = aten.scalar_tensor %exponent, %f64, %none, %none, %none : (f64, i64, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %one = arith.constant 1.0 : f64
    %em1 = aten.sub.Scalar %e, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %p = aten.pow.Tensor_Tensor %self, %em1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d = aten.mul.Tensor %p, %e : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %zero = arith.constant 0.0 : f64
    %e0 = aten.eq.Scalar %e, %zero : (!opal.tensor, f64) -> !opal.tensor
    %dz = aten.masked_fill.Scalar %d, %e0, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %dz : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // base ** exponent with a scalar base: grad * result * log(base), and 0
  // where the base is 0 and the exponent not negative (PyTorch's rule).
  opal.def "pow.Scalar(Tensor grad, Scalar self, Tensor exponent, Tensor result) -> Tensor exponent"
  opal.decomposition "pow.Scalar" {
  ^bb0(%grad: !opal.tensor, %self: f64, %exponent: !opal.tensor, %result: !opal.tensor):
    %none = opal.none
    %f64 = arith.constant 7 : i64
    %zero = arith.constant 0.0 : f64
    %b = aten.scalar_tensor %self, %f64, %none, %none, %none : (f64, i64, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %lb = aten.log %b : (!opal.tensor) -> !opal.tensor
    %d = aten.mul.Tensor %result, %lb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %b0 = aten.eq.Scalar %b, %zero : (!opal.tensor, f64) -> !opal.tensor
    %ge = aten.ge.Scalar %exponent, %zero : (!opal.tensor, f64) -> !opal.tensor
    %both = aten.logical_and %b0, %ge : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %dz = aten.masked_fill.Scalar %d, %both, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %dz : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // --- Elementwise math ------------------------------------------------------
  opal.def "exp(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "exp" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %g = aten.mul.Tensor %grad, %result : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "log(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "log" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %g = aten.div.Tensor %grad, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sqrt(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "sqrt" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %two = arith.constant 2.0 : f64
    %d = aten.mul.Scalar %result, %two : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.div.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // -0.5 * grad * result^3
  opal.def "rsqrt(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "rsqrt" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %three = arith.constant 3.0 : f64
    %mhalf = arith.constant -0.5 : f64
    %r3 = aten.pow.Tensor_Scalar %result, %three : (!opal.tensor, f64) -> !opal.tensor
    %d = aten.mul.Scalar %r3, %mhalf : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad * (1 - result^2)
  opal.def "tanh(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "tanh" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %sq = aten.mul.Tensor %result, %result : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d = aten.rsub.Scalar %sq, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad * result * (1 - result)
  opal.def "sigmoid(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "sigmoid" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %c = aten.rsub.Scalar %result, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %d = aten.mul.Tensor %result, %c : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // PyTorch's threshold_backward(grad, result, 0): 0 where result <= 0.
  opal.def "relu(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "relu" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %off = aten.le.Scalar %result, %zero : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.masked_fill.Scalar %grad, %off, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // sigmoid(x) * (1 + x * (1 - sigmoid(x)))
  opal.def "silu(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "silu" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %s = aten.sigmoid %self : (!opal.tensor) -> !opal.tensor
    %c = aten.rsub.Scalar %s, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %xc = aten.mul.Tensor %self, %c : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %t = aten.add.Scalar %xc, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %d = aten.mul.Tensor %s, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // none: Phi(x) + x * phi(x); tanh: PyTorch's GeluBackward of the
  // approximation.
  opal.def "gelu(Tensor grad, Tensor self, *, str approximate=\"none\") -> Tensor self"
  opal.decomposition "gelu" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %approximate: !opal.str):
    %tanh = opal.str_eq %approximate, "tanh" : !opal.str -> i1
    %one = arith.constant 1.0 : f64
    %half = arith.constant 0.5 : f64
    %d = opal.static_if %tanh -> !opal.tensor {
      %beta = arith.constant 0.7978845608028654 : f64
      %kappa = arith.constant 0.044715 : f64
      %kappa3 = arith.constant 0.134145 : f64
      %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %x3 = aten.mul.Tensor %x2, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %kx3 = aten.mul.Scalar %x3, %kappa : (!opal.tensor, f64) -> !opal.tensor
      %sum = aten.add.Tensor %self, %kx3, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
      %inner = aten.mul.Scalar %sum, %beta : (!opal.tensor, f64) -> !opal.tensor
      %t = aten.tanh %inner : (!opal.tensor) -> !opal.tensor
      %right = aten.add.Scalar %t, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
      %left_d = aten.mul.Scalar %right, %half : (!opal.tensor, f64) -> !opal.tensor
      %t2 = aten.mul.Tensor %t, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %sech2 = aten.rsub.Scalar %t2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
      %k3x2 = aten.mul.Scalar %x2, %kappa3 : (!opal.tensor, f64) -> !opal.tensor
      %dinner = aten.add.Scalar %k3x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
      %left = aten.mul.Scalar %self, %half : (!opal.tensor, f64) -> !opal.tensor
      %r1 = aten.mul.Tensor %left, %sech2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r2 = aten.mul.Tensor %r1, %dinner : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %right_d = aten.mul.Scalar %r2, %beta : (!opal.tensor, f64) -> !opal.tensor
      %dd = aten.add.Tensor %left_d, %right_d, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
      opal.yield %dd : !opal.tensor
    } else {
      %rsqrt2 = arith.constant 0.7071067811865476 : f64
      %rsqrt2pi = arith.constant 0.3989422804014327 : f64
      %mhalf = arith.constant -0.5 : f64
      %xs = aten.mul.Scalar %self, %rsqrt2 : (!opal.tensor, f64) -> !opal.tensor
      %e = aten.erf %xs : (!opal.tensor) -> !opal.tensor
      %e1 = aten.add.Scalar %e, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
      %cdf = aten.mul.Scalar %e1, %half : (!opal.tensor, f64) -> !opal.tensor
      %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %ex = aten.mul.Scalar %x2, %mhalf : (!opal.tensor, f64) -> !opal.tensor
      %pe = aten.exp %ex : (!opal.tensor) -> !opal.tensor
      %pdf = aten.mul.Scalar %pe, %rsqrt2pi : (!opal.tensor, f64) -> !opal.tensor
      %xpdf = aten.mul.Tensor %self, %pdf : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %dd = aten.add.Tensor %cdf, %xpdf, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
      opal.yield %dd : !opal.tensor
    }
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad * sigmoid(beta * x), and grad itself where beta * x > threshold
  // (where softplus is x).
  opal.def "softplus(Tensor grad, Tensor self, Scalar beta, Scalar threshold) -> Tensor self"
  opal.decomposition "softplus" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %beta: f64, %threshold: f64):
    // sigmoid(bx) as e / (1 + e) with e = exp(bx): a fused kernel that also
    // computes softplus (a derived backward recomputing it) shares the exp.
    // (Where e overflows, bx is past the threshold and grad is taken.)
    %one = arith.constant 1.0 : f64
    %bx = aten.mul.Scalar %self, %beta : (!opal.tensor, f64) -> !opal.tensor
    %e = aten.exp %bx : (!opal.tensor) -> !opal.tensor
    %e1 = aten.add.Scalar %e, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %s = aten.div.Tensor %e, %e1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d = aten.mul.Tensor %grad, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %linear = aten.gt.Scalar %bx, %threshold : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.where.self %linear, %grad, %d : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "log1p(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "log1p" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %d = aten.add.Scalar %self, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %g = aten.div.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // 2 / sqrt(pi) * exp(-x^2)
  opal.def "erf(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "erf" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %k = arith.constant 1.1283791670955126 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %n = aten.neg %x2 : (!opal.tensor) -> !opal.tensor
    %e = aten.exp %n : (!opal.tensor) -> !opal.tensor
    %d = aten.mul.Scalar %e, %k : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad where x > 0, negative_slope * grad elsewhere
  opal.def "leaky_relu(Tensor grad, Tensor self, Scalar negative_slope) -> Tensor self"
  opal.decomposition "leaky_relu" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %negative_slope: f64):
    %zero = arith.constant 0.0 : f64
    %pos = aten.gt.Scalar %self, %zero : (!opal.tensor, f64) -> !opal.tensor
    %scaled = aten.mul.Scalar %grad, %negative_slope : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.where.self %pos, %grad, %scaled : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad inside [min_val, max_val] (PyTorch's hardtanh_backward: 0 at and
  // beyond the bounds)
  opal.def "hardtanh(Tensor grad, Tensor self, Scalar min_val, Scalar max_val) -> Tensor self"
  opal.decomposition "hardtanh" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %min_val: f64, %max_val: f64):
    %zero = arith.constant 0.0 : f64
    %low = aten.le.Scalar %self, %min_val : (!opal.tensor, f64) -> !opal.tensor
    %high = aten.ge.Scalar %self, %max_val : (!opal.tensor, f64) -> !opal.tensor
    %out = aten.logical_or %low, %high : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.masked_fill.Scalar %grad, %out, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad where x > min (PyTorch 2 passes none at the bound)
  opal.def "clamp_min(Tensor grad, Tensor self, Scalar min) -> Tensor self"
  opal.decomposition "clamp_min" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %min: f64):
    %zero = arith.constant 0.0 : f64
    %below = aten.le.Scalar %self, %min : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.masked_fill.Scalar %grad, %below, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "clamp_max(Tensor grad, Tensor self, Scalar max) -> Tensor self"
  opal.decomposition "clamp_max" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %max: f64):
    %zero = arith.constant 0.0 : f64
    %above = aten.ge.Scalar %self, %max : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.masked_fill.Scalar %grad, %above, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sin(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "sin" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %c = aten.cos %self : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %c : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "cos(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "cos" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %s = aten.sin %self : (!opal.tensor) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "abs(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "abs" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %s = aten.sign %self : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "where.self_self(Tensor grad, Tensor condition) -> Tensor"
  opal.decomposition "where.self_self" {
  ^bb0(%grad: !opal.tensor, %condition: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %off = aten.logical_not %condition : (!opal.tensor) -> !opal.tensor
    %g = aten.masked_fill.Scalar %grad, %off, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "where.self_other(Tensor grad, Tensor condition) -> Tensor"
  opal.decomposition "where.self_other" {
  ^bb0(%grad: !opal.tensor, %condition: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %g = aten.masked_fill.Scalar %grad, %condition, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // --- Reductions ------------------------------------------------------------
  opal.def "sum(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "sum" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %g = opal.broadcast_to %grad, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sum.dim_IntList(Tensor grad, Tensor self, int[1]? dim, bool keepdim=False) -> Tensor self"
  opal.decomposition "sum.dim_IntList" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %true = arith.constant true
    %kept = opal.static_if %keepdim -> !opal.tensor {
      opal.yield %grad : !opal.tensor
    } else {
      %k = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %k : !opal.tensor
    }
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %g = opal.broadcast_to %kept, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "mean(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "mean" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %none = opal.none
    %all = opal.normalize_dims %self, %none : !opal.tensor, !opal.none -> !opal.list<i64>
    %n = opal.count %self, %all : !opal.tensor, !opal.list<i64> -> i64
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %e = opal.broadcast_to %grad, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    %g = aten.div.Scalar %e, %n : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "mean.dim(Tensor grad, Tensor self, int[1]? dim, bool keepdim=False) -> Tensor self"
  opal.decomposition "mean.dim" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %true = arith.constant true
    %kept = opal.static_if %keepdim -> !opal.tensor {
      opal.yield %grad : !opal.tensor
    } else {
      %k = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %k : !opal.tensor
    }
    %n = opal.count %self, %dims : !opal.tensor, !opal.list<i64> -> i64
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %e = opal.broadcast_to %kept, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    %g = aten.div.Scalar %e, %n : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // result * (grad - sum(grad * result, dim))
  opal.def "_softmax(Tensor grad, Tensor result, int dim) -> Tensor self"
  opal.decomposition "_softmax" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor, %dim: i64):
    %g = aten_backward.softmax.int %grad, %result, %dim : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "softmax.int(Tensor grad, Tensor result, int dim) -> Tensor self"
  opal.decomposition "softmax.int" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor, %dim: i64):
    %one = arith.constant 1.0 : f64
    %true = arith.constant true
    %none = opal.none
    %d = opal.list %dim : i64 -> !opal.list<i64>
    %gr = aten.mul.Tensor %grad, %result : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %s = aten.sum.dim_IntList %gr, %d, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %c = aten.sub.Tensor %grad, %s, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %g = aten.mul.Tensor %result, %c : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad - exp(result) * sum(grad, dim)
  opal.def "_log_softmax(Tensor grad, Tensor result, int dim) -> Tensor self"
  opal.decomposition "_log_softmax" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor, %dim: i64):
    %g = aten_backward.log_softmax.int %grad, %result, %dim : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "log_softmax.int(Tensor grad, Tensor result, int dim) -> Tensor self"
  opal.decomposition "log_softmax.int" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor, %dim: i64):
    %one = arith.constant 1.0 : f64
    %true = arith.constant true
    %none = opal.none
    %d = opal.list %dim : i64 -> !opal.list<i64>
    %s = aten.sum.dim_IntList %grad, %d, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %e = aten.exp %result : (!opal.tensor) -> !opal.tensor
    %es = aten.mul.Tensor %e, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.sub.Tensor %grad, %es, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // The gradient of the maximum goes to the larger input, half to each on a
  // tie (PyTorch's rule).
  opal.def "maximum(Tensor grad, Tensor self, Tensor other) -> (Tensor self, Tensor other)"
  opal.decomposition "maximum" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %half = arith.constant 0.5 : f64
    %h = aten.mul.Scalar %grad, %half : (!opal.tensor, f64) -> !opal.tensor
    %tie = aten.eq.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %sg = aten.gt.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %og = aten.lt.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gs0 = aten.where.self %tie, %h, %grad : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %gs = aten.masked_fill.Scalar %gs0, %og, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %go = aten.masked_fill.Scalar %gs0, %sg, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %gs, %go : !opal.tensor, !opal.tensor
  }
  opal.def "minimum(Tensor grad, Tensor self, Tensor other) -> (Tensor self, Tensor other)"
  opal.decomposition "minimum" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %half = arith.constant 0.5 : f64
    %h = aten.mul.Scalar %grad, %half : (!opal.tensor, f64) -> !opal.tensor
    %tie = aten.eq.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %sl = aten.lt.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %ol = aten.gt.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gs0 = aten.where.self %tie, %h, %grad : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %gs = aten.masked_fill.Scalar %gs0, %ol, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %go = aten.masked_fill.Scalar %gs0, %sl, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %gs, %go : !opal.tensor, !opal.tensor
  }
  // amax/amin: the gradient shared equally by the elements equal to the
  // result.
  // prod: the product of the others. Without a zero in the reduced
  // slice, result / x; with one, the product of the others at the zero and
  // 0 elsewhere; with more, 0 (PyTorch's rule, without dividing by zero).
  opal.def "prod(Tensor grad, Tensor self, Tensor result) -> Tensor self"
  opal.decomposition "prod" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %result: !opal.tensor):
    %none = opal.none
    %dims = opal.normalize_dims %self, %none : !opal.tensor, !opal.none -> !opal.list<i64>
    %true = arith.constant true
    %zero = arith.constant 0.0 : f64
    %one = arith.constant 1.0 : f64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %int64 = arith.constant 4 : i64
    %gk = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %rk = opal.keep_dims %result, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %zeros = aten.eq.Scalar %self, %zero : (!opal.tensor, f64) -> !opal.tensor
    %count = aten.sum.dim_IntList %zeros, %dims, %true, %int64 : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
    %nonzero = aten.masked_fill.Scalar %self, %zeros, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %pnz0 = aten.prod %nonzero, %none : (!opal.tensor, !opal.none) -> !opal.tensor
    %pnz = opal.keep_dims %pnz0, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %others = opal.broadcast_to %pnz, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    %one_zero = aten.eq.Scalar %count, %c1 : (!opal.tensor, i64) -> !opal.tensor
    %at_zero = aten.logical_and %one_zero, %zeros : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %elsewhere = aten.logical_not %at_zero : (!opal.tensor) -> !opal.tensor
    %inner = aten.masked_fill.Scalar %others, %elsewhere, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %quotient = aten.div.Tensor %rk, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %no_zero = aten.eq.Scalar %count, %c0 : (!opal.tensor, i64) -> !opal.tensor
    %value = aten.where.self %no_zero, %quotient, %inner : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %gk, %value : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "prod.dim_int(Tensor grad, Tensor self, Tensor result, int dim, bool keepdim) -> Tensor self"
  opal.decomposition "prod.dim_int" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %result: !opal.tensor, %dim: i64, %keepdim: i1):
    %none = opal.none
    %dim_list = opal.list %dim : i64 -> !opal.list<i64>
    %dims = opal.normalize_dims %self, %dim_list : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %true = arith.constant true
    %zero = arith.constant 0.0 : f64
    %one = arith.constant 1.0 : f64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %int64 = arith.constant 4 : i64
    %gk, %rk = opal.static_if %keepdim -> !opal.tensor, !opal.tensor {
      opal.yield %grad, %result : !opal.tensor, !opal.tensor
    } else {
      %a = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %b = opal.keep_dims %result, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %a, %b : !opal.tensor, !opal.tensor
    }
    %zeros = aten.eq.Scalar %self, %zero : (!opal.tensor, f64) -> !opal.tensor
    %count = aten.sum.dim_IntList %zeros, %dims, %true, %int64 : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
    %nonzero = aten.masked_fill.Scalar %self, %zeros, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %pnz = aten.prod.dim_int %nonzero, %dim, %true, %none : (!opal.tensor, i64, i1, !opal.none) -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %others = opal.broadcast_to %pnz, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    %one_zero = aten.eq.Scalar %count, %c1 : (!opal.tensor, i64) -> !opal.tensor
    %at_zero = aten.logical_and %one_zero, %zeros : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %elsewhere = aten.logical_not %at_zero : (!opal.tensor) -> !opal.tensor
    %inner = aten.masked_fill.Scalar %others, %elsewhere, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %quotient = aten.div.Tensor %rk, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %no_zero = aten.eq.Scalar %count, %c0 : (!opal.tensor, i64) -> !opal.tensor
    %value = aten.where.self %no_zero, %quotient, %inner : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %gk, %value : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "amax(Tensor grad, Tensor self, Tensor result, int[1] dim, bool keepdim) -> Tensor self"
  opal.decomposition "amax" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %result: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %g = aten_backward.amin %grad, %self, %result, %dim, %keepdim : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, i1) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "amin(Tensor grad, Tensor self, Tensor result, int[1] dim, bool keepdim) -> Tensor self"
  opal.decomposition "amin" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %result: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %none = opal.none
    %true = arith.constant true
    %zero = arith.constant 0.0 : f64
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %gk, %rk = opal.static_if %keepdim -> !opal.tensor, !opal.tensor {
      opal.yield %grad, %result : !opal.tensor, !opal.tensor
    } else {
      %a = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %b = opal.keep_dims %result, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %a, %b : !opal.tensor, !opal.tensor
    }
    %hit = aten.eq.Tensor %self, %rk : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %f64 = arith.constant 7 : i64
    %count = aten.sum.dim_IntList %hit, %dims, %true, %f64 : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
    %share = aten.div.Tensor %gk, %count : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %miss = aten.logical_not %hit : (!opal.tensor) -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %spread = opal.broadcast_to %share, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    %g = aten.masked_fill.Scalar %spread, %miss, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // max.dim/min.dim: the gradient of each value goes to its index.
  opal.def "max.dim(Tensor grad_values, Tensor self, int dim, bool keepdim, Tensor indices) -> Tensor self"
  opal.decomposition "max.dim" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %keepdim: i1, %indices: !opal.tensor):
    %g = aten_backward.min.dim %grad, %self, %dim, %keepdim, %indices : (!opal.tensor, !opal.tensor, i64, i1, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "min.dim(Tensor grad_values, Tensor self, int dim, bool keepdim, Tensor indices) -> Tensor self"
  opal.decomposition "min.dim" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %keepdim: i1, %indices: !opal.tensor):
    %none = opal.none
    %gk, %ik = opal.static_if %keepdim -> !opal.tensor, !opal.tensor {
      opal.yield %grad, %indices : !opal.tensor, !opal.tensor
    } else {
      %a = aten.unsqueeze %grad, %dim : (!opal.tensor, i64) -> !opal.tensor
      %b = aten.unsqueeze %indices, %dim : (!opal.tensor, i64) -> !opal.tensor
      opal.yield %a, %b : !opal.tensor, !opal.tensor
    }
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.scatter.src %z, %dim, %ik, %gk : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // 2 / (N - correction) * grad * (x - mean)
  opal.def "var.correction(Tensor grad, Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor self"
  opal.decomposition "var.correction" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: !opal.list<i64>, %correction: f64, %keepdim: i1):
    %none = opal.none
    %true = arith.constant true
    %one = arith.constant 1.0 : f64
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %gk = opal.static_if %keepdim -> !opal.tensor {
      opal.yield %grad : !opal.tensor
    } else {
      %a = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %a : !opal.tensor
    }
    %n = opal.count %self, %dims : !opal.tensor, !opal.list<i64> -> i64
    %mean = aten.mean.dim %self, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %xc = aten.sub.Tensor %self, %mean, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %p = aten.mul.Tensor %gk, %xc : (!opal.tensor, !opal.tensor) -> !opal.tensor
    // 2 / (N - correction) in the gradient's dtype (the correction a Scalar).
    %no_correction = opal.is_none %correction : f64 -> i1
    %ct = opal.static_if %no_correction -> !opal.tensor {
      %c1 = arith.constant 1 : i64
      %p1, %t1 = opal.promote %p, %c1 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
      opal.yield %t1 : !opal.tensor
    } else {
      %p2, %t2 = opal.promote %p, %correction : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
      opal.yield %t2 : !opal.tensor
    }
    %two = arith.constant 2.0 : f64
    %pn, %nt, %tt = opal.promote %p, %n, %two : !opal.tensor, i64, f64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %nc = prims.sub %nt, %ct : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %factor = prims.div %tt, %nc : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %pb, %fb = opal.broadcast_tensors %pn, %factor : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %g = prims.mul %pb, %fb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // var's gradient of grad / (2 std)
  opal.def "std.correction(Tensor grad, Tensor self, Tensor result, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor self"
  opal.decomposition "std.correction" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %result: !opal.tensor, %dim: !opal.list<i64>, %correction: f64, %keepdim: i1):
    %two = arith.constant 2.0 : f64
    %d = aten.mul.Scalar %result, %two : (!opal.tensor, f64) -> !opal.tensor
    %gv = aten.div.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten_backward.var.correction %gv, %self, %dim, %correction, %keepdim : (!opal.tensor, !opal.tensor, !opal.list<i64>, f64, i1) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // The sums of the gradient from each position to the end.
  opal.def "cumsum(Tensor grad, int dim) -> Tensor self"
  opal.decomposition "cumsum" {
  ^bb0(%grad: !opal.tensor, %dim: i64):
    %none = opal.none
    %d = opal.list %dim : i64 -> !opal.list<i64>
    %f = aten.flip %grad, %d : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %c = aten.cumsum %f, %dim, %none : (!opal.tensor, i64, !opal.none) -> !opal.tensor
    %g = aten.flip %c, %d : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // Each gathered element's gradient added back at its index.
  opal.def "gather(Tensor grad, Tensor self, int dim, Tensor index) -> Tensor self"
  opal.decomposition "gather" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %index: !opal.tensor):
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.scatter_add %z, %dim, %index, %grad : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // Each looked-up row's gradient added to its row of the table (rows of
  // padding_idx get none), by a scatter_add over the flattened lookups.
  opal.def "embedding(Tensor grad, Tensor weight, Tensor indices, int padding_idx, bool scale_grad_by_freq) -> Tensor weight"
  opal.decomposition "embedding" {
  ^bb0(%grad: !opal.tensor, %weight: !opal.tensor, %indices: !opal.tensor, %padding_idx: i64, %scale_grad_by_freq: i1):
    %true = arith.constant true
    %by_count = arith.xori %scale_grad_by_freq, %true : i1
    opal.check %by_count, "embedding: the derivative with scale_grad_by_freq=True is not implemented yet"
    %none = opal.none
    %zero = arith.constant 0.0 : f64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %m1 = arith.constant -1 : i64
    %pad = aten.eq.Scalar %indices, %padding_idx : (!opal.tensor, i64) -> !opal.tensor
    %padu = aten.unsqueeze %pad, %m1 : (!opal.tensor, i64) -> !opal.tensor
    %g = aten.masked_fill.Scalar %grad, %padu, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %d = opal.dim_size %weight, 1 : !opal.tensor -> i64
    %rows = opal.list %m1, %d : i64, i64 -> !opal.list<i64>
    %g2 = aten.reshape %g, %rows : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %column = opal.list %m1, %c1 : i64, i64 -> !opal.list<i64>
    %i2 = aten.reshape %indices, %column : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %false = arith.constant false
    %ie = aten.expand %i2, %rows, %false : (!opal.tensor, !opal.list<i64>, i1) -> !opal.tensor
    %z = aten.zeros_like %weight, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %r = aten.scatter_add %z, %c0, %ie, %g2 : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // batch norm over the dims but the channels (1): in training, with the
  // batch's statistics (results 1 and 2: mean and 1/std per channel), the
  // layer-norm rule; in evaluation, with the running ones, a scaling.
  // weight: sum(grad * xhat) and bias: sum(grad) per channel.
  opal.def "native_batch_norm(Tensor grad0, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, bool training, float eps, Tensor result1, Tensor result2) -> (Tensor input, Tensor weight, Tensor bias)"
  opal.decomposition "native_batch_norm" {
  ^bb0(%grad: !opal.tensor, %input: !opal.tensor, %weight: !opal.tensor, %running_mean: !opal.tensor, %running_var: !opal.tensor, %training: i1, %eps: f64, %save_mean: !opal.tensor, %save_invstd: !opal.tensor):
    %none = opal.none
    %true = arith.constant true
    %false = arith.constant false
    %one = arith.constant 1.0 : f64
    %dims = opal.dims_except %input, 1 : !opal.tensor -> !opal.list<i64>
    %mean, %invstd = opal.static_if %training -> !opal.tensor, !opal.tensor {
      %m = opal.keep_dims %save_mean, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %i = opal.keep_dims %save_invstd, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %m, %i : !opal.tensor, !opal.tensor
    } else {
      %m = opal.keep_dims %running_mean, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %v = opal.keep_dims %running_var, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %ve = aten.add.Scalar %v, %eps, %one : (!opal.tensor, f64, f64) -> !opal.tensor
      %i = aten.rsqrt %ve : (!opal.tensor) -> !opal.tensor
      opal.yield %m, %i : !opal.tensor, !opal.tensor
    }
    %xc = aten.sub.Tensor %input, %mean, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %xhat = aten.mul.Tensor %xc, %invstd : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %no_weight = opal.is_none %weight : !opal.tensor -> i1
    %gw = opal.static_if %no_weight -> !opal.tensor {
      opal.yield %grad : !opal.tensor
    } else {
      %w = opal.keep_dims %weight, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %m = aten.mul.Tensor %grad, %w : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %m : !opal.tensor
    }
    %gi = opal.static_if %training -> !opal.tensor {
      %m1 = aten.mean.dim %gw, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
      %gx = aten.mul.Tensor %gw, %xhat : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %m2 = aten.mean.dim %gx, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
      %a = aten.sub.Tensor %gw, %m1, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
      %b = aten.mul.Tensor %xhat, %m2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %c = aten.sub.Tensor %a, %b, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
      %r = aten.mul.Tensor %c, %invstd : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %r : !opal.tensor
    } else {
      %r = aten.mul.Tensor %gw, %invstd : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %r : !opal.tensor
    }
    %gxh = aten.mul.Tensor %grad, %xhat : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gwt = aten.sum.dim_IntList %gxh, %dims, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %gb = aten.sum.dim_IntList %grad, %dims, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    opal.yield %gi, %gwt, %gb : !opal.tensor, !opal.tensor, !opal.tensor
  }
  // layer norm: with xhat = (x - mean) * rstd and gw = grad * weight,
  // input: rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) over the
  // normalized dims; weight: grad * xhat and bias: grad, whose batch dims
  // the engine sums.
  opal.def "native_layer_norm(Tensor grad0, Tensor input, int[] normalized_shape, Tensor? weight, Tensor result1, Tensor result2) -> (Tensor input, Tensor weight, Tensor bias)"
  opal.decomposition "native_layer_norm" {
  ^bb0(%grad: !opal.tensor, %input: !opal.tensor, %normalized_shape: !opal.list<i64>, %weight: !opal.tensor, %mean: !opal.tensor, %rstd: !opal.tensor):
    %none = opal.none
    %true = arith.constant true
    %one = arith.constant 1.0 : f64
    %dims = opal.trailing_dims %input, %normalized_shape : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %xc = aten.sub.Tensor %input, %mean, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %xhat = aten.mul.Tensor %xc, %rstd : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %no_weight = opal.is_none %weight : !opal.tensor -> i1
    %gw = opal.static_if %no_weight -> !opal.tensor {
      opal.yield %grad : !opal.tensor
    } else {
      %m = aten.mul.Tensor %grad, %weight : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %m : !opal.tensor
    }
    %m1 = aten.mean.dim %gw, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %gx = aten.mul.Tensor %gw, %xhat : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %m2 = aten.mean.dim %gx, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %a = aten.sub.Tensor %gw, %m1, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %b = aten.mul.Tensor %xhat, %m2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %c = aten.sub.Tensor %a, %b, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %gi = aten.mul.Tensor %c, %rstd : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gwt = aten.mul.Tensor %grad, %xhat : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %gi, %gwt, %grad : !opal.tensor, !opal.tensor, !opal.tensor
  }

  // group norm: layer norm's rule within each of the N x group groups of
  // C / group channels x HxW (results 1 and 2: their mean and 1/std);
  // weight: sum(grad * xhat) and bias: sum(grad) per channel.
  opal.def "native_group_norm(Tensor grad0, Tensor input, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, Tensor result1, Tensor result2) -> (Tensor input, Tensor weight, Tensor bias)"
  opal.decomposition "native_group_norm" {
  ^bb0(%grad: !opal.tensor, %input: !opal.tensor, %weight: !opal.tensor, %n: i64, %c: i64, %hxw: i64, %group: i64, %mean: !opal.tensor, %rstd: !opal.tensor):
    %none = opal.none
    %true = arith.constant true
    %false = arith.constant false
    %one = arith.constant 1.0 : f64
    %c2 = arith.constant 2 : i64
    %per_group = arith.divsi %c, %group : i64
    %per = arith.muli %per_group, %hxw : i64
    %grouped = opal.list %n, %group, %per : i64, i64, i64 -> !opal.list<i64>
    %last = opal.list %c2 : i64 -> !opal.list<i64>
    %shape = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %dims = opal.dims_except %input, 1 : !opal.tensor -> !opal.list<i64>
    %x = aten.reshape %input, %grouped : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %m = opal.keep_dims %mean, %last, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %r = opal.keep_dims %rstd, %last, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %xc = aten.sub.Tensor %x, %m, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %xhat = aten.mul.Tensor %xc, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %no_weight = opal.is_none %weight : !opal.tensor -> i1
    %gw_full = opal.static_if %no_weight -> !opal.tensor {
      opal.yield %grad : !opal.tensor
    } else {
      %w = opal.keep_dims %weight, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %p = aten.mul.Tensor %grad, %w : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %p : !opal.tensor
    }
    %gw = aten.reshape %gw_full, %grouped : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %m1 = aten.mean.dim %gw, %last, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %gx = aten.mul.Tensor %gw, %xhat : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %m2 = aten.mean.dim %gx, %last, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %a = aten.sub.Tensor %gw, %m1, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %b = aten.mul.Tensor %xhat, %m2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d = aten.sub.Tensor %a, %b, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %gi3 = aten.mul.Tensor %d, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gi = aten.reshape %gi3, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %xhat_full = aten.reshape %xhat, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %gxh = aten.mul.Tensor %grad, %xhat_full : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gwt = aten.sum.dim_IntList %gxh, %dims, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %gb = aten.sum.dim_IntList %grad, %dims, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    opal.yield %gi, %gwt, %gb : !opal.tensor, !opal.tensor, !opal.tensor
  }

  // fmod and remainder: the gradient passes to self; other's is -grad times
  // the quotient rounded toward zero (fmod) or down (remainder).
  opal.def "fmod.Tensor_self(Tensor grad) -> Tensor"
  opal.decomposition "fmod.Tensor_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "fmod.Tensor_other(Tensor grad, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "fmod.Tensor_other" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %mode = opal.str "trunc"
    %q = aten.div.Tensor_mode %self, %other, %mode : (!opal.tensor, !opal.tensor, !opal.str) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %q : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "fmod.Scalar_self(Tensor grad) -> Tensor"
  opal.decomposition "fmod.Scalar_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "remainder.Tensor_self(Tensor grad) -> Tensor"
  opal.decomposition "remainder.Tensor_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "remainder.Tensor_other(Tensor grad, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "remainder.Tensor_other" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %mode = opal.str "floor"
    %q = aten.div.Tensor_mode %self, %other, %mode : (!opal.tensor, !opal.tensor, !opal.str) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %q : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "remainder.Scalar_self(Tensor grad) -> Tensor"
  opal.decomposition "remainder.Scalar_self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  // Padding and repeating: native kernels (DerivativeKernels.cpp) that pad
  // the gradient back by the negated padding, or sum its repeated tiles.
  opal.def "constant_pad_nd(Tensor grad, int[] pad) -> Tensor self"
  // Reflection and replication pads: native kernels that run the pad on
  // the plane of the input's indices (which input element each output
  // element copies) and scatter-add the gradient back there.
  opal.def "reflection_pad1d(Tensor grad, Tensor self, int[2] padding) -> Tensor self"
  opal.def "reflection_pad2d(Tensor grad, Tensor self, int[4] padding) -> Tensor self"
  opal.def "reflection_pad3d(Tensor grad, Tensor self, int[6] padding) -> Tensor self"
  opal.def "replication_pad1d(Tensor grad, Tensor self, int[2] padding) -> Tensor self"
  opal.def "replication_pad2d(Tensor grad, Tensor self, int[4] padding) -> Tensor self"
  opal.def "replication_pad3d(Tensor grad, Tensor self, int[6] padding) -> Tensor self"
  opal.def "repeat(Tensor grad, Tensor self, int[] repeats) -> Tensor self"

  // --- More elementwise, piecewise and selecting ops ---------------------
  // grad * (1 + tan(x)^2)
  opal.def "tan(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "tan" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %r2 = aten.mul.Tensor %result, %result : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d = aten.add.Scalar %r2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / sqrt(1 - x^2)
  opal.def "asin(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "asin" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %u = aten.rsub.Scalar %x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %r = aten.rsqrt %u : (!opal.tensor) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %p : !opal.tensor
  }
  // -grad / sqrt(1 - x^2)
  opal.def "acos(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "acos" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %u = aten.rsub.Scalar %x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %r = aten.rsqrt %u : (!opal.tensor) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / (1 + x^2)
  opal.def "atan(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "atan" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %u = aten.add.Scalar %x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %g = aten.div.Tensor %grad, %u : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sinh(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "sinh" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %c = aten.cosh %self : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %c : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "cosh(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "cosh" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %s = aten.sinh %self : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / sqrt(x^2 + 1)
  opal.def "asinh(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "asinh" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %u = aten.add.Scalar %x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %r = aten.rsqrt %u : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / sqrt(x^2 - 1)
  opal.def "acosh(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "acosh" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %u = aten.sub.Scalar %x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %r = aten.rsqrt %u : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / (1 - x^2)
  opal.def "atanh(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "atanh" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %x2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %u = aten.rsub.Scalar %x2, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %g = aten.div.Tensor %grad, %u : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad * (result + 1)
  opal.def "expm1(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "expm1" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %u = aten.add.Scalar %result, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %u : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / (x ln 2)
  opal.def "log2(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "log2" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %k = arith.constant 0.6931471805599453 : f64
    %d = aten.mul.Scalar %self, %k : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.div.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / (x ln 10)
  opal.def "log10(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "log10" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %k = arith.constant 2.302585092994046 : f64
    %d = aten.mul.Scalar %self, %k : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.div.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // -grad * result^2
  opal.def "reciprocal(Tensor grad, Tensor result) -> Tensor self"
  opal.decomposition "reciprocal" {
  ^bb0(%grad: !opal.tensor, %result: !opal.tensor):
    %r2 = aten.mul.Tensor %result, %result : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %p = aten.mul.Tensor %grad, %r2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.neg %p : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // piecewise constant: zero (PyTorch's zeros_like(grad))
  opal.def "floor(Tensor grad) -> Tensor self"
  opal.decomposition "floor" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "ceil(Tensor grad) -> Tensor self"
  opal.decomposition "ceil" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "round(Tensor grad) -> Tensor self"
  opal.decomposition "round" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "trunc(Tensor grad) -> Tensor self"
  opal.decomposition "trunc" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sign(Tensor grad) -> Tensor self"
  opal.decomposition "sign" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad * scale where x > 0, grad * scale * alpha * input_scale * exp(x * input_scale) elsewhere
  opal.def "elu(Tensor grad, Tensor self, Scalar alpha, Scalar scale, Scalar input_scale) -> Tensor self"
  opal.decomposition "elu" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %alpha: f64, %scale: f64, %input_scale: f64):
    %zero = arith.constant 0.0 : f64
    %pos = aten.gt.Scalar %self, %zero : (!opal.tensor, f64) -> !opal.tensor
    %gs = aten.mul.Scalar %grad, %scale : (!opal.tensor, f64) -> !opal.tensor
    %xs = aten.mul.Scalar %self, %input_scale : (!opal.tensor, f64) -> !opal.tensor
    %e = aten.exp %xs : (!opal.tensor) -> !opal.tensor
    %a = aten.mul.Scalar %e, %alpha : (!opal.tensor, f64) -> !opal.tensor
    %b = aten.mul.Scalar %a, %input_scale : (!opal.tensor, f64) -> !opal.tensor
    %n = aten.mul.Tensor %gs, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.where.self %pos, %gs, %n : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad / 6 inside (-3, 3), 0 outside (1/6 rounded to float, as PyTorch's
  // kernel writes it)
  opal.def "hardsigmoid(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "hardsigmoid" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %three = arith.constant 3.0 : f64
    %mthree = arith.constant -3.0 : f64
    %sixth = arith.constant 0.1666666716337204 : f64
    %low = aten.le.Scalar %self, %mthree : (!opal.tensor, f64) -> !opal.tensor
    %high = aten.ge.Scalar %self, %three : (!opal.tensor, f64) -> !opal.tensor
    %out = aten.logical_or %low, %high : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %s = aten.mul.Scalar %grad, %sixth : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.masked_fill.Scalar %s, %out, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // 0 below -3, grad * (x / 3 + 1/2) up to 3, grad above (PyTorch's hardswish_backward)
  opal.def "hardswish(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "hardswish" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %half = arith.constant 0.5 : f64
    %third = arith.constant 0.3333333333333333 : f64
    %three = arith.constant 3.0 : f64
    %mthree = arith.constant -3.0 : f64
    %one = arith.constant 1.0 : f64
    %x3 = aten.mul.Scalar %self, %third : (!opal.tensor, f64) -> !opal.tensor
    %d = aten.add.Scalar %x3, %half, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %mid = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %high = aten.gt.Scalar %self, %three : (!opal.tensor, f64) -> !opal.tensor
    %upper = aten.where.self %high, %grad, %mid : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %low = aten.lt.Scalar %self, %mthree : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.masked_fill.Scalar %upper, %low, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad inside (min, max) (PyTorch 2 excludes the bounds)
  opal.def "clamp(Tensor grad, Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor self"
  opal.decomposition "clamp" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %min: f64, %max: f64):
    %zero = arith.constant 0.0 : f64
    %no_min = opal.is_none %min : f64 -> i1
    %g1 = opal.static_if %no_min -> !opal.tensor {
    opal.yield %grad : !opal.tensor
    } else {
    %below = aten.le.Scalar %self, %min : (!opal.tensor, f64) -> !opal.tensor
    %m = aten.masked_fill.Scalar %grad, %below, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %m : !opal.tensor
    }
    %no_max = opal.is_none %max : f64 -> i1
    %g = opal.static_if %no_max -> !opal.tensor {
    opal.yield %g1 : !opal.tensor
    } else {
    %above = aten.ge.Scalar %self, %max : (!opal.tensor, f64) -> !opal.tensor
    %m = aten.masked_fill.Scalar %g1, %above, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %m : !opal.tensor
    }
    opal.yield %g : !opal.tensor
  }
  // clamp with tensor bounds (PyTorch's clamp_backward_min_max): self's
  // gradient where min <= x <= max; min's where x < min (and min < max);
  // max's where x > max, or everywhere max < min (the result is max there).
  opal.def "clamp.Tensor(Tensor grad, Tensor self, Tensor? min, Tensor? max) -> (Tensor self, Tensor min, Tensor max)"
  opal.decomposition "clamp.Tensor" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %min: !opal.tensor, %max: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %no_min = opal.is_none %min : !opal.tensor -> i1
    %no_max = opal.is_none %max : !opal.tensor -> i1
    %zeros = aten.mul.Scalar %grad, %zero : (!opal.tensor, f64) -> !opal.tensor
    %gs, %gmin, %gmax = opal.static_if %no_min -> !opal.tensor, !opal.tensor, !opal.tensor {
      %le = aten.le.Tensor %self, %max : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %s = aten.where.self %le, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      %gt = aten.gt.Tensor %self, %max : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %x = aten.where.self %gt, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %s, %zeros, %x : !opal.tensor, !opal.tensor, !opal.tensor
    } else {
      %r:3 = opal.static_if %no_max -> !opal.tensor, !opal.tensor, !opal.tensor {
        %ge = aten.ge.Tensor %self, %min : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %s = aten.where.self %ge, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
        %lt = aten.lt.Tensor %self, %min : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %n = aten.where.self %lt, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %s, %n, %zeros : !opal.tensor, !opal.tensor, !opal.tensor
      } else {
        %ge = aten.ge.Tensor %self, %min : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %le = aten.le.Tensor %self, %max : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %inside = aten.logical_and %ge, %le : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %s = aten.where.self %inside, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
        %lt = aten.lt.Tensor %self, %min : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %ordered = aten.lt.Tensor %min, %max : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %below = aten.logical_and %lt, %ordered : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %n = aten.where.self %below, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
        %gt = aten.gt.Tensor %self, %max : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %crossed = aten.lt.Tensor %max, %min : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %above = aten.logical_or %gt, %crossed : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %x = aten.where.self %above, %grad, %zeros : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %s, %n, %x : !opal.tensor, !opal.tensor, !opal.tensor
      }
      opal.yield %r#0, %r#1, %r#2 : !opal.tensor, !opal.tensor, !opal.tensor
    }
    opal.yield %gs, %gmin, %gmax : !opal.tensor, !opal.tensor, !opal.tensor
  }
  // the filled elements get no gradient
  opal.def "masked_fill.Scalar_self(Tensor grad, Tensor mask) -> Tensor"
  opal.decomposition "masked_fill.Scalar_self" {
  ^bb0(%grad: !opal.tensor, %mask: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %g = aten.masked_fill.Scalar %grad, %mask, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "tril(Tensor grad, int diagonal) -> Tensor self"
  opal.decomposition "tril" {
  ^bb0(%grad: !opal.tensor, %diagonal: i64):
    %g = aten.tril %grad, %diagonal : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "triu(Tensor grad, int diagonal) -> Tensor self"
  opal.decomposition "triu" {
  ^bb0(%grad: !opal.tensor, %diagonal: i64):
    %g = aten.triu %grad, %diagonal : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "flip(Tensor grad, int[] dims) -> Tensor self"
  opal.decomposition "flip" {
  ^bb0(%grad: !opal.tensor, %dims: !opal.list<i64>):
    %g = aten.flip %grad, %dims : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // grad * exp(x - result): softmax's weights
  opal.def "logsumexp(Tensor grad, Tensor self, Tensor result, int[1] dim, bool keepdim) -> Tensor self"
  opal.decomposition "logsumexp" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %result: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %true = arith.constant true
    %one = arith.constant 1.0 : f64
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %gk, %rk = opal.static_if %keepdim -> !opal.tensor, !opal.tensor {
    opal.yield %grad, %result : !opal.tensor, !opal.tensor
    } else {
    %a = opal.keep_dims %grad, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %b = opal.keep_dims %result, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %a, %b : !opal.tensor, !opal.tensor
    }
    %d = aten.sub.Tensor %self, %rk, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %e = aten.exp %d : (!opal.tensor) -> !opal.tensor
    %g = aten.mul.Tensor %gk, %e : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // self: grad * exponent * self^(exponent - 1) (0 where the exponent is 0); exponent: grad * result * log(self) (0 where self is 0 and the exponent is not negative)
  opal.def "pow.Tensor_Tensor(Tensor grad, Tensor self, Tensor exponent, Tensor result) -> (Tensor self, Tensor exponent)"
  opal.decomposition "pow.Tensor_Tensor" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %exponent: !opal.tensor, %result: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %one = arith.constant 1.0 : f64
    %em1 = aten.sub.Scalar %exponent, %one, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %p = aten.pow.Tensor_Tensor %self, %em1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d = aten.mul.Tensor %p, %exponent : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %e0 = aten.eq.Scalar %exponent, %zero : (!opal.tensor, f64) -> !opal.tensor
    %dz = aten.masked_fill.Scalar %d, %e0, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %gs = aten.mul.Tensor %grad, %dz : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %l = aten.log %self : (!opal.tensor) -> !opal.tensor
    %rl = aten.mul.Tensor %result, %l : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %s0 = aten.eq.Scalar %self, %zero : (!opal.tensor, f64) -> !opal.tensor
    %epos = aten.ge.Scalar %exponent, %zero : (!opal.tensor, f64) -> !opal.tensor
    %both = aten.logical_and %s0, %epos : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %rz = aten.masked_fill.Scalar %rl, %both, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %ge = aten.mul.Tensor %grad, %rz : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %gs, %ge : !opal.tensor, !opal.tensor
  }
  // self: grad * other / (self^2 + other^2); other: -grad * self / (self^2 + other^2)
  opal.def "atan2(Tensor grad, Tensor self, Tensor other) -> (Tensor self, Tensor other)"
  opal.decomposition "atan2" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %one = arith.constant 1.0 : f64
    %s2 = aten.mul.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %o2 = aten.mul.Tensor %other, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %den = aten.add.Tensor %s2, %o2, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    %q = aten.div.Tensor %grad, %den : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %gs = aten.mul.Tensor %q, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %go0 = aten.mul.Tensor %q, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %go = aten.neg %go0 : (!opal.tensor) -> !opal.tensor
    opal.yield %gs, %go : !opal.tensor, !opal.tensor
  }
  // each value's gradient goes back to where it came from
  opal.def "sort(Tensor grad_values, Tensor self, int dim, Tensor indices) -> Tensor self"
  opal.decomposition "sort" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %indices: !opal.tensor):
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.scatter.src %z, %dim, %indices, %grad : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "sort.stable(Tensor grad_values, Tensor self, int dim, Tensor indices) -> Tensor self"
  opal.decomposition "sort.stable" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %indices: !opal.tensor):
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.scatter.src %z, %dim, %indices, %grad : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "topk(Tensor grad_values, Tensor self, int dim, Tensor indices) -> Tensor self"
  opal.decomposition "topk" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %indices: !opal.tensor):
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.scatter.src %z, %dim, %indices, %grad : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // scatter_add: self's gradient is grad, src's the gradient at the indices it was added to
  opal.def "scatter_add.self(Tensor grad) -> Tensor"
  opal.decomposition "scatter_add.self" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "scatter_add.src(Tensor grad, int dim, Tensor index) -> Tensor"
  opal.decomposition "scatter_add.src" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %index: !opal.tensor):
    %false = arith.constant false
    %g = aten.gather %grad, %dim, %index, %false : (!opal.tensor, i64, !opal.tensor, i1) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // scatter: the overwritten elements of self get no gradient; src gets the gradient at its indices
  opal.def "scatter.src_self(Tensor grad, int dim, Tensor index) -> Tensor"
  opal.decomposition "scatter.src_self" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %index: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %g = aten.scatter.value %grad, %dim, %index, %zero : (!opal.tensor, i64, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "scatter.src_src(Tensor grad, int dim, Tensor index) -> Tensor"
  opal.decomposition "scatter.src_src" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %index: !opal.tensor):
    %false = arith.constant false
    %g = aten.gather %grad, %dim, %index, %false : (!opal.tensor, i64, !opal.tensor, i1) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // --- Matrix products: one formula per input, so an input that needs no
  // gradient costs no product.
  opal.def "mm.self(Tensor grad, Tensor mat2) -> Tensor"
  opal.decomposition "mm.self" {
  ^bb0(%grad: !opal.tensor, %mat2: !opal.tensor):
    %t = aten.t %mat2 : (!opal.tensor) -> !opal.tensor
    %g = aten.mm %grad, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "mm.mat2(Tensor grad, Tensor self) -> Tensor"
  opal.decomposition "mm.mat2" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %t = aten.t %self : (!opal.tensor) -> !opal.tensor
    %g = aten.mm %t, %grad : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "bmm.self(Tensor grad, Tensor mat2) -> Tensor"
  opal.decomposition "bmm.self" {
  ^bb0(%grad: !opal.tensor, %mat2: !opal.tensor):
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %t = aten.transpose.int %mat2, %c1, %c2 : (!opal.tensor, i64, i64) -> !opal.tensor
    %g = aten.bmm %grad, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "bmm.mat2(Tensor grad, Tensor self) -> Tensor"
  opal.decomposition "bmm.mat2" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %t = aten.transpose.int %self, %c1, %c2 : (!opal.tensor, i64, i64) -> !opal.tensor
    %g = aten.bmm %t, %grad : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "addmm.self(Tensor grad, Scalar beta) -> Tensor"
  opal.decomposition "addmm.self" {
  ^bb0(%grad: !opal.tensor, %beta: f64):
    %g = aten.mul.Scalar %grad, %beta : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "addmm.mat1(Tensor grad, Tensor mat2, Scalar alpha) -> Tensor"
  opal.decomposition "addmm.mat1" {
  ^bb0(%grad: !opal.tensor, %mat2: !opal.tensor, %alpha: f64):
    %t = aten.t %mat2 : (!opal.tensor) -> !opal.tensor
    %p = aten.mm %grad, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Scalar %p, %alpha : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "addmm.mat2(Tensor grad, Tensor mat1, Scalar alpha) -> Tensor"
  opal.decomposition "addmm.mat2" {
  ^bb0(%grad: !opal.tensor, %mat1: !opal.tensor, %alpha: f64):
    %t = aten.t %mat1 : (!opal.tensor) -> !opal.tensor
    %p = aten.mm %t, %grad : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Scalar %p, %alpha : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // linear(input, weight, bias) = input @ weight.T + bias. The weight's
  // gradient comes out with input's batch dims in front, which the engine
  // sums away.
  opal.def "linear.input(Tensor grad, Tensor weight) -> Tensor"
  opal.decomposition "linear.input" {
  ^bb0(%grad: !opal.tensor, %weight: !opal.tensor):
    %g = aten.matmul %grad, %weight : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "linear.weight(Tensor grad, Tensor input) -> Tensor"
  opal.decomposition "linear.weight" {
  ^bb0(%grad: !opal.tensor, %input: !opal.tensor):
    %vector = opal.has_rank %input, 1 : !opal.tensor -> i1
    %g = opal.static_if %vector -> !opal.tensor {
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %gc = aten.unsqueeze %grad, %c1 : (!opal.tensor, i64) -> !opal.tensor
      %ir = aten.unsqueeze %input, %c0 : (!opal.tensor, i64) -> !opal.tensor
      %o = aten.mul.Tensor %gc, %ir : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %o : !opal.tensor
    } else {
      %m1 = arith.constant -1 : i64
      %m2 = arith.constant -2 : i64
      %gt = aten.transpose.int %grad, %m1, %m2 : (!opal.tensor, i64, i64) -> !opal.tensor
      %o = aten.matmul %gt, %input : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %o : !opal.tensor
    }
    opal.yield %g : !opal.tensor
  }
  opal.def "linear.bias(Tensor grad) -> Tensor"
  opal.decomposition "linear.bias" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  // matmul by the ranks of its operands: a 1-d operand was unsqueezed and
  // its new dim squeezed from the product; broadcast batch dims are summed
  // by the engine.
  opal.def "matmul.self(Tensor grad, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "matmul.self" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %m1 = arith.constant -1 : i64
    %m2 = arith.constant -2 : i64
    %sv = opal.has_rank %self, 1 : !opal.tensor -> i1
    %ov = opal.has_rank %other, 1 : !opal.tensor -> i1
    %g = opal.static_if %ov -> !opal.tensor {
      // grad has self's shape without its last dim: outer product with other.
      %gu = aten.unsqueeze %grad, %m1 : (!opal.tensor, i64) -> !opal.tensor
      %o = aten.mul.Tensor %gu, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %o : !opal.tensor
    } else {
      %ot = aten.transpose.int %other, %m1, %m2 : (!opal.tensor, i64, i64) -> !opal.tensor
      %r = opal.static_if %sv -> !opal.tensor {
        %gu = aten.unsqueeze %grad, %m2 : (!opal.tensor, i64) -> !opal.tensor
        %p = aten.matmul %gu, %ot : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %s = aten.squeeze.dim %p, %m2 : (!opal.tensor, i64) -> !opal.tensor
        opal.yield %s : !opal.tensor
      } else {
        %p = aten.matmul %grad, %ot : (!opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %p : !opal.tensor
      }
      opal.yield %r : !opal.tensor
    }
    opal.yield %g : !opal.tensor
  }
  opal.def "matmul.other(Tensor grad, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "matmul.other" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    %m1 = arith.constant -1 : i64
    %m2 = arith.constant -2 : i64
    %sv = opal.has_rank %self, 1 : !opal.tensor -> i1
    %ov = opal.has_rank %other, 1 : !opal.tensor -> i1
    %g = opal.static_if %sv -> !opal.tensor {
      // grad has other's shape without its second-to-last dim.
      %su = aten.unsqueeze %self, %m1 : (!opal.tensor, i64) -> !opal.tensor
      %r = opal.static_if %ov -> !opal.tensor {
        %o = aten.mul.Tensor %self, %grad : (!opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %o : !opal.tensor
      } else {
        %gu = aten.unsqueeze %grad, %m2 : (!opal.tensor, i64) -> !opal.tensor
        %o = aten.mul.Tensor %su, %gu : (!opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %o : !opal.tensor
      }
      opal.yield %r : !opal.tensor
    } else {
      %st = aten.transpose.int %self, %m1, %m2 : (!opal.tensor, i64, i64) -> !opal.tensor
      %r = opal.static_if %ov -> !opal.tensor {
        %gu = aten.unsqueeze %grad, %m1 : (!opal.tensor, i64) -> !opal.tensor
        %p = aten.matmul %st, %gu : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %s = aten.squeeze.dim %p, %m1 : (!opal.tensor, i64) -> !opal.tensor
        opal.yield %s : !opal.tensor
      } else {
        %p = aten.matmul %st, %grad : (!opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %p : !opal.tensor
      }
      opal.yield %r : !opal.tensor
    }
    opal.yield %g : !opal.tensor
  }

  // --- Convolutions: native kernels (ConvolutionDerivatives.cpp) that call
  // aten::convolution, one formula per input.
  opal.def "convolution.input(Tensor grad, Tensor input, Tensor weight, int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor"
  opal.def "convolution.weight(Tensor grad, Tensor input, Tensor weight, int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor"
  opal.def "convolution.bias(Tensor grad, Tensor input, Tensor weight, bool transposed) -> Tensor"

  // --- Pooling: max pooling's gradient goes to each window's maximum, by
  // its index in the (H*W) plane (max_pool2d finds the indices again).
  opal.def "max_pool2d_with_indices(Tensor grad0, Tensor self, Tensor result1) -> Tensor self"
  opal.decomposition "max_pool2d_with_indices" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %indices: !opal.tensor):
    %none = opal.none
    %m1 = arith.constant -1 : i64
    %unbatched = opal.has_rank %self, 3 : !opal.tensor -> i1
    %c = opal.dim_size %self, -3 : !opal.tensor -> i64
    %flat, %dim = opal.static_if %unbatched -> !opal.list<i64>, i64 {
      %l = opal.list %c, %m1 : i64, i64 -> !opal.list<i64>
      %d1 = arith.constant 1 : i64
      opal.yield %l, %d1 : !opal.list<i64>, i64
    } else {
      %n = opal.dim_size %self, 0 : !opal.tensor -> i64
      %l = opal.list %n, %c, %m1 : i64, i64, i64 -> !opal.list<i64>
      %d2 = arith.constant 2 : i64
      opal.yield %l, %d2 : !opal.list<i64>, i64
    }
    %g = aten.reshape %grad, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %i = aten.reshape %indices, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %z0 = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %z = aten.reshape %z0, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %r = aten.scatter_add %z, %dim, %i, %g : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %out = aten.reshape %r, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %out : !opal.tensor
  }
  opal.def "max_pool2d(Tensor grad, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode) -> Tensor self"
  opal.decomposition "max_pool2d" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %kernel_size: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %ceil_mode: i1):
    %out, %indices = aten.max_pool2d_with_indices %self, %kernel_size, %stride, %padding, %dilation, %ceil_mode : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (!opal.tensor, !opal.tensor)
    %g = aten_backward.max_pool2d_with_indices %grad, %self, %indices : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // 3-d max pooling: the same, by the index in the (D*H*W) volume.
  opal.def "max_pool3d_with_indices(Tensor grad0, Tensor self, Tensor result1) -> Tensor self"
  opal.decomposition "max_pool3d_with_indices" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %indices: !opal.tensor):
    %none = opal.none
    %m1 = arith.constant -1 : i64
    %unbatched = opal.has_rank %self, 4 : !opal.tensor -> i1
    %c = opal.dim_size %self, -4 : !opal.tensor -> i64
    %flat, %dim = opal.static_if %unbatched -> !opal.list<i64>, i64 {
      %l = opal.list %c, %m1 : i64, i64 -> !opal.list<i64>
      %d1 = arith.constant 1 : i64
      opal.yield %l, %d1 : !opal.list<i64>, i64
    } else {
      %n = opal.dim_size %self, 0 : !opal.tensor -> i64
      %l = opal.list %n, %c, %m1 : i64, i64, i64 -> !opal.list<i64>
      %d2 = arith.constant 2 : i64
      opal.yield %l, %d2 : !opal.list<i64>, i64
    }
    %g = aten.reshape %grad, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %i = aten.reshape %indices, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %z0 = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %z = aten.reshape %z0, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %r = aten.scatter_add %z, %dim, %i, %g : (!opal.tensor, i64, !opal.tensor, !opal.tensor) -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %out = aten.reshape %r, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %out : !opal.tensor
  }
  opal.def "max_pool3d(Tensor grad, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode) -> Tensor self"
  opal.decomposition "max_pool3d" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %kernel_size: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %ceil_mode: i1):
    %out, %indices = aten.max_pool3d_with_indices %self, %kernel_size, %stride, %padding, %dilation, %ceil_mode : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (!opal.tensor, !opal.tensor)
    %g = aten_backward.max_pool3d_with_indices %grad, %self, %indices : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // Average pooling: each input element gets grad / divisor of every window
  // that covers it (PyTorch's backward ops, aten-backward.opal.mlir).
  opal.def "avg_pool2d(Tensor grad, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor self"
  opal.decomposition "avg_pool2d" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %kernel_size: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %ceil_mode: i1, %count_include_pad: i1, %divisor_override: i64):
    %g = aten.avg_pool2d_backward %grad, %self, %kernel_size, %stride, %padding, %ceil_mode, %count_include_pad, %divisor_override : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "_adaptive_avg_pool2d(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "_adaptive_avg_pool2d" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %g = aten._adaptive_avg_pool2d_backward %grad, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "avg_pool3d(Tensor grad, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor self"
  opal.decomposition "avg_pool3d" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %kernel_size: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %ceil_mode: i1, %count_include_pad: i1, %divisor_override: i64):
    %g = aten.avg_pool3d_backward %grad, %self, %kernel_size, %stride, %padding, %ceil_mode, %count_include_pad, %divisor_override : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "_adaptive_avg_pool3d(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "_adaptive_avg_pool3d" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %g = aten._adaptive_avg_pool3d_backward %grad, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // --- Indexing by tensors: the gradient of each picked element added back
  // at its place (index_put with accumulate; a native kernel).
  opal.def "index.Tensor(Tensor grad, Tensor self, Tensor?[] indices) -> Tensor self"
  opal.def "index_select(Tensor grad, Tensor self, int dim, Tensor index) -> Tensor self"

  // --- Views and copies: native kernels move the gradient back (no copy).
  // (The decompositions are what a derived backward fuses through.)
  opal.def "view(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "view" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %g = aten.reshape %grad, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "reshape(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "reshape" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %g = aten.reshape %grad, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "squeeze.dim(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "squeeze.dim" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %g = aten.reshape %grad, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "t(Tensor grad) -> Tensor self"
  opal.decomposition "t" {
  ^bb0(%grad: !opal.tensor):
    %g = aten.t %grad : (!opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "transpose.int(Tensor grad, int dim0, int dim1) -> Tensor self"
  opal.decomposition "transpose.int" {
  ^bb0(%grad: !opal.tensor, %dim0: i64, %dim1: i64):
    %g = aten.transpose.int %grad, %dim0, %dim1 : (!opal.tensor, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // (No decomposition: the inverse permutation is computed natively.)
  opal.def "permute(Tensor grad, int[] dims) -> Tensor self"
  opal.def "unsqueeze(Tensor grad, int dim) -> Tensor self"
  opal.decomposition "unsqueeze" {
  ^bb0(%grad: !opal.tensor, %dim: i64):
    %g = aten.squeeze.dim %grad, %dim : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "expand(Tensor grad) -> Tensor self"
  opal.decomposition "expand" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "alias(Tensor grad) -> Tensor self"
  opal.decomposition "alias" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "clone(Tensor grad) -> Tensor self"
  opal.decomposition "clone" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  opal.def "_to_copy(Tensor grad) -> Tensor self"
  opal.decomposition "_to_copy" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  // Ops on lists of tensors (native kernels only: the JIT does not compile
  // lists yet). cat and stack hand each input its part of the gradient (a
  // view); the splits join their results' gradients (zeros for results no
  // gradient reached) back into one.
  opal.def "cat(Tensor grad, Tensor[] tensors, int dim) -> Tensor[] tensors"
  opal.def "stack(Tensor grad, Tensor[] tensors, int dim) -> Tensor[] tensors"
  opal.def "split.Tensor(Tensor[] grad, int dim) -> Tensor self"
  opal.def "split_with_sizes(Tensor[] grad, int dim) -> Tensor self"
  opal.def "chunk(Tensor[] grad, int dim) -> Tensor self"
  opal.def "unbind.int(Tensor[] grad, int dim) -> Tensor self"
  // The gradient of a part goes into zeros of the whole.
  opal.def "select.int(Tensor grad, Tensor self, int dim, int index) -> Tensor self"
  opal.decomposition "select.int" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %index: i64):
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.select_scatter %z, %grad, %dim, %index : (!opal.tensor, !opal.tensor, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "slice.Tensor(Tensor grad, Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor self"
  opal.decomposition "slice.Tensor" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %start: i64, %end: i64, %step: i64):
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.slice_scatter %z, %grad, %dim, %start, %end, %step : (!opal.tensor, !opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // --- Squares, narrows, scatters of slices, fills, random draws -------------
  // 2 * self * grad (PyTorch records square as pow(self, 2)).
  opal.def "square(Tensor grad, Tensor self) -> Tensor self"
  opal.decomposition "square" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):
    %two = arith.constant 2.0 : f64
    %d = aten.mul.Scalar %self, %two : (!opal.tensor, f64) -> !opal.tensor
    %g = aten.mul.Tensor %grad, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // The gradient in the narrowed part of zeros (a negative start counts
  // from the end; narrow checked it).
  opal.def "narrow(Tensor grad, Tensor self, int dim, int start, int length) -> Tensor self"
  opal.decomposition "narrow" {
  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %dim: i64, %start: i64, %length: i64):
    %size = opal.size_at %self, %dim : !opal.tensor, i64 -> i64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %negative = arith.cmpi slt, %start, %c0 : i64
    %wrapped = arith.addi %start, %size : i64
    %s = arith.select %negative, %wrapped, %start : i64
    %e = arith.addi %s, %length : i64
    %none = opal.none
    %z = aten.zeros_like %self, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.slice_scatter %z, %grad, %dim, %s, %e, %c1 : (!opal.tensor, !opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // self: the gradient with the scattered slice zeroed; src: that slice.
  opal.def "select_scatter.self(Tensor grad, int dim, int index) -> Tensor"
  opal.decomposition "select_scatter.self" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %index: i64):
    %part = aten.select.int %grad, %dim, %index : (!opal.tensor, i64, i64) -> !opal.tensor
    %none = opal.none
    %z = aten.zeros_like %part, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.select_scatter %grad, %z, %dim, %index : (!opal.tensor, !opal.tensor, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "select_scatter.src(Tensor grad, int dim, int index) -> Tensor"
  opal.decomposition "select_scatter.src" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %index: i64):
    %g = aten.select.int %grad, %dim, %index : (!opal.tensor, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "slice_scatter.self(Tensor grad, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor"
  opal.decomposition "slice_scatter.self" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %start: i64, %end: i64, %step: i64):
    %part = aten.slice.Tensor %grad, %dim, %start, %end, %step : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %none = opal.none
    %z = aten.zeros_like %part, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %g = aten.slice_scatter %grad, %z, %dim, %start, %end, %step : (!opal.tensor, !opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "slice_scatter.src(Tensor grad, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor"
  opal.decomposition "slice_scatter.src" {
  ^bb0(%grad: !opal.tensor, %dim: i64, %start: i64, %end: i64, %step: i64):
    %g = aten.slice.Tensor %grad, %dim, %start, %end, %step : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // fill: nothing reaches self; a tensor value gets the gradient's sum (the
  // engine sums it to the value's shape).
  opal.def "fill.Scalar_self(Tensor grad) -> Tensor"
  opal.decomposition "fill.Scalar_self" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "fill.Tensor_self(Tensor grad) -> Tensor"
  opal.decomposition "fill.Tensor_self" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "fill.Tensor_value(Tensor grad) -> Tensor"
  opal.decomposition "fill.Tensor_value" {
  ^bb0(%grad: !opal.tensor):
    opal.yield %grad : !opal.tensor
  }
  // A draw's probabilities get no gradient (PyTorch's zeros).
  opal.def "bernoulli(Tensor grad) -> Tensor self"
  opal.decomposition "bernoulli" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  opal.def "bernoulli.p(Tensor grad) -> Tensor self"
  opal.decomposition "bernoulli.p" {
  ^bb0(%grad: !opal.tensor):
    %none = opal.none
    %g = aten.zeros_like %grad, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
  // The gradient where the mask kept an element, scaled by 1 / (1 - p)
  // (0 for p = 1); not training, the mask is all ones and the scale 1.
  opal.def "native_dropout(Tensor grad0, Tensor result1, float p, bool? train) -> Tensor input"
  opal.decomposition "native_dropout" {
  ^bb0(%grad: !opal.tensor, %mask: !opal.tensor, %p: f64, %train: i1):
    %true = arith.constant true
    %no_train = opal.is_none %train : i1 -> i1
    %training = opal.static_if %no_train -> i1 {
      opal.yield %true : i1
    } else {
      opal.yield %train : i1
    }
    %c0f = arith.constant 0.0 : f64
    %c1f = arith.constant 1.0 : f64
    %keep = arith.subf %c1f, %p : f64
    %inverse = arith.divf %c1f, %keep : f64
    %all = arith.cmpf oeq, %p, %c1f : f64
    %dropping = arith.select %all, %c0f, %inverse : f64
    %scale = arith.select %training, %dropping, %c1f : f64
    %kept = aten.mul.Tensor %grad, %mask : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %g = aten.mul.Scalar %kept, %scale : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // --- Native kernels (IndexingDerivatives.cpp, SpatialDerivatives.cpp,
  // DistanceDerivatives.cpp) --------------------------------------------------
  opal.def "as_strided(Tensor grad, Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor self"
  opal.def "diagonal(Tensor grad, Tensor self, int offset, int dim1, int dim2) -> Tensor self"
  opal.def "index_put.self(Tensor grad, Tensor?[] indices, bool accumulate) -> Tensor"
  opal.def "index_put.values(Tensor grad, Tensor?[] indices) -> Tensor"
  opal.def "masked_scatter.source(Tensor grad, Tensor mask, Tensor source) -> Tensor"
  opal.def "scatter_reduce.two(Tensor grad, Tensor self, int dim, Tensor index, Tensor src, str reduce, bool include_self, Tensor result) -> (Tensor self, Tensor src)"
  opal.def "_embedding_bag(Tensor grad0, Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, Tensor? per_sample_weights, bool include_last_offset, int padding_idx, Tensor result3) -> (Tensor weight, Tensor per_sample_weights)"
  opal.def "upsample_nearest2d(Tensor grad, Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor self"
  opal.def "upsample_nearest2d.vec(Tensor grad, Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor input"
  opal.def "upsample_bilinear2d(Tensor grad, Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor self"
  opal.def "upsample_bilinear2d.vec(Tensor grad, Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor input"
  opal.def "col2im(Tensor grad, Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor self"
  opal.def "grid_sampler_2d(Tensor grad, Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> (Tensor input, Tensor grid)"
  opal.def "_cdist_forward(Tensor grad, Tensor x1, Tensor x2, float p, Tensor result) -> (Tensor x1, Tensor x2)"
  opal.def "_pdist_forward(Tensor grad, Tensor self, float p, Tensor result) -> Tensor self"
  // masked_scatter's self: the gradient where the mask was false.
  opal.def "masked_scatter.self(Tensor grad, Tensor mask) -> Tensor"
  opal.decomposition "masked_scatter.self" {
  ^bb0(%grad: !opal.tensor, %mask: !opal.tensor):
    %zero = arith.constant 0.0 : f64
    %g = aten.masked_fill.Scalar %grad, %mask, %zero : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }
}
