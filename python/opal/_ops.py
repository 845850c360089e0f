"""opal.ops: operators as Python objects, as torch.ops presents them.

    opal.ops.mylib.scale            OpOverloadPacket (all overloads)
    opal.ops.mylib.scale.default    OpOverload (exactly one schema)
    opal.ops.load_library(path)     loads a shared library of OPAL_LIBRARY ops

Calling an OpOverload parses the arguments against its schema in C++ and
dispatches; calling a packet runs the first overload whose schema accepts the
arguments. PyOperator is a Python-only operator with per-key Python kernels.
"""

import os
import types

from opal import _C

__all__ = ["OpOverload", "OpOverloadPacket", "PyOperator", "ops"]


class OpOverload(_C._OpHandle):
    """One overload of an operator: `opal.ops.ns.op.overload`."""

    def __init__(self, packet, overload_name):
        super().__init__(packet._qualified_op_name, overload_name)
        self._overloadpacket = packet
        self._overloadname = "default" if overload_name == "" else overload_name
        self.__name__ = f"{packet._op_name}.{self._overloadname}"
        self.__qualname__ = self.__name__
        self.py_kernels = {}
        self._dispatch_cache = {}
        self.tags = ()

    def name(self):
        schema = self._schema
        return schema.name + ("." + schema.overload_name if schema.overload_name else "")

    @property
    def overloadpacket(self):
        return self._overloadpacket

    @property
    def namespace(self):
        return self._schema.namespace

    @property
    def op(self):
        return self

    def __str__(self):
        return f"{self._schema.name.replace('::', '.')}.{self._overloadname}"

    def __repr__(self):
        return (f"<OpOverload(op='{self._schema.name.replace('::', '.')}', "
                f"overload='{self._overloadname}')>")

    def __hash__(self):
        return hash(self.name())

    def __eq__(self, other):
        return isinstance(other, OpOverload) and self._handle_eq(other)

    def __deepcopy__(self, memo=None):
        return self

    def py_impl(self, dispatch_key):
        """Records a Python kernel for `dispatch_key` on this object (what an
        upper-case attribute such as `op.CPU` then returns)."""
        def register(fn):
            self.py_kernels[dispatch_key] = fn
            self._dispatch_cache.clear()
            return fn
        return register

    def decompose(self, *args, **kwargs):
        """Runs the op's CompositeImplicitAutograd kernel, or returns
        NotImplemented if it has none."""
        if _C._dispatch_has_kernel_for_dispatch_key(self.name(), "CompositeImplicitAutograd"):
            return self._call_key("CompositeImplicitAutograd", *args, **kwargs)
        return NotImplemented

    def __getattr__(self, name):
        # `op.AutogradCPU`: the key whose kernel serves that dispatch key
        # (or a py_impl override), resolved as the dispatch table does.
        if name[:1].isupper() and hasattr(_C.DispatchKey, name):
            key = getattr(_C.DispatchKey, name)
            if key in self._dispatch_cache:
                return self._dispatch_cache[key]
            result = self.py_kernels.get(key) or _C._dispatch_resolved_key(self.name(), name)
            self._dispatch_cache[key] = result
            return result
        raise AttributeError(f"'{self}' has no attribute '{name}'")


_C._install_fast_call(OpOverload)


