"""opal.isclose and opal.allclose: PyTorch's closeness of two tensors.

Element a is close to b when a == b (infinities of one sign included) or
|a - b| <= atol + rtol * |b| with both finite; NaNs are close to each
other only with equal_nan. Computed on the host from the tensors' values
(a CUDA tensor's are copied), in the tensors' dtype as PyTorch computes
them, integers in float32 (PyTorch's default dtype).
"""

import numpy as np

from opal import _C
from opal._tensor import _dtype_name, _host_array


def _pytorch_dtype_name(name):
    """PyTorch's C++ name of a dtype, which its dtype mismatch error uses."""
    return {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint8": "Byte",
            "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
            "bool": "Bool"}[name]


def _check_tolerances(rtol, atol):
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")


def close_arrays(actual, expected, rtol, atol, equal_nan):
    """The closeness of two numpy arrays of one dtype kind, broadcast
    (numpy's rules are PyTorch's)."""
    if actual.dtype.kind in "biu":
        equal = actual == expected
        if rtol == 0 and atol == 0:
            return np.asarray(equal)
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        equal = actual == expected
        if equal_nan:
            equal = equal | (np.isnan(actual) & np.isnan(expected))
        difference = np.abs(actual - expected)
        allowed = atol + rtol * np.abs(expected)
        within = np.isfinite(difference) & (difference <= allowed)
    return np.asarray(equal | within)


def _broadcast_shape(a, b):
    """The shape `a` and `b` broadcast to, after PyTorch's checks of their
    types, dtypes and sizes."""
    if not isinstance(a, _C.Tensor) or not isinstance(b, _C.Tensor):
        raise TypeError(f"isclose(): expected two Tensors, got {type(a).__name__} and "
                        f"{type(b).__name__}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_pytorch_dtype_name(_dtype_name(a.dtype))} did not match "
                           f"{_pytorch_dtype_name(_dtype_name(b.dtype))}")
    try:
        return np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        for dim in range(1, max(a.ndim, b.ndim) + 1):
            sa = a.shape[-dim] if dim <= a.ndim else 1
            sb = b.shape[-dim] if dim <= b.ndim else 1
            if sa != sb and sa != 1 and sb != 1:
                raise RuntimeError(
                    f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                    f"non-singleton dimension {max(a.ndim, b.ndim) - dim}") from None
        raise


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose: a bool tensor, True where `input` is close to `other`
    (broadcast), on `input`'s device (of meta tensors, a meta tensor)."""
    _check_tolerances(rtol, atol)
    shape = _broadcast_shape(input, other)
    if input.is_meta or other.is_meta:
        return _C._empty(list(shape), _C.bool, _C.device("meta"))
    close = close_arrays(_host_array(input), _host_array(other), rtol, atol, equal_nan)
    result = _C.from_numpy(np.ascontiguousarray(close, dtype=np.bool_)).clone()
    return result if input.device.type == "cpu" else result.to(input.device)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose: whether every element of `input` is close to
    `other`'s (a Python bool)."""
    _check_tolerances(rtol, atol)
    _broadcast_shape(input, other)
    if input.is_meta or other.is_meta:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return bool(np.all(close_arrays(_host_array(input), _host_array(other), rtol, atol,
                                    equal_nan)))
