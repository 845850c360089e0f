// The aten library, continued: random numbers. Each random op takes one
// stream of its kernel (opal.random_stream): the generator's seed and an
// offset of its own, from which Philox4x32-10 draws the element at
// row-major position i (prims.philox_uniform, prims.philox_normal;
// Runtime/Philox.h). Fused or not, on CPU or CUDA, a seeded program draws
// the same numbers (not PyTorch's: its CPU generator is a Mersenne Twister).
// randperm, a shuffle, is a native kernel (RandomKernels.cpp).
opal.library "aten" {
  opal.def "rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "rand" {
  ^bb0(%size: !opal.list<i64>, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Trying to create tensor with negative dimension {0}: [{1}]" (%negative, %size : i64, !opal.list<i64>)
    %c6 = arith.constant 6 : i64
    %no_dtype = opal.is_none %dtype : i64 -> i1
    %code = opal.static_if %no_dtype -> i64 {
      opal.yield %c6 : i64
    } else {
      opal.yield %dtype : i64
    }
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"check_uniform_bounds\" not implemented for '{0:dtype}'" (%code : i64)
    %dev = opal.device "cpu"
    %seed, %offset = opal.random_stream
    %r = prims.philox_uniform %size, %seed, %offset, %code, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "randn" {
  ^bb0(%size: !opal.list<i64>, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Trying to create tensor with negative dimension {0}: [{1}]" (%negative, %size : i64, !opal.list<i64>)
    %c6 = arith.constant 6 : i64
    %no_dtype = opal.is_none %dtype : i64 -> i1
    %code = opal.static_if %no_dtype -> i64 {
      opal.yield %c6 : i64
    } else {
      opal.yield %dtype : i64
    }
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"normal_kernel_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %dev = opal.device "cpu"
    %seed, %offset = opal.random_stream
    %r = prims.philox_normal %size, %seed, %offset, %code, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "rand_like" {
  ^bb0(%self: !opal.tensor, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %memory_format: i64):
    %size = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"check_uniform_bounds\" not implemented for '{0:dtype}'" (%code : i64)
    %dev = opal.device "cpu"
    %seed, %offset = opal.random_stream
    %r = prims.philox_uniform %size, %seed, %offset, %code, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "randn_like" {
  ^bb0(%self: !opal.tensor, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %memory_format: i64):
    %size = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"normal_kernel_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %dev = opal.device "cpu"
    %seed, %offset = opal.random_stream
    %r = prims.philox_normal %size, %seed, %offset, %code, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // A random permutation of 0..n-1: a native kernel (a shuffle).
  opal.def "randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  // 1 with probability p, in self's shape and dtype (p outside [0, 1], NaN
  // included, raises after the call).
  opal.def "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor"
  opal.decomposition "bernoulli.p" {
  ^bb0(%self: !opal.tensor, %p: f64, %generator: !opal.none):
    %c0f = arith.constant 0.0 : f64
    %c1f = arith.constant 1.0 : f64
    %below = arith.cmpf ult, %p, %c0f : f64
    %above = arith.cmpf ugt, %p, %c1f : f64
    %outside = arith.ori %below, %above : i1
    %outside_t = opal.promote %outside : i1 -> !opal.tensor
    %bits = arith.bitcast %p : f64 to i64
    opal.data_check %outside_t, "bernoulli_ expects p to be in [0, 1], but got p={0:double}" (%bits) : !opal.tensor
    %size = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %c6 = arith.constant 6 : i64
    %dev = opal.device "cpu"
    %seed, %offset = opal.random_stream
    %u = prims.philox_uniform %size, %seed, %offset, %c6, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
    %hit = aten.lt.Scalar %u, %p : (!opal.tensor, f64) -> !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %r = opal.to_dtype %hit, %code : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // 1 with probability self (a float tensor of probabilities in [0, 1]).
  opal.def "bernoulli(Tensor self, *, Generator? generator=None) -> Tensor"
  opal.decomposition "bernoulli" {
  ^bb0(%self: !opal.tensor, %generator: !opal.none):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"bernoulli_tensor_cpu_p_\" not implemented for '{0:dtype}'" (%code : i64)
    %c0f = arith.constant 0.0 : f64
    %c1f = arith.constant 1.0 : f64
    %below = aten.lt.Scalar %self, %c0f : (!opal.tensor, f64) -> !opal.tensor
    %above = aten.gt.Scalar %self, %c1f : (!opal.tensor, f64) -> !opal.tensor
    %nan = aten.ne.Tensor %self, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %out1 = aten.logical_or %below, %above : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %outside = aten.logical_or %out1, %nan : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %outside, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)" : !opal.tensor
    %size = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %c6 = arith.constant 6 : i64
    %dev = opal.device "cpu"
    %seed, %offset = opal.random_stream
    %u = prims.philox_uniform %size, %seed, %offset, %c6, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
    %uc = opal.to_dtype %u, %code : !opal.tensor, i64 -> !opal.tensor
    %hit = aten.lt.Tensor %uc, %self : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = opal.to_dtype %hit, %code : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // (input * mask / (1 - p), mask) with mask true with probability 1 - p
  // when training (train None or true); (input, all true) otherwise. p is
  // checked for a non-empty input (1 - p in [0, 1], as bernoulli_ checks).
  opal.def "native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)"
  opal.decomposition "native_dropout" {
  ^bb0(%input: !opal.tensor, %p: f64, %train: i1):
    %true = arith.constant true
    %no_train = opal.is_none %train : i1 -> i1
    %training = opal.static_if %no_train -> i1 {
      opal.yield %true : i1
    } else {
      opal.yield %train : i1
    }
    %none = opal.none
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %out, %mask = opal.static_if %training -> !opal.tensor, !opal.tensor {
      %c11 = arith.constant 11 : i64
      %float = opal.is_floating %code : i64 -> i1
      opal.check %float, "result type Float can't be cast to the desired output type {0:dtype}" (%code : i64)
      %c0f = arith.constant 0.0 : f64
      %c1f = arith.constant 1.0 : f64
      %keep_p = arith.subf %c1f, %p : f64
      %below = arith.cmpf ult, %keep_p, %c0f : f64
      %above = arith.cmpf ugt, %keep_p, %c1f : f64
      %out_of_range = arith.ori %below, %above : i1
      // (PyTorch returns an empty input before it checks p.)
      %all_dims = opal.normalize_dims %input, %none : !opal.tensor, !opal.none -> !opal.list<i64>
      %numel = opal.count %input, %all_dims : !opal.tensor, !opal.list<i64> -> i64
      %c0 = arith.constant 0 : i64
      %nonempty = arith.cmpi ne, %numel, %c0 : i64
      %outside = arith.andi %out_of_range, %nonempty : i1
      %outside_t = opal.promote %outside : i1 -> !opal.tensor
      %bits = arith.bitcast %keep_p : f64 to i64
      opal.data_check %outside_t, "bernoulli_ expects p to be in [0, 1], but got p={0:double}" (%bits) : !opal.tensor
      %size = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
      %c6 = arith.constant 6 : i64
      %dev = opal.device "cpu"
      %seed, %offset = opal.random_stream
      %u = prims.philox_uniform %size, %seed, %offset, %c6, %dev : (!opal.list<i64>, i64, i64, i64, !opal.device) -> !opal.tensor
      %keep = aten.lt.Scalar %u, %keep_p : (!opal.tensor, f64) -> !opal.tensor
      // 1 / (1 - p), or 0 where p is 1 (PyTorch's guard against 1 / 0).
      %all_dropped = arith.cmpf oeq, %keep_p, %c0f : f64
      %inverse = arith.divf %c1f, %keep_p : f64
      %scale = arith.select %all_dropped, %c0f, %inverse : f64
      %kept = aten.mul.Tensor %input, %keep : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %scaled = aten.mul.Scalar %kept, %scale : (!opal.tensor, f64) -> !opal.tensor
      opal.yield %scaled, %keep : !opal.tensor, !opal.tensor
    } else {
      %c11 = arith.constant 11 : i64
      %all = aten.ones_like %input, %c11, %none, %none, %none, %none : (!opal.tensor, i64, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
      opal.yield %input, %all : !opal.tensor, !opal.tensor
    }
    opal.yield %out, %mask : !opal.tensor, !opal.tensor
  }
  // dropout: p checked (even when not training), then native_dropout's
  // output when training, input otherwise.
  opal.def "dropout(Tensor input, float p, bool train) -> Tensor"
  opal.decomposition "dropout" {
  ^bb0(%input: !opal.tensor, %p: f64, %train: i1):
    %c0f = arith.constant 0.0 : f64
    %c1f = arith.constant 1.0 : f64
    %below = arith.cmpf ult, %p, %c0f : f64
    %above = arith.cmpf ugt, %p, %c1f : f64
    %outside = arith.ori %below, %above : i1
    %outside_t = opal.promote %outside : i1 -> !opal.tensor
    %bits = arith.bitcast %p : f64 to i64
    opal.data_check %outside_t, "dropout probability has to be between 0 and 1, but got {0:double}" (%bits) : !opal.tensor
    %r = opal.static_if %train -> !opal.tensor {
      %out, %mask = aten.native_dropout %input, %p, %train : (!opal.tensor, f64, i1) -> (!opal.tensor, !opal.tensor)
      opal.yield %out : !opal.tensor
    } else {
      opal.yield %input : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