class OpOverloadPacket:
    """All overloads of an operator: `opal.ops.ns.op`."""

    def __init__(self, qualified_op_name, op_name, overload_names):
        self._qualified_op_name = qualified_op_name
        self._op_name = op_name
        self.__name__ = op_name
        self._overload_names = list(overload_names)
        self._overloads = {}
        self._call_list = None  # the overloads in call order, built on first call

    def _refresh(self, overload_names):
        self._overload_names = list(overload_names)
        self._call_list = None
        for name in list(self._overloads):
            if name not in self._overload_names:
                attr = "default" if name == "" else name
                self.__dict__.pop(attr, None)
                del self._overloads[name]

    @property
    def op_name(self):
        return self._qualified_op_name

    @property
    def op(self):
        return self

    def overloads(self):
        return ["default" if n == "" else n for n in self._overload_names]

    def _overload(self, name):
        if name not in self._overloads:
            self._overloads[name] = OpOverload(self, name)
        return self._overloads[name]

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(
                f"'{self}' can't have an overload name beginning with '__' and the underlying "
                f"op {self._qualified_op_name} has no attribute {key} either.")
        overload = "" if key == "default" else key
        try:
            result = self._overload(overload)
        except AttributeError:
            raise AttributeError(
                f"The underlying op of '{self}' has no overload name '{key}'") from None
        setattr(self, key, result)
        return result

    def _build_call_list(self):
        calls = self._call_list = [self._overload(n) for n in self._overload_names]
        return calls

    def __call__(self, *args, **kwargs):
        # (Replaced by a C tp_call below, _C._install_packet_call: the same
        # resolution without this frame.)
        calls = self._call_list
        if calls is None:
            calls = self._build_call_list()
        return _C._call_overloads(calls, *args, **kwargs)

    def __str__(self):
        return self._qualified_op_name.replace("::", ".")

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self}')>"

    def __hash__(self):
        return hash(self._qualified_op_name)


_C._install_packet_call(OpOverloadPacket)


class _OpNamespace(types.ModuleType):
    """`opal.ops.<ns>`: its attributes are the namespace's operators."""

    def __init__(self, name):
        super().__init__("opal.ops." + name)
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        qualified = f"{self.name}::{op_name}"
        names = _C._overload_names(qualified)
        if not names:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(qualified, op_name, names)
        setattr(self, op_name, packet)
        return packet

    def __dir__(self):
        """The namespace's operators (what tab completion offers), with the
        module's own attributes."""
        prefix = self.name + "::"
        ops_here = {name[len(prefix):].split(".", 1)[0] for name in _C._dispatch_all_op_names()
                    if name.startswith(prefix)}
        # Names that only have kernels (an IMPL library without a DEF) are
        # not operators one can call.
        ops_here = {name for name in ops_here if _C._overload_names(prefix + name)}
        return sorted(ops_here | set(super().__dir__()))


class _Ops(types.ModuleType):
    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("opal.ops")
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def __dir__(self):
        """Every namespace that has operators, with the module's own attributes."""
        namespaces = {name.split("::", 1)[0] for name in _C._dispatch_all_op_names()
                      if "::" in name}
        methods = {name for name in dir(type(self)) if not name.startswith("_")}
        return sorted(namespaces | methods | set(super().__dir__()))

    def load_library(self, path):
        """Loads a shared library of ops: an ahead-of-time op library built
        by opal-aot (its ops, decompositions and precompiled kernels) or one
        whose OPAL_LIBRARY blocks register ops. A registration that fails
        raises RuntimeError here (an ahead-of-time library then registers
        nothing; of OPAL_LIBRARY blocks, the others stay registered)."""
        path = os.path.realpath(os.path.expanduser(path))
        try:
            errors = _C._load_library(path)
        except RuntimeError as error:
            raise OSError(str(error)) from None
        self.loaded_libraries.add(path)
        if errors:
            raise RuntimeError(f"op library {path} failed to register:\n" + "\n".join(errors))


ops = _Ops()


def _refresh_packet(qualified):
    """Brings a cached packet up to date after a define or a library's end."""
    if "::" not in qualified:
        return
    ns, name = qualified.split("::", 1)
    namespace = ops.__dict__.get(ns)
    if namespace is None or name not in namespace.__dict__:
        return
    names = _C._overload_names(qualified)
    if names:
        namespace.__dict__[name]._refresh(names)
    else:
        del namespace.__dict__[name]


def _overload_for(qualified, overload):
    ns, name = qualified.split("::", 1)
    packet = getattr(getattr(ops, ns), name)
    return getattr(packet, "default" if overload == "" else overload)


