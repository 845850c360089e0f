"""Tensor factories and the Python half of opal.Tensor."""

import numbers

import numpy as np

from opal import _C
from opal._tensor_str import tensor_repr

Tensor = _C.Tensor
Tensor.__repr__ = tensor_repr
Tensor.__str__ = tensor_repr


def _host_array(tensor):
    """The values of `tensor` as a numpy array on the host, for reading
    (repr, tolist, item, comparisons): a CUDA tensor's are copied, and
    bfloat16 (which numpy has no dtype for) comes as float32, which holds
    every bfloat16 value exactly."""
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    if tensor.dtype == _C.bfloat16:
        tensor = tensor.to(_C.float32)
    return tensor.numpy()




def _tolist(self):
    if self.is_meta:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return _host_array(self).tolist()


def _item(self):
    if self.numel() != 1:
        _item_error(self)
    if self.is_meta:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return _host_array(self).item()


Tensor.tolist = _tolist
Tensor.item = _item
Tensor.__iter__ = lambda self: (self[i] for i in range(len(self)))


def _item_error(tensor):
    raise ValueError(f"a Tensor with {tensor.numel()} elements cannot be converted to Scalar")


_NUMPY_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "float16": np.float16,
    "float32": np.float32, "float64": np.float64, "complex64": np.complex64,
    "complex128": np.complex128,
}

_NUMPY_TO_OPAL = {name: getattr(_C, name) for name in _NUMPY_DTYPES}


def _factory(fn):
    """Adds PyTorch's `requires_grad=False` keyword to a factory."""
    import functools

    @functools.wraps(fn)
    def factory(*args, requires_grad=False, **kwargs):
        result = fn(*args, **kwargs)
        if requires_grad:
            result.requires_grad_()
        return result
    return factory


def _dtype_name(dtype):
    return repr(dtype).split(".", 1)[1]


def _device(device):
    if device is None:
        return _C.device("cpu")
    if isinstance(device, _C.device):
        return device
    return _C.device(str(device))


def _sizes(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return list(size[0])
    return list(size)


def _infer_dtype(array):
    """The dtype of Python data: floats float32, ints int64, bools bool."""
    if array.dtype == np.bool_:
        return _C.bool
    if np.issubdtype(array.dtype, np.integer):
        return _C.int64
    if np.issubdtype(array.dtype, np.complexfloating):
        return _C.complex64
    return _C.float32


_INT_RANGES = {"uint8": (-255, 255, "uint8"), "int8": (-128, 127, "int8"),
               "int16": (-2**15, 2**15 - 1, "int16"), "int32": (-2**31, 2**31 - 1, "int32"),
               "int64": (-2**63, 2**63 - 1, "int64")}


def _has_huge_int(data):
    """Whether nested Python data holds an int outside int64."""
    if isinstance(data, (list, tuple)):
        return any(_has_huge_int(item) for item in data)
    return (isinstance(data, int) and not isinstance(data, bool)
            and not -2**63 <= data < 2**63)


def _check_python_ints(array, name):
    """Raises as torch.tensor does for Python ints that `name` cannot hold."""
    if array.size == 0:
        return
    if array.dtype == np.uint64 and int(array.max()) >= 2**63:
        raise RuntimeError("Overflow when unpacking long")
    low, high, c_name = _INT_RANGES[name]
    if int(array.min()) < low or int(array.max()) > high:
        raise RuntimeError(f"value cannot be converted to type {c_name} without overflow")


@_factory
def tensor(data, dtype=None, device=None):
    """A new tensor holding a copy of `data` (nested lists, numbers, numpy
    arrays or tensors). Python floats become float32, ints int64, bools bool;
    numpy arrays and tensors keep their dtype, as in PyTorch."""
    if isinstance(data, Tensor):
        array = data.cpu().numpy()
        dtype = dtype or data.dtype
    else:
        if isinstance(data, (np.ndarray, np.generic)) and data.dtype.name not in _NUMPY_DTYPES:
            raise TypeError(f"can't convert np.ndarray of type numpy.{data.dtype.name}. The only "
                            "supported types are: float64, float32, float16, complex64, "
                            "complex128, int64, int32, int16, int8, uint8, and bool.")
        array = np.asarray(data)
    python_data = not isinstance(data, (Tensor, np.ndarray, np.generic))
    if array.dtype == object:
        if python_data and _has_huge_int(data):
            raise RuntimeError("Overflow when unpacking long")
        raise TypeError(f"can't build a tensor from {type(data).__name__} data")
    if dtype is None and isinstance(data, (np.ndarray, np.generic)):
        # numpy data keeps its dtype, as torch.tensor does.
        dtype = _NUMPY_TO_OPAL.get(array.dtype.name)
    dtype = dtype or _infer_dtype(array)
    name = _dtype_name(dtype)
    if python_data and array.dtype.kind in "iu" and name in _INT_RANGES:
        # Python ints become elements by PyTorch's rule: past int64 they are
        # refused (numpy made them uint64), and an integer dtype takes only
        # what it can hold (numpy would wrap them).
        _check_python_ints(array, name)
        # (Through int64: numpy warns when it wraps -1 into uint8 itself.)
        array = array.astype(np.int64)
    device = _device(device)
    if device.type == "meta":
        return _C._empty(list(array.shape), dtype, device)
    if name == "bfloat16":
        host = _C.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(dtype)
    else:
        converted = np.array(array, dtype=_NUMPY_DTYPES[name], copy=True, order="C")
        host = _C.from_numpy(converted).clone()
    return host if device.type == "cpu" else host.to(device)


@_factory
def empty(*size, dtype=None, device=None):
    return _C._empty(_sizes(size), dtype or _C.float32, _device(device))


@_factory
def full(size, fill_value, *, dtype=None, device=None):
    if dtype is None:
        dtype = (_C.bool if isinstance(fill_value, bool) else
                 _C.int64 if isinstance(fill_value, numbers.Integral) else _C.float32)
    return _C._full(list(size), fill_value, dtype, _device(device))


@_factory
def zeros(*size, dtype=None, device=None):
    sizes = _sizes(size)
    # (PyTorch 2's zeros checks its sizes itself, in its own words.)
    if any(isinstance(s, int) and s < 0 for s in sizes):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _C._full(sizes, 0.0, dtype or _C.float32, _device(device))


@_factory
def ones(*size, dtype=None, device=None):
    return _C._full(_sizes(size), 1.0, dtype or _C.float32, _device(device))


@_factory
def arange(start, end=None, step=1, *, dtype=None, device=None):
    """PyTorch's torch.arange: the aten op (float32 if a number is a float,
    int64 otherwise, unless dtype says)."""
    from opal import ops
    if end is None:
        start, end = 0, start
    return ops.aten.arange.start_step(start, end, step, dtype=dtype,
                                      device=None if device is None else _device(device))


def _factory_device(device):
    return None if device is None else _device(device)


def _valid_sizes(sizes):
    """Whether every size is an int >= 0: what the runtime fills and the
    _like ops take; others go to the aten op, for PyTorch's errors."""
    return all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sizes)


