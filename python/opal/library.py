"""opal.library: registering operators and kernels from Python.

Mirrors torch.library (PyTorch 1.13, plus the FRAGMENT kind and the
module-level define/impl/impl_abstract of later versions):

    lib = opal.library.Library("mylib", "DEF")
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    lib.impl("scale", lambda x, factor: ..., "CPU")

Destroying a Library (del, garbage collection, or _destroy()) removes every
definition and kernel it registered.
"""

import re
import sys
import weakref

from opal import _C

__all__ = ["Library", "fallthrough_kernel", "define", "impl", "impl_abstract", "load",
           "register_autograd", "register_decomposition"]

# "<lib ns>/<op name>/<key>" of every live Python impl, as torch.library keeps.
_impls = set()

# Namespaces a DEF/FRAGMENT library may not claim.
_reserved_namespaces = ["prim"]


def fallthrough_kernel():
    """A marker: passed to Library.impl or fallback, it registers a
    fallthrough, so calls skip the key."""
    raise NotImplementedError("fallthrough_kernel() should never be called")


def _caller_location(depth):
    frame = sys._getframe(depth)
    return frame.f_code.co_filename, frame.f_lineno


class Library:
    """A library of registrations for one namespace.

    kind is "DEF" (defines ops; one per namespace), "FRAGMENT" (defines more
    ops of a namespace) or "IMPL" (kernels only). dispatch_key, for IMPL
    libraries, is the key impl() uses by default.
    """

    def __init__(self, ns, kind, dispatch_key="", *, _location=None):
        """`_location`: (file, line) its registrations report as where they
        were made (an op-library file's); the caller's by default."""
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(ns, " is a reserved namespace. Please try creating a library "
                                 "with another name.")
        filename, line = _location or _caller_location(2)
        self.m = _C._DispatchLibrary(kind, ns, dispatch_key, filename, line)
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._op_impls = set()
        self._defs = set()
        # The op-library texts (decompositions) this library's registrations
        # use: taken back from the JIT with them.
        self._texts = []
        # Runs when the Library is collected, or at exit.
        self._finalizer = weakref.finalize(self, Library._cleanup, self.m, self._op_impls,
                                           self._texts)

    def __repr__(self):
        return (f"Library(kind={getattr(self, 'kind', None)}, ns={getattr(self, 'ns', None)}, "
                f"dispatch_key={getattr(self, 'dispatch_key', None)})>")

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines an op from a schema; returns its name without namespace or
        overload. alias_analysis is "", "FROM_SCHEMA" or "CONSERVATIVE"."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        name = self.m.define(schema, alias_analysis)
        qualname = schema.split("(")[0].strip()
        if "::" not in qualname:
            qualname = f"{self.ns}::{qualname}"
        self._defs.add(qualname)
        from opal import _ops
        _ops._refresh_packet(qualname.split(".")[0])
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        """Registers `fn` as the kernel of `op_name` ("op", "op.overload",
        "ns::op" or an OpOverload) for `dispatch_key` (default: the library's
        key; none means a catch-all, i.e. CompositeImplicitAutograd). With
        with_keyset=True, fn receives the call's DispatchKeySet first."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        from opal._ops import OpOverload
        if isinstance(op_name, str):
            name = op_name
        elif isinstance(op_name, OpOverload):
            name = op_name._schema.name
            if op_name._schema.overload_name:
                name += "." + op_name._schema.overload_name
        else:
            raise RuntimeError("impl should be passed either a name or an OpOverload "
                               "object as the first argument")
        key = self.ns + "/" + name.split("::")[-1] + "/" + dispatch_key
        if key in _impls:
            raise RuntimeError(
                "This is not allowed since there's already a kernel registered from python "
                "overriding {}'s behavior for {} dispatch key and {} namespace.".format(
                    name.split("::")[-1], dispatch_key, self.ns))
        if dispatch_key == "Meta":
            qualname = name if "::" in name else f"{self.ns}::{name}"
            try:
                has_math = _C._dispatch_has_kernel_for_dispatch_key(
                    qualname, "CompositeImplicitAutograd")
            except RuntimeError:
                has_math = False
            if has_math:
                raise RuntimeError(
                    f"We should not register a meta kernel directly to the operator '{name}', "
                    "because it has a CompositeImplicitAutograd kernel in core. Instead we "
                    "should let the operator decompose, and ensure that we have meta kernels "
                    "for the base ops that it decomposes into.")
        self.m.impl(name, dispatch_key, fn, with_keyset)
        _impls.add(key)
        self._op_impls.add(key)

    def fallback(self, fn, dispatch_key=""):
        """Registers `fn` (or fallthrough_kernel) as the backend fallback of
        the library's key; needs an IMPL library of namespace "_"."""
        if dispatch_key and dispatch_key != self.dispatch_key:
            raise RuntimeError(f"fallback() for {dispatch_key} needs a library for that key "
                               f"(this one is for {self.dispatch_key or 'no key'})")
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        self.m.fallback(fn)

    @staticmethod
    def _cleanup(m, op_impls, texts):
        _impls.difference_update(op_impls)
        m.destroy()
        for text in texts:
            text.release()

    def _destroy(self):
        """Removes everything this library registered, now."""
        self._finalizer()
        from opal import _ops
        for qualname in self._defs:
            _ops._refresh_packet(qualname.split(".")[0])


