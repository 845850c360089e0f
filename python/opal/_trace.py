"""Tracing Python decompositions into op-library text.

`trace_decomposition(schema, fn)` calls `fn` once with stand-ins for the
op's arguments: a `TracedTensor` for each tensor, and the Python values of
the other arguments as SSA values too. While it runs, every call of an opal
op (`opal.ops.ns.op(...)`) is recorded instead of dispatched, and the
result is the text of an `opal.decomposition` in the op-library format,
which the JIT compiles like any other (docs/jit.md). Python control flow runs
once, at trace time: a decomposition must not branch on tensor values.
"""

import math
import re
import struct

from opal import _C, _tensor_ops

__all__ = ["TracedTensor", "trace_decomposition"]


def _base_type(type_text):
    """'Tensor(a)?' -> ('Tensor', optional)."""
    text = re.sub(r"\([^)]*\)", "", type_text)
    optional = text.endswith("?")
    return text.rstrip("?"), optional


def mlir_float(value):
    """`value` as an MLIR f64 literal that reads back exactly: the shortest
    decimal that round-trips, with the '.' MLIR requires (1e-05 is 1.0e-05),
    or the bit pattern in hex for inf and nan."""
    value = float(value)
    if not math.isfinite(value):
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def _mlir_scalar_type(base):
    if base in ("float", "Scalar"):
        return "f64"
    if base == "bool":
        return "i1"
    if base in ("int", "SymInt", "ScalarType", "Layout", "MemoryFormat"):
        return "i64"
    return None


class TracedTensor:
    """A tensor during tracing: an SSA value of the decomposition. It has
    the eager API's operators and methods that are one aten call each
    (opal/_tensor_ops.py: x + y is aten.add.Tensor, x.sum(1) is
    aten.sum.dim_IntList), so traced code is spelled as eager code."""

    def __init__(self, tracer, name):
        self._tracer = tracer
        self._name = name

    def __repr__(self):
        return f"TracedTensor({self._name})"

    def _value_error(self, what):
        raise TypeError(
            f"{self!r}: a traced decomposition cannot use {what}: the tensor's values are "
            "only known per call, and a traced branch would be baked into every call "
            "(data-dependent control flow); compute both sides and choose with "
            "opal.where, or register a Python kernel instead")

    def __bool__(self):
        self._value_error("a tensor as a Python bool (`if`, `while`, `and`, `or`, `not`)")

    def __int__(self):
        self._value_error("a tensor as a Python int")

    def __float__(self):
        self._value_error("a tensor as a Python float")

    def __complex__(self):
        self._value_error("a tensor as a Python complex")

    def __index__(self):
        self._value_error("a tensor as a Python index")

    def item(self):
        self._value_error("item()")

    def tolist(self):
        self._value_error("tolist()")

    def numpy(self):
        self._value_error("numpy()")

    def __len__(self):
        raise TypeError(f"{self!r}: len() of a traced tensor is only known per call: use "
                        "x.shape[0] for a traced value")

    def __iter__(self):
        raise TypeError(f"{self!r}: a traced tensor cannot be iterated (its length is only "
                        "known per call): use x.select(0, i) or x[i]")


