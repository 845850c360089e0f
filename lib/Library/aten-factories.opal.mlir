// The aten library, continued: tensors made from sizes and a fill value,
// copies and conversions. Without a dtype, a fill value gives the default
// dtype of its Python type (bool, int64, float32) as in PyTorch; the `new_*`
// ops take self's dtype.
opal.library "aten" {
  opal.def "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "full" {
  ^bb0(%size: !opal.list<i64>, %fill: f64, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Trying to create tensor with negative dimension {0}: [{1}]" (%negative, %size : i64, !opal.list<i64>)
    %none = opal.none
    %number = opal.dtype_of %fill, %none : f64, !opal.none -> i64
    // A float fill is float32 (the default dtype), not float64.
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %is_float = arith.cmpi eq, %number, %c7 : i64
    %default = arith.select %is_float, %c6, %number : i64
    %no_dtype = opal.is_none %dtype : i64 -> i1
    %code = opal.static_if %no_dtype -> i64 {
      opal.yield %default : i64
    } else {
      opal.yield %dtype : i64
    }
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %false = arith.constant false
    %r = prims.full %size, %fill, %code, %dev, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "zeros" {
  ^bb0(%size: !opal.list<i64>, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Dimension size must be non-negative."
    %c6 = arith.constant 6 : i64
    %no_dtype = opal.is_none %dtype : i64 -> i1
    %code = opal.static_if %no_dtype -> i64 {
      opal.yield %c6 : i64
    } else {
      opal.yield %dtype : i64
    }
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %fill = arith.constant 0 : i64
    %false = arith.constant false
    %r = prims.full %size, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "ones" {
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
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %fill = arith.constant 1 : i64
    %false = arith.constant false
    %r = prims.full %size, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "scalar_tensor" {
  ^bb0(%s: f64, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %c6 = arith.constant 6 : i64
    %no_dtype = opal.is_none %dtype : i64 -> i1
    %code = opal.static_if %no_dtype -> i64 {
      opal.yield %c6 : i64
    } else {
      opal.yield %dtype : i64
    }
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %size = opal.list -> !opal.list<i64>
    %false = arith.constant false
    %r = prims.full %size, %s, %code, %dev, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "new_zeros" {
  ^bb0(%self: !opal.tensor, %size: !opal.list<i64>, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Trying to create tensor with negative dimension {0}: [{1}]" (%negative, %size : i64, !opal.list<i64>)
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %fill = arith.constant 0 : i64
    %false = arith.constant false
    %r = prims.full %size, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "new_ones" {
  ^bb0(%self: !opal.tensor, %size: !opal.list<i64>, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Trying to create tensor with negative dimension {0}: [{1}]" (%negative, %size : i64, !opal.list<i64>)
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %fill = arith.constant 1 : i64
    %false = arith.constant false
    %r = prims.full %size, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.decomposition "new_full" {
  ^bb0(%self: !opal.tensor, %size: !opal.list<i64>, %fill_value: f64, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1):
    %negative = opal.first_negative %size : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %sizes_ok = arith.cmpi eq, %negative, %c0 : i64
    opal.check %sizes_ok, "Trying to create tensor with negative dimension {0}: [{1}]" (%negative, %size : i64, !opal.list<i64>)
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %false = arith.constant false
    %r = prims.full %size, %fill_value, %code, %dev, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // A fresh tensor of self's values (empty_like's values are unspecified in
  // PyTorch; opal's are zeros).
  opal.def "empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "empty_like" {
  ^bb0(%self: !opal.tensor, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %memory_format: i64):
    %size = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %dtype : !opal.tensor, i64 -> i64
    %no_device = opal.is_none %device : !opal.device -> i1
    %dev = opal.static_if %no_device -> !opal.device {
      %cpu = opal.device "cpu"
      opal.yield %cpu : !opal.device
    } else {
      opal.yield %device : !opal.device
    }
    %fill = arith.constant 0 : i64
    %false = arith.constant false
    %r = prims.full %size, %fill, %code, %dev, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "clone" {
  ^bb0(%self: !opal.tensor, %memory_format: i64):
    // A kernel's result is always a fresh tensor: returning self copies it.
    opal.yield %self : !opal.tensor
  }
  opal.def "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor"
  opal.decomposition "_to_copy" {
  ^bb0(%self: !opal.tensor, %dtype: i64, %layout: i64, %device: !opal.device, %pin_memory: i1, %non_blocking: i1, %memory_format: i64):
    %r = opal.to_dtype %self, %dtype : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // start, start + step, ... up to end (excluded): a native kernel, as the
  // length depends on the numbers' values. float32 if any number is a
  // float, int64 otherwise (or dtype).
  opal.def "arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.def "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  opal.def "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  // Uninitialized tensors (native kernels): contiguous, or with the given
  // strides over a storage just large enough.
  opal.def "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
  opal.def "empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
  // A tensor of self's shape and dtype holding value (a Scalar, or a 0-d
  // tensor converted to self's dtype).
  opal.def "fill.Scalar(Tensor self, Scalar value) -> Tensor"
  opal.decomposition "fill.Scalar" {
  ^bb0(%self: !opal.tensor, %value: f64):
    %none = opal.none
    %r = aten.full_like %self, %value, %none, %none, %none, %none, %none : (!opal.tensor, f64, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "fill.Tensor(Tensor self, Tensor value) -> Tensor"
  opal.decomposition "fill.Tensor" {
  ^bb0(%self: !opal.tensor, %value: !opal.tensor):
    %vs = opal.shape_of %value : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %vs : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %scalar = arith.cmpi eq, %rank, %c0 : i64
    opal.check %scalar, "fill_ only supports 0-dimension value tensor but got tensor with {0} dimensions." (%rank : i64)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %v = opal.to_dtype %value, %code : !opal.tensor, i64 -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %r = opal.broadcast_to %v, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