class _AddedText:
    """An op-library text added to the JIT, shared by the libraries whose
    registrations use it: taken back when the last of them is destroyed, so
    that a decomposition never outlives its registration."""

    def __init__(self, name, text, users):
        self._id = _C._jit_add_op_library_text(name, text)
        self._users = users

    def release(self):
        self._users -= 1
        if self._users == 0:
            _C._jit_remove_op_library_text(self._id)


# Hidden FRAGMENT libraries for the module-level define/impl, kept alive for
# the life of the process (as in later PyTorch versions).
_keep_alive = []


def _fragment(ns):
    lib = Library(ns, "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def _split_qualname(qualname):
    if "::" not in qualname:
        raise ValueError(f"expected a qualified name like 'mylib::op', got '{qualname}'")
    return qualname.split("::", 1)


def define(qualname, schema, *, lib=None, tags=()):
    """Defines `qualname` ("mylib::op") with `schema` ("(Tensor x) -> Tensor")."""
    ns, name = _split_qualname(qualname)
    library = lib or _fragment(ns)
    return library.define(name + schema, tags=tags)


_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta",
                "default": "CompositeExplicitAutograd"}


def impl(qualname, types, func=None, *, lib=None):
    """Registers a kernel for device types ("cpu", "cuda", "meta",
    "default"; one or several). Usable as a decorator."""
    ns, name = _split_qualname(qualname)
    keys = [types] if isinstance(types, str) else list(types)
    for t in keys:
        if t not in _DEVICE_KEYS:
            raise ValueError(f"unknown device type '{t}'; expected one of "
                             f"{', '.join(_DEVICE_KEYS)}")

    def register(fn):
        library = lib or _fragment(ns)
        for t in keys:
            library.impl(name, fn, _DEVICE_KEYS[t])
        return fn

    return register if func is None else register(func)


def impl_abstract(qualname, func=None, *, lib=None):
    """Registers the abstract (Meta) kernel of `qualname`: it computes
    output shapes and dtypes for meta tensors. Usable as a decorator."""
    ns, name = _split_qualname(qualname)

    def register(fn):
        (lib or _fragment(ns)).impl(name, fn, "Meta")
        return fn

    return register if func is None else register(func)


# Op-library files loaded by load(), by real path.
_loaded_files = {}


def load(path):
    """Loads an op-library file (the format opal-opt --op-library reads):
    defines its ops in the dispatcher, one FRAGMENT library per namespace,
    registers each decomposition as its op's CompositeImplicitAutograd
    kernel (compiled by the JIT on first call) and returns the libraries;
    they stay alive until `_destroy()`ed. Loading the same file twice is an
    error."""
    import os
    real = os.path.realpath(path)
    if real in _loaded_files:
        raise RuntimeError(f"op library {path} is already loaded")
    schemas, decomposed, text = _C._read_op_library(path)
    libraries = {}

    def library(ns):
        # Its registrations are reported as made where the file opens the
        # namespace (`opal.library "ns"`), not in this function.
        if ns not in libraries:
            opening = re.compile(r'^\s*opal\.library\s+"' + re.escape(ns) + '"')
            line = next((number for number, text_line in enumerate(text.splitlines(), 1)
                         if opening.match(text_line)), 1)
            libraries[ns] = Library(ns, "FRAGMENT", _location=(real, line))
        return libraries[ns]

    try:
        for schema in schemas:
            library(schema.namespace).define(str(schema))
        if decomposed:
            _C._jit_check_op_library_text(real, text)
        for qualname in decomposed:
            ns, name = qualname.split("::", 1)
            library(ns).m.impl_mlir(name, "CompositeImplicitAutograd")
    except Exception:
        for lib in libraries.values():
            lib._destroy()
        raise
    added = _AddedText(real, text, len(libraries))
    for lib in libraries.values():
        lib._texts.append(added)
    _loaded_files[real] = list(libraries.values())
    return _loaded_files[real]


