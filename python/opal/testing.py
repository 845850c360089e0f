"""opal.testing.assert_close: torch.testing.assert_close for opal tensors.

    opal.testing.assert_close(actual, expected)                 # dtype's tolerances
    opal.testing.assert_close(actual, expected, rtol=0, atol=0) # equal

Compares tensors, Python numbers, and sequences and mappings of them
(recursively), as PyTorch does: the shapes, devices and dtypes first, then
the values within `atol + rtol * |expected|`, with PyTorch's default
tolerances per dtype and PyTorch's messages (mismatched elements, the
greatest absolute and relative differences and where they are, and which
item of a sequence or mapping failed).
"""

import collections.abc
import numbers

import numpy as np

from opal import _C
from opal._compare import close_arrays
from opal._tensor import _dtype_name, _host_array

__all__ = ["assert_close"]

# PyTorch's defaults (rtol, atol) per dtype; integers and bool compare equal.
_TOLERANCES = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}


class _Mismatch(AssertionError):
    path = None  # the item that failed: indices and keys from the top


def _tolerances(dtype_name, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype_name, (0.0, 0.0))


def _allowed(rtol, atol, kind):
    return "" if rtol == 0 and atol == 0 else f" (up to {kind} allowed)"


def _compare_scalars(actual, expected, rtol, atol, equal_nan):
    if isinstance(actual, bool) or isinstance(expected, bool):
        if type(actual) is not type(expected):
            raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual != expected:
            raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}")
        return
    if type(actual) is not type(expected):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    name = {int: "int64", float: "float64", complex: "complex128"}.get(type(actual), "float64")
    rtol, atol = _tolerances(name, rtol, atol)
    a, e = np.array(actual), np.array(expected)
    if bool(close_arrays(a, e, rtol, atol, equal_nan)):
        return
    difference = abs(actual - expected)
    relative = difference / abs(expected) if expected != 0 else float("inf")
    verb = "equal" if rtol == 0 and atol == 0 else "close"
    raise _Mismatch(f"Scalars are not {verb}!\n\nExpected {expected} but got {actual}.\n"
                    f"Absolute difference: {difference}{_allowed(rtol, atol, atol)}\n"
                    f"Relative difference: {relative}{_allowed(rtol, atol, rtol)}")


def _attribute(name, actual, expected):
    raise _Mismatch(f"The values for attribute '{name}' do not match: {actual} != {expected}.")


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype):
    if tuple(actual.shape) != tuple(expected.shape):
        _attribute("shape", tuple(actual.shape), tuple(expected.shape))
    if check_device and actual.device != expected.device:
        _attribute("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        _attribute("dtype", repr(actual.dtype), repr(expected.dtype))
    if actual.is_meta or expected.is_meta:
        return  # (no values to compare, as PyTorch)
    names = (_dtype_name(actual.dtype), _dtype_name(expected.dtype))
    name = names[0] if names[0] == names[1] else "float64"
    rtol, atol = _tolerances(name, rtol, atol)
    a, e = _host_array(actual), _host_array(expected)
    if a.dtype != e.dtype:  # (check_dtype=False: compared in a common dtype)
        common = np.result_type(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    close = close_arrays(a, e, rtol, atol, equal_nan)
    if close.all():
        return
    verb = "equal" if rtol == 0 and atol == 0 else "close"
    if a.ndim == 0:
        _compare_scalars(a.item(), e.item(), rtol, atol, equal_nan)
        return
    if a.dtype.kind in "biu":
        a, e = a.astype(np.int64), e.astype(np.int64)
        difference = np.abs(a - e)
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = difference.astype(np.float32) / np.abs(e).astype(np.float32)
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            difference = np.abs(a - e)
            relative = difference / np.abs(e)
    mismatched = int(close.size - np.count_nonzero(close))
    at_absolute = np.unravel_index(int(np.argmax(difference)), a.shape)
    at_relative = np.unravel_index(int(np.argmax(relative)), a.shape)

    def where(index):
        return "(" + ", ".join(str(int(i)) for i in index) + ("," if len(index) == 1 else "") + ")"
    raise _Mismatch(
        f"Tensor-likes are not {verb}!\n\n"
        f"Mismatched elements: {mismatched} / {close.size} "
        f"({100.0 * mismatched / close.size:.1f}%)\n"
        f"Greatest absolute difference: {difference[at_absolute].item()} at index "
        f"{where(at_absolute)}{_allowed(rtol, atol, atol)}\n"
        f"Greatest relative difference: {relative[at_relative].item()} at index "
        f"{where(at_relative)}{_allowed(rtol, atol, rtol)}")


def _is_sequence(value):
    return (isinstance(value, collections.abc.Sequence) and
            not isinstance(value, (str, bytes)))


def _compare(actual, expected, path, options):
    """Compares one item, and the items of sequences and mappings; a
    mismatch records the path of the item that failed."""
    try:
        if isinstance(actual, _C.Tensor) and isinstance(expected, _C.Tensor):
            return _compare_tensors(actual, expected, **options)
        if isinstance(actual, numbers.Number) and isinstance(expected, numbers.Number):
            return _compare_scalars(actual, expected, options["rtol"], options["atol"],
                                    options["equal_nan"])
        if _is_sequence(actual) and _is_sequence(expected):
            if len(actual) != len(expected):
                raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != "
                                f"{len(expected)}")
            for index, (a, e) in enumerate(zip(actual, expected)):
                _compare(a, e, path + [index], options)
            return
        if isinstance(actual, collections.abc.Mapping) and \
                isinstance(expected, collections.abc.Mapping):
            if set(actual) != set(expected):
                raise _Mismatch("The keys of the mappings do not match:\n"
                                f"Missing keys in the actual mapping: "
                                f"{sorted(set(expected) - set(actual), key=repr)}\n"
                                f"Additional keys in the actual mapping: "
                                f"{sorted(set(actual) - set(expected), key=repr)}")
            for key in expected:
                _compare(actual[key], expected[key], path + [key], options)
            return
    except _Mismatch as mismatch:
        if mismatch.path is None:
            mismatch.path = path
        raise
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} "
                    f"and {type(expected)}.")


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, msg=None):
    """Raises AssertionError unless `actual` and `expected` are close (see
    the module's docstring). `msg`: a message to raise instead of the
    generated one, or a callable that takes the generated one and returns
    the message."""
    if (rtol is None) != (atol is None):
        _tolerances(None, rtol, atol)
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan,
               "check_device": check_device, "check_dtype": check_dtype}
    try:
        _compare(actual, expected, [], options)
    except _Mismatch as mismatch:
        message = str(mismatch)
        if mismatch.path:
            items = "".join(f"[{item!r}]" for item in mismatch.path)
            message += f"\n\nThe failure occurred for item {items}"
        if msg is not None:
            message = msg(message) if callable(msg) else msg
        raise AssertionError(message) from None
