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
}
