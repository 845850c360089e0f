"""The eager tensor API: Python operators, Tensor methods and `opal.<fn>`.

Every spelling here is a call of an `opal.ops.aten` overload, so it goes
through the dispatcher like any other call: dispatch modes see it, the
dispatch table picks its kernel, and MLIR-defined ops run their compiled
kernels. Nothing computes on the side.

    x + y        aten::add.Tensor        x + 2      aten::add.Scalar
    2 - x        aten::rsub.Scalar       2 / x      aten::div.Tensor (a 0-d 2)
    x @ w        aten::matmul            x.sum()    aten::sum.dim_IntList(x, [])
    x += y       aten::add.Tensor, then written into x (its dtype kept)

A Python scalar on either side is taken as PyTorch takes a "wrapped
number": it does not raise the tensor's dtype within its kind (float16 + 2.5
is float16; int64 + 2.5 is float32).
"""

import builtins
import collections
import numbers
import warnings

from opal import _C
from opal._ops import ops

Tensor = _C.Tensor
A = ops.aten

# What the operators take as a tensor operand: opal tensors, and the traced
# tensors of a decomposition being traced (opal._trace adds its class), so
# traced code is spelled as eager code.
TENSOR_TYPES = (Tensor,)


def add_tensor_type(cls):
    global TENSOR_TYPES
    TENSOR_TYPES = TENSOR_TYPES + (cls,)


def add_scalar_type(cls):
    """A class whose values the operators pass as Scalars (the traced int
    and float arguments of a decomposition)."""
    global _SCALARS
    _SCALARS = _SCALARS + (cls,)

# Python numbers a tensor op takes as a Scalar (not numpy arrays, which
# are refused with a pointer to opal.tensor).
_SCALARS = (builtins.bool, numbers.Integral, numbers.Real)


def _is_scalar(value):
    return isinstance(value, _SCALARS) and not isinstance(value, TENSOR_TYPES)


def _wrapped(value, like):
    """A Python scalar as a 0-d tensor on `like`'s device: int64 for ints,
    float32 for floats, bool for bools (PyTorch's default dtypes)."""
    if not isinstance(like, Tensor):
        raise TypeError("a Python number on the left of / or ** is not traced yet: write "
                        "x.reciprocal() * 2 or x.pow(...) instead of 2 / x or 2 ** x")
    from opal._tensor import full
    dtype = (_C.bool if isinstance(value, builtins.bool) else
             _C.int64 if isinstance(value, numbers.Integral) else _C.float32)
    return full((), value, dtype=dtype, device=like.device)


def _binary(name, tensor_overload, scalar_overload):
    """`self <op> other`: the Tensor overload for a tensor, the Scalar one
    for a Python number; anything else is left to Python (NotImplemented)."""
    tensor_op = getattr(getattr(A, name), tensor_overload)
    scalar_op = getattr(getattr(A, name), scalar_overload)

    def method(self, other):
        if isinstance(other, TENSOR_TYPES):
            return tensor_op(self, other)
        if _is_scalar(other):
            return scalar_op(self, other)
        return NotImplemented
    method.__name__ = name
    return method


def _reflected(tensor_op):
    """`scalar <op> self` for an op with no Scalar-first overload: the
    scalar becomes a 0-d tensor (it does not raise self's dtype)."""
    def method(self, other):
        if _is_scalar(other):
            return tensor_op(_wrapped(other, self), self)
        return NotImplemented
    return method


_CASTS = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1,
          "float16": 2, "bfloat16": 2, "float32": 2, "float64": 2,
          "complex64": 3, "complex128": 3}


def _kind(dtype):
    return _CASTS[repr(dtype).split(".", 1)[1]]


def _type_name(dtype):
    names = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
             "int32": "Int", "int64": "Long", "float16": "Half", "bfloat16": "BFloat16",
             "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
             "complex128": "ComplexDouble"}
    return names[repr(dtype).split(".", 1)[1]]


