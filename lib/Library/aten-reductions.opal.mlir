// The aten library, continued: reductions. Products over all or one dim,
// any/all (uint8 for uint8 inputs, else bool), variance and standard deviation with a correction, logsumexp,
// max/min over all dims, and the index reductions (argmax/argmin and
// max.dim/min.dim, whose indices are the first extreme; NaN is the
// extreme, as in PyTorch).
opal.library "aten" {
  opal.def "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "prod" {
  ^bb0(%self: !opal.tensor, %dtype: i64):
    %x = opal.to_dtype %self, %dtype {integral_to_long} : !opal.tensor, i64 -> !opal.tensor
    %none = opal.none
    %r = prims.prod %x, %none, %none : (!opal.tensor, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "prod.dim_int" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1, %dtype: i64):
    %x = opal.to_dtype %self, %dtype {integral_to_long} : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %none = opal.none
    %p = prims.prod %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %r = opal.keep_dims %p, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "any(Tensor self) -> Tensor"
  opal.decomposition "any" {
  ^bb0(%self: !opal.tensor):
    %c11 = arith.constant 11 : i64
    %x = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %none = opal.none
    %b = prims.amax %x, %none, %none : (!opal.tensor, !opal.none, !opal.none) -> !opal.tensor
    // uint8 in, uint8 out (PyTorch's legacy rule); bool otherwise.
    %in_code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c0 = arith.constant 0 : i64
    %is_u8 = arith.cmpi eq, %in_code, %c0 : i64
    %out_code = arith.select %is_u8, %c0, %c11 : i64
    %r = opal.to_dtype %b, %out_code : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor"
  opal.decomposition "any.dim" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1):
    %c11 = arith.constant 11 : i64
    %x = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %none = opal.none
    %a = prims.amax %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %b = opal.keep_dims %a, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    // uint8 in, uint8 out (PyTorch's legacy rule); bool otherwise.
    %in_code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c0 = arith.constant 0 : i64
    %is_u8 = arith.cmpi eq, %in_code, %c0 : i64
    %out_code = arith.select %is_u8, %c0, %c11 : i64
    %r = opal.to_dtype %b, %out_code : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "all(Tensor self) -> Tensor"
  opal.decomposition "all" {
  ^bb0(%self: !opal.tensor):
    %c11 = arith.constant 11 : i64
    %x = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %none = opal.none
    %b = prims.amin %x, %none, %none : (!opal.tensor, !opal.none, !opal.none) -> !opal.tensor
    // uint8 in, uint8 out (PyTorch's legacy rule); bool otherwise.
    %in_code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c0 = arith.constant 0 : i64
    %is_u8 = arith.cmpi eq, %in_code, %c0 : i64
    %out_code = arith.select %is_u8, %c0, %c11 : i64
    %r = opal.to_dtype %b, %out_code : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor"
  opal.decomposition "all.dim" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1):
    %c11 = arith.constant 11 : i64
    %x = opal.to_dtype %self, %c11 : !opal.tensor, i64 -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %none = opal.none
    %a = prims.amin %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %b = opal.keep_dims %a, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    // uint8 in, uint8 out (PyTorch's legacy rule); bool otherwise.
    %in_code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c0 = arith.constant 0 : i64
    %is_u8 = arith.cmpi eq, %in_code, %c0 : i64
    %out_code = arith.select %is_u8, %c0, %c11 : i64
    %r = opal.to_dtype %b, %out_code : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // var: the mean of squared deviations, divided by max(N - correction, 0)
  // (1 by default, Bessel's correction; a Scalar, which may be fractional).
  opal.def "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor"
  opal.decomposition "var.correction" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %correction: f64, %keepdim: i1):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "std and var only support floating point and complex dtypes"
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %true = arith.constant true
    %s = prims.sum %self, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %n = opal.count %self, %dims : !opal.tensor, !opal.list<i64> -> i64
    %sk = opal.keep_dims %s, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %sp, %np = opal.promote %sk, %n : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %sb, %nb = opal.broadcast_tensors %sp, %np : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %mean = prims.div %sb, %nb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %xb, %mb = opal.broadcast_tensors %self, %mean : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %d = prims.sub %xb, %mb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %d2 = prims.mul %d, %d : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %ss = prims.sum %d2, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    // The divisor, max(N - correction, 0), in the result's dtype.
    %no_correction = opal.is_none %correction : f64 -> i1
    %ct = opal.static_if %no_correction -> !opal.tensor {
      %one = arith.constant 1 : i64
      %s1, %t1 = opal.promote %ss, %one : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
      opal.yield %t1 : !opal.tensor
    } else {
      %s2, %t2 = opal.promote %ss, %correction : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
      opal.yield %t2 : !opal.tensor
    }
    %c0 = arith.constant 0 : i64
    %ssn, %nt, %zt = opal.promote %ss, %n, %c0 : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %nc = prims.sub %nt, %ct : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %divisor = prims.maximum %nc, %zt : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %ssb, %db = opal.broadcast_tensors %ssn, %divisor : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %v = prims.div %ssb, %db : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = opal.keep_dims %v, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor"
  opal.decomposition "var.dim" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %unbiased: i1, %keepdim: i1):
    %c = arith.extui %unbiased : i1 to i64
    %r = aten.var.correction %self, %dim, %c, %keepdim : (!opal.tensor, !opal.list<i64>, i64, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "var(Tensor self, bool unbiased=True) -> Tensor"
  opal.decomposition "var" {
  ^bb0(%self: !opal.tensor, %unbiased: i1):
    %c = arith.extui %unbiased : i1 to i64
    %all = opal.none
    %false = arith.constant false
    %r = aten.var.correction %self, %all, %c, %false : (!opal.tensor, !opal.none, i64, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor"
  opal.decomposition "std.correction" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %correction: f64, %keepdim: i1):
    %v = aten.var.correction %self, %dim, %correction, %keepdim : (!opal.tensor, !opal.list<i64>, f64, i1) -> !opal.tensor
    %r = prims.sqrt %v : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor"
  opal.decomposition "std.dim" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %unbiased: i1, %keepdim: i1):
    %c = arith.extui %unbiased : i1 to i64
    %r = aten.std.correction %self, %dim, %c, %keepdim : (!opal.tensor, !opal.list<i64>, i64, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "std(Tensor self, bool unbiased=True) -> Tensor"
  opal.decomposition "std" {
  ^bb0(%self: !opal.tensor, %unbiased: i1):
    %c = arith.extui %unbiased : i1 to i64
    %all = opal.none
    %false = arith.constant false
    %r = aten.std.correction %self, %all, %c, %false : (!opal.tensor, !opal.none, i64, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // log(sum(exp(x))), shifted by the maximum (0 where it is infinite).
  opal.def "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor"
  opal.decomposition "logsumexp" {
  ^bb0(%self: !opal.tensor, %dim: !opal.list<i64>, %keepdim: i1):
    %x = opal.promote %self {to_float} : !opal.tensor -> !opal.tensor
    %dims = opal.normalize_dims %x, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %none = opal.none
    %true = arith.constant true
    %m = prims.amax %x, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %mk = opal.keep_dims %m, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %inf_c = arith.constant 0x7FF0000000000000 : f64
    %c0 = arith.constant 0 : i64
    %m1, %inf, %zero = opal.promote %mk, %inf_c, %c0 : !opal.tensor, f64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %mb, %ib, %zb = opal.broadcast_tensors %mk, %inf, %zero : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %am = prims.abs %mb : (!opal.tensor) -> !opal.tensor
    %infinite = prims.eq %am, %ib : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %shift = prims.where %infinite, %zb, %mb : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %xb, %sb = opal.broadcast_tensors %x, %shift : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %d = prims.sub %xb, %sb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %e = prims.exp %d : (!opal.tensor) -> !opal.tensor
    %s = prims.sum %e, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %sk = opal.keep_dims %s, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %l = prims.log %sk : (!opal.tensor) -> !opal.tensor
    %lk = prims.add %l, %shift : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = opal.static_if %keepdim -> !opal.tensor {
      opal.yield %lk : !opal.tensor
    } else {
      %sq = prims.squeeze %lk, %dims : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %sq : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "max(Tensor self) -> Tensor"
  opal.decomposition "max" {
  ^bb0(%self: !opal.tensor):
    %all = opal.list -> !opal.list<i64>
    opal.check_reduction_dims %self, %all, "max()" : !opal.tensor, !opal.list<i64>
    %none = opal.none
    %r = prims.amax %self, %none, %none : (!opal.tensor, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "min(Tensor self) -> Tensor"
  opal.decomposition "min" {
  ^bb0(%self: !opal.tensor):
    %all = opal.list -> !opal.list<i64>
    opal.check_reduction_dims %self, %all, "min()" : !opal.tensor, !opal.list<i64>
    %none = opal.none
    %r = prims.amin %self, %none, %none : (!opal.tensor, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"
  opal.decomposition "argmax" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"argmax_cpu\" not implemented for 'Bool'"
    %whole = opal.is_none %dim : i64 -> i1
    %r = opal.static_if %whole -> !opal.tensor {
      // Over the flattened tensor; keepdim keeps every dim, of size 1.
      %all = opal.list -> !opal.list<i64>
      opal.check_reduction_dims %self, %all, "argmax()" : !opal.tensor, !opal.list<i64>
      %i = prims.argmax %self, %none : (!opal.tensor, !opal.none) -> !opal.tensor
      %kept = opal.static_if %keepdim -> !opal.tensor {
        %every = opal.normalize_dims %self, %all : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
        %ones = opal.keep_dims %i, %every, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
        opal.yield %ones : !opal.tensor
      } else {
        opal.yield %i : !opal.tensor
      }
      opal.yield %kept : !opal.tensor
    } else {
      %dims = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
      %given = opal.list %dim : i64 -> !opal.list<i64>
      opal.check_reduction_dims %self, %given, "argmax()" : !opal.tensor, !opal.list<i64>
      %i = prims.argmax %self, %dim : (!opal.tensor, i64) -> !opal.tensor
      %k = opal.keep_dims %i, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %k : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"
  opal.decomposition "argmin" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %not_bool = arith.cmpi ne, %code, %c11 : i64
    opal.check %not_bool, "\"argmin_cpu\" not implemented for 'Bool'"
    %whole = opal.is_none %dim : i64 -> i1
    %r = opal.static_if %whole -> !opal.tensor {
      // Over the flattened tensor; keepdim keeps every dim, of size 1.
      %all = opal.list -> !opal.list<i64>
      opal.check_reduction_dims %self, %all, "argmin()" : !opal.tensor, !opal.list<i64>
      %i = prims.argmin %self, %none : (!opal.tensor, !opal.none) -> !opal.tensor
      %kept = opal.static_if %keepdim -> !opal.tensor {
        %every = opal.normalize_dims %self, %all : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
        %ones = opal.keep_dims %i, %every, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
        opal.yield %ones : !opal.tensor
      } else {
        opal.yield %i : !opal.tensor
      }
      opal.yield %kept : !opal.tensor
    } else {
      %dims = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
      %given = opal.list %dim : i64 -> !opal.list<i64>
      opal.check_reduction_dims %self, %given, "argmin()" : !opal.tensor, !opal.list<i64>
      %i = prims.argmin %self, %dim : (!opal.tensor, i64) -> !opal.tensor
      %k = opal.keep_dims %i, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %k : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
  opal.decomposition "max.dim" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1):
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %given = opal.list %dim : i64 -> !opal.list<i64>
    opal.check_reduction_dims %self, %given, "max()" : !opal.tensor, !opal.list<i64>
    %none = opal.none
    %v = prims.amax %self, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %i = prims.argmax %self, %dim : (!opal.tensor, i64) -> !opal.tensor
    %vk = opal.keep_dims %v, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %ik = opal.keep_dims %i, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %vk, %ik : !opal.tensor, !opal.tensor
  }
  opal.def "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
  opal.decomposition "min.dim" {
  ^bb0(%self: !opal.tensor, %dim: i64, %keepdim: i1):
    %dims = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %given = opal.list %dim : i64 -> !opal.list<i64>
    opal.check_reduction_dims %self, %given, "min()" : !opal.tensor, !opal.list<i64>
    %none = opal.none
    %v = prims.amin %self, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %i = prims.argmin %self, %dim : (!opal.tensor, i64) -> !opal.tensor
    %vk = opal.keep_dims %v, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %ik = opal.keep_dims %i, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    opal.yield %vk, %ik : !opal.tensor, !opal.tensor
  }
  // Running sums along dim: integer and bool tensors sum as int64 unless
  // dtype says otherwise, as sum does.
  opal.def "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor"
  opal.decomposition "cumsum" {
  ^bb0(%self: !opal.tensor, %dim: i64, %dtype: i64):
    %ds = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %x = opal.to_dtype %self, %dtype {integral_to_long} : !opal.tensor, i64 -> !opal.tensor
    %scalar = opal.has_rank %x, 0 : !opal.tensor -> i1
    %r = opal.static_if %scalar -> !opal.tensor {
      opal.yield %x : !opal.tensor
    } else {
      %d = opal.list_item %ds, 0 : !opal.list<i64> -> i64
      %v = prims.cumsum %x, %d : (!opal.tensor, i64) -> !opal.tensor
      opal.yield %v : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