class Tracer:
    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def value(self, base, optional, value, context):
        """The SSA name and MLIR type of a non-tensor argument value."""
        if value is None:
            if not optional and base not in ("Scalar",):
                raise TypeError(f"{context}: None is not a {base}")
            name = self.fresh()
            self.lines.append(f"{name} = opal.none")
            return name, "!opal.none"
        if isinstance(value, TracedTensor):
            raise TypeError(f"{context}: expected {base}, got a tensor")
        if base.startswith("Tensor") and isinstance(value, (list, tuple)):
            raise TypeError(f"{context}: a traced decomposition cannot pass a list of tensors "
                            "yet: call the op outside the decomposition, or register a "
                            "Python kernel (opal.library.impl) for it")
        if isinstance(value, _Scalar):
            return value.name, value.type
        if base == "Device" and isinstance(value, str):
            name = self.fresh()
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            self.lines.append(f'{name} = opal.device "{escaped}"')
            return name, "!opal.device"
        if base == "str":
            name = self.fresh()
            escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
            self.lines.append(f'{name} = opal.str "{escaped}"')
            return name, "!opal.str"
        if base.endswith("[]") or re.match(r".*\[\d+\]$", base):
            element = re.sub(r"\[\d*\]$", "", base)
            items = list(value) if isinstance(value, (list, tuple)) else [value]
            parts = [self.value(element, False, item, context) for item in items]
            element_type = _mlir_scalar_type(element) or "i64"
            name = self.fresh()
            if parts:
                names = ", ".join(p[0] for p in parts)
                types = ", ".join(p[1] for p in parts)
                self.lines.append(
                    f"{name} = opal.list {names} : {types} -> !opal.list<{element_type}>")
            else:
                self.lines.append(f"{name} = opal.list -> !opal.list<{element_type}>")
            return name, f"!opal.list<{element_type}>"
        if base == "ScalarType" and isinstance(value, _C.dtype):
            value = int(value)
        name = self.fresh()
        if isinstance(value, bool):
            self.lines.append(f"{name} = arith.constant {'true' if value else 'false'}")
            return name, "i1"
        if isinstance(value, int) and base != "float":
            self.lines.append(f"{name} = arith.constant {value} : i64")
            return name, "i64"
        if isinstance(value, (int, float)):
            self.lines.append(f"{name} = arith.constant {mlir_float(value)} : f64")
            return name, "f64"
        raise TypeError(f"{context}: cannot trace a {type(value).__name__} for {base}")

    def bind(self, schema, args, kwargs):
        """The operands for `schema`, or a string saying why they do not fit."""
        arguments = schema.arguments
        positional = [a for a in arguments if not a.kwarg_only]
        if len(args) > len(positional):
            return f"takes {len(positional)} positional arguments but {len(args)} were given"
        given = dict(zip([a.name for a in positional], args))
        for key, value in kwargs.items():
            if key in given or key not in [a.name for a in arguments]:
                return f"unexpected or repeated argument '{key}'"
            given[key] = value
        operands = []
        for argument in arguments:
            base, optional = _base_type(argument.type)
            if argument.name in given:
                value = given[argument.name]
            elif argument.has_default_value():
                value = argument.default_value
            else:
                return f"missing argument '{argument.name}'"
            context = f"{schema.name}: argument '{argument.name}'"
            if base == "Tensor":
                if isinstance(value, TracedTensor):
                    operands.append((value._name, "!opal.tensor"))
                    continue
                if value is None and optional:
                    operands.append(self.value(base, True, None, context))
                    continue
                return f"argument '{argument.name}' must be a tensor"
            if isinstance(value, TracedTensor):
                return f"argument '{argument.name}' must be {argument.type}, not a tensor"
            try:
                operands.append(self.value(base, optional, value, context))
            except TypeError as error:
                return str(error)
        return operands

    def call(self, schemas, args, kwargs):
        problems = []
        for schema in schemas:
            mark = len(self.lines)
            operands = self.bind(schema, args, kwargs)
            if isinstance(operands, str):
                del self.lines[mark:]
                problems.append(f"{schema}: {operands}")
                continue
            op = schema.name.replace("::", ".")
            if schema.overload_name:
                op += "." + schema.overload_name
            results = [self.fresh() for _ in schema.returns]
            names = ", ".join(o[0] for o in operands)
            types = ", ".join(o[1] for o in operands)
            result_types = ", ".join("!opal.tensor" for _ in results)
            self.lines.append(f"{', '.join(results)} = {op} {names} : ({types}) -> "
                              f"{'(' + result_types + ')' if len(results) > 1 else result_types}")
            traced = [TracedTensor(self, r) for r in results]
            return traced[0] if len(traced) == 1 else tuple(traced)
        raise TypeError("while tracing a decomposition, no overload accepts these "
                        "arguments:\n  " + "\n  ".join(problems))