def _write_result(self, result, name):
    """PyTorch's in-place contract: the result keeps self's shape (it may not
    broadcast self to a larger one) and its dtype must cast to self's within
    kind order (no float into an int tensor)."""
    if _kind(result.dtype) > _kind(self.dtype):
        raise RuntimeError(f"{name}: result type {_type_name(result.dtype)} can't be cast to "
                           f"the desired output type {_type_name(self.dtype)}")
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"{name}: output with shape {list(self.shape)} doesn't match the "
                           f"broadcast shape {list(result.shape)}")
    self.copy_(result)
    return self


def _records(self, args):
    return _C.is_grad_enabled() and (
        self.requires_grad or any(isinstance(a, _C.Tensor) and a.requires_grad for a in args))


def _in_place(name, out_of_place, reads_self=False):
    """`name` as `out_of_place` then a copy into self. An op whose backward
    reads self (mul, div, clamp) computes, when autograd records it, from a
    copy of self: the write replaces self's old value, which its backward
    still needs (PyTorch saves the original self too)."""
    def method(self, *args, **kwargs):
        source = self.clone() if reads_self and _records(self, args) else self
        result = out_of_place(source, *args, **kwargs)
        if result is NotImplemented:
            raise TypeError(f"{name}: unsupported operand type {type(args[0]).__name__}")
        return _write_result(self, result, name)
    method.__name__ = name
    return method


def _dims(dim):
    if dim is None:
        return []
    if isinstance(dim, numbers.Integral):
        return [dim]
    # A traced int[] argument goes on as it is.
    return list(dim) if isinstance(dim, (list, tuple)) else dim