#===------------------------------------------------------------------------===#
# Python-only operators
#===------------------------------------------------------------------------===#

class _Fallthrough:
    def __repr__(self):
        return "fallthrough"


_FALLTHROUGH = _Fallthrough()


def _tensors_in(values, out):
    for value in values:
        if isinstance(value, _C.Tensor):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            _tensors_in(value, out)
        elif isinstance(value, dict):
            _tensors_in(value.values(), out)
    return out


class PyOperator:
    """An operator with no schema whose kernels are Python functions per
    dispatch key, dispatched by the same rules as other ops (the highest key
    of the arguments' keys and the TLS include/exclude sets). For operators
    that take functions or otherwise have no schema."""

    def __init__(self, name):
        if name in ops.__dict__:
            raise RuntimeError(f"opal.ops.{name} already exists")
        self._name = name
        self.__name__ = name
        self.table = {}
        setattr(ops, name, self)

    def name(self):
        return self._name

    def py_impl(self, dispatch_key):
        def register(fn):
            self.table[dispatch_key] = fn
            return fn
        return register

    def fallthrough(self, dispatch_key):
        self.table[dispatch_key] = _FALLTHROUGH

    def _kernel_for(self, key):
        if key in self.table:
            return self.table[key]
        K = _C.DispatchKey
        for alias in (K.CompositeExplicitAutograd, K.CompositeImplicitAutograd, K.Autograd):
            if alias in self.table and _C._dispatch_is_included_in_alias(key, alias):
                return self.table[alias]
        return None

    def dispatch(self, keys, *args, **kwargs):
        while True:
            key = keys.highestPriorityTypeId()
            if key == _C.DispatchKey.Python and _mode_stack:
                return _dispatch_to_mode_with(self, args, kwargs)
            kernel = self._kernel_for(key)
            if kernel is _FALLTHROUGH or (kernel is None and key != _C.DispatchKey.Undefined
                                          and _C._dispatch_is_framework_fallthrough(key)):
                keys = keys & _C._dispatch_keyset_full_after(key)
                continue
            if kernel is None:
                raise NotImplementedError(
                    f"could not run '{self._name}' with arguments from the '{key.name}' "
                    f"dispatch key; it has kernels for: "
                    f"[{', '.join(k.name for k in self.table)}]")
            return kernel(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        keys = _C.DispatchKeySet()
        for t in _tensors_in(list(args) + list(kwargs.values()), []):
            keys = keys | _C._dispatch_keys(t)
        keys = (keys | _C._dispatch_tls_local_include_set()) - _C._dispatch_tls_local_exclude_set()
        return self.dispatch(keys, *args, **kwargs)

    def __repr__(self):
        return f"<PyOperator(name='{self._name}')>"


#===------------------------------------------------------------------------===#
# Dispatch modes: the Python key hands calls to the innermost active mode.
#===------------------------------------------------------------------------===#

_mode_stack = []


def _dispatch_to_mode_with(func, args, kwargs):
    types_ = tuple(sorted({type(t) for t in _tensors_in(list(args) + list(kwargs.values()), [])},
                          key=lambda t: t.__qualname__))
    if not _mode_stack:
        with _C._ExcludeDispatchKeyGuard(_C.DispatchKey.Python):
            return func(*args, **kwargs)
    mode = _mode_stack.pop()
    try:
        if _mode_stack:
            return mode.__opal_dispatch__(func, types_, args, kwargs)
        # The last mode: calls it makes go below the Python key.
        with _C._ExcludeDispatchKeyGuard(_C.DispatchKey.Python):
            return mode.__opal_dispatch__(func, types_, args, kwargs)
    finally:
        _mode_stack.append(mode)


def _dispatch_to_mode(qualified, overload, args, kwargs):
    """Called by the Python key's fallback (C++) for every op call while a
    mode is active."""
    return _dispatch_to_mode_with(_overload_for(qualified, overload), args, kwargs)
