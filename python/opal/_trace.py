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

from opal import _C

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
    """A tensor during tracing: an SSA value of the decomposition. The usual
    operators map to aten ops (x + y is aten.add.Tensor)."""

    def __init__(self, tracer, name):
        self._tracer = tracer
        self._name = name

    def __repr__(self):
        return f"TracedTensor({self._name})"

    def _binary(self, packet, scalar_overload, other, reverse=False):
        from opal._ops import ops
        ns = ops.aten
        if isinstance(other, TracedTensor):
            a, b = (other, self) if reverse else (self, other)
            return getattr(ns, packet).Tensor(a, b)
        if reverse:
            return None
        return getattr(getattr(ns, packet), scalar_overload)(self, other)

    def __add__(self, other):
        return self._binary("add", "Scalar", other)

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        return self._binary("sub", "Scalar", other)

    def __rsub__(self, other):
        from opal._ops import ops
        return ops.aten.rsub.Scalar(self, other)

    def __mul__(self, other):
        return self._binary("mul", "Scalar", other)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        return self._binary("div", "Scalar", other)

    def __neg__(self):
        from opal._ops import ops
        return ops.aten.neg(self)


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
        if isinstance(value, _Scalar):
            return value.name, value.type
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
    """A float/int/bool argument of the traced op: an SSA value of the
    decomposition, passed to ops as it is (arithmetic on it is not traced)."""

    def __init__(self, name, type):
        self.name = name
        self.type = type


def trace_decomposition(schema, fn):
    """The op-library text of `fn` as the decomposition of `schema`."""
    tracer = Tracer()
    block_args, call_args = [], []
    for index, argument in enumerate(schema.arguments):
        base, optional = _base_type(argument.type)
        name = f"%a{index}"
        if base == "Tensor" and not optional:
            block_args.append(f"{name}: !opal.tensor")
            call_args.append(TracedTensor(tracer, name))
            continue
        mlir_type = _mlir_scalar_type(base)
        if mlir_type is None or optional:
            raise TypeError(f"register_decomposition: {schema.name}: argument "
                            f"'{argument.name}' of type {argument.type} cannot be traced "
                            "(tensors, int, float, bool and Scalar arguments can)")
        block_args.append(f"{name}: {mlir_type}")
        call_args.append(_Scalar(name, mlir_type))
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

