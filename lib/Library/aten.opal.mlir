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
    // alpha scales in the result's dtype; an integral result takes no float alpha.
    %al_none = opal.none
    %al_result = opal.dtype_of %a, %al_none : !opal.tensor, !opal.none -> i64
    %al_code = opal.dtype_of %alpha, %al_none : f64, !opal.none -> i64
    %al_c7 = arith.constant 7 : i64
    %al_c4 = arith.constant 4 : i64
    %al_c11 = arith.constant 11 : i64
    %al_float = arith.cmpi eq, %al_code, %al_c7 : i64
    %al_int = arith.cmpi sle, %al_result, %al_c4 : i64
    %al_bool = arith.cmpi eq, %al_result, %al_c11 : i64
    %al_integral = arith.ori %al_int, %al_bool : i1
    %al_bad = arith.andi %al_float, %al_integral : i1
    %al_true = arith.constant true
    %al_ok = arith.xori %al_bad, %al_true : i1
    opal.check %al_ok, "For integral input tensors, argument alpha must not be a floating point number."
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %ob, %alb = opal.broadcast_tensors %o2, %al : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %ob, %alb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled_r = opal.to_dtype %scaled, %al_result : !opal.tensor, i64 -> !opal.tensor
    %a2, %b = opal.promote %a, %scaled_r : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.add %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
  opal.decomposition "add.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64, %alpha: f64):
    %a, %o = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    // alpha scales in the result's dtype; an integral result takes no float alpha.
    %al_none = opal.none
    %al_result = opal.dtype_of %a, %al_none : !opal.tensor, !opal.none -> i64
    %al_code = opal.dtype_of %alpha, %al_none : f64, !opal.none -> i64
    %al_c7 = arith.constant 7 : i64
    %al_c4 = arith.constant 4 : i64
    %al_c11 = arith.constant 11 : i64
    %al_float = arith.cmpi eq, %al_code, %al_c7 : i64
    %al_int = arith.cmpi sle, %al_result, %al_c4 : i64
    %al_bool = arith.cmpi eq, %al_result, %al_c11 : i64
    %al_integral = arith.ori %al_int, %al_bool : i1
    %al_bad = arith.andi %al_float, %al_integral : i1
    %al_true = arith.constant true
    %al_ok = arith.xori %al_bad, %al_true : i1
    opal.check %al_ok, "For integral input tensors, argument alpha must not be a floating point number."
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %o2, %al : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled_r = opal.to_dtype %scaled, %al_result : !opal.tensor, i64 -> !opal.tensor
    %a2, %s2 = opal.promote %a, %scaled_r : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %s2 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.add %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  opal.decomposition "sub.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor, %alpha: f64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_a = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_b = opal.dtype_of %other, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_abool = arith.cmpi eq, %dc_a, %dc_c11 : i64
    %dc_bbool = arith.cmpi eq, %dc_b, %dc_c11 : i64
    %dc_both = arith.andi %dc_abool, %dc_bbool : i1
    %dc_either = arith.ori %dc_abool, %dc_bbool : i1
    %dc_not_both = arith.xori %dc_both, %dc_true : i1
    opal.check %dc_not_both, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
    %dc_neither = arith.xori %dc_either, %dc_true : i1
    opal.check %dc_neither, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    %a, %o = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    // alpha scales in the result's dtype; an integral result takes no float alpha.
    %al_none = opal.none
    %al_result = opal.dtype_of %a, %al_none : !opal.tensor, !opal.none -> i64
    %al_code = opal.dtype_of %alpha, %al_none : f64, !opal.none -> i64
    %al_c7 = arith.constant 7 : i64
    %al_c4 = arith.constant 4 : i64
    %al_c11 = arith.constant 11 : i64
    %al_float = arith.cmpi eq, %al_code, %al_c7 : i64
    %al_int = arith.cmpi sle, %al_result, %al_c4 : i64
    %al_bool = arith.cmpi eq, %al_result, %al_c11 : i64
    %al_integral = arith.ori %al_int, %al_bool : i1
    %al_bad = arith.andi %al_float, %al_integral : i1
    %al_true = arith.constant true
    %al_ok = arith.xori %al_bad, %al_true : i1
    opal.check %al_ok, "For integral input tensors, argument alpha must not be a floating point number."
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %ob, %alb = opal.broadcast_tensors %o2, %al : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %ob, %alb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled_r = opal.to_dtype %scaled, %al_result : !opal.tensor, i64 -> !opal.tensor
    %a2, %b = opal.promote %a, %scaled_r : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a2, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.sub %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
  opal.decomposition "sub.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64, %alpha: f64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_not_bool = arith.cmpi ne, %dc_code, %dc_c11 : i64
    opal.check %dc_not_bool, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    %a, %o = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    // alpha scales in the result's dtype; an integral result takes no float alpha.
    %al_none = opal.none
    %al_result = opal.dtype_of %a, %al_none : !opal.tensor, !opal.none -> i64
    %al_code = opal.dtype_of %alpha, %al_none : f64, !opal.none -> i64
    %al_c7 = arith.constant 7 : i64
    %al_c4 = arith.constant 4 : i64
    %al_c11 = arith.constant 11 : i64
    %al_float = arith.cmpi eq, %al_code, %al_c7 : i64
    %al_int = arith.cmpi sle, %al_result, %al_c4 : i64
    %al_bool = arith.cmpi eq, %al_result, %al_c11 : i64
    %al_integral = arith.ori %al_int, %al_bool : i1
    %al_bad = arith.andi %al_float, %al_integral : i1
    %al_true = arith.constant true
    %al_ok = arith.xori %al_bad, %al_true : i1
    opal.check %al_ok, "For integral input tensors, argument alpha must not be a floating point number."
    %o2, %al = opal.promote %o, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %o2, %al : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled_r = opal.to_dtype %scaled, %al_result : !opal.tensor, i64 -> !opal.tensor
    %a2, %s2 = opal.promote %a, %scaled_r : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
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
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_a = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_b = opal.dtype_of %other, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_abool = arith.cmpi eq, %dc_a, %dc_c11 : i64
    %dc_bbool = arith.cmpi eq, %dc_b, %dc_c11 : i64
    %dc_both = arith.andi %dc_abool, %dc_bbool : i1
    %dc_not_both = arith.xori %dc_both, %dc_true : i1
    opal.check %dc_not_both, "\"pow\" not implemented for 'Bool'"
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.pow %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // A number raised to each element of a tensor.
  opal.def "pow.Scalar(Scalar self, Tensor exponent) -> Tensor"
  opal.decomposition "pow.Scalar" {
  ^bb0(%self: f64, %exponent: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %exponent, %none : !opal.tensor, !opal.none -> i64
    %scode = opal.dtype_of %self, %none : f64, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %tbool = arith.cmpi eq, %code, %c11 : i64
    %sbool = arith.cmpi eq, %scode, %c11 : i64
    %both = arith.andi %tbool, %sbool : i1
    %true = arith.constant true
    %not_both = arith.xori %both, %true : i1
    opal.check %not_both, "\"pow\" not implemented for 'Bool'"
    %b, %a = opal.promote %exponent, %self : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %y, %x = opal.broadcast_tensors %b, %a : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.pow %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"
  opal.decomposition "pow.Tensor_Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    // An integer power's exponent is known per call only.
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %integral = arith.cmpi sle, %code, %c4 : i64
    opal.static_if %integral {
      // The exponent as given (as uint8, -1 would be 255).
      %c0 = arith.constant 0 : i64
      %e, %zero = opal.promote %other, %c0 : f64, i64 -> !opal.tensor, !opal.tensor
      %negative = prims.lt %e, %zero : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.data_check %negative, "Integers to negative integer powers are not allowed." : !opal.tensor
      opal.yield
    } else {
      opal.yield
    }
    %r = prims.pow %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "bitwise_and.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %c11 = arith.constant 11 : i64
    %int = arith.cmpi sle, %code, %c4 : i64
    %bool = arith.cmpi eq, %code, %c11 : i64
    %ok = arith.ori %int, %bool : i1
    opal.check %ok, "\"bitwise_and_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bitwise_and %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "bitwise_and.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %r = aten.bitwise_and.Tensor %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "bitwise_or.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %c11 = arith.constant 11 : i64
    %int = arith.cmpi sle, %code, %c4 : i64
    %bool = arith.cmpi eq, %code, %c11 : i64
    %ok = arith.ori %int, %bool : i1
    opal.check %ok, "\"bitwise_or_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bitwise_or %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "bitwise_or.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %r = aten.bitwise_or.Tensor %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "bitwise_xor.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %c11 = arith.constant 11 : i64
    %int = arith.cmpi sle, %code, %c4 : i64
    %bool = arith.cmpi eq, %code, %c11 : i64
    %ok = arith.ori %int, %bool : i1
    opal.check %ok, "\"bitwise_xor_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bitwise_xor %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "bitwise_xor.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %r = aten.bitwise_xor.Tensor %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bitwise_not(Tensor self) -> Tensor"
  opal.decomposition "bitwise_not" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %c11 = arith.constant 11 : i64
    %int = arith.cmpi sle, %code, %c4 : i64
    %bool = arith.cmpi eq, %code, %c11 : i64
    %ok = arith.ori %int, %bool : i1
    opal.check %ok, "\"bitwise_not_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %r = prims.bitwise_not %self : (!opal.tensor) -> !opal.tensor
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
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_not_bool = arith.cmpi ne, %dc_code, %dc_c11 : i64
    opal.check %dc_not_bool, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    %x = opal.promote %self : !opal.tensor -> !opal.tensor
    %r = prims.neg %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "abs(Tensor self) -> Tensor"
  opal.decomposition "abs" {
  ^bb0(%self: !opal.tensor):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_not_bool = arith.cmpi ne, %dc_code, %dc_c11 : i64
    opal.check %dc_not_bool, "\"abs_cpu\" not implemented for 'Bool'"
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
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_not_bool = arith.cmpi ne, %dc_code, %dc_c11 : i64
    opal.check %dc_not_bool, "Boolean inputs not supported for relu"
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
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_float = arith.xori %dc_not_float, %dc_true : i1
    opal.check %dc_float, "\"silu_cpu\" not implemented for '{0:dtype}'" (%dc_code : i64)
    %a = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %s = aten.sigmoid %a : (!opal.tensor) -> !opal.tensor
    %r = prims.mul %a, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Selection.
  opal.def "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor"
  opal.decomposition "where.self" {
  ^bb0(%condition: !opal.tensor, %self: !opal.tensor, %other: !opal.tensor):
    // A bool condition, or uint8 (nonzero is true), as in PyTorch.
    %none = opal.none
    %code = opal.dtype_of %condition, %none : !opal.tensor, !opal.none -> i64
    %c0 = arith.constant 0 : i64
    %c11 = arith.constant 11 : i64
    %is_bool = arith.cmpi eq, %code, %c11 : i64
    %is_byte = arith.cmpi eq, %code, %c0 : i64
    %ok = arith.ori %is_bool, %is_byte : i1
    opal.check %ok, "where expected condition to be a boolean tensor, but got a tensor with dtype {0:dtype}" (%code : i64)
    %cb = opal.to_dtype %condition, %c11 : !opal.tensor, i64 -> !opal.tensor
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %c, %x, %y = opal.broadcast_tensors %cb, %a, %b : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %r = prims.where %c, %x, %y : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // More activations.
  opal.def "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor"
  opal.decomposition "softplus" {
  ^bb0(%self: !opal.tensor, %beta: f64, %threshold: f64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_float = arith.xori %dc_not_float, %dc_true : i1
    opal.check %dc_float, "\"softplus_cpu\" not implemented for '{0:dtype}'" (%dc_code : i64)
    %x, %b = opal.promote %self, %beta {to_float} : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %xs, %bs = opal.broadcast_tensors %x, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %xb = prims.mul %xs, %bs : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %xb2, %t = opal.promote %xb, %threshold : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %xb3, %ts = opal.broadcast_tensors %xb2, %t : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %linear = prims.gt %xb3, %ts : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %e = prims.exp %xb3 : (!opal.tensor) -> !opal.tensor
    %l = prims.log1p %e : (!opal.tensor) -> !opal.tensor
    %soft = prims.div %l, %bs : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = prims.where %linear, %xs, %soft : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor"
  opal.decomposition "leaky_relu" {
  ^bb0(%self: !opal.tensor, %slope: f64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_float = arith.xori %dc_not_float, %dc_true : i1
    opal.check %dc_float, "\"leaky_relu_cpu\" not implemented for '{0:dtype}'" (%dc_code : i64)
    %c0 = arith.constant 0 : i64
    %x, %s = opal.promote %self, %slope : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %x2, %z = opal.promote %x, %c0 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %a, %sb, %zb = opal.broadcast_tensors %x2, %s, %z : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %positive = prims.gt %a, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled = prims.mul %a, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = prims.where %positive, %a, %scaled : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor"
  opal.decomposition "hardtanh" {
  ^bb0(%self: !opal.tensor, %lo: f64, %hi: f64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_not_bool = arith.cmpi ne, %dc_code, %dc_c11 : i64
    opal.check %dc_not_bool, "Bool inputs not supported for hardtanh"
    // An integer input clamps in int64 (PyTorch 2 takes limits beyond its
    // dtype's range, and refuses a min above it or a max below it; the
    // limits are known per call).
    %dc_k0 = arith.constant 0 : i64
    %dc_k1 = arith.constant 1 : i64
    %dc_k2 = arith.constant 2 : i64
    %dc_k3 = arith.constant 3 : i64
    %dc_rmin0 = arith.constant 0 : i64
    %dc_rmax0 = arith.constant 255 : i64
    %dc_rmin1 = arith.constant -128 : i64
    %dc_rmax1 = arith.constant 127 : i64
    %dc_rmin2 = arith.constant -32768 : i64
    %dc_rmax2 = arith.constant 32767 : i64
    %dc_rmin3 = arith.constant -2147483648 : i64
    %dc_rmax3 = arith.constant 2147483647 : i64
    %dc_i64 = arith.constant 4 : i64
    %dc_is0 = arith.cmpi eq, %dc_code, %dc_k0 : i64
    %dc_is1 = arith.cmpi eq, %dc_code, %dc_k1 : i64
    %dc_is2 = arith.cmpi eq, %dc_code, %dc_k2 : i64
    %dc_is3 = arith.cmpi eq, %dc_code, %dc_k3 : i64
    opal.static_if %dc_is0 {
      %r0_lt, %r0_ht, %r0_min, %r0_max = opal.promote %lo, %hi, %dc_rmin0, %dc_rmax0 : f64, f64, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %r0_above = prims.gt %r0_lt, %r0_max : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r0_lti = opal.to_dtype %r0_lt, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r0_above first %r0_lti : !opal.tensor, "Clamp min value {0} is outside the representable range of Byte" : !opal.tensor
      %r0_below = prims.lt %r0_ht, %r0_min : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r0_hti = opal.to_dtype %r0_ht, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r0_below first %r0_hti : !opal.tensor, "Clamp max value {0} is outside the representable range of Byte" : !opal.tensor
      opal.yield
    } else {
      opal.yield
    }
    opal.static_if %dc_is1 {
      %r1_lt, %r1_ht, %r1_min, %r1_max = opal.promote %lo, %hi, %dc_rmin1, %dc_rmax1 : f64, f64, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %r1_above = prims.gt %r1_lt, %r1_max : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r1_lti = opal.to_dtype %r1_lt, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r1_above first %r1_lti : !opal.tensor, "Clamp min value {0} is outside the representable range of Char" : !opal.tensor
      %r1_below = prims.lt %r1_ht, %r1_min : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r1_hti = opal.to_dtype %r1_ht, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r1_below first %r1_hti : !opal.tensor, "Clamp max value {0} is outside the representable range of Char" : !opal.tensor
      opal.yield
    } else {
      opal.yield
    }
    opal.static_if %dc_is2 {
      %r2_lt, %r2_ht, %r2_min, %r2_max = opal.promote %lo, %hi, %dc_rmin2, %dc_rmax2 : f64, f64, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %r2_above = prims.gt %r2_lt, %r2_max : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r2_lti = opal.to_dtype %r2_lt, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r2_above first %r2_lti : !opal.tensor, "Clamp min value {0} is outside the representable range of Short" : !opal.tensor
      %r2_below = prims.lt %r2_ht, %r2_min : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r2_hti = opal.to_dtype %r2_ht, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r2_below first %r2_hti : !opal.tensor, "Clamp max value {0} is outside the representable range of Short" : !opal.tensor
      opal.yield
    } else {
      opal.yield
    }
    opal.static_if %dc_is3 {
      %r3_lt, %r3_ht, %r3_min, %r3_max = opal.promote %lo, %hi, %dc_rmin3, %dc_rmax3 : f64, f64, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %r3_above = prims.gt %r3_lt, %r3_max : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r3_lti = opal.to_dtype %r3_lt, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r3_above first %r3_lti : !opal.tensor, "Clamp min value {0} is outside the representable range of Int" : !opal.tensor
      %r3_below = prims.lt %r3_ht, %r3_min : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %r3_hti = opal.to_dtype %r3_ht, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.data_check %r3_below first %r3_hti : !opal.tensor, "Clamp max value {0} is outside the representable range of Int" : !opal.tensor
      opal.yield
    } else {
      opal.yield
    }
    %dc_integral = arith.cmpi sle, %dc_code, %dc_i64 : i64
    %wide = opal.static_if %dc_integral -> !opal.tensor {
      %w = opal.to_dtype %self, %dc_i64 : !opal.tensor, i64 -> !opal.tensor
      opal.yield %w : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %x, %l, %h = opal.promote %wide, %lo, %hi : !opal.tensor, f64, f64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %xb, %lb, %hb = opal.broadcast_tensors %x, %l, %h : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %above = prims.maximum %xb, %lb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %clamped = prims.minimum %above, %hb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    // The result keeps self's dtype (integer bounds truncate).
    %self_dtype = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %r = opal.to_dtype %clamped, %self_dtype : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Clamping (NaN stays NaN, as prims.maximum/minimum propagate it).
  opal.def "clamp_min(Tensor self, Scalar min) -> Tensor"
  opal.decomposition "clamp_min" {
  ^bb0(%self: !opal.tensor, %min: f64):
    %x, %m = opal.promote %self, %min : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %xb, %mb = opal.broadcast_tensors %x, %m : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.maximum %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "clamp_max(Tensor self, Scalar max) -> Tensor"
  opal.decomposition "clamp_max" {
  ^bb0(%self: !opal.tensor, %max: f64):
    %x, %m = opal.promote %self, %max : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %xb, %mb = opal.broadcast_tensors %x, %m : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.minimum %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // More arithmetic.
  opal.def "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
  opal.decomposition "rsub.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64, %alpha: f64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_not_bool = arith.cmpi ne, %dc_code, %dc_c11 : i64
    opal.check %dc_not_bool, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    %a, %o = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    // alpha scales in the result's dtype; an integral result takes no float alpha.
    %al_none = opal.none
    %al_result = opal.dtype_of %a, %al_none : !opal.tensor, !opal.none -> i64
    %al_code = opal.dtype_of %alpha, %al_none : f64, !opal.none -> i64
    %al_c7 = arith.constant 7 : i64
    %al_c4 = arith.constant 4 : i64
    %al_c11 = arith.constant 11 : i64
    %al_float = arith.cmpi eq, %al_code, %al_c7 : i64
    %al_int = arith.cmpi sle, %al_result, %al_c4 : i64
    %al_bool = arith.cmpi eq, %al_result, %al_c11 : i64
    %al_integral = arith.ori %al_int, %al_bool : i1
    %al_bad = arith.andi %al_float, %al_integral : i1
    %al_true = arith.constant true
    %al_ok = arith.xori %al_bad, %al_true : i1
    opal.check %al_ok, "For integral input tensors, argument alpha must not be a floating point number."
    %a2, %al = opal.promote %a, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %ab, %alb = opal.broadcast_tensors %a2, %al : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %scaled = prims.mul %ab, %alb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled_r = opal.to_dtype %scaled, %al_result : !opal.tensor, i64 -> !opal.tensor
    %s2, %o2 = opal.promote %scaled_r, %o : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %sb, %ob = opal.broadcast_tensors %s2, %o2 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.sub %ob, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "reciprocal(Tensor self) -> Tensor"
  opal.decomposition "reciprocal" {
  ^bb0(%self: !opal.tensor):
    %c1 = arith.constant 1.0 : f64
    %x, %one = opal.promote %self, %c1 {to_float} : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %xb, %oneb = opal.broadcast_tensors %x, %one : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.div %oneb, %xb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "square(Tensor self) -> Tensor"
  opal.decomposition "square" {
  ^bb0(%self: !opal.tensor):
    // pow(self, 2): bool becomes int64.
    %c2 = arith.constant 2 : i64
    %x, %two = opal.promote %self, %c2 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %r = prims.mul %x, %x : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Matrix products (operands promoted to one dtype).
  opal.def "mm(Tensor self, Tensor mat2) -> Tensor"
  opal.decomposition "mm" {
  ^bb0(%self: !opal.tensor, %mat2: !opal.tensor):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_a = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_b = opal.dtype_of %mat2, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_same = arith.cmpi eq, %dc_a, %dc_b : i64
    opal.check %dc_same, "expected scalar type {0:dtype} but found {1:dtype}" (%dc_a, %dc_b : i64, i64)
    %dc_not_bool = arith.cmpi ne, %dc_a, %dc_c11 : i64
    opal.check %dc_not_bool, "\"addmm_impl_cpu_\" not implemented for 'Bool'"
    %a, %b = opal.promote %self, %mat2 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.mm %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "bmm(Tensor self, Tensor mat2) -> Tensor"
  opal.decomposition "bmm" {
  ^bb0(%self: !opal.tensor, %mat2: !opal.tensor):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_a = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_b = opal.dtype_of %mat2, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_same = arith.cmpi eq, %dc_a, %dc_b : i64
    opal.check %dc_same, "expected scalar type {0:dtype} but found {1:dtype}" (%dc_a, %dc_b : i64, i64)
    %dc_not_bool = arith.cmpi ne, %dc_a, %dc_c11 : i64
    opal.check %dc_not_bool, "\"bmm\" not implemented for 'Bool'"
    %a, %b = opal.promote %self, %mat2 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bmm %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Reductions: dims normalized per use, keepdim puts size-1 dims back.
  // Over every dim: the dim_IntList/dim overloads with no dims.
  opal.def "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "sum" {
  ^bb0(%self: !opal.tensor, %dtype: i64):
    %all = opal.list -> !opal.list<i64>
    %false = arith.constant false
    %r = aten.sum.dim_IntList %self, %all, %false, %dtype : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "mean" {
  ^bb0(%self: !opal.tensor, %dtype: i64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_no_dtype = opal.is_none %dtype : i64 -> i1
    %dc_bad = arith.andi %dc_not_float, %dc_no_dtype : i1
    %dc_ok = arith.xori %dc_bad, %dc_true : i1
    opal.check %dc_ok, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {0:dtype}" (%dc_code : i64)
    %all = opal.list -> !opal.list<i64>
    %false = arith.constant false
    %r = aten.mean.dim %self, %all, %false, %dtype : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "sum.dim_IntList" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1, %dtype: i64):
    %x = opal.to_dtype %self, %dtype {integral_to_long} : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %none = opal.none
    %s = prims.sum %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %r = opal.keep_dims %s, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "mean.dim" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1, %dtype: i64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_no_dtype = opal.is_none %dtype : i64 -> i1
    %dc_bad = arith.andi %dc_not_float, %dc_no_dtype : i1
    %dc_ok = arith.xori %dc_bad, %dc_true : i1
    opal.check %dc_ok, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {0:dtype}" (%dc_code : i64)
    %x = opal.to_dtype %self, %dtype {to_float} : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %none = opal.none
    %s = prims.sum %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %n = opal.count %x, %dims : !opal.tensor, !opal.list<i64> -> i64
    %sp, %np = opal.promote %s, %n : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %sb, %nb = opal.broadcast_tensors %sp, %np : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %m = prims.div %sb, %nb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = opal.keep_dims %m, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"
  opal.decomposition "amax" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    // No identity: an empty reduction has no value.
    opal.check_reduction_dims %self, %dim, "amax()" : !opal.tensor, !opal.list<i64>
    %none = opal.none
    %s = prims.amax %self, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %r = opal.keep_dims %s, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"
  opal.decomposition "amin" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    // No identity: an empty reduction has no value.
    opal.check_reduction_dims %self, %dim, "amin()" : !opal.tensor, !opal.list<i64>
    %none = opal.none
    %s = prims.amin %self, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %r = opal.keep_dims %s, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // softmax and log_softmax subtract the maximum first, for stability.
  opal.def "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "softmax.int" {
  ^bb0(%self: !opal.tensor, %dim: i64, %dtype: i64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_no_dtype = opal.is_none %dtype : i64 -> i1
    %dc_bad = arith.andi %dc_not_float, %dc_no_dtype : i1
    %dc_ok = arith.xori %dc_bad, %dc_true : i1
    %dc_shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %dc_rank = opal.list_len %dc_shape : !opal.list<i64> -> i64
    %dc_c0 = arith.constant 0 : i64
    %dc_c1 = arith.constant 1 : i64
    %dc_scalar = arith.cmpi eq, %dc_rank, %dc_c0 : i64
    %dc_rank1 = arith.select %dc_scalar, %dc_c1, %dc_rank : i64
    %dc_negative = arith.cmpi slt, %dim, %dc_c0 : i64
    %dc_wrapped = arith.addi %dim, %dc_rank1 : i64
    %dc_d = arith.select %dc_negative, %dc_wrapped, %dim : i64
    %dc_lastd = arith.subi %dc_rank1, %dc_c1 : i64
    %dc_last = arith.cmpi eq, %dc_d, %dc_lastd : i64
    %dc_ok_last = arith.ori %dc_ok, %dc_last : i1
    %dc_not_last = arith.xori %dc_last, %dc_true : i1
    %dc_ok_other = arith.ori %dc_ok, %dc_not_last : i1
    opal.check %dc_ok_other, "\"softmax_lastdim_kernel_impl\" not implemented for '{0:dtype}'" (%dc_code : i64)
    opal.check %dc_ok_last, "\"softmax_kernel_impl\" not implemented for '{0:dtype}'" (%dc_code : i64)
    %x = opal.to_dtype %self, %dtype {to_float} : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %none = opal.none
    %true = arith.constant true
    %m = prims.amax %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %mk = opal.keep_dims %m, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %xb, %mb = opal.broadcast_tensors %x, %mk : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %shifted = prims.sub %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %e = prims.exp %shifted : (!opal.tensor) -> !opal.tensor
    %s = prims.sum %e, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %sk = opal.keep_dims %s, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    // One division per row, then a product per element (as PyTorch's
    // kernels do: a division per element costs more than the exp).
    %c1 = arith.constant 1.0 : f64
    %sk1, %one = opal.promote %sk, %c1 {to_float} : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %skb, %oneb = opal.broadcast_tensors %sk1, %one : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %inv = prims.div %oneb, %skb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %eb, %ib = opal.broadcast_tensors %e, %inv : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.mul %eb, %ib : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "log_softmax.int" {
  ^bb0(%self: !opal.tensor, %dim: i64, %dtype: i64):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_no_dtype = opal.is_none %dtype : i64 -> i1
    %dc_bad = arith.andi %dc_not_float, %dc_no_dtype : i1
    %dc_ok = arith.xori %dc_bad, %dc_true : i1
    %dc_shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %dc_rank = opal.list_len %dc_shape : !opal.list<i64> -> i64
    %dc_c0 = arith.constant 0 : i64
    %dc_c1 = arith.constant 1 : i64
    %dc_scalar = arith.cmpi eq, %dc_rank, %dc_c0 : i64
    %dc_rank1 = arith.select %dc_scalar, %dc_c1, %dc_rank : i64
    %dc_negative = arith.cmpi slt, %dim, %dc_c0 : i64
    %dc_wrapped = arith.addi %dim, %dc_rank1 : i64
    %dc_d = arith.select %dc_negative, %dc_wrapped, %dim : i64
    %dc_lastd = arith.subi %dc_rank1, %dc_c1 : i64
    %dc_last = arith.cmpi eq, %dc_d, %dc_lastd : i64
    %dc_ok_last = arith.ori %dc_ok, %dc_last : i1
    %dc_not_last = arith.xori %dc_last, %dc_true : i1
    %dc_ok_other = arith.ori %dc_ok, %dc_not_last : i1
    opal.check %dc_ok_other, "\"log_softmax_lastdim_kernel_impl\" not implemented for '{0:dtype}'" (%dc_code : i64)
    opal.check %dc_ok_last, "\"softmax_kernel_impl\" not implemented for '{0:dtype}'" (%dc_code : i64)
    %x = opal.to_dtype %self, %dtype {to_float} : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %none = opal.none
    %true = arith.constant true
    %m = prims.amax %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %mk = opal.keep_dims %m, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %xb, %mb = opal.broadcast_tensors %x, %mk : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %shifted = prims.sub %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %e = prims.exp %shifted : (!opal.tensor) -> !opal.tensor
    %s = prims.sum %e, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %sk = opal.keep_dims %s, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %l = prims.log %sk : (!opal.tensor) -> !opal.tensor
    %shb, %lb = opal.broadcast_tensors %shifted, %l : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.sub %shb, %lb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Dimension reordering.
  opal.def "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)"
  opal.decomposition "transpose.int" {
  ^bb0(%self: !opal.tensor, %dim0: i64, %dim1: i64):
    %p = opal.transpose_perm %self, %dim0, %dim1 : !opal.tensor -> !opal.list<i64>
    %r = prims.transpose %self, %p : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "t(Tensor(a) self) -> Tensor(a)"
  opal.decomposition "t" {
  ^bb0(%self: !opal.tensor):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %p = opal.transpose_perm %self, %c0, %c1 : !opal.tensor -> !opal.list<i64>
    %r = prims.transpose %self, %p : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "permute(Tensor(a) self, int[] dims) -> Tensor(a)"
  opal.decomposition "permute" {
  ^bb0(%self: !opal.tensor, %dims: !opal.list<i64>):
    %p = opal.normalize_dims %self, %dims : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %r = prims.transpose %self, %p : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Optional and string arguments: static_if picks a branch per use.
  opal.def "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor"
  opal.decomposition "clamp" {
  ^bb0(%self: !opal.tensor, %min: f64, %max: f64):
    %no_min = opal.is_none %min : f64 -> i1
    %low = opal.static_if %no_min -> !opal.tensor {
      opal.yield %self : !opal.tensor
    } else {
      %x, %m = opal.promote %self, %min : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
      %xb, %mb = opal.broadcast_tensors %x, %m : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %c = prims.maximum %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %c : !opal.tensor
    }
    %no_max = opal.is_none %max : f64 -> i1
    %r = opal.static_if %no_max -> !opal.tensor {
      %has_min = opal.static_if %no_min -> i1 {
        %false = arith.constant false
        opal.yield %false : i1
      } else {
        %true = arith.constant true
        opal.yield %true : i1
      }
      opal.check %has_min, "torch.clamp: At least one of 'min' or 'max' must not be None"
      opal.yield %low : !opal.tensor
    } else {
      %x, %m = opal.promote %low, %max : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
      %xb, %mb = opal.broadcast_tensors %x, %m : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %c = prims.minimum %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %c : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "gelu(Tensor self, *, str approximate=\"none\") -> Tensor"
  opal.decomposition "gelu" {
  ^bb0(%self: !opal.tensor, %approximate: !opal.str):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_code = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_int = arith.cmpi sle, %dc_code, %dc_c4 : i64
    %dc_bool = arith.cmpi eq, %dc_code, %dc_c11 : i64
    %dc_not_float = arith.ori %dc_int, %dc_bool : i1
    %dc_float = arith.xori %dc_not_float, %dc_true : i1
    opal.check %dc_float, "\"GeluKernelImpl\" not implemented for '{0:dtype}'" (%dc_code : i64)
    %tanh = opal.str_eq %approximate, "tanh" : !opal.str -> i1
    %half = arith.constant 0.5 : f64
    %one = arith.constant 1.0 : f64
    %r = opal.static_if %tanh -> !opal.tensor {
      // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
      %k = arith.constant 0.7978845608028654 : f64
      %a = arith.constant 0.044715 : f64
      %x, %h, %kt, %at, %o = opal.promote %self, %half, %k, %a, %one {to_float} : !opal.tensor, f64, f64, f64, f64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %xb, %hb, %kb, %ab, %ob = opal.broadcast_tensors %x, %h, %kt, %at, %o : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %x2 = prims.mul %xb, %xb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %x3 = prims.mul %x2, %xb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %ax3 = prims.mul %ab, %x3 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %inner = prims.add %xb, %ax3 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %scaled = prims.mul %kb, %inner : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %t = prims.tanh %scaled : (!opal.tensor) -> !opal.tensor
      %onep = prims.add %ob, %t : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %hx = prims.mul %hb, %xb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %g = prims.mul %hx, %onep : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %g : !opal.tensor
    } else {
      %none = opal.str_eq %approximate, "none" : !opal.str -> i1
      opal.check %none, "approximate argument must be either none or tanh."
      // 0.5 * x * (1 + erf(x / sqrt(2)))
      %k = arith.constant 0.7071067811865476 : f64
      %x, %h, %kt, %o = opal.promote %self, %half, %k, %one {to_float} : !opal.tensor, f64, f64, f64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %xb, %hb, %kb, %ob = opal.broadcast_tensors %x, %h, %kt, %o : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %scaled = prims.mul %xb, %kb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %e = prims.erf %scaled : (!opal.tensor) -> !opal.tensor
      %onep = prims.add %ob, %e : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %hx = prims.mul %hb, %xb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %g = prims.mul %hx, %onep : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %g : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // Shapes and views.
  opal.def "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)"
  opal.decomposition "unsqueeze" {
  ^bb0(%self: !opal.tensor, %dim: i64):
    %d = opal.normalize_dims %self, %dim {insert} : !opal.tensor, i64 -> !opal.list<i64>
    %true = arith.constant true
    %r = opal.keep_dims %self, %d, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)"
  opal.decomposition "squeeze.dim" {
  ^bb0(%self: !opal.tensor, %dim: i64):
    %d = opal.normalize_dims %self, %dim {size_one} : !opal.tensor, i64 -> !opal.list<i64>
    %r = prims.squeeze %self, %d : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)"
  opal.decomposition "expand" {
  ^bb0(%self: !opal.tensor, %size: !opal.list<i64>, %implicit: i1):
    %r = opal.broadcast_to %self, %size : !opal.tensor, !opal.list<i64> -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)"
  opal.decomposition "reshape" {
  ^bb0(%self: !opal.tensor, %shape: !opal.list<i64>):
    %s = opal.infer_shape %self, %shape : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %r = prims.reshape %self, %s : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "view(Tensor(a) self, SymInt[] size) -> Tensor(a)"
  opal.decomposition "view" {
  ^bb0(%self: !opal.tensor, %size: !opal.list<i64>):
    %s = opal.infer_shape %self, %size : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %r = prims.reshape %self, %s : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Creation from another tensor's shape (dtype and device may be given).
  opal.def "zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "zeros_like" {
  ^bb0(%self: !opal.tensor, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %memory_format: i64):
    %fill = arith.constant 0 : i64
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %false = arith.constant false
    %r = prims.full %shape, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "ones_like" {
  ^bb0(%self: !opal.tensor, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %memory_format: i64):
    %fill = arith.constant 1 : i64
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %false = arith.constant false
    %r = prims.full %shape, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "full_like" {
  ^bb0(%self: !opal.tensor, %fill: f64, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %memory_format: i64):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %false = arith.constant false
    %r = prims.full %shape, %fill, %code, %dev, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Normalization over the last dims, with optional affine weight and bias.
  // native_layer_norm also returns the mean and 1/std it normalized with,
  // of the input's shape with the normalized dims of size 1.
  opal.def "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)"
  opal.decomposition "native_layer_norm" {
  ^bb0(%input: !opal.tensor, %normalized_shape: !opal.list<i64>, %weight: !opal.tensor, %bias: !opal.tensor, %eps: f64):
    // PyTorch's checks, in its order: a normalized shape, weight and bias
    // of that shape, and an input that ends with it.
    %length = opal.list_len %normalized_shape : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %some = arith.cmpi sgt, %length, %c0 : i64
    opal.check %some, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = [{0}]" (%normalized_shape : !opal.list<i64>)
    %no_w = opal.is_none %weight : !opal.tensor -> i1
    opal.static_if %no_w {
      opal.yield
    } else {
      %ws = opal.shape_of %weight : !opal.tensor -> !opal.list<i64>
      %same = opal.list_eq %ws, %normalized_shape : !opal.list<i64>, !opal.list<i64> -> i1
      opal.check %same, "Expected weight to be of same shape as normalized_shape, but got weight of shape [{0}] and normalized_shape = [{1}]" (%ws, %normalized_shape : !opal.list<i64>, !opal.list<i64>)
      opal.yield
    }
    %no_b = opal.is_none %bias : !opal.tensor -> i1
    opal.static_if %no_b {
      opal.yield
    } else {
      %bs = opal.shape_of %bias : !opal.tensor -> !opal.list<i64>
      %same = opal.list_eq %bs, %normalized_shape : !opal.list<i64>, !opal.list<i64> -> i1
      opal.check %same, "Expected bias to be of same shape as normalized_shape, but got bias of shape [{0}] and normalized_shape = [{1}]" (%bs, %normalized_shape : !opal.list<i64>, !opal.list<i64>)
      opal.yield
    }
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %fits = opal.ends_with %is, %normalized_shape : !opal.list<i64>, !opal.list<i64> -> i1
    opal.check %fits, "Given normalized_shape=[{0}], expected input with shape [*, {0}], but got input of size[{1}]" (%normalized_shape, %is : !opal.list<i64>, !opal.list<i64>)
    // Floating-point input, and weight and bias of its dtype.
    %dc_none = opal.none
    %code = opal.dtype_of %input, %dc_none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"LayerNormKernelImpl\" not implemented for '{0:dtype}'" (%code : i64)
    opal.static_if %no_w {
      opal.yield
    } else {
      %wc = opal.dtype_of %weight, %dc_none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %wc, %code : i64
      opal.check %same, "expected scalar type {0:dtype} but found {1:dtype}" (%code, %wc : i64, i64)
      opal.yield
    }
    opal.static_if %no_b {
      opal.yield
    } else {
      %bc = opal.dtype_of %bias, %dc_none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %bc, %code : i64
      opal.check %same, "expected scalar type {0:dtype} but found {1:dtype}" (%code, %bc : i64, i64)
      opal.yield
    }
    %x = opal.promote %input {to_float} : !opal.tensor -> !opal.tensor
    %dims = opal.trailing_dims %x, %normalized_shape : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %none = opal.none
    %true = arith.constant true
    %n = opal.count %x, %dims : !opal.tensor, !opal.list<i64> -> i64
    %s = prims.sum %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    // An empty row's mean is 0 (its variance stays 0/0, NaN), as in PyTorch.
    %c1n = arith.constant 1 : i64
    %n1 = arith.maxsi %n, %c1n : i64
    %sp, %np1 = opal.promote %s, %n1 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %sp2, %np = opal.promote %s, %n : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %sb, %nb = opal.broadcast_tensors %sp, %np1 : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %mean = prims.div %sb, %nb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %mean_k = opal.keep_dims %mean, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %xb, %mb = opal.broadcast_tensors %x, %mean_k : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %centered = prims.sub %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %sq = prims.mul %centered, %centered : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %ssq = prims.sum %sq, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %ssq_b, %nb2 = opal.broadcast_tensors %ssq, %np : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %var = prims.div %ssq_b, %nb2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %var_p, %e = opal.promote %var, %eps : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %var_b, %e_b = opal.broadcast_tensors %var_p, %e : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %var_eps = prims.add %var_b, %e_b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %rstd = prims.rsqrt %var_eps : (!opal.tensor) -> !opal.tensor
    %rstd_k = opal.keep_dims %rstd, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %cb, %rb = opal.broadcast_tensors %centered, %rstd_k : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %y = prims.mul %cb, %rb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %no_weight = opal.is_none %weight : !opal.tensor -> i1
    %scaled = opal.static_if %no_weight -> !opal.tensor {
      opal.yield %y : !opal.tensor
    } else {
      %yp, %wp = opal.promote %y, %weight : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %yb, %wb = opal.broadcast_tensors %yp, %wp : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %m = prims.mul %yb, %wb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %m : !opal.tensor
    }
    %no_bias = opal.is_none %bias : !opal.tensor -> i1
    %r = opal.static_if %no_bias -> !opal.tensor {
      opal.yield %scaled : !opal.tensor
    } else {
      %yp, %bp = opal.promote %scaled, %bias : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %yb, %bb = opal.broadcast_tensors %yp, %bp : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %a = prims.add %yb, %bb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %a : !opal.tensor
    }
    opal.yield %r, %mean_k, %rstd_k : !opal.tensor, !opal.tensor, !opal.tensor
  }
  opal.def "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor"
  opal.decomposition "layer_norm" {
  ^bb0(%input: !opal.tensor, %normalized_shape: !opal.list<i64>, %weight: !opal.tensor, %bias: !opal.tensor, %eps: f64, %cudnn_enable: i1):
    %r, %mean, %rstd = aten.native_layer_norm %input, %normalized_shape, %weight, %bias, %eps : (!opal.tensor, !opal.list<i64>, !opal.tensor, !opal.tensor, f64) -> (!opal.tensor, !opal.tensor, !opal.tensor)
    opal.yield %r : !opal.tensor
  }
  // matmul by rank: dot, vector-matrix, matrix-vector, mm, and bmm for 3-d
  // operands (a 2-d operand is broadcast along the other's batch).
  opal.def "matmul(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "matmul" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %dc_none = opal.none
    %dc_c4 = arith.constant 4 : i64
    %dc_c11 = arith.constant 11 : i64
    %dc_true = arith.constant true
    %dc_a = opal.dtype_of %self, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_b = opal.dtype_of %other, %dc_none : !opal.tensor, !opal.none -> i64
    %dc_same = arith.cmpi eq, %dc_a, %dc_b : i64
    %dc_not_bool = arith.cmpi ne, %dc_a, %dc_c11 : i64
    %dc_dot1 = opal.has_rank %self, 1 : !opal.tensor -> i1
    %dc_dot2 = opal.has_rank %other, 1 : !opal.tensor -> i1
    %dc_dot = arith.andi %dc_dot1, %dc_dot2 : i1
    opal.static_if %dc_dot {
      opal.check %dc_same, "dot : expected both vectors to have same dtype, but found {0:dtype} and {1:dtype}" (%dc_a, %dc_b : i64, i64)
      opal.check %dc_not_bool, "\"dot\" not implemented for 'Bool'"
      opal.yield
    } else {
      opal.check %dc_same, "expected scalar type {0:dtype} but found {1:dtype}" (%dc_a, %dc_b : i64, i64)
      opal.check %dc_not_bool, "\"addmm_impl_cpu_\" not implemented for 'Bool'"
      opal.yield
    }
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %true = arith.constant true
    %a1 = opal.has_rank %a, 1 : !opal.tensor -> i1
    %b1 = opal.has_rank %b, 1 : !opal.tensor -> i1
    %a2 = opal.has_rank %a, 2 : !opal.tensor -> i1
    %b2 = opal.has_rank %b, 2 : !opal.tensor -> i1
    %r = opal.static_if %a1 -> !opal.tensor {
      %v = opal.static_if %b1 -> !opal.tensor {
        %m = prims.mul %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %none = opal.none
        %s = prims.sum %m, %none, %none : (!opal.tensor, !opal.none, !opal.none) -> !opal.tensor
        opal.yield %s : !opal.tensor
      } else {
        %c0 = arith.constant 0 : i64
        %d = opal.normalize_dims %a, %c0 {insert} : !opal.tensor, i64 -> !opal.list<i64>
        %row = opal.keep_dims %a, %d, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
        %p = opal.static_if %b2 -> !opal.tensor {
          %q = prims.mm %row, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
          opal.yield %q : !opal.tensor
        } else {
          %q = opal.batch_matmul %row, %b : !opal.tensor, !opal.tensor -> !opal.tensor
          opal.yield %q : !opal.tensor
        }
        %cm2 = arith.constant -2 : i64
        %rowdim = opal.normalize_dims %p, %cm2 : !opal.tensor, i64 -> !opal.list<i64>
        %s = prims.squeeze %p, %rowdim : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
        opal.yield %s : !opal.tensor
      }
      opal.yield %v : !opal.tensor
    } else {
      %v = opal.static_if %b1 -> !opal.tensor {
        %c1 = arith.constant 1 : i64
        %d = opal.normalize_dims %b, %c1 {insert} : !opal.tensor, i64 -> !opal.list<i64>
        %col = opal.keep_dims %b, %d, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
        %p = opal.static_if %a2 -> !opal.tensor {
          %q = prims.mm %a, %col : (!opal.tensor, !opal.tensor) -> !opal.tensor
          opal.yield %q : !opal.tensor
        } else {
          %q = opal.batch_matmul %a, %col : !opal.tensor, !opal.tensor -> !opal.tensor
          opal.yield %q : !opal.tensor
        }
        %cm1 = arith.constant -1 : i64
        %last = opal.normalize_dims %p, %cm1 : !opal.tensor, i64 -> !opal.list<i64>
        %s = prims.squeeze %p, %last : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
        opal.yield %s : !opal.tensor
      } else {
        %both2 = opal.static_if %a2 -> !opal.tensor {
          %w = opal.static_if %b2 -> !opal.tensor {
            %p = prims.mm %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
            opal.yield %p : !opal.tensor
          } else {
            %p = opal.batch_matmul %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor
            opal.yield %p : !opal.tensor
          }
          opal.yield %w : !opal.tensor
        } else {
          %p = opal.batch_matmul %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor
          opal.yield %p : !opal.tensor
        }
        opal.yield %both2 : !opal.tensor
      }
      opal.yield %v : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"
  opal.decomposition "linear" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor):
    %no_bias = opal.is_none %bias : !opal.tensor -> i1
    // A 2-d or 3-d input with a bias is PyTorch's addmm(bias, input, weight.t()).
    %in2 = opal.has_rank %input, 2 : !opal.tensor -> i1
    %in3 = opal.has_rank %input, 3 : !opal.tensor -> i1
    %addmm_rank = arith.ori %in2, %in3 : i1
    %yes = arith.constant true
    %has_bias = arith.xori %no_bias, %yes : i1
    %addmm = arith.andi %addmm_rank, %has_bias : i1
    opal.static_if %addmm {
      %dc_none = opal.none
      %bc = opal.dtype_of %bias, %dc_none : !opal.tensor, !opal.none -> i64
      %wc = opal.dtype_of %weight, %dc_none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %bc, %wc : i64
      opal.check %same, "self and mat2 must have the same dtype"
      opal.yield
    } else {
      opal.yield
    }
    // A 1-d input with a 1-d bias: PyTorch 2 expands the bias to [1, out]
    // (its words; a bias of size 1 expands, and a size known per call is
    // never 1 here, as sizes of 1 are compiled apart).
    %in1 = opal.has_rank %input, 1 : !opal.tensor -> i1
    %vec = arith.andi %in1, %has_bias : i1
    opal.static_if %vec {
      %b1 = opal.has_rank %bias, 1 : !opal.tensor -> i1
      %w2 = opal.has_rank %weight, 2 : !opal.tensor -> i1
      %both = arith.andi %b1, %w2 : i1
      opal.static_if %both {
        %lc0 = arith.constant 0 : i64
        %lc1 = arith.constant 1 : i64
        %ones = opal.normalize_dims %bias, %lc0 {size_one} : !opal.tensor, i64 -> !opal.list<i64>
        %n_ones = opal.list_len %ones : !opal.list<i64> -> i64
        %stretches = arith.cmpi eq, %n_ones, %lc1 : i64
        opal.static_if %stretches {
          opal.yield
        } else {
          %out = opal.dim_size %weight, 0 : !opal.tensor -> i64
          %bsz = opal.dim_size %bias, 0 : !opal.tensor -> i64
          %fits = arith.cmpi eq, %bsz, %out : i64
          opal.check %fits, "The expanded size of the tensor ({0}) must match the existing size ({1}) at non-singleton dimension 1.  Target sizes: [1, {0}].  Tensor sizes: [{1}]" (%out, %bsz : i64, i64)
          opal.yield
        }
        opal.yield
      } else {
        opal.yield
      }
      opal.yield
    } else {
      opal.yield
    }
    %wt = aten.t %weight : (!opal.tensor) -> !opal.tensor
    %y = aten.matmul %input, %wt : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = opal.static_if %no_bias -> !opal.tensor {
      opal.yield %y : !opal.tensor
    } else {
      // The bias is expanded to the product's shape (addmm, add_): it
      // never broadcasts the product to a larger one.
      %yp, %bp = opal.promote %y, %bias : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      // addmm writes into a tensor of the product's dtype.
      %none = opal.none
      %want = opal.dtype_of %y, %none : !opal.tensor, !opal.none -> i64
      %got = opal.dtype_of %yp, %none : !opal.tensor, !opal.none -> i64
      // PyTorch's can_cast: no float into an integer, no number into bool.
      %c4 = arith.constant 4 : i64
      %c11 = arith.constant 11 : i64
      %got_int = arith.cmpi sle, %got, %c4 : i64
      %got_bool = arith.cmpi eq, %got, %c11 : i64
      %got_number = arith.xori %got_bool, %yes : i1
      %got_float2 = arith.xori %got_int, %yes : i1
      %got_fp = arith.andi %got_float2, %got_number : i1
      %want_int = arith.cmpi sle, %want, %c4 : i64
      %want_bool = arith.cmpi eq, %want, %c11 : i64
      %want_integral = arith.ori %want_int, %want_bool : i1
      %bad_float = arith.andi %got_fp, %want_integral : i1
      %bad_bool = arith.andi %got_number, %want_bool : i1
      %bad = arith.ori %bad_float, %bad_bool : i1
      %castable = arith.xori %bad, %yes : i1
      opal.check %castable, "result type {0:dtype} can't be cast to the desired output type {1:dtype}" (%got, %want : i64, i64)
      %shape = opal.shape_of %yp : !opal.tensor -> !opal.list<i64>
      %bs = opal.shape_of %bp : !opal.tensor -> !opal.list<i64>
      %br = opal.list_len %bs : !opal.list<i64> -> i64
      %yr = opal.list_len %shape : !opal.list<i64> -> i64
      %fits = arith.cmpi sle, %br, %yr : i64
      opal.check %fits, "expand(torch.FloatTensor{{[{0}]}}, size=[{1}]): the number of sizes provided ({2}) must be greater or equal to the number of dimensions in the tensor ({3})" (%bs, %shape, %yr, %br : !opal.list<i64>, !opal.list<i64>, i64, i64)
      %bb = opal.broadcast_to %bp, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
      %a = prims.add %yp, %bb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      // add_ into the product: the result keeps its dtype.
      %ar = opal.to_dtype %a, %want : !opal.tensor, i64 -> !opal.tensor
      opal.yield %ar : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