def _sum(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None and not keepdim:
        return A.sum.default(self, dtype=dtype)
    return A.sum.dim_IntList(self, _dims(dim), keepdim, dtype=dtype)


def _mean(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None and not keepdim:
        return A.mean.default(self, dtype=dtype)
    return A.mean.dim(self, _dims(dim), keepdim, dtype=dtype)


def _amax(self, dim=(), keepdim=False):
    return A.amax(self, _dims(dim), keepdim)


def _amin(self, dim=(), keepdim=False):
    return A.amin(self, _dims(dim), keepdim)


# What `x.max(dim)` and `x.min(dim)` return: values and (first) indices, by
# position or by name, as PyTorch's torch.return_types.max/min.
max_result = collections.namedtuple("max", ["values", "indices"])
min_result = collections.namedtuple("min", ["values", "indices"])


def _extreme(name, packet, elementwise, result):
    """`x.max()` (all elements), `x.max(other)` (elementwise) and
    `x.max(dim, keepdim=False)` (values and indices)."""
    def method(self, dim=None, keepdim=False, *, other=None):
        if isinstance(dim, TENSOR_TYPES):  # x.max(y), as PyTorch's positional other
            dim, other = None, dim
        if other is not None:
            return elementwise(self, other)
        if dim is None:
            return packet.default(self)
        return result(*packet.dim(self, dim, keepdim))
    return method


sort_result = collections.namedtuple("sort", ["values", "indices"])
topk_result = collections.namedtuple("topk", ["values", "indices"])


def _sort(self, dim=-1, descending=False, stable=False):
    return sort_result(*A.sort(self, dim, descending))


def _topk(self, k, dim=-1, largest=True, sorted=True):
    return topk_result(*A.topk(self, k, dim, largest, sorted))


_max = _extreme("max", A.max, A.maximum, max_result)
_min = _extreme("min", A.min, A.minimum, min_result)


def _reduction_over(packet_all, packet_dim):
    """`x.any()`/`x.any(dim, keepdim)` and the like: all elements, or one dim."""
    def method(self, dim=None, keepdim=False):
        return packet_all(self) if dim is None else packet_dim(self, dim, keepdim)
    return method


def _prod(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return A.prod.default(self, dtype=dtype)
    return A.prod.dim_int(self, dim, keepdim, dtype=dtype)


def _variance(packet):
    """`x.var(dim=None, unbiased=True, keepdim=False, *, correction=None)`."""
    def method(self, dim=None, unbiased=True, keepdim=False, *, correction=None):
        if correction is None:
            correction = 1 if unbiased else 0
        return packet.correction(self, _dims(dim) if dim is not None else None,
                                 correction=correction, keepdim=keepdim)
    return method


def _arg_extreme(packet):
    def method(self, dim=None, keepdim=False):
        return packet(self, dim, keepdim)
    return method


def _divide(self, other, *, rounding_mode=None):
    """`x.div(y, rounding_mode=None)`: true division, or "trunc"/"floor"."""
    if rounding_mode is None:
        return _truediv(self, other)
    if isinstance(other, TENSOR_TYPES):
        return A.div.Tensor_mode(self, other, rounding_mode=rounding_mode)
    return A.div.Scalar_mode(self, other, rounding_mode=rounding_mode)


def _masked_fill(self, mask, value):
    if isinstance(value, TENSOR_TYPES):
        return A.masked_fill.Tensor(self, mask, value)
    return A.masked_fill.Scalar(self, mask, value)


def _softmax(self, dim, dtype=None):
    return A.softmax.int(self, dim, dtype)


def _log_softmax(self, dim, dtype=None):
    return A.log_softmax.int(self, dim, dtype)


def _clamp(self, min=None, max=None):
    return A.clamp(self, min, max)


def _rsub(self, other):
    if _is_scalar(other):
        return A.rsub.Scalar(self, other)
    return NotImplemented


def _matmul(self, other):
    if isinstance(other, TENSOR_TYPES):
        return A.matmul(self, other)
    return NotImplemented


def _where(self, condition, other):
    """`x.where(condition, y)`: x where condition holds, else y."""
    if _is_scalar(other):
        other = _wrapped(other, self)
    return A.where.self(condition, self, other)


def _new_filled(self, size, value, dtype, op):
    """x.new_zeros, new_ones and new_full: filled by the runtime, as
    opal.zeros and opal.full are (no kernel compiled per size, where
    aten.new_zeros's key holds the size list); sizes that are not all
    >= 0 and values the dtype cannot hold go to the aten op, for its
    errors."""
    dtype = dtype or self.dtype
    from opal._tensor import _valid_sizes
    if _valid_sizes(size):
        try:
            return _C._full(size, value, dtype, self.device)
        except (RuntimeError, OverflowError, TypeError):
            pass
    if op is A.new_full:
        return op(self, size, value, dtype=dtype)
    return op(self, size, dtype=dtype)


def _cast(dtype):
    def method(self):
        return self.to(dtype)
    return method


def _size_list(sizes):
    """PyTorch's `x.view(2, 3)` and `x.view((2, 3))`."""
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        return list(sizes[0])
    return list(sizes)


def _squeeze(self, dim=None):
    if dim is None:  # aten::squeeze (all size-1 dims) is not defined yet
        return _NATIVE_SQUEEZE(self)
    return A.squeeze.dim(self, dim)


def _split(self, split_size_or_sections, dim=0):
    """PyTorch's Tensor.split: pieces of one size (an int) or of the given
    sizes (a list), as a tuple of views."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return tuple(A.split_with_sizes(self, list(split_size_or_sections), dim))
    return tuple(A.split.Tensor(self, split_size_or_sections, dim))


def _flip(self, *dims):
    return A.flip(self, _size_list(dims))


# The view methods as the dispatcher's aten view ops (native kernels that
# share memory); squeeze() of every size-1 dim stays native for now.
_NATIVE_SQUEEZE = Tensor.squeeze
_VIEWS = {
    "t": lambda self: A.t(self),
    "transpose": lambda self, dim0, dim1: A.transpose.int(self, dim0, dim1),
    "permute": lambda self, *dims: A.permute(self, _size_list(dims)),
    "view": lambda self, *size: A.view(self, _size_list(size)),
    "reshape": lambda self, *shape: A.reshape(self, _size_list(shape)),
    "expand": lambda self, *size: A.expand(self, _size_list(size)),
    "unsqueeze": lambda self, dim: A.unsqueeze(self, dim),
    "squeeze": _squeeze,
    "select": lambda self, dim, index: A.select.int(self, dim, index),
    "narrow": lambda self, dim, start, length: A.narrow(self, dim, start, length),
    "split": _split,
    "chunk": lambda self, chunks, dim=0: tuple(A.chunk(self, chunks, dim)),
    "unbind": lambda self, dim=0: tuple(A.unbind.int(self, dim)),
}


def _setitem(self, index, value):
    """`x[index] = value` for ints, slices, None and `...`: a write into the
    view `x[index]` (a tensor broadcast to it, or a number filled in). With
    index tensors (`x[mask] = 0`), aten.index_put of that view, copied back
    into it."""
    view, indices = self._index_parts(index)
    if indices is not None:
        if _is_scalar(value):
            value = _C._full([], value, view.dtype, view.device)
        elif not isinstance(value, Tensor):
            raise TypeError(f"can't assign a {type(value).__name__} to a Tensor")
        view.copy_(A.index_put(view, indices, value.to(view.dtype)))
        return
    if (isinstance(value, Tensor) and value.requires_grad and not self.requires_grad
            and _C.is_grad_enabled()):
        # Through the dispatcher's view ops, so that the view knows its base
        # (the write gives the base a history).
        from opal.autograd import _getitem
        view = _getitem(self, index)
    else:
        view = self[index]
    if isinstance(value, Tensor):
        view.copy_(value)
    elif _is_scalar(value):
        view.fill_(value)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a Tensor")


def _bool(self):
    if self.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no' if self.numel() == 0 else 'more than one'} "
                           "value is ambiguous")
    return builtins.bool(self.item())


def _float(self):
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return builtins.float(self.item())


def _zero_(self):
    return self.fill_(0)


def _hash(self):
    return builtins.id(self)


def _bitwise(name):
    """`&`, `|`, `^`: a Python bool is a bool 0-d tensor (as PyTorch wraps
    it), so `mask & True` stays bool; other numbers use the Scalar overload."""
    packet = getattr(A, name)
    tensor_op, scalar_op = packet.Tensor, packet.Scalar

    def method(self, other):
        if isinstance(other, TENSOR_TYPES):
            return tensor_op(self, other)
        if isinstance(other, builtins.bool) and isinstance(self, Tensor):
            return tensor_op(self, _wrapped(other, self))
        if _is_scalar(other):
            return scalar_op(self, other)
        return NotImplemented
    method.__name__ = name
    return method


_floordiv = _binary("floor_divide", "default", "Scalar")
_mod = _binary("remainder", "Tensor", "Scalar")
_fmod = _binary("fmod", "Tensor", "Scalar")
_and = _bitwise("bitwise_and")
_or = _bitwise("bitwise_or")
_xor = _bitwise("bitwise_xor")
_add = _binary("add", "Tensor", "Scalar")
_pow = _binary("pow", "Tensor_Tensor", "Tensor_Scalar")
_truediv = _binary("div", "Tensor", "Scalar")
_sub = _binary("sub", "Tensor", "Scalar")
_mul = _binary("mul", "Tensor", "Scalar")
_eq = _binary("eq", "Tensor", "Scalar")
_ne = _binary("ne", "Tensor", "Scalar")
_lt = _binary("lt", "Tensor", "Scalar")
_le = _binary("le", "Tensor", "Scalar")
_gt = _binary("gt", "Tensor", "Scalar")
_ge = _binary("ge", "Tensor", "Scalar")

def _with_alpha(plain, tensor_op, scalar_op):
    """`add`/`sub` with PyTorch's keyword `alpha` (the plain operator when
    it is 1, which saves parsing a keyword)."""
    def method(self, other, *, alpha=1):
        if alpha == 1:
            result = plain(self, other)
        elif isinstance(other, TENSOR_TYPES):
            result = tensor_op(self, other, alpha=alpha)
        else:
            result = scalar_op(self, other, alpha)
        if result is NotImplemented:
            raise TypeError(f"{tensor_op}: unsupported operand type {type(other).__name__}")
        return result
    return method


_METHODS = {
    # Python operators.
    "__add__": _add, "__radd__": _add,
    "__sub__": _sub, "__rsub__": _rsub,
    "__mul__": _mul, "__rmul__": _mul,
    "__truediv__": _truediv, "__rtruediv__": _reflected(A.div.Tensor),
    "__pow__": _pow, "__rpow__": _reflected(A.pow.Tensor_Tensor),
    "__matmul__": _matmul,
    "__floordiv__": _floordiv, "__rfloordiv__": _reflected(A.floor_divide.default),
    "__mod__": _mod, "__rmod__": _reflected(A.remainder.Tensor),
    "__and__": _and, "__rand__": _and, "__or__": _or, "__ror__": _or,
    "__xor__": _xor, "__rxor__": _xor, "__invert__": lambda self: A.bitwise_not(self),
    "bitwise_and": _and, "bitwise_or": _or, "bitwise_xor": _xor,
    "bitwise_not": lambda self: A.bitwise_not(self),
    "__neg__": lambda self: A.neg(self),
    "__pos__": lambda self: self,
    "__abs__": lambda self: A.abs(self),
    "__eq__": _eq, "__ne__": _ne, "__lt__": _lt, "__le__": _le, "__gt__": _gt, "__ge__": _ge,
    # PyTorch's tensors hash by identity, whatever __eq__ computes.
    "__hash__": _hash, "__bool__": _bool, "__float__": _float, "__setitem__": _setitem,
    "__iadd__": _in_place("add_", _add), "__isub__": _in_place("sub_", _sub),
    "__imul__": _in_place("mul_", _mul, True), "__itruediv__": _in_place("div_", _truediv, True),
    # Methods with PyTorch's names and arguments.
    "add": _with_alpha(_add, A.add.Tensor, A.add.Scalar),
    "sub": _with_alpha(_sub, A.sub.Tensor, A.sub.Scalar),
    "mul": _mul, "pow": _pow, "matmul": _matmul, "mm": lambda s, o: A.mm(s, o),
    "bmm": lambda s, o: A.bmm(s, o),
    "eq": _eq, "ne": _ne, "lt": _lt, "le": _le, "gt": _gt, "ge": _ge,
    "maximum": lambda s, o: A.maximum(s, o), "minimum": lambda s, o: A.minimum(s, o),
    "neg": lambda s: A.neg(s), "abs": lambda s: A.abs(s), "exp": lambda s: A.exp(s),
    "log": lambda s: A.log(s), "log1p": lambda s: A.log1p(s), "sqrt": lambda s: A.sqrt(s),
    "rsqrt": lambda s: A.rsqrt(s), "sin": lambda s: A.sin(s), "cos": lambda s: A.cos(s),
    "tanh": lambda s: A.tanh(s), "erf": lambda s: A.erf(s), "relu": lambda s: A.relu(s),
    "sigmoid": lambda s: A.sigmoid(s), "reciprocal": lambda s: A.reciprocal(s),
    "square": lambda s: A.square(s),
    "sum": _sum, "mean": _mean, "amax": _amax, "amin": _amin, "max": _max, "min": _min,
    "prod": _prod, "any": _reduction_over(A.any.default, A.any.dim),
    "all": _reduction_over(A.all.default, A.all.dim), "var": _variance(A.var),
    "std": _variance(A.std), "logsumexp": lambda s, dim, keepdim=False: A.logsumexp(
        s, _dims(dim), keepdim),
    "argmax": _arg_extreme(A.argmax), "argmin": _arg_extreme(A.argmin),
    "softmax": _softmax, "log_softmax": _log_softmax, "clamp": _clamp,
    "clamp_min": lambda s, m: A.clamp_min(s, m), "clamp_max": lambda s, m: A.clamp_max(s, m),
    "where": _where,
    "floor_divide": _floordiv, "remainder": _mod, "fmod": _fmod, "div": _divide,
    "atan2": lambda s, o: A.atan2(s, o),
    "logical_and": lambda s, o: A.logical_and(s, o),
    "logical_or": lambda s, o: A.logical_or(s, o),
    "logical_xor": lambda s, o: A.logical_xor(s, o),
    "tril": lambda s, diagonal=0: A.tril(s, diagonal),
    "triu": lambda s, diagonal=0: A.triu(s, diagonal),
    "masked_fill": _masked_fill, "flip": _flip, "sort": _sort, "topk": _topk,
    "repeat": lambda s, *repeats: A.repeat(s, _size_list(repeats)),
    "cumsum": lambda s, dim, *, dtype=None: A.cumsum(s, dim, dtype=dtype),
    "scatter": lambda s, dim, index, src: (A.scatter.src(s, dim, index, src)
                                           if isinstance(src, TENSOR_TYPES)
                                           else A.scatter.value(s, dim, index, src)),
    "scatter_add": lambda s, dim, index, src: A.scatter_add(s, dim, index, src),
    "nonzero": lambda s: A.nonzero(s),
    "bernoulli": lambda s, p=None, *, generator=None: _bernoulli(s, p, generator=generator),
    "gather": lambda s, dim, index: A.gather(s, dim, index),
    "index_select": lambda s, dim, index: A.index_select(s, dim, index),
    "new_zeros": lambda s, *size, dtype=None: _new_filled(s, _size_list(size), 0, dtype,
                                                          A.new_zeros),
    "new_ones": lambda s, *size, dtype=None: _new_filled(s, _size_list(size), 1, dtype,
                                                         A.new_ones),
    "new_full": lambda s, size, fill_value, dtype=None: _new_filled(s, list(size), fill_value,
                                                                    dtype, A.new_full),
    "float": _cast(_C.float32), "double": _cast(_C.float64), "half": _cast(_C.float16),
    "long": _cast(_C.int64), "int": _cast(_C.int32), "short": _cast(_C.int16),
    "bool": _cast(_C.bool), "bfloat16": _cast(_C.bfloat16),
    "add_": _in_place("add_", lambda s, o, *, alpha=1: _METHODS["add"](s, o, alpha=alpha)),
    "sub_": _in_place("sub_", lambda s, o, *, alpha=1: _METHODS["sub"](s, o, alpha=alpha)),
    "mul_": _in_place("mul_", _mul, True), "div_": _in_place("div_", _truediv, True),
    "clamp_": _in_place("clamp_", _clamp, True), "zero_": _zero_,
}


for _name in ("ceil", "floor", "round", "trunc", "sign", "expm1", "log2", "log10", "tan", "asin",
              "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "isnan", "isinf",
              "logical_not"):
    _METHODS[_name] = (lambda op: lambda self: op(self))(getattr(A, _name))


# What a traced tensor has too: every operator and method that is one aten
# call (the others need a real tensor).
TRACEABLE = [name for name in list(_METHODS) + list(_VIEWS)
             if name not in ("__hash__", "__bool__", "__float__", "__setitem__", "float",
                             "double", "half",
                             "long", "int", "short", "bool", "bfloat16", "zero_", "squeeze",
                             # Lists of tensors: the tracer records single results.
                             "split", "chunk", "unbind")
             and not (name.endswith("_") and not name.startswith("__"))
             and not name.startswith("__i")]


# The binary operators opal.Tensor gets as C methods (the same calls, without
# a Python frame: OperatorBindings.cpp); the Python ones above are their
# fallback for other operands and what traced tensors use.
_C_OPERATORS = {
    "__add__": (A.add.Tensor, A.add.Scalar), "__radd__": (A.add.Tensor, A.add.Scalar),
    "__sub__": (A.sub.Tensor, A.sub.Scalar),
    "__mul__": (A.mul.Tensor, A.mul.Scalar), "__rmul__": (A.mul.Tensor, A.mul.Scalar),
    "__truediv__": (A.div.Tensor, A.div.Scalar),
    "__pow__": (A.pow.Tensor_Tensor, A.pow.Tensor_Scalar),
    "__matmul__": (A.matmul.default, None),
    "__eq__": (A.eq.Tensor, A.eq.Scalar), "__ne__": (A.ne.Tensor, A.ne.Scalar),
    "__lt__": (A.lt.Tensor, A.lt.Scalar), "__le__": (A.le.Tensor, A.le.Scalar),
    "__gt__": (A.gt.Tensor, A.gt.Scalar), "__ge__": (A.ge.Tensor, A.ge.Scalar),
}


def _transposed(self):
    """`x.T`: the dims reversed (PyTorch's numpy_T: a view; for other than 2
    dims PyTorch deprecates it, and warns as it does)."""
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
    elif self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                      "of a tensor.", UserWarning, stacklevel=2)
    return A.permute(self, list(range(self.ndim - 1, -1, -1)))


def _matrix_transposed(self):
    """`x.mT`: the last two dims swapped (a view)."""
    if self.ndim == 0:
        warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
        return A.permute(self, [])
    if self.ndim == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    return A.transpose.int(self, -2, -1)


# Properties. A traced tensor's rank is known per call only: its `T` is
# aten::t (the same for up to 2 dims; PyTorch deprecates `T` beyond).
_PROPERTIES = {"T": _transposed, "mT": _matrix_transposed}
_TRACED_PROPERTIES = {"T": lambda self: A.t(self),
                      "mT": lambda self: A.transpose.int(self, -2, -1)}


def _traced_cast(dtype):
    def method(self):
        return A._to_copy(self, dtype=dtype)
    return method


def _traced_to(self, dtype):
    """`x.to(dtype)` in a traced decomposition (a dtype only: the device is
    the call's)."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{self!r}: a traced tensor's to() takes a dtype (opal.float32, ...), "
                        f"not {type(dtype).__name__}")
    return A._to_copy(self, dtype=dtype)


# The casts, for traced tensors: a copy into the dtype (aten::_to_copy).
_TRACED_CASTS = {name: _traced_cast(dtype) for name, dtype in (
    ("float", _C.float32), ("double", _C.float64), ("half", _C.float16),
    ("bfloat16", _C.bfloat16), ("long", _C.int64), ("int", _C.int32), ("short", _C.int16),
    ("bool", _C.bool))}
_TRACED_CASTS["to"] = _traced_to


def install(cls=Tensor):
    """Adds the operators and methods to opal.Tensor (or, with `cls`, the
    traceable ones to another tensor class)."""
    methods = dict(_METHODS, **_VIEWS)
    for name in (methods if cls is Tensor else TRACEABLE):
        setattr(cls, name, methods[name])
    for name, getter in (_PROPERTIES if cls is Tensor else _TRACED_PROPERTIES).items():
        setattr(cls, name, property(getter))
    if cls is not Tensor:
        for name, method in _TRACED_CASTS.items():
            setattr(cls, name, method)
    if cls is Tensor:
        for name, (tensor_op, scalar_op) in _C_OPERATORS.items():
            _C._install_binary_method(Tensor, name, tensor_op, scalar_op, methods[name])


def _bernoulli(input, p=None, *, generator=None):
    """torch.bernoulli: 1 with probability p (a float) or input (a tensor of
    probabilities)."""
    if generator is not None:
        raise TypeError("bernoulli(): opal has one generator per device (opal.manual_seed); "
                        "the generator argument must be None")
    return A.bernoulli.default(input) if p is None else A.bernoulli.p(input, p)


def _dropout(input, p=0.5, train=True):
    """torch.dropout: input * mask / (1 - p), mask true with probability
    1 - p, when training; input otherwise."""
    return A.dropout(input, p, train)


# opal.<fn>: PyTorch's functions, each the same call as the method.
FUNCTIONS = {
    "add": _METHODS["add"], "sub": _METHODS["sub"], "mul": _mul,
    "pow": _pow, "matmul": _matmul, "mm": _METHODS["mm"], "bmm": _METHODS["bmm"],
    "eq": _eq, "ne": _ne, "lt": _lt, "le": _le, "gt": _gt, "ge": _ge,
    "maximum": _METHODS["maximum"], "minimum": _METHODS["minimum"],
    "sum": _sum, "mean": _mean, "amax": _amax, "amin": _amin, "max": _max, "min": _min,
    "softmax": _softmax, "log_softmax": _log_softmax, "clamp": _clamp,
    "clamp_min": _METHODS["clamp_min"], "clamp_max": _METHODS["clamp_max"],
    "bitwise_and": _and, "bitwise_or": _or, "bitwise_xor": _xor,
    "bitwise_not": lambda input: A.bitwise_not(input),
    "where": lambda condition, input, other: A.where.self(
        condition, _wrapped(input, other) if _is_scalar(input) else input,
        _wrapped(other, input) if _is_scalar(other) else other),
    "rsub": lambda input, other, alpha=1: (
        A.rsub.Scalar(input, other, alpha) if _is_scalar(other)
        else A.sub.Tensor(other, input, alpha=alpha)),
}
for _name in ("neg", "abs", "exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tanh",
              "erf", "relu", "sigmoid", "reciprocal", "square", "ceil", "floor", "round",
              "trunc", "sign", "expm1", "log2", "log10", "tan", "asin", "acos", "atan", "sinh",
              "cosh", "asinh", "acosh", "atanh", "isnan", "isinf", "logical_not", "logical_and",
              "logical_or", "logical_xor", "atan2", "floor_divide", "remainder", "fmod", "prod",
              "any", "all", "var", "std", "logsumexp", "argmax", "argmin", "tril", "triu",
              "masked_fill", "gather", "index_select", "sort", "topk", "cumsum", "scatter",
              "scatter_add", "nonzero"):
    FUNCTIONS[_name] = _METHODS[_name]
for _name in ("select", "narrow", "split", "chunk", "unbind"):
    FUNCTIONS[_name] = _VIEWS[_name]
FUNCTIONS["flip"] = lambda input, dims: A.flip(input, list(dims))
FUNCTIONS["cat"] = lambda tensors, dim=0: A.cat(list(tensors), dim)
FUNCTIONS["concat"] = FUNCTIONS["cat"]
FUNCTIONS["stack"] = lambda tensors, dim=0: A.stack(list(tensors), dim)
# A native copy (opal.tensor and copies use it; aten.clone is the same op).
FUNCTIONS["clone"] = lambda input: input.clone()
FUNCTIONS["div"] = _divide
FUNCTIONS["bernoulli"] = _bernoulli
FUNCTIONS["dropout"] = _dropout
# Ops whose function is the aten op itself, under PyTorch's name.
for _name in ("silu", "softplus", "leaky_relu", "hardtanh", "gelu", "layer_norm", "linear",
              "transpose", "t", "permute", "unsqueeze", "squeeze", "reshape"):
    FUNCTIONS.setdefault(_name, getattr(A, _name))