def _random(name, size, dtype, device):
    """aten.rand or aten.randn of `size`. On the CPU the op takes its sizes
    at run time (one kernel for every shape of a rank); elsewhere its size
    list is a constant of its kernel key, so it runs as aten.rand_like or
    aten.randn_like of an empty tensor of that size: the same numbers (one
    generator stream), one compile per rank. Sizes that are not all >= 0
    and dtypes that are not floating go to aten.rand itself, for its
    errors."""
    from opal import ops
    sizes = _sizes(size)
    op = getattr(ops.aten, name)
    where = _device(device)
    if (where.type == "cpu" or (dtype is not None and not dtype.is_floating_point)
            or not _valid_sizes(sizes)):
        return op(sizes, dtype=dtype, device=_factory_device(device))
    shape_of = _C._empty(sizes, dtype or _C.float32, where)
    return getattr(ops.aten, name + "_like")(shape_of)


@_factory
def rand(*size, dtype=None, device=None):
    """Uniform in [0, 1): aten.rand, drawn from the device's generator
    (opal.manual_seed); compiled once per rank (see _random)."""
    return _random("rand", size, dtype, device)


@_factory
def randn(*size, dtype=None, device=None):
    """Standard normal: aten.randn, drawn from the device's generator;
    compiled once per rank (see _random)."""
    return _random("randn", size, dtype, device)


@_factory
def randperm(n, *, dtype=None, device=None):
    """A random permutation of 0..n-1 (int64 unless dtype says): aten.randperm."""
    from opal import ops
    return ops.aten.randperm(n, dtype=dtype, device=_factory_device(device))


@_factory
def empty_like(t, *, dtype=None, device=None):
    return empty(*t.shape, dtype=dtype or t.dtype, device=device or t.device)


@_factory
def zeros_like(t, *, dtype=None, device=None):
    return zeros(*t.shape, dtype=dtype or t.dtype, device=device or t.device)


@_factory
def ones_like(t, *, dtype=None, device=None):
    return ones(*t.shape, dtype=dtype or t.dtype, device=device or t.device)


@_factory
def full_like(t, fill_value, *, dtype=None, device=None):
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device)


@_factory
def rand_like(t, *, dtype=None, device=None):
    from opal import ops
    return ops.aten.rand_like(t, dtype=dtype, device=_factory_device(device))


@_factory
def randn_like(t, *, dtype=None, device=None):
    from opal import ops
    return ops.aten.randn_like(t, dtype=dtype, device=_factory_device(device))


def from_numpy(array):
    return _C.from_numpy(array)


def from_dlpack(ext_tensor):
    return _C.from_dlpack(ext_tensor)