def register_decomposition(qualname, func=None, *, lib=None, _check=True):
    """Registers a Python function over opal ops as the decomposition of
    `qualname` ("ns::op" or "ns::op.overload"): it is traced once into MLIR
    and becomes the op's CompositeImplicitAutograd kernel, which the JIT
    compiles into one fused kernel per specialization. Use as a decorator;
    returns the function unchanged.

        @opal.library.register_decomposition("mylib::softplus")
        def softplus(x, beta):
            return opal.ops.aten.log1p(opal.ops.aten.exp(x * beta)) / beta
    """
    from opal import _trace

    def register(fn):
        ns, name = _split_qualname(qualname)
        base, _, overload = name.partition(".")
        from opal._ops import ops
        packet = getattr(getattr(ops, ns), base)
        schema = getattr(packet, overload or "default")._schema
        text = _trace.trace_decomposition(schema, fn)
        target = lib if lib is not None else _fragment(ns)
        key = ns + "/" + name + "/CompositeImplicitAutograd"
        if key in _impls:
            raise RuntimeError(f"{qualname} already has a CompositeImplicitAutograd kernel "
                               "registered from Python")
        source = f"<decomposition of {qualname}: {fn.__module__}.{fn.__qualname__}>"
        # (The check loads the compiler; opal.torch's graphs skip it: the
        # compiler leaves out a text that does not parse when it reads it.)
        if _check:
            _C._jit_check_op_library_text(source, text)
        added = _AddedText(source, text, 1)
        try:
            target.m.impl_mlir(name, "CompositeImplicitAutograd")
        except Exception:
            added.release()
            raise
        target._texts.append(added)
        _impls.add(key)
        target._op_impls.add(key)
        fn._opal_decomposition = text
        return fn

    if func is None:
        return register
    return register(func)


class _AutogradContext:
    """The `ctx` register_autograd's setup_context and backward share, as
    PyTorch's: save_for_backward / saved_tensors, needs_input_grad (one per
    argument of the op), and any attribute you set."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.saved_tensors = ()

    def save_for_backward(self, *tensors):
        self.saved_tensors = tuple(tensors)


def register_autograd(qualname, backward, /, *, setup_context=None, lib=None):
    """Registers the backward of `qualname` ("ns::op" or "ns::op.overload"),
    with the semantics of PyTorch's torch.library.register_autograd:
    `setup_context(ctx, inputs, output)` runs after the op (forward) when a
    call records, and `backward(ctx, *grads)` gets one gradient per result
    of the op (zeros for results nothing reached, None for results that are
    not floating) and returns one gradient per argument of the op (None for
    non-tensor arguments and for tensors without one). The op itself runs
    below autograd, as its kernels would without this. A backward
    registered here takes precedence over one derived from the op's
    decomposition."""
    if not callable(backward):
        raise TypeError(f"register_autograd: expected backward to be a function, got "
                        f"{type(backward).__name__}")
    if setup_context is not None and not callable(setup_context):
        raise TypeError(f"register_autograd: expected setup_context to be a function or None, "
                        f"got {type(setup_context).__name__}")
    ns, name = _split_qualname(qualname)
    base, _, overload = name.partition(".")
    from opal._ops import ops
    op = getattr(getattr(getattr(ops, ns), base), overload or "default")
    schema = op._schema
    arguments = schema.arguments
    tensor_positions = [i for i, a in enumerate(arguments) if a.type in ("Tensor", "Tensor?")]
    node_name = "".join(part.capitalize() for part in (ns + "_" + base).split("_")) + "Backward0"
    Tensor = _C.Tensor

    def kernel(*args):
        records = _C.is_grad_enabled() and any(
            isinstance(args[i], Tensor) and args[i].requires_grad for i in tensor_positions)
        with _C._AutoDispatchBelowAutograd():
            output = op(*args)
        if not records:
            return output
        ctx = _AutogradContext(tuple(isinstance(a, Tensor) and a.requires_grad for a in args))
        if setup_context is not None:
            setup_context(ctx, tuple(args), output)
        outputs = list(output) if isinstance(output, (tuple, list)) else [output]
        floating = [isinstance(o, Tensor) and o.dtype.is_floating_point for o in outputs]

        def apply(grads):
            grads = iter(grads)
            per_output = [next(grads) if f else None for f in floating]
            result = backward(ctx, *per_output)
            result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
            if len(result) != len(args):
                raise RuntimeError(
                    f"{qualname}: the backward returned {len(result)} gradients, expected "
                    f"{len(args)} (one per argument of the op, None where there is none)")
            return [result[i] for i in tensor_positions]

        _C._record_python_node(node_name, [args[i] if isinstance(args[i], Tensor) else None
                                           for i in tensor_positions], outputs, apply)
        return output

    target = lib if lib is not None else _fragment(ns)
    # At the runtime Autograd keys: a decomposition (CompositeImplicitAutograd)
    # would come before the Autograd alias in the dispatch table.
    for key in ("AutogradCPU", "AutogradCUDA", "AutogradMeta"):
        target.impl(name, kernel, key)