class _Scalar:
    """A non-tensor value of the decomposition: an SSA value (an argument of
    the traced op, a size of a traced tensor, or arithmetic on them), passed
    to ops as it is. Ints and floats combine with + - * // / and unary -
    into new traced values (arith ops); the value itself is only known per
    call, so Python cannot branch on it."""

    def __init__(self, name, type, tracer=None):
        self.name = name
        self.type = type
        self._tracer = tracer

    def __repr__(self):
        return f"TracedScalar({self.name}: {self.type})"

    def __bool__(self):
        raise TypeError(f"{self!r} is only known per call: a traced decomposition cannot "
                        "branch on it")

    def _compare(self, other):
        raise TypeError(f"{self!r} is only known per call: a traced decomposition cannot "
                        "branch on it (compare sizes in an op instead)")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _compare
    __hash__ = object.__hash__

    def __index__(self):
        raise TypeError(f"{self!r} is only known per call: it cannot be used as a Python int")

    def _operand(self, value, want):
        """`value` (a traced scalar or a Python number) as an SSA value of
        type `want` ("i64" or "f64"), or None."""
        tracer = self._tracer
        if isinstance(value, _Scalar):
            if value.type == want:
                return value.name
            if value.type == "i64" and want == "f64":
                name = tracer.fresh()
                tracer.lines.append(f"{name} = arith.sitofp {value.name} : i64 to f64")
                return name
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if want == "i64" and not isinstance(value, int):
            return None
        name = tracer.fresh()
        literal = str(value) if want == "i64" else mlir_float(value)
        tracer.lines.append(f"{name} = arith.constant {literal} : {want}")
        return name

    def _arith(self, other, int_op, float_op, reverse=False):
        if self._tracer is None or self.type not in ("i64", "f64"):
            return NotImplemented
        other_type = other.type if isinstance(other, _Scalar) else (
            "f64" if isinstance(other, float) else "i64")
        want = "f64" if "f64" in (self.type, other_type) or int_op is None else "i64"
        a, b = self._operand(self, want), self._operand(other, want)
        if a is None or b is None:
            return NotImplemented
        if reverse:
            a, b = b, a
        name = self._tracer.fresh()
        op = int_op if want == "i64" else float_op
        self._tracer.lines.append(f"{name} = arith.{op} {a}, {b} : {want}")
        return _Scalar(name, want, self._tracer)

    def __add__(self, other):
        return self._arith(other, "addi", "addf")

    def __radd__(self, other):
        return self._arith(other, "addi", "addf", reverse=True)

    def __sub__(self, other):
        return self._arith(other, "subi", "subf")

    def __rsub__(self, other):
        return self._arith(other, "subi", "subf", reverse=True)

    def __mul__(self, other):
        return self._arith(other, "muli", "mulf")

    def __rmul__(self, other):
        return self._arith(other, "muli", "mulf", reverse=True)

    def __floordiv__(self, other):
        return self._arith(other, "floordivsi", None)

    def __rfloordiv__(self, other):
        return self._arith(other, "floordivsi", None, reverse=True)

    def __truediv__(self, other):
        return self._arith(other, None, "divf")

    def __rtruediv__(self, other):
        return self._arith(other, None, "divf", reverse=True)

    def __neg__(self):
        return self._arith(0, "subi", "subf", reverse=True)


class _TracedShape:
    """`x.shape` of a traced tensor: `shape[i]` is a traced int (its size,
    known per call); its length, the rank, is not known at trace time."""

    def __init__(self, tensor):
        self._tensor = tensor

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise TypeError("a traced tensor's shape is indexed by an int (its rank is only "
                            "known per call)")
        return self._tensor.size(index)

    def __len__(self):
        raise TypeError("the rank of a traced tensor is only known per call: use x.dim() for "
                        "a traced value, or x.shape[i] for one size")

    def __iter__(self):
        raise TypeError("a traced tensor's shape cannot be unpacked (its rank is only known "
                        "per call): use x.shape[i]")


def _size(self, dim=None):
    """`x.size(i)`: a traced int; `x.size()` is `x.shape`."""
    if dim is None:
        return _TracedShape(self)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError("size(dim) of a traced tensor needs a Python int dim")
    tracer = self._tracer
    name = tracer.fresh()
    tracer.lines.append(f"{name} = opal.dim_size {self._name}, {dim} : !opal.tensor -> i64")
    return _Scalar(name, "i64", tracer)


def _dim(self):
    tracer = self._tracer
    shape, name = tracer.fresh(), tracer.fresh()
    tracer.lines.append(f"{shape} = opal.shape_of {self._name} : !opal.tensor -> "
                        "!opal.list<i64>")
    tracer.lines.append(f"{name} = opal.list_len {shape} : !opal.list<i64> -> i64")
    return _Scalar(name, "i64", tracer)


