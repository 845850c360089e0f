// The aten library, continued: rounding, more transcendental functions,
// integer-safe division and remainders, logical ops and more activations,
// with PyTorch's schemas and dtype rules. An integer division by zero raises
// ZeroDivisionError (opal-derive-data-checks).
opal.library "aten" {
  // Rounding keeps integers as they are; bool has no kernel.
  opal.def "ceil(Tensor self) -> Tensor"
  opal.decomposition "ceil" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"ceil_vml_cpu\" not implemented for 'Bool'"
    %r = prims.ceil %self : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "floor(Tensor self) -> Tensor"
  opal.decomposition "floor" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"floor_vml_cpu\" not implemented for 'Bool'"
    %r = prims.floor %self : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "round(Tensor self) -> Tensor"
  opal.decomposition "round" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"round_vml_cpu\" not implemented for 'Bool'"
    %r = prims.round %self : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "trunc(Tensor self) -> Tensor"
  opal.decomposition "trunc" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"trunc_vml_cpu\" not implemented for 'Bool'"
    %r = prims.trunc %self : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sign(Tensor self) -> Tensor"
  opal.decomposition "sign" {
  ^bb0(%self: !opal.tensor):
    %r = prims.sign %self : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Transcendental functions compute in float (integers become float32).
  opal.def "expm1(Tensor self) -> Tensor"
  opal.decomposition "expm1" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.expm1 %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "log2(Tensor self) -> Tensor"
  opal.decomposition "log2" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.log2 %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "log10(Tensor self) -> Tensor"
  opal.decomposition "log10" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.log10 %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "tan(Tensor self) -> Tensor"
  opal.decomposition "tan" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.tan %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "asin(Tensor self) -> Tensor"
  opal.decomposition "asin" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.asin %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "acos(Tensor self) -> Tensor"
  opal.decomposition "acos" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.acos %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "atan(Tensor self) -> Tensor"
  opal.decomposition "atan" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.atan %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "sinh(Tensor self) -> Tensor"
  opal.decomposition "sinh" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.sinh %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "cosh(Tensor self) -> Tensor"
  opal.decomposition "cosh" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.cosh %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "asinh(Tensor self) -> Tensor"
  opal.decomposition "asinh" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.asinh %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "acosh(Tensor self) -> Tensor"
  opal.decomposition "acosh" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.acosh %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "atanh(Tensor self) -> Tensor"
  opal.decomposition "atanh" {
  ^bb0(%self: !opal.tensor):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %r = prims.atanh %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "atan2(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "atan2" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other {to_float} : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.atan2 %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Remainders: fmod has the sign of self, remainder that of other.
  opal.def "fmod.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "fmod.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"fmod_cpu\" not implemented for 'Bool'"
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.fmod %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "fmod.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "fmod.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"fmod_cpu\" not implemented for 'Bool'"
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.fmod %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "remainder.Tensor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "remainder.Tensor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"remainder_cpu\" not implemented for 'Bool'"
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.remainder %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "remainder.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "remainder.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"remainder_cpu\" not implemented for 'Bool'"
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.remainder %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }

  // Floor division (div with rounding_mode="floor"), as PyTorch computes it:
  // integers from the truncated quotient and remainder; floats from fmod,
  // rounding a quotient that floor leaves more than half away, with a
  // quotient of zero signed as a true division's and x / 0 as a true
  // division's.
  opal.def "floor_divide(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "floor_divide" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"div_floor_cpu\" not implemented for 'Bool'"
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %a0, %zero = opal.promote %a, %c0 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %a1, %one = opal.promote %a, %c1 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %x, %y, %z, %o = opal.broadcast_tensors %a, %b, %zero, %one : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %m = prims.fmod %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %m_nonzero = prims.ne %m, %z : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %m_negative = prims.lt %m, %z : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %y_negative = prims.lt %y, %z : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %signs_differ = prims.ne %m_negative, %y_negative : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %adjust = prims.bitwise_and %m_nonzero, %signs_differ : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %c4 = arith.constant 4 : i64
    %integral = arith.cmpi sle, %code, %c4 : i64
    %r = opal.static_if %integral -> !opal.tensor {
      %q = prims.div %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %q1 = prims.sub %q, %o : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %f = prims.where %adjust, %q1, %q : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %f : !opal.tensor
    } else {
      %diff = prims.sub %x, %m : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %q = prims.div %diff, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %q1 = prims.sub %q, %o : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %d = prims.where %adjust, %q1, %q : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      %fl = prims.floor %d : (!opal.tensor) -> !opal.tensor
      %frac = prims.sub %d, %fl : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %half_c = arith.constant 0.5 : f64
      %d0, %half = opal.promote %d, %half_c : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
      %fr, %h = opal.broadcast_tensors %frac, %half : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %round_up = prims.gt %fr, %h : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %fl1 = prims.add %fl, %o : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %floored = prims.where %round_up, %fl1, %fl : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      %true_div = prims.div %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %signed_zero = prims.copysign %z, %true_div : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %d_nonzero = prims.ne %d, %z : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %f = prims.where %d_nonzero, %floored, %signed_zero : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      %y_zero = prims.eq %y, %z : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %g = prims.where %y_zero, %true_div, %f : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %g : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor"
  opal.decomposition "floor_divide.Scalar" {
  ^bb0(%self: !opal.tensor, %other: f64):
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %r = aten.floor_divide %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Division with a rounding mode: None is true division.
  opal.def "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor"
  opal.decomposition "div.Tensor_mode" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor, %mode: !opal.str):
    %true_division = opal.is_none %mode : !opal.str -> i1
    %r = opal.static_if %true_division -> !opal.tensor {
      %d = aten.div.Tensor %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %d : !opal.tensor
    } else {
      %trunc = opal.str_eq %mode, "trunc" : !opal.str -> i1
      %t = opal.static_if %trunc -> !opal.tensor {
        %a, %b = opal.promote %self, %other : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
        %none = opal.none
        %code = opal.dtype_of %a, %none : !opal.tensor, !opal.none -> i64
        %c11 = arith.constant 11 : i64
        %not_bool = arith.cmpi ne, %code, %c11 : i64
        opal.check %not_bool, "\"div_trunc_cpu\" not implemented for 'Bool'"
        %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
        %q = prims.div %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
        %tq = prims.trunc %q : (!opal.tensor) -> !opal.tensor
        opal.yield %tq : !opal.tensor
      } else {
        %floor = opal.str_eq %mode, "floor" : !opal.str -> i1
        opal.check %floor, "div expected rounding_mode to be one of None, 'trunc', or 'floor'"
        %f = aten.floor_divide %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %f : !opal.tensor
      }
      opal.yield %t : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor"
  opal.decomposition "div.Scalar_mode" {
  ^bb0(%self: !opal.tensor, %other: f64, %mode: !opal.str):
    %true_division = opal.is_none %mode : !opal.str -> i1
    %r = opal.static_if %true_division -> !opal.tensor {
      %d = aten.div.Scalar %self, %other : (!opal.tensor, f64) -> !opal.tensor
      opal.yield %d : !opal.tensor
    } else {
      %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
      %d = aten.div.Tensor_mode %a, %b, %mode : (!opal.tensor, !opal.tensor, !opal.str) -> !opal.tensor
      opal.yield %d : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // Logical ops: any nonzero (or NaN) element is true; the result is bool.
  opal.def "logical_and(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "logical_and" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %c11 = arith.constant 11 : i64
    %a = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %b = opal.to_dtype %other, %c11 : !opal.tensor, i64 -> !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bitwise_and %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "logical_or(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "logical_or" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %c11 = arith.constant 11 : i64
    %a = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %b = opal.to_dtype %other, %c11 : !opal.tensor, i64 -> !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bitwise_or %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "logical_xor(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "logical_xor" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %c11 = arith.constant 11 : i64
    %a = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %b = opal.to_dtype %other, %c11 : !opal.tensor, i64 -> !opal.tensor
    %x, %y = opal.broadcast_tensors %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %r = prims.bitwise_xor %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "logical_not(Tensor self) -> Tensor"
  opal.decomposition "logical_not" {
  ^bb0(%self: !opal.tensor):
    %c11 = arith.constant 11 : i64
    %a = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %r = prims.bitwise_not %a : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Classification: only NaN differs from itself; integers are never
  // infinite (their float32 values are finite).
  opal.def "isnan(Tensor self) -> Tensor"
  opal.decomposition "isnan" {
  ^bb0(%self: !opal.tensor):
    %r = prims.ne %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "isinf(Tensor self) -> Tensor"
  opal.decomposition "isinf" {
  ^bb0(%self: !opal.tensor):
    %inf_c = arith.constant 0x7FF0000000000000 : f64
    %x, %inf = opal.promote %self, %inf_c : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %xb, %ib = opal.broadcast_tensors %x, %inf : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %a = prims.abs %xb : (!opal.tensor) -> !opal.tensor
    %r = prims.eq %a, %ib : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Activations on floating-point tensors.
  opal.def "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor"
  opal.decomposition "elu" {
  ^bb0(%self: !opal.tensor, %alpha: f64, %scale: f64, %input_scale: f64):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"elu_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %c0 = arith.constant 0 : i64
    %x, %al, %sc, %isc, %zero = opal.promote %self, %alpha, %scale, %input_scale, %c0 : !opal.tensor, f64, f64, f64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %xb, %alb, %scb, %iscb, %zb = opal.broadcast_tensors %x, %al, %sc, %isc, %zero : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %positive = prims.gt %xb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %scaled_in = prims.mul %xb, %iscb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %e = prims.expm1 %scaled_in : (!opal.tensor) -> !opal.tensor
    %coef = prims.mul %alb, %scb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %negative = prims.mul %e, %coef : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %linear = prims.mul %xb, %scb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = prims.where %positive, %linear, %negative : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // hardsigmoid(x) = min(max(x + 3, 0), 6) / 6; hardswish(x) = x * that.
  opal.def "hardsigmoid(Tensor self) -> Tensor"
  opal.decomposition "hardsigmoid" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"hardsigmoid_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %c0 = arith.constant 0 : i64
    %c3 = arith.constant 3 : i64
    %c6 = arith.constant 6 : i64
    %x, %zero, %three, %six = opal.promote %self, %c0, %c3, %c6 : !opal.tensor, i64, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %xb, %zb, %tb, %sb = opal.broadcast_tensors %x, %zero, %three, %six : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %shifted = prims.add %xb, %tb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %low = prims.maximum %shifted, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %clamped = prims.minimum %low, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = prims.div %clamped, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "hardswish(Tensor self) -> Tensor"
  opal.decomposition "hardswish" {
  ^bb0(%self: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"hardswish_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %c0 = arith.constant 0 : i64
    %c3 = arith.constant 3 : i64
    %c6 = arith.constant 6 : i64
    %x, %zero, %three, %six = opal.promote %self, %c0, %c3, %c6 : !opal.tensor, i64, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %xb, %zb, %tb, %sb = opal.broadcast_tensors %x, %zero, %three, %six : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    %shifted = prims.add %xb, %tb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %low = prims.maximum %shifted, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %clamped = prims.minimum %low, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %product = prims.mul %xb, %clamped : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = prims.div %product, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Clamping by tensors (broadcast with self; NaN stays NaN).
  opal.def "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor"
  opal.decomposition "clamp.Tensor" {
  ^bb0(%self: !opal.tensor, %min: !opal.tensor, %max: !opal.tensor):
    %no_min = opal.is_none %min : !opal.tensor -> i1
    %no_max = opal.is_none %max : !opal.tensor -> i1
    %neither = arith.andi %no_min, %no_max : i1
    %true = arith.constant true
    %some = arith.xori %neither, %true : i1
    opal.check %some, "torch.clamp: At least one of 'min' or 'max' must not be None"
    %low = opal.static_if %no_min -> !opal.tensor {
      opal.yield %self : !opal.tensor
    } else {
      %x, %m = opal.promote %self, %min : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %xb, %mb = opal.broadcast_tensors %x, %m : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %c = prims.maximum %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %c : !opal.tensor
    }
    %r = opal.static_if %no_max -> !opal.tensor {
      opal.yield %low : !opal.tensor
    } else {
      %x, %m = opal.promote %low, %max : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %xb, %mb = opal.broadcast_tensors %x, %m : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %c = prims.minimum %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %c : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // max/min of two tensors (CompositeImplicitAutograd, as in PyTorch).
  opal.def "max.other(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "max.other" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %r = aten.maximum %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "min.other(Tensor self, Tensor other) -> Tensor"
  opal.decomposition "min.other" {
  ^bb0(%self: !opal.tensor, %other: !opal.tensor):
    %r = aten.minimum %self, %other : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
