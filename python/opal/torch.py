"""opal ops as PyTorch ops: the only module of opal that imports torch.

    import opal.torch
    opal.torch.register("myops")          # every op of opal's namespace myops
    torch.ops.myops.softplus(t, 2.0)      # runs opal's compiled kernel on t

`register(namespace, ops=None)` defines each op of an opal namespace in
PyTorch with the same schema (torch.library, as PyTorch 1.13 has it) and
registers three kernels for it:

- CPU and CUDA: the torch tensors cross to opal by DLPack without copies
  (strides kept), opal's dispatcher runs the op (its JIT-compiled kernel, or
  whatever kernel opal resolves), and the results come back the same way.
  bool tensors, which PyTorch 1.13's DLPack refuses, cross as uint8 views;
- Meta: opal computes the result sizes on its meta device (from the op's
  size entry), so shape propagation (meta tensors, tracing) works.

Gradients are not there yet: opal has no autograd. A call with a tensor
that requires grad (and grad mode on) raises, naming the op, rather than
returning a result that silently drops the gradient (docs/pytorch.md).
"""

import torch
from torch.utils.dlpack import to_dlpack as _to_dlpack

from . import _C, ops as _ops
from . import _tensor  # noqa: F401  (opal's Tensor methods)

__all__ = ["register", "to_torch", "from_torch"]

import opal as _opal

_DTYPES = {torch_dtype: getattr(_opal, name) for name, torch_dtype in (
    ("float16", torch.float16), ("bfloat16", torch.bfloat16), ("float32", torch.float32),
    ("float64", torch.float64), ("int8", torch.int8), ("int16", torch.int16),
    ("int32", torch.int32), ("int64", torch.int64), ("uint8", torch.uint8),
    ("bool", torch.bool), ("complex64", torch.complex64))}
_TORCH_DTYPES = {str(opal_dtype): torch_dtype for torch_dtype, opal_dtype in _DTYPES.items()}

# Libraries registered with PyTorch, per namespace (kept alive: dropping one
# unregisters its ops).
_LIBRARIES = {}


def from_torch(tensor):
    """An opal tensor sharing `tensor`'s memory (DLPack; a bool tensor
    crosses as uint8 and is viewed back as bool)."""
    if tensor.device.type not in ("cpu", "cuda", "meta"):
        raise RuntimeError(f"opal.torch: tensors on {tensor.device} have no opal device "
                           "(opal has cpu, cuda and meta)")
    if tensor.dtype not in _DTYPES:
        raise RuntimeError(f"opal.torch: {tensor.dtype} has no opal dtype")
    if tensor.device.type == "meta":
        return _opal.empty(list(tensor.shape), dtype=_DTYPES[tensor.dtype], device="meta")
    if tensor.requires_grad:
        tensor = tensor.detach()
    if tensor.dtype == torch.bool:
        return from_torch(tensor.view(torch.uint8)).to(_opal.bool)
    if tensor.device.type == "cpu":
        # The capsule itself: no stream handshake to make on the CPU, and
        # torch's __dlpack__/__dlpack_device__ cost microseconds a call.
        return _C.from_dlpack(_to_dlpack(tensor))
    return _opal.from_dlpack(tensor)


def to_torch(tensor, meta=False):
    """A torch tensor sharing opal `tensor`'s memory (the reverse of
    from_torch); with meta=True, a torch meta tensor of its sizes."""
    dtype = _TORCH_DTYPES[str(tensor.dtype)]
    if meta or tensor.device.type == "meta":
        return torch.empty(list(tensor.shape), dtype=dtype, device="meta")
    if dtype == torch.bool:
        return torch.from_dlpack(tensor.to(_opal.uint8)).view(torch.bool)
    return torch.from_dlpack(tensor)


def _to_opal(value):
    if isinstance(value, torch.Tensor):
        return from_torch(value)
    if isinstance(value, torch.dtype):
        return _DTYPES[value]
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_opal(v) for v in value)
    return value


def _to_torch(value, meta):
    if isinstance(value, _C.Tensor):
        return to_torch(value, meta)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(v, meta) for v in value)
    return value


def _kernel(overload, meta, name=None):
    """The kernel that runs `overload` on torch tensors; with `name`, the
    one for the Autograd keys: a call that would need a derivative raises
    (opal has none yet) instead of returning a result that silently drops
    the gradient, any other runs the op."""
    def kernel(*args, **kwargs):
        if name is not None and torch.is_grad_enabled() and any(
                isinstance(t, torch.Tensor) and t.requires_grad
                for t in _flatten(list(args) + list(kwargs.values()))):
            raise RuntimeError(f"opal.torch: {name} has no derivative formula yet (opal has no "
                               "autograd): call it on tensors that do not require grad, or "
                               "under torch.no_grad()")
        result = overload(*_to_opal(args), **{k: _to_opal(v) for k, v in kwargs.items()})
        return _to_torch(result, meta)
    return kernel


def _flatten(values):
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _flatten(value)
        else:
            yield value


def _op_names(namespace):
    prefix = namespace + "::"
    return sorted({name.split(".")[0] for name in _C._dispatch_all_op_names()
                   if name.startswith(prefix)})


def register(namespace, ops=None):
    """Defines the ops of opal namespace `namespace` (all, or the names in
    `ops`: "softplus" or "softplus.out") in PyTorch with their schemas and
    CPU, CUDA and Meta kernels that run opal's; returns the torch library
    (kept alive by opal.torch as well). Registering a namespace again adds
    the ops not registered yet."""
    if namespace in ("aten", "prims", "_"):
        raise RuntimeError(f"opal.torch.register: namespace {namespace} is PyTorch's own; "
                           "register an opal namespace of yours")
    library = _LIBRARIES.get(namespace)
    if library is None:
        library = _LIBRARIES[namespace] = {"torch": torch.library.Library(namespace, "DEF"),
                                           "ops": set()}
    wanted = None if ops is None else {op if "." in op else op + "." for op in ops}
    registered = []
    for qualified in _op_names(namespace):
        if not _C._overload_names(qualified):
            continue  # kernels registered for an op no library defines
        name = qualified.split("::", 1)[1]
        packet = getattr(getattr(_ops, namespace), name)
        for overload_name in packet.overloads():
            full = name if overload_name == "default" else f"{name}.{overload_name}"
            if wanted is not None and full not in wanted and name + "." not in wanted:
                continue
            if full in library["ops"]:
                continue
            overload = getattr(packet, overload_name)
            schema = str(overload._schema).split("::", 1)[1]
            library["torch"].define(schema)
            qualified_name = f"{namespace}::{full}"
            for key in ("CPU", "CUDA"):
                library["torch"].impl(full, _kernel(overload, meta=False), key)
                # At the Autograd key the same kernel runs (one Python call,
                # no redispatch), after refusing calls that need a gradient.
                library["torch"].impl(full, _kernel(overload, False, qualified_name),
                                      "Autograd" + key)
            library["torch"].impl(full, _kernel(overload, meta=True), "Meta")
            # PyTorch 1.13 has no AutogradMeta fallback: meta calls would stop
            # there.
            library["torch"].impl(full, _kernel(overload, True, qualified_name), "AutogradMeta")
            library["ops"].add(full)
            registered.append(full)
    if wanted is not None:
        missing = {w.rstrip(".") for w in wanted} - {r for r in registered} - \
                  {r.split(".")[0] for r in registered} - library["ops"]
        if missing:
            raise RuntimeError(f"opal.torch.register: {namespace} has no op "
                               f"{', '.join(sorted(missing))}")
    return library["torch"]