def _dtype(self):
    tracer = self._tracer
    none, name = tracer.fresh(), tracer.fresh()
    tracer.lines.append(f"{none} = opal.none")
    tracer.lines.append(f"{name} = opal.dtype_of {self._name}, {none} : !opal.tensor, "
                        "!opal.none -> i64")
    return _Scalar(name, "i64", tracer)


def _getitem(self, index):
    """`x[i]`, `x[a:b:c]` and tuples of them, as aten::select.int and
    aten::slice.Tensor calls, one dim at a time (as PyTorch decomposes
    basic indexing)."""
    from . import ops
    items = index if isinstance(index, tuple) else (index,)
    result, dim = self, 0
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, slice, _Scalar)):
            raise TypeError(f"indexing a traced tensor takes ints and slices (basic indexing); "
                            f"{type(item).__name__} is not traced yet")
        if isinstance(item, slice):
            step = 1 if item.step is None else item.step
            result = ops.aten.slice.Tensor(result, dim, item.start, item.stop, step)
            dim += 1
        else:
            result = ops.aten.select.int(result, dim, item)
    return result


TracedTensor.size = _size
TracedTensor.shape = property(lambda self: _TracedShape(self))
TracedTensor.dim = _dim
TracedTensor.ndim = property(_dim)
TracedTensor.dtype = property(_dtype)
TracedTensor.__getitem__ = _getitem


def trace_decomposition(schema, fn):
    """The op-library text of `fn` as the decomposition of `schema`."""
    tracer = Tracer()
    block_args, call_args = [], []
    for index, argument in enumerate(schema.arguments):
        base, optional = _base_type(argument.type)
        name = f"%a{index}"
        if base == "Tensor":
            # A Tensor? is passed on as it is: the ops it goes to see
            # whether the call gave None (opal.is_none in their bodies).
            block_args.append(f"{name}: !opal.tensor")
            call_args.append(TracedTensor(tracer, name))
            continue
        element = re.match(r"^(int|SymInt|float)\[\d*\]$", base)
        if element and not optional:
            mlir_type = "!opal.list<f64>" if element.group(1) == "float" else "!opal.list<i64>"
        elif base == "str" and not optional:
            mlir_type = "!opal.str"
        else:
            mlir_type = None if optional else _mlir_scalar_type(base)
        if mlir_type is None:
            raise TypeError(f"register_decomposition: {schema.name}: argument "
                            f"'{argument.name}' of type {argument.type} cannot be traced "
                            "(Tensor, Tensor?, int, float, bool, Scalar, str, int[] and float[] "
                            "arguments can)")
        block_args.append(f"{name}: {mlir_type}")
        call_args.append(_Scalar(name, mlir_type, tracer))
    for ret in schema.returns:
        if _base_type(ret.type)[0] != "Tensor":
            raise TypeError(f"register_decomposition: {schema.name} must return tensors")
    _C._set_trace_hook(tracer.call)
    try:
        result = fn(*call_args)
    finally:
        _C._set_trace_hook(None)
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(schema.returns) or not all(
            isinstance(r, TracedTensor) for r in results):
        raise TypeError(f"register_decomposition: the function for {schema.name} must return "
                        f"{len(schema.returns)} tensor(s) computed with opal ops")
    ns, name = schema.name.split("::")
    if schema.overload_name:
        name += "." + schema.overload_name
    body = "\n".join("    " + line for line in tracer.lines)
    names = ", ".join(r._name for r in results)
    types = ", ".join("!opal.tensor" for _ in results)
    return (f'opal.library "{ns}" {{\n'
            f'  opal.def "{schema}"\n'
            f'  opal.decomposition "{name}" {{\n'
            f'  ^bb0({", ".join(block_args)}):\n'
            f'{body}\n'
            f'    opal.yield {names} : {types}\n'
            f'  }}\n'
            f'}}\n')


_tensor_ops.add_tensor_type(TracedTensor)
_tensor_ops.add_scalar_type(_Scalar)
_tensor_ops.install(TracedTensor)
