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

`backend` is torch.compile's backend "opal": each aten graph Dynamo and
AOTAutograd give it becomes one opal op whose decomposition is that graph,
run as opal's fused kernels; sizes Dynamo makes symbolic stay sizes known
per call, so one kernel serves every shape of them. A graph with ops opal
lacks is split: the runs of ops opal has compile, the others run in PyTorch
(OPAL_LOG=torch says which). `compile(fn)` is torch.compile(fn,
backend="opal") on PyTorch 2; on PyTorch 1.x, which has no torch.compile,
`compile(fn, example_inputs)` traces fn into aten ops itself (make_fx, on
fake tensors), refuses data-dependent control flow at trace time and
retraces for other shapes and dtypes.

Gradients cross: at PyTorch's Autograd keys, a call with a tensor that
requires grad (grad mode on) runs the op under opal's autograd (its
derivative formula, the backward derived from its decomposition, or its
register_autograd backward) inside one torch.autograd.Function, whose
backward asks opal.autograd.grad for the inputs' gradients. An op without a
derivative raises opal's "the derivative for ... is not implemented." when
PyTorch's backward reaches it (docs/pytorch.md).
"""

import torch
import torch.fx
from torch._C import _from_dlpack
from torch.utils.dlpack import to_dlpack as _to_dlpack

from . import _C, ops as _ops
from ._ops import OpOverload as _OpOverload
from . import _tensor  # noqa: F401  (opal's Tensor methods)
from . import autograd as _autograd
from . import _backward_forms

__all__ = ["register", "compile", "backend", "to_torch", "from_torch"]

from . import _config


def _native_kernels():
    """opal._torch_C, opal.torch's C++ kernels, when it was built against
    this process's PyTorch (loading it beside another libtorch would abort
    the process); else None, and the kernels are Python's."""
    if _config.TORCH_VERSION != torch.__version__:
        return None
    try:
        from . import _torch_C
    except ImportError:
        return None
    return _torch_C


_native = _native_kernels()
# Compiled kernels' parallel nests run on PyTorch's OpenMP threads (its
# libgomp) rather than on a second pool of opal's (libomp): two pools in one
# process each keep idle workers spinning after a region, taking the cores
# the other's next region needs (docs/jit.md, Threads).
_C._set_parallel_runtime("gnu")
# PyTorch 2 (torch.library.register_fake): fake kernels, and fake or
# functional tensors sent below autograd.
_HAS_FAKE_KERNELS = hasattr(torch.library, "register_fake")

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


# dtypes whose tensors cross as they are (bool goes through uint8).
_DIRECT_DTYPES = frozenset(_DTYPES) - {torch.bool}
_BOOL = _opal.bool


def _meta_like(tensor):
    """An opal meta tensor of torch `tensor`'s sizes and dtype (one of
    opal's)."""
    return _opal.empty([int(size) for size in tensor.shape], dtype=_DTYPES[tensor.dtype],
                       device="meta")


def from_torch(tensor):
    """An opal tensor sharing `tensor`'s memory (DLPack; a bool tensor
    crosses as uint8 and is viewed back as bool)."""
    if tensor.dtype in _DIRECT_DTYPES and not (tensor.is_cuda or tensor.is_meta):
        # The common case first: a dense CPU tensor, its capsule made
        # directly (no stream handshake to make on the CPU, and torch's
        # __dlpack__/__dlpack_device__ cost microseconds a call). A tensor
        # that requires grad crosses as it is: torch._C._to_dlpack takes it
        # (the memory is all opal reads), and detach() is an aten call that
        # a torch dispatch mode sees: AOTAutograd's first-call check of
        # custom ops made each a millisecond, 0.2 s of a ViT's first call.
        return _C.from_dlpack(_to_dlpack(tensor))
    if tensor.device.type not in ("cpu", "cuda", "meta"):
        raise RuntimeError(f"opal.torch: tensors on {tensor.device} have no opal device "
                           "(opal has cpu, cuda and meta)")
    if tensor.dtype not in _DTYPES:
        raise RuntimeError(f"opal.torch: {tensor.dtype} has no opal dtype")
    if tensor.device.type == "meta":
        return _meta_like(tensor)
    if tensor.requires_grad:
        return from_torch(tensor.detach())
    if tensor.dtype == torch.bool:
        return from_torch(tensor.view(torch.uint8)).to(_opal.bool)
    return _opal.from_dlpack(tensor)  # cuda: the stream handshake


def to_torch(tensor, meta=False):
    """A torch tensor sharing opal `tensor`'s memory (the reverse of
    from_torch); with meta=True, a torch meta tensor of its sizes."""
    if not meta and tensor.is_cpu and tensor.dtype != _BOOL:
        return _from_dlpack(tensor.__dlpack__())  # the common case first
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


class _OpalFunction(torch.autograd.Function):
    """One call of an opal op as a node of PyTorch's graph: forward records
    the op under opal's autograd, backward asks opal for the gradients."""

    @staticmethod
    def forward(ctx, overload, args, kwargs, *tensors):
        # `tensors` are the torch tensors among the arguments (so PyTorch
        # tracks them); `args`/`kwargs` hold the rest, with placeholders.
        opal_tensors = []
        for t in tensors:
            x = from_torch(t)
            if t.requires_grad and (t.is_floating_point() or t.is_complex()):
                x.requires_grad_()
            opal_tensors.append(x)
        filled = iter(opal_tensors)
        converted = _refill(args, filled)
        converted_kwargs = {k: _refill(v, filled) for k, v in kwargs.items()}
        with _autograd.enable_grad():
            result = overload(*converted, **converted_kwargs)
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        ctx.opal_inputs = opal_tensors
        ctx.opal_outputs = [r for r in results if isinstance(r, _C.Tensor)]
        ctx.single = not isinstance(result, (tuple, list))
        out = tuple(to_torch(r.detach()) if isinstance(r, _C.Tensor) else r for r in results)
        return out[0] if ctx.single else out

    @staticmethod
    def backward(ctx, *grads):
        # PyTorch runs a backward in grad mode only for create_graph=True:
        # opal's gradients would come back without a graph of their own.
        _autograd._no_create_graph(torch.is_grad_enabled())
        wanted = [i for i, x in enumerate(ctx.opal_inputs) if x.requires_grad]
        outputs = [o for o in ctx.opal_outputs if o.requires_grad]
        seeds = [from_torch(g) if g is not None else None
                 for g, o in zip(grads, ctx.opal_outputs) if o.requires_grad]
        result = [None] * len(ctx.opal_inputs)
        if wanted and outputs:
            # PyTorch may run this node's backward again (retain_graph,
            # gradcheck); opal's graph lives as long as this node.
            found = _autograd.grad(outputs, [ctx.opal_inputs[i] for i in wanted], seeds,
                                   retain_graph=True, allow_unused=True)
            for i, g in zip(wanted, found):
                result[i] = None if g is None else to_torch(g)
        return (None, None, None, *result)


class _Slot:
    """Where a torch tensor stood among an op's arguments."""


def _hollow(value, tensors):
    """`value` with its torch tensors taken out into `tensors`."""
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return _Slot
    if isinstance(value, (list, tuple)):
        return type(value)(_hollow(v, tensors) for v in value)
    return _to_opal(value)


def _refill(value, tensors):
    if value is _Slot:
        return next(tensors)
    if isinstance(value, (list, tuple)):
        return type(value)(_refill(v, tensors) for v in value)
    return value


def _kernel(overload, meta, name=None):
    """The kernel that runs `overload` on torch tensors; with `name`, the
    one for the Autograd keys: a call that records (grad mode on, an input
    that requires grad) runs as one _OpalFunction, so the gradient comes
    from opal's autograd; any other runs the op."""
    def kernel(*args, **kwargs):
        if name is not None and torch.is_grad_enabled() and any(
                isinstance(t, torch.Tensor) and t.requires_grad
                for t in _flatten(list(args) + list(kwargs.values()))):
            tensors = []
            hollow_args = _hollow(list(args), tensors)
            hollow_kwargs = {k: _hollow(v, tensors) for k, v in kwargs.items()}
            return _OpalFunction.apply(overload, hollow_args, hollow_kwargs, *tensors)
        if name is not None and _HAS_FAKE_KERNELS and any(
                isinstance(t, torch.Tensor) and _is_subclass(t)
                for t in _flatten(list(args) + list(kwargs.values()))):
            # PyTorch 2, a fake or functional tensor: on to the keys below
            # autograd (its fake kernel), never the op on its unreal memory.
            namespace, full = name.split("::", 1)
            packet, _, overload_name = full.partition(".")
            op = getattr(getattr(getattr(torch.ops, namespace), packet),
                         overload_name or "default")
            with torch._C._AutoDispatchBelowAutograd():
                return op(*args, **kwargs)
        converted = [_to_opal(a) for a in args]
        result = (overload(*converted, **{k: _to_opal(v) for k, v in kwargs.items()})
                  if kwargs else overload(*converted))
        return _to_torch(result, meta)
    return kernel


def _is_subclass(tensor):
    """A tensor subclass that dispatches through Python (a fake tensor) or
    a functional wrapper: no memory of its own for opal's kernels."""
    keys = torch._C._dispatch_keys(tensor)
    return (keys.has(torch._C.DispatchKey.Python) or
            keys.has(torch._C.DispatchKey.Functionalize))


def _fake_kernel(overload):
    """The fake (and meta) kernel of `overload` on PyTorch 2: opal computes
    the results' sizes and dtypes on its meta device (the op's size entry),
    and the results are empty torch tensors of them on the inputs' device,
    fake ones under FakeTensorMode. No kernel ever sees a fake tensor's
    memory."""
    def as_meta(value):
        if isinstance(value, torch.Tensor):
            if value.dtype not in _DTYPES:
                raise RuntimeError(f"opal.torch: {value.dtype} has no opal dtype")
            return _meta_like(value)
        if isinstance(value, (list, tuple)):
            return type(value)(as_meta(v) for v in value)
        return _to_opal(value)

    def as_torch(value, device):
        if isinstance(value, _C.Tensor):
            return torch.empty(list(value.shape), dtype=_TORCH_DTYPES[str(value.dtype)],
                               device=device)
        if isinstance(value, (list, tuple)):
            return type(value)(as_torch(v, device) for v in value)
        return value

    def fake(*args, **kwargs):
        tensors = [t for t in _flatten(list(args) + list(kwargs.values()))
                   if isinstance(t, torch.Tensor)]
        device = tensors[0].device if tensors else torch.device("cpu")
        result = overload(*[as_meta(a) for a in args],
                          **{k: as_meta(v) for k, v in kwargs.items()})
        return as_torch(result, device)
    return fake


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
            # CPU and AutogradCPU: C++ kernels where opal._torch_C is built
            # (a call that does not record never enters Python).
            native = _native is not None and _native.register_kernels(
                f"{namespace}::{name}", "" if overload_name == "default" else overload_name,
                _kernel(overload, False, qualified_name))
            _log(f"{qualified_name}: {'C++' if native else 'Python'} kernels at CPU")
            for key in (("CUDA",) if native else ("CPU", "CUDA")):
                library["torch"].impl(full, _kernel(overload, meta=False), key)
                # At the Autograd key the same kernel runs (one Python call,
                # no redispatch), after refusing calls that need a gradient.
                library["torch"].impl(full, _kernel(overload, False, qualified_name),
                                      "Autograd" + key)
            if _HAS_FAKE_KERNELS:
                # PyTorch 2: one fake kernel serves meta tensors and fake ones
                # (FakeTensorMode, make_fx, Dynamo), whose memory is not real.
                torch.library.register_fake(qualified_name, _fake_kernel(overload),
                                            lib=library["torch"])
            else:
                library["torch"].impl(full, _kernel(overload, meta=True), "Meta")
                # PyTorch 1.13 has no AutogradMeta fallback: meta calls would
                # stop there.
                library["torch"].impl(full, _kernel(overload, True, qualified_name),
                                      "AutogradMeta")
            library["ops"].add(full)
            registered.append(full)
    if wanted is not None:
        missing = {w.rstrip(".") for w in wanted} - {r for r in registered} - \
                  {r.split(".")[0] for r in registered} - library["ops"]
        if missing:
            raise RuntimeError(f"opal.torch.register: {namespace} has no op "
                               f"{', '.join(sorted(missing))}")
    return library["torch"]


#===------------------------------------------------------------------------===#
# compile: aten graphs as opal ops
#===------------------------------------------------------------------------===#

import builtins
import collections
import contextlib
import copy
import functools
import hashlib
import itertools
import math
import operator
import threading
import sys
import time
import weakref

_GRAPH_LIBRARY = None


def _log(message):
    if _C._log_enabled("torch"):
        print(f"[opal:torch] {message}", file=sys.stderr, flush=True)


def _opal_has(target):
    """Whether opal computes torch OpOverload `target` (an aten op, or an
    opal op registered into PyTorch): its own overload or a spelling."""
    schema = getattr(target, "_schema", None)
    if schema is None:
        return False
    # aten's ops, and opal's own registered into PyTorch (register()).
    if schema.name.partition("::")[0] not in ("aten", *_LIBRARIES):
        return False
    return schema.name in _SPELLED_OTHERWISE or _C._has_schema(
        schema.name + (f".{schema.overload_name}" if schema.overload_name else ""))


def _opal_overload(target):
    """opal's overload for torch OpOverload `target` (an aten op, or an opal
    op registered into PyTorch), or what opal computes it with; or None."""
    if not _opal_has(target):
        return None
    schema = target._schema
    if schema.name in _SPELLED_OTHERWISE:
        return _SPELLED_OTHERWISE[schema.name]
    namespace, _, name = schema.name.partition("::")
    packet = getattr(getattr(_ops, namespace), name)
    return getattr(packet, schema.overload_name or "default", None)


def _node_call(node):
    """What computes graph node `node` (a call) from its arguments as a
    traced decomposition takes them, as (function, packet): the function
    takes the node's args and kwargs; the packet, where not None, is what
    to call instead when the function refuses them with a TypeError."""
    target, name = node.target, str(node.target)
    if target in _SIZE_ARITHMETIC or isinstance(target, _FoldedBatchNorm):
        return target, None
    form = _SIZE_QUERIES.get(name) or _NODE_FORMS.get(name)
    if form is not None:
        return functools.partial(form, node), None
    # make_fx records a Python number where a Tensor overload takes a
    # tensor (div.Tensor(x, 2.0): PyTorch wraps the number); the op's
    # packet then picks the Scalar overload, as PyTorch's wrapped number
    # computes.
    namespace, _, op = target._schema.name.partition("::")
    return _opal_overload(target), getattr(getattr(_ops, namespace), op, None)


def _holds_node(value):
    if isinstance(value, torch.fx.Node):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_node(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_node(v) for v in value.values())
    return False


class _GraphSource:
    """A graph's nodes as the source of one Python function, a statement a
    node (`v3 = s3(v1, c0, dim=c1)`), its values local variables and what
    no node decides (constants, the functions called) names bound once:
    a graph run op by op costs a call per node, not an interpreter's
    dictionary and argument readers."""

    def __init__(self):
        self.names, self.scope, self.lines = {}, {}, []

    def bind(self, value, prefix="c"):
        """A name for `value` in the function's scope."""
        name = f"{prefix}{len(self.scope)}"
        self.scope[name] = value
        return name

    def expression(self, value):
        """Source for graph argument `value` as a traced decomposition
        takes it."""
        if isinstance(value, torch.fx.Node):
            return self.names[value]
        if not _holds_node(value):
            return self.bind(_graph_argument(value))
        if isinstance(value, dict):
            return "{" + ", ".join(f"{key!r}: {self.expression(v)}"
                                   for key, v in value.items()) + "}"
        parts = ", ".join(self.expression(v) for v in value)
        return f"({parts},)" if isinstance(value, tuple) else f"[{parts}]"

    def call(self, node, done):
        """The statement computing `node`, then the values it was the last
        to read dropped."""
        name = self.names[node] = f"v{len(self.names)}"
        if node.target is operator.getitem:
            self.lines.append(f"    {name} = {self.expression(node.args[0])}"
                              f"[{self.expression(node.args[1])}]")
        else:
            function, packet = _node_call(node)
            arguments = ", ".join([self.expression(a) for a in node.args] +
                                  [f"{key}={self.expression(v)}"
                                   for key, v in node.kwargs.items()])
            called = f"{name} = {self.bind(function, 's')}({arguments})"
            if packet is None:
                self.lines.append(f"    {called}")
            else:
                self.lines += [f"    try:", f"        {called}", f"    except TypeError:",
                               f"        {name} = {self.bind(packet, 'p')}({arguments})"]
        if done:
            self.lines.append("    del " + ", ".join(self.names[n] for n in done))

    def function(self, placeholders, sizes, calls, results, as_tuple, label):
        """The function of `placeholders` that computes `calls` (node,
        values dropped after it) and returns `results` (a tuple, or the
        one)."""
        for i, node in enumerate(placeholders):
            self.names[node] = f"a{i}"
        parameters = [self.names[node] for node in placeholders]
        for node, (tensor, dim) in sizes.items():
            self.names[node] = f"v{len(self.names)}"
            self.lines.append(f"    {self.names[node]} = {self.names[tensor]}.size({dim})")
        for node, done in calls:
            self.call(node, done)
        values = ", ".join(self.names[o] for o in results)
        self.lines.append(f"    return ({values},)" if as_tuple else f"    return {values}")
        source = f"def body({', '.join(parameters)}):\n" + "\n".join(self.lines) + "\n"
        # (builtins.compile: this module's compile() is the backend's.)
        exec(builtins.compile(source, f"<opal graph: {label}>", "exec"), self.scope)
        body = self.scope["body"]
        body._opal_source = source
        return body


def _graph_argument(value):
    """A graph node's argument that holds no node as a traced decomposition
    takes it."""
    if isinstance(value, (list, tuple)):
        return type(value)(_graph_argument(v) for v in value)
    if isinstance(value, dict):
        return {key: _graph_argument(v) for key, v in value.items()}
    if isinstance(value, torch.dtype):
        return _DTYPES[value]
    if isinstance(value, (torch.device, torch.layout, torch.memory_format)):
        # A traced decomposition makes tensors on the device of its call;
        # opal has one layout and one memory format.
        return None
    return value


def _reshape(x, size, *rest):
    return _ops.aten.reshape(x, size)


def _per_channel(node, t):
    """A [C] tensor of batch norm's shaped to broadcast along dim 1 of its
    input (`node`'s first argument), as the fused kernel reads it."""
    rank = node.args[0].meta["val"].dim()
    return _ops.aten.reshape(t, [-1] + [1] * (rank - 2))


def _normalized(node, x, weight, bias, mean, invstd):
    """x * alpha + beta with alpha = invstd * weight and beta = bias - mean *
    alpha per channel, rounded as opal's native_batch_norm (and PyTorch's
    CPU kernel) round them. `mean` and `invstd` are shaped per channel."""
    alpha = invstd if weight is None else _ops.aten.mul(invstd, _per_channel(node, weight))
    shift = _ops.aten.mul(mean, alpha)
    beta = _ops.aten.neg(shift) if bias is None else _ops.aten.sub(_per_channel(node, bias),
                                                                     shift)
    return _ops.aten.add(_ops.aten.mul(x, alpha), beta)


def _reduced_dims(node):
    """The dims batch norm reduces over: all of its input's but dim 1."""
    return [d for d in range(node.args[0].meta["val"].dim()) if d != 1]


def _batch_statistics(node, x, eps):
    """The batch's mean and 1/std per channel (shaped per channel)."""
    dims = _reduced_dims(node)
    mean = _ops.aten.mean.dim(x, dims, True)
    var = _ops.aten.var.correction(x, dims, correction=0, keepdim=True)
    return mean, _ops.aten.rsqrt(_ops.aten.add(var, eps))


def _no_statistics(x):
    return _ops.aten.new_zeros(x, [0])


def _batch_norm_no_training(x, weight, bias, running_mean, running_var, momentum, eps):
    """In eval mode: opal's native_batch_norm, whose CPU kernel is native
    (it updates running statistics in training), so a CPU graph holding it
    runs op by op; that runs convolutional networks faster than one fused
    kernel does today (docs/pytorch.md)."""
    return _ops.aten.native_batch_norm(x, weight, bias, running_mean, running_var, False,
                                       momentum, eps)


_batch_norm_no_training._opal_calls = ("aten::native_batch_norm",)

# Batch norm in training as AOTAutograd's functional graphs spell it,
# computed in the graph's kernel (opal's native_batch_norm updates running
# statistics in place, which a graph's op cannot); PyTorch's meta functions
# checked the arguments when they traced.
def _batch_norm_functional(node, x, weight, bias, running_mean, running_var, training,
                           momentum, eps):
    """In training, also the running statistics updated (as new tensors,
    which AOTAutograd copies into the buffers): momentum * batch + (1 -
    momentum) * running, with the batch's unbiased variance."""
    if not training:
        invstd = _ops.aten.rsqrt(_ops.aten.add(_per_channel(node, running_var), eps))
        out = _normalized(node, x, weight, bias, _per_channel(node, running_mean), invstd)
        return (out, _no_statistics(x), _no_statistics(x), _ops.aten.clone(running_mean),
                _ops.aten.clone(running_var))
    out, save_mean, save_invstd = _batch_norm_no_stats(node, x, weight, bias, True, momentum,
                                                       eps)
    unbiased = _ops.aten.reshape(_ops.aten.var.correction(x, _reduced_dims(node), correction=1),
                                 [-1])
    keep = 1 - momentum
    new_mean = _ops.aten.add(_ops.aten.mul(save_mean, momentum),
                             _ops.aten.mul(running_mean, keep))
    new_var = _ops.aten.add(_ops.aten.mul(unbiased, momentum), _ops.aten.mul(running_var, keep))
    return out, save_mean, save_invstd, new_mean, new_var


def _batch_norm_no_stats(node, x, weight, bias, training, momentum, eps):
    """Batch norm without running statistics (track_running_stats=False):
    always the batch's."""
    mean, invstd = _batch_statistics(node, x, eps)
    out = _normalized(node, x, weight, bias, mean, invstd)
    return out, _ops.aten.reshape(mean, [-1]), _ops.aten.reshape(invstd, [-1])


# aten ops make_fx records that opal spells otherwise: views whose aliasing
# a fused kernel does not keep, so their values are all that matter.
_SPELLED_OTHERWISE = {"aten::_reshape_alias": _reshape, "aten::_unsafe_view": _reshape,
                      "aten::detach": lambda x: x, "aten::lift_fresh_copy": lambda x: x,
                      "aten::_native_batch_norm_legit_no_training": _batch_norm_no_training}


def _split_sizes(node, sizes, dim):
    x = node.args[0].meta["val"]
    dim = dim % x.dim()
    pieces, start = [], 0
    for size in sizes:
        pieces.append((start, start + size))
        start += size
    return pieces, dim


def _slices(x, pieces, dim):
    return [_ops.aten.slice.Tensor(x, dim, start, end, 1) for start, end in pieces]


def _split(node, x, split_size, dim=0):
    total = node.args[0].meta["val"].shape[dim]
    sizes = [min(split_size, total - start) for start in range(0, total, split_size)]
    return _slices(x, *_split_sizes(node, sizes, dim))


def _split_with_sizes(node, x, split_sizes, dim=0):
    return _slices(x, *_split_sizes(node, split_sizes, dim))


def _static_along_dim(node):
    """Whether split's, cat's or stack's sizes along its dim are constants
    (other dims may be known per call only)."""
    name = str(node.target)
    if name == "aten.stack.default":
        return True
    # (dim is cat's and unbind's second argument, split's third.)
    at = 1 if name in ("aten.cat.default", "aten.unbind.int") else 2
    dim = node.args[at] if len(node.args) > at else node.kwargs.get("dim", 0)
    values = ([source.meta["val"] for source in node.args[0]] if name == "aten.cat.default"
              else [node.args[0].meta["val"]])
    return all(not _is_size(value.shape[dim % value.dim()]) for value in values
               if value.dim() > 0)


def _joined(node, parts, dim):
    """cat or stack without a list of tensors: each of `parts` (a tensor,
    its fake value in the traced graph, its width along dim) written into
    its slice of a zeros tensor of the result's shape and dtype, converted
    to that dtype first. The result's other sizes are the first part's
    (read per call where they are symbolic)."""
    out = node.meta["val"]
    dtype = _DTYPES[out.dtype]
    first = parts[0][0] if parts else None
    result = _ops.aten.zeros([first.size(d) if _is_size(size) else int(size)
                              for d, size in enumerate(out.shape)], dtype=dtype)
    start = 0
    for tensor, value, width in parts:
        if value.dtype != out.dtype:
            tensor = _ops.aten._to_copy(tensor, dtype=dtype)
        result = _ops.aten.slice_scatter(result, tensor, dim, start, start + width)
        start += width
    return result


def _cat(node, tensors, dim=0):
    # 1-d empty inputs are skipped, as cat's legacy rule says.
    out = node.meta["val"]
    dim = dim % out.dim()
    values = [source.meta["val"] for source in node.args[0]]
    return _joined(node, [(tensor, value, int(value.shape[dim]))
                          for tensor, value in zip(tensors, values)
                          if not (value.dim() == 1 and value.shape[0] == 0 and out.dim() != 1)],
                   dim)


def _stack(node, tensors, dim=0):
    dim = dim % node.meta["val"].dim()
    return _joined(node, [(_ops.aten.unsqueeze(tensor, dim), source.meta["val"], 1)
                          for source, tensor in zip(node.args[0], tensors)], dim)


def _unbind(node, x, dim=0):
    value = node.args[0].meta["val"]
    dim = dim % value.dim()
    return [_ops.aten.select.int(x, dim, i) for i in range(int(value.shape[dim]))]


def _restrides_only(node):
    """Whether an as_strided node reads its (contiguous) input's elements in
    their order, as AOTAutograd's restriding of a result to another
    layout's strides does: the same sizes, no offset, and each stride the
    contiguous one wherever the size is not 1."""
    source, out = node.args[0].meta.get("val"), node.meta.get("val")
    args = list(node.args) + [None] * 4
    offset = args[3] if args[3] is not None else node.kwargs.get("storage_offset")
    if source is None or out is None or offset not in (None, 0) or _has_symbolic_size(source):
        return False
    if list(source.shape) != list(out.shape) or not source.is_contiguous():
        return False
    expected = 1
    for size, stride in reversed(list(zip(args[1], args[2]))):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _restrided(node, x, *rest, **kwargs):
    return x  # (the same values: see _restrides_only)


def _arange_bounds(name, args, kwargs):
    """(start, end, step) of arange overload `name`'s arguments."""
    if name == "aten.arange.default":
        return 0, args[0], 1
    if name == "aten.arange.start":
        return args[0], args[1], 1
    return args[0], args[1], args[2] if len(args) > 2 else kwargs.get("step", 1)


def _arange_problem(node):
    """Why an arange node cannot be computed inside an opal graph, or None."""
    out = node.meta.get("val")
    if out is None or out.dtype not in _DTYPES or out.dtype == torch.bool:
        return "of a dtype opal's graphs do not compute"
    if _is_size(out.shape[0]):
        start, end, step = _arange_bounds(str(node.target), node.args, node.kwargs)
        if step != 1 or isinstance(start, float) or isinstance(end, float):
            return "of a length known per call with a step other than 1"
    return None


def _arange(node, *args, **kwargs):
    """arange as prims.iota, its length the graph's (static, or end - start
    with step 1 for sizes known per call); floating-point values as
    start + i * step computed in float64, as PyTorch accumulates them."""
    out = node.meta["val"]
    start, end, step = _arange_bounds(str(node.target), args, kwargs)
    length = end - start if _is_size(out.shape[0]) else int(out.shape[0])
    dtype, device = _DTYPES[out.dtype], out.device.type
    if not out.dtype.is_floating_point and not any(isinstance(v, float) for v in (start, step)):
        return _ops.prims.iota(length, start=start, step=step, dtype=dtype, device=device,
                               requires_grad=False)
    index = _ops.prims.iota(length, start=0, step=1, dtype=_DTYPES[torch.int64], device=device,
                            requires_grad=False)
    wide = _ops.aten._to_copy(index, dtype=_DTYPES[torch.float64]) * step + start
    return _ops.aten._to_copy(wide, dtype=dtype)


def _index_positions(node):
    """The places of index.Tensor's index tensors among its indices."""
    return [i for i, index in enumerate(node.args[1]) if index is not None]


def _index_problem(node):
    """Why index.Tensor's or index_put's node has no form in a graph, or
    None: its index tensors must be integers (a mask's result has a
    data-dependent size; index_put takes one mask with one value), on
    adjacent dims, several of them of static sizes."""
    x, places = node.args[0].meta["val"], _index_positions(node)
    if not places or places != list(range(places[0], places[-1] + 1)):
        return "with index tensors apart (None between them)"
    values = [node.args[1][i].meta["val"] for i in places]
    if str(node.target).startswith("aten.index_put") and _put_mask(node) is not None:
        return None
    if any(v.dtype not in (torch.int64, torch.int32) for v in values):
        return "with a mask (its result's size depends on the data)"
    if len(places) > 1 and (any(_is_size(size) for v in values for size in v.shape) or any(
            _is_size(x.shape[i]) for i in places)):
        return "by several index tensors whose sizes or dims are known per call"
    return None


def _put_mask(node):
    """index_put's one bool mask (its dims those of self from the first it
    indexes) with one value to write, or None."""
    places = _index_positions(node)
    mask, value = node.args[1][places[0]].meta["val"], node.args[2].meta["val"]
    x = node.args[0].meta["val"]
    k = places[0]
    if len(places) != 1 or mask.dtype != torch.bool or any(
            _is_size(d) for d in (*mask.shape, *x.shape, *value.shape)):
        return None
    if value.numel() != 1 or list(mask.shape) != list(x.shape[k:k + mask.dim()]):
        return None
    return mask


def _linear_index(node, x, indices, long):
    """index.Tensor's and index_put's indices as one index into x with its
    indexed dims k..k+m-1 flattened into one: (the index, the flattened x,
    k). Each index is made non-negative; several are each checked against
    their own dim first (index_select of 0..size-1), as one index is by the
    op that takes it."""
    value = node.args[0].meta["val"]
    places = _index_positions(node)
    k, m = places[0], len(places)
    device = value.device.type

    def wrapped(index, size):
        index = _ops.aten._to_copy(index, dtype=long)
        return _ops.aten.where.self(_ops.aten.lt.Scalar(index, 0),
                                    _ops.aten.add.Scalar(index, size), index)

    if m == 1:  # (the only case with sizes known per call)
        return wrapped(indices[k], _static_or_read(x, value, k)), x, k
    sizes = [int(value.shape[i]) for i in places]
    linear, stride = None, 1
    for j in reversed(range(m)):
        index = wrapped(indices[places[j]], sizes[j])
        every = _ops.prims.iota(sizes[j], start=0, step=1, dtype=long, device=device,
                                requires_grad=False)
        shape = [int(d) for d in node.args[1][places[j]].meta["val"].shape]
        index = _ops.aten.reshape(
            _ops.aten.index_select(every, 0, _ops.aten.reshape(index, [-1])), shape)
        term = index if stride == 1 else _ops.aten.mul.Scalar(index, stride)
        linear = term if linear is None else _ops.aten.add.Tensor(linear, term)
        stride *= sizes[j]
    flat = _ops.aten.reshape(x, [_static_or_read(x, value, d) for d in range(k)] + [stride] +
                             [_static_or_read(x, value, d) for d in range(k + m, value.dim())])
    return linear, flat, k


def _static_or_read(tensor, value, d):
    """Dim d of `tensor`'s size: a constant, or read per call."""
    return tensor.size(d) if _is_size(value.shape[d]) else int(value.shape[d])


def _index_put(node, x, indices, values, accumulate=False):
    """index_put (x[indices] = values, or += with accumulate) as a scatter
    along the first indexed dim of x with its indexed dims flattened:
    values broadcast to the indexed shape with the indices' broadcast shape
    as one dim, the index expanded to theirs (duplicates: the last write
    wins, or all add up). One bool mask with one value is a where."""
    value = node.args[0].meta["val"]
    places = _index_positions(node)
    k, m = places[0], len(places)
    if _put_mask(node) is not None:
        mask, rest = indices[k], value.dim() - k - node.args[1][k].meta["val"].dim()
        if k or rest:
            mask = _ops.aten.reshape(mask, [1] * k + [
                int(d) for d in node.args[1][k].meta["val"].shape] + [1] * rest)
        values = _ops.aten.reshape(values, [])
        if accumulate:
            return _ops.aten.add.Tensor(x, _ops.aten.where.self(
                mask, values, _ops.aten.zeros_like(values)))
        return _ops.aten.where.self(mask, values, x)
    linear, flat, k = _linear_index(node, x, indices, _DTYPES[torch.int64])
    before = [_static_or_read(x, value, d) for d in range(k)]
    after = [_static_or_read(x, value, d) for d in range(k + m, value.dim())]
    index = _ops.aten.reshape(linear, [-1])
    shape = node.args[1][k].meta["val"].shape if m == 1 else _broadcast_shape(node)
    broadcast = [indices[k].size(d) if _is_size(size) else int(size)
                 for d, size in enumerate(shape)]
    count = index.size(0) if any(_is_size(size) for size in shape) else int(
        math.prod(int(size) for size in shape))
    source = _ops.aten.reshape(_ops.aten.expand(values, before + broadcast + after),
                               before + [count] + after)
    index = _ops.aten.expand(_ops.aten.reshape(index, [1] * k + [count] + [1] * len(after)),
                             before + [count] + after)
    scatter = _ops.aten.scatter_add if accumulate else _ops.aten.scatter.src
    result = scatter(flat, k, index, source)
    if m == 1:
        return result
    return _ops.aten.reshape(result, [_static_or_read(x, value, d)
                                      for d in range(value.dim())])


def _broadcast_shape(node):
    """The broadcast shape of the index tensors (all of static sizes)."""
    return torch.broadcast_shapes(*[node.args[1][i].meta["val"].shape
                                    for i in _index_positions(node)])


def _index(node, x, indices):
    """Advanced indexing by integer tensors on adjacent dims k..k+m-1 (None
    keeps the others), as index_select along k of x with those dims
    flattened (_linear_index), reshaped to x's dims before k, the indices'
    broadcast shape and x's dims after."""
    value, out = node.args[0].meta["val"], node.meta["val"]
    linear, flat, k = _linear_index(node, x, indices, _DTYPES[torch.int64])
    m = len(_index_positions(node))
    picked = _ops.aten.index_select(flat, k, _ops.aten.reshape(linear, [-1]))
    after = value.dim() - (k + m)
    shape = ([_static_or_read(x, value, d) for d in range(k)] +
             [indices[k].size(d) if _is_size(size) else int(size)
              for d, size in enumerate(out.shape[k:out.dim() - after])] +
             [_static_or_read(x, value, d) for d in range(k + m, value.dim())])
    return _ops.aten.reshape(picked, shape)


def _weight_of(mat2):
    """The matrix `mat2` is the transpose of, when it is the transpose of a
    contiguous matrix (a Linear layer's weight: AOTAutograd spells x @ w.t()
    as mm or addmm of `aten.t(w)`); else None. Only a value computed per
    call (a graph run op by op) has strides: a graph compiled into one
    kernel lays its values out itself."""
    if not isinstance(mat2, _opal.Tensor) or mat2.dim() != 2 or min(mat2.shape) < 2:
        return None
    return _ops.aten.t(mat2) if tuple(mat2.stride()) == (1, mat2.shape[0]) else None


def _mm_call(node, x, mat2):
    """x @ mat2; as linear(x, w) when mat2 is w's transpose: linear reads w
    in place, where mm would copy its transpose first at every call. (Each
    such form's `_call` says which op it calls, with which arguments: what
    _compile_ahead compiles.)"""
    weight = _weight_of(mat2)
    if weight is None:
        return _ops.aten.mm.default, (x, mat2), {}
    return _ops.aten.linear.default, (x, weight), {}


def _addmm_call(node, bias, x, mat2, beta=1, alpha=1):
    """bias + x @ mat2, as linear(x, w, bias) when mat2 is w's transpose
    and the sum is plain (see _mm_call)."""
    weight = _weight_of(mat2)
    if weight is None or beta != 1 or alpha != 1 or not isinstance(bias, _opal.Tensor) or \
            bias.dim() != 1:
        return _ops.aten.addmm.default, (bias, x, mat2), {"beta": beta, "alpha": alpha}
    return _ops.aten.linear.default, (x, weight, bias), {}


def _max_pool2d_call(node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool2d_with_indices; where no node reads the indices (an eval
    graph: max_pool2d is CompositeImplicit, so the graph holds the op with
    indices), max_pool2d, whose kernel computes no indices (ResNet's pool
    of [1, 64, 80, 80]: 3.7 ms with indices, 0.38 without), with None for
    them."""
    args = (x, kernel_size, stride, padding, dilation, ceil_mode)
    if any(user.target is not operator.getitem or user.args[1] != 0 for user in node.users):
        return _ops.aten.max_pool2d_with_indices.default, args, {}
    return _ops.aten.max_pool2d.default, args, {}


def _runs(call):
    """The node form that calls what `call` (a form's `_call`) says."""
    def form(node, *args, **kwargs):
        op, args, kwargs = call(node, *args, **kwargs)
        return op(*args, **kwargs)
    return form


_mm, _addmm = _runs(_mm_call), _runs(_addmm_call)


def _max_pool2d_with_indices(node, *args, **kwargs):
    op, args, kwargs = _max_pool2d_call(node, *args, **kwargs)
    result = op(*args, **kwargs)
    return result if op is _ops.aten.max_pool2d_with_indices.default else (result, None)


# Ops computed from what the traced graph recorded of them (the fake
# values of their inputs and outputs), as a traced decomposition cannot
# express them otherwise: those taking or returning a list of tensors
# (split's pieces as slices, their count the graph's; cat and stack as
# writes into slices of their result) and arange, whose length the values
# of its arguments decide; and products of a transposed weight (_mm).
_NODE_FORMS = {"aten.split.Tensor": _split, "aten.split_with_sizes.default": _split_with_sizes,
               "aten.cat.default": _cat, "aten.stack.default": _stack,
               "aten.unbind.int": _unbind, "aten.as_strided.default": _restrided,
               "aten.arange.default": _arange, "aten.arange.start": _arange,
               "aten.arange.start_step": _arange,
               "aten._native_batch_norm_legit_functional.default": _batch_norm_functional,
               "aten._native_batch_norm_legit.no_stats": _batch_norm_no_stats,
               "aten.index.Tensor": _index, "aten.index_put.default": _index_put,
               "aten.mm.default": _mm, "aten.addmm.default": _addmm,
               "aten.max_pool2d_with_indices.default": _max_pool2d_with_indices}
# Of those, the ones that call one op, and the function that says which,
# with which arguments (_compile_ahead).
_CALL_FORMS = {"aten.mm.default": _mm_call, "aten.addmm.default": _addmm_call,
               "aten.max_pool2d_with_indices.default": _max_pool2d_call}
# Those of them that take or return lists of tensors, or slice.
_LIST_FORMS = frozenset(("aten.split.Tensor", "aten.split_with_sizes.default",
                         "aten.cat.default", "aten.stack.default", "aten.unbind.int",
                         "aten.index_put.default"))
# PyTorch's backward ops in the terms of opal's derivative formulas, and
# prims.fma (PyTorch's decomposition of lerp, as AdamW's step calls it):
# a product and a sum, which the compiler may contract into one fma.
_NODE_FORMS.update(_backward_forms.FORMS)
_NODE_FORMS["prims.fma.default"] = lambda node, a, b, c: _ops.aten.add(_ops.aten.mul(a, b), c)


def _sym_size(node, x, dim):
    return x.size(dim)


def _sym_numel(node, x):
    count = 1
    for dim in range(node.args[0].meta["val"].dim()):
        count = count * x.size(dim)
    return count


# (PyTorch 1.x has no symbolic sizes.)
_SYM_INT = getattr(torch, "SymInt", ())


def _is_size(value):
    return isinstance(value, _SYM_INT)


def _has_symbolic_size(tensor):
    """Whether fake tensor `tensor` has a size known per call only."""
    return any(_is_size(size) for size in tensor.shape)


def _input_sizes(inputs):
    """For each of a graph's inputs that is a size (a symbolic int, not a
    tensor), the input tensor and dim that has that size: {node: (tensor
    node, dim)}; or None when one is no input tensor's size."""
    dims = {}
    for node in inputs:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor):
            for dim, size in enumerate(value.shape):
                if _is_size(size):
                    dims.setdefault(size.node.expr, (node, dim))
    sizes = {}
    for node in inputs:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor):
            continue
        if not _is_size(value) or value.node.expr not in dims:
            return None
        sizes[node] = dims[value.node.expr]
    return sizes


# Sizes of a graph with symbolic sizes (Dynamo's dynamic shapes): queries of
# a tensor's sizes and int arithmetic on them, traced as opal's sizes (known
# per call) so that one kernel serves every size.
_SIZE_QUERIES = {"aten.sym_size.int": _sym_size, "aten.sym_numel.default": _sym_numel}
_SIZE_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.neg}


def _is_size_node(node):
    return node.target in _SIZE_ARITHMETIC or str(node.target) in _SIZE_QUERIES


def _size_reader(value, inputs):
    """A function of a graph's input values (its placeholders' order) that
    computes size `value` (a graph node of the size arithmetic of input
    sizes, a size input, a size of an input tensor, or a number), or None
    when the size depends on anything else. (A training graph's forward
    returns sizes that its backward reads.)"""
    if not isinstance(value, torch.fx.Node):
        return (lambda args: value) if isinstance(value, int) else None
    if value.op == "placeholder":
        where = inputs.index(value)
        return lambda args: args[where]
    if value.op != "call_function":
        return None
    readers = [_size_reader(a, inputs) for a in value.args]
    if any(r is None for r in readers):
        return None
    if value.target in _SIZE_ARITHMETIC:
        return lambda args: value.target(*[r(args) for r in readers])
    if str(value.target) == "aten.sym_size.int":
        return lambda args: readers[0](args).size(readers[1](args))
    if str(value.target) == "aten.sym_numel.default":
        return lambda args: readers[0](args).numel()
    return None


def _why_in_pytorch(node):
    """Why graph node `node` (a call) runs in PyTorch, or None if opal runs
    it."""
    if _is_size_node(node):
        return None
    name = str(node.target)
    if name.startswith("aten.arange."):
        problem = _arange_problem(node)
        return problem and f"{node.target} {problem}"
    if name == "aten.as_strided.default":
        return None if _restrides_only(node) else f"{node.target} that reorders elements"
    if name in ("aten.index.Tensor", "aten.index_put.default"):
        problem = _index_problem(node)
        return problem and f"{node.target} {problem}"
    if name in _NODE_FORMS:
        if name in _LIST_FORMS and not _static_along_dim(node):
            return (f"{node.target} along a dim whose size is known per call, which opal's "
                    "graphs do not slice yet")
        return None
    schema = getattr(node.target, "_schema", None)
    # A traced decomposition has no lists of tensors yet (index.Tensor):
    # such an op runs in PyTorch between opal's pieces.
    if schema is not None and any("List[" in str(a.type) and "Tensor" in str(a.type)
                                  for a in list(schema.arguments) + list(schema.returns)):
        return (f"{node.target} takes or returns a list of tensors, which opal's graphs do not "
                "hold yet")
    if _opal_overload(node.target) is None:
        return f"opal has no {node.target}"
    return None


# What the op made of a graph returns, in the name of each graph's op: a
# kernel of an op made by an earlier form (in the disk cache) is not found
# by name. 2: inputs the graph returns are not among the op's results.
_GRAPH_OP_FORM = 2


def _fingerprint(nodes):
    """24 hex digits of a SHA-256 of what a graph computes: each node's
    kind, target, arguments and recorded value (dtype, sizes and strides,
    which the node forms read)."""
    def value(v):
        if isinstance(v, torch.Tensor):
            return f"{v.dtype}{tuple(map(str, v.shape))}{tuple(map(str, v.stride()))}"
        if isinstance(v, (list, tuple)):
            return "(" + ",".join(value(x) for x in v) + ")"
        return str(v) if _is_size(v) or v is None else type(v).__name__
    text = f"{_GRAPH_OP_FORM}\n" + "\n".join(
        f"{node.format_node()} :: {value(node.meta.get('val'))}" for node in nodes)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _fresh_result(node):
    """Whether graph output `node` is new memory when its graph runs op by
    op: the result of an aten op whose schema returns no alias, which opal
    computes as that op (not a view or an input passed through)."""
    if node.op != "call_function" or node.target is operator.getitem:
        return False
    if str(node.target) in _NODE_FORMS:
        return str(node.target) in _FRESH_FORMS
    schema = getattr(node.target, "_schema", None)
    return (schema is not None and schema.name.startswith("aten::") and
            schema.name not in _SPELLED_OTHERWISE and
            all(r.alias_info is None for r in schema.returns))


# Node forms whose results are new memory (products, joins).
_FRESH_FORMS = frozenset(("aten.mm.default", "aten.addmm.default", "aten.cat.default",
                          "aten.stack.default"))


def _native_call(nodes):
    """The first op (ns::op.overload) that a CPU graph of `nodes` calls and
    whose CPU kernel in opal is native (C++ or Python), which keeps the
    compiler from fusing the graph; None if there is none or the graph is
    not on the CPU. (Ops reached only through decompositions are the
    compiler's to find.)"""
    devices = {n.meta["val"].device.type for n in nodes
               if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor)}
    if devices != {"cpu"}:
        return None
    for node in nodes:
        if node.op != "call_function" or _is_size_node(node) or str(node.target) in _NODE_FORMS:
            continue  # (node forms call ops that fuse)
        overload = _opal_overload(node.target)
        names = getattr(overload, "_opal_calls", None) or (
            (overload.name(),) if isinstance(overload, _OpOverload) else ())
        for name in names:
            if _C._cpu_kernel_is_opaque(name):
                return name
    return None


class _FoldedBatchNorm:
    """A convolution's weight and bias with the batch norm in evaluation
    mode that follows it folded in (a graph run op by op,
    _fold_batch_norms): weight * s per output channel and
    (bias - mean) * s + beta, s = gamma / sqrt(var + eps), computed by
    PyTorch as its own fuse_conv_bn_weights does. A graph's parameters are
    the same opal tensors from one call to the next while their memory and
    version stay (_Conversions), so the folded pair is kept while its
    inputs are those objects, and computed again when one is not."""

    __name__ = "fold_batch_norm"  # (what torch.fx names its nodes by)

    def __init__(self, eps):
        self.eps, self.inputs, self.folded = eps, None, None

    def __call__(self, weight, bias, gamma, beta, mean, var):
        inputs = (weight, bias, gamma, beta, mean, var)
        if self.inputs is not None and all(a is b for a, b in zip(inputs, self.inputs)):
            return self.folded
        w, b, g, bt, m, v = (None if t is None else to_torch(t) for t in inputs)
        scale = torch.rsqrt(v + self.eps)
        if g is not None:
            scale = scale * g
        folded_weight = w * scale.reshape([-1] + [1] * (w.dim() - 1))
        folded_bias = (-m if b is None else b - m) * scale
        if bt is not None:
            folded_bias = folded_bias + bt
        self.inputs = inputs
        self.folded = (from_torch(folded_weight), from_torch(folded_bias))
        return self.folded


# The batch norm of an evaluation graph, as AOTAutograd records it.
_BATCH_NORM_NO_TRAINING = "aten._native_batch_norm_legit_no_training.default"


def _fold_batch_norms(graph):
    """In `graph` (run op by op), each convolution whose only reader is a
    batch norm in evaluation mode, of float32 or float64, that only the
    normalized result is read of, becomes a convolution with the batch norm
    folded into its weight and bias (_FoldedBatchNorm): one kernel where
    there were two, and the normalized tensor never written and read
    again. Returns how many were folded."""
    folded = 0
    for norm in list(graph.graph.nodes):
        if norm.op != "call_function" or str(norm.target) != _BATCH_NORM_NO_TRAINING:
            continue
        conv, gamma, beta, mean, var, _momentum, eps = norm.args
        if not (isinstance(conv, torch.fx.Node) and conv.op == "call_function" and
                str(conv.target) == "aten.convolution.default" and len(conv.users) == 1 and
                not conv.kwargs and len(conv.args) == 9 and conv.args[6] is False):
            continue
        value = conv.meta.get("val")
        if not isinstance(value, torch.Tensor) or value.dtype not in (torch.float32,
                                                                      torch.float64):
            continue
        readers = list(norm.users)
        if not all(r.target is operator.getitem and r.args[1] == 0 for r in readers):
            continue
        weight, bias = conv.args[1], conv.args[2]
        with graph.graph.inserting_before(conv):
            fold = graph.graph.call_function(_FoldedBatchNorm(eps),
                                             (weight, bias, gamma, beta, mean, var))
            new_weight = graph.graph.call_function(operator.getitem, (fold, 0))
            new_bias = graph.graph.call_function(operator.getitem, (fold, 1))
            args = list(conv.args)
            args[1], args[2] = new_weight, new_bias
            new_conv = graph.graph.call_function(conv.target, tuple(args))
        new_conv.meta["val"] = value
        # (What the folded pair is like, for compiling the graph's kernels
        # ahead of its first run: the weight's shape, one value per
        # output channel.)
        if isinstance(weight.meta.get("val"), torch.Tensor):
            new_weight.meta["val"] = weight.meta["val"]
        new_bias.meta["val"] = torch.empty((value.shape[1],), dtype=value.dtype, device="meta")
        for reader in readers:
            reader.replace_all_uses_with(new_conv)
            graph.graph.erase_node(reader)
        graph.graph.erase_node(norm)
        graph.graph.erase_node(conv)
        folded += 1
    return folded


def _stand_in_signature(meta):
    """(sizes, strides, opal dtype) of a tensor a compile ahead of a call
    can stand in for `meta` (a graph's example value: a fake or real torch
    tensor), or None when it cannot: not a tensor, a dtype opal lacks, a
    device other than the CPU (or meta, whose calls use the CPU's kernel),
    symbolic sizes or strides."""
    if (not isinstance(meta, torch.Tensor) or meta.dtype not in _DTYPES or
            meta.device.type not in ("cpu", "meta") or
            not all(type(n) is int for n in (*meta.shape, *meta.stride()))):
        return None
    return tuple(meta.shape), tuple(meta.stride()), _DTYPES[meta.dtype]


def _compile_ahead(nodes, label):
    """Compiles the kernels of a graph run op by op before its first run,
    several at once (_C._jit_compile_ahead): each call of an opal op whose
    arguments the graph's metadata describes (tensors of static sizes on
    the CPU), on tensors of those sizes and strides whose data is never
    read. A call it cannot describe compiles at the first run, as before."""
    made, calls = {}, []

    class Unknown(Exception):
        pass

    def tensor_of(node):
        signature = _stand_in_signature(node.meta.get("val"))
        if signature is None:
            raise Unknown()
        if signature not in made:
            sizes, strides, dtype = signature
            made[signature] = _ops.aten.empty_strided(sizes, strides, dtype=dtype)
        return made[signature]

    def value(v):
        if isinstance(v, torch.fx.Node):
            return tensor_of(v)
        if isinstance(v, (list, tuple)):
            return type(v)(value(x) for x in v)
        if isinstance(v, dict):
            return {key: value(x) for key, x in v.items()}
        return _graph_argument(v)

    for node in nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        function, _ = _node_call(node)
        form = _CALL_FORMS.get(str(node.target))
        if not isinstance(function, _OpOverload) and form is None:
            continue
        try:
            args = tuple(value(a) for a in node.args)
            kwargs = {key: value(v) for key, v in node.kwargs.items()}
            calls.append(form(node, *args, **kwargs) if form else (function, args, kwargs))
        except (Unknown, TypeError, ValueError):
            continue  # (an argument opal cannot make: the run compiles it)
    if not calls:
        return
    start = time.perf_counter()
    outcomes = _C._jit_compile_ahead(calls)
    counts = collections.Counter(what for what, _ in outcomes)
    _log(f"{label}: compiled {counts['compiled']} kernels ahead of the first run in "
         f"{time.perf_counter() - start:.2f} s ({len(outcomes)} calls: {counts['in memory']} "
         f"found in memory, {counts['no kernel']} without a kernel of their own, "
         f"{counts['failed']} left to fail at the run)")


class _GraphCompiler:
    """Turns an aten graph (a torch.fx GraphModule of aten ops over tensor
    placeholders) into what runs it as opal's kernels (_to_opal_op), and
    runs that on torch tensors (_runner)."""

    def __init__(self, label):
        self.label = label

    def _to_opal_op(self, graph):
        """What runs `graph`: (an opal op whose decomposition it is, whether
        it returns a tuple); or, when some of its ops opal lacks, the graph
        split into runs of ops, those opal has compiled and the others left
        to PyTorch (a callable over torch tensors); or None (all of it runs in
        PyTorch)."""
        graph.graph.eliminate_dead_code()  # results nobody reads (batch norm's saved stats)
        lacking = [node for node in graph.graph.nodes
                   if node.op == "call_function" and not self._runs_in_opal(node)]
        if not lacking:
            return self._graph_op(graph)
        for node in lacking:
            _log(f"{self._label()}: {_why_in_pytorch(node)}: it runs in PyTorch")
        if len(lacking) == sum(1 for n in graph.graph.nodes if n.op == "call_function"):
            return self._refuse("opal has none of its ops")
        return self._split(graph)

    @staticmethod
    def _runs_in_opal(node):
        if node.target is operator.getitem:
            return True
        return _why_in_pytorch(node) is None

    def _split(self, graph):
        """`graph` cut where ops run in opal and where in PyTorch: each run of
        opal's ops becomes an opal op, the rest stays PyTorch's."""
        from torch.fx.passes.split_module import split_module
        partition, current = [0], [None]

        def place(node):
            here = self._runs_in_opal(node)
            if node.target is operator.getitem:
                here = current[0]  # with the op whose result it unpacks
            if current[0] is not None and here != current[0]:
                partition[0] += 1
            current[0] = here
            return partition[0]

        pieces = split_module(graph, None, place)
        compiled = 0
        for name, piece in list(pieces.named_children()):
            ops = [n for n in piece.graph.nodes if n.op == "call_function"
                   and n.target is not operator.getitem]
            if not ops or not all(self._runs_in_opal(n) for n in ops):
                continue
            entry = self._graph_op(piece)
            if entry is None:
                continue
            setattr(pieces, name, _OpalPiece(*entry))
            compiled += 1
        _log(f"{self._label()}: split into {len(list(pieces.named_children()))} pieces, "
             f"{compiled} compiled by opal")
        return pieces

    def _graph_op(self, graph):
        """An opal op whose decomposition is `graph` (every op of which opal
        has), or None when an output is not a tensor."""
        global _GRAPH_LIBRARY
        nodes = list(graph.graph.nodes)
        # A graph that calls a native kernel runs op by op (below): its batch
        # norms in evaluation mode fold into the convolutions before them.
        native = _native_call(nodes)
        folded = _fold_batch_norms(graph) if native is not None else 0
        if folded:
            nodes = list(graph.graph.nodes)
            native = _native_call(nodes) or native
        # A constant tensor of the graph (a causal mask made in forward) is
        # one more input of the op, passed at every call.
        constants = [n for n in nodes if n.op == "get_attr"]
        constant_values = []
        for node in constants:
            value = graph
            for part in node.target.split("."):
                value = getattr(value, part, None)
            if not isinstance(value, torch.Tensor) or value.dtype not in _DTYPES:
                return self._refuse(f"a constant of the graph opal cannot take ({node.target})")
            constant_values.append(value)
        inputs = [n for n in nodes if n.op == "placeholder"]
        # A size among the inputs (Dynamo's symbolic sizes) is no argument
        # of the op: it is the size of an input tensor, read per call.
        sizes = _input_sizes(inputs)
        if sizes is None:
            return self._refuse("a size among its inputs that no input tensor has")
        placeholders = [n for n in inputs if n not in sizes] + constants
        passed = tuple(n not in sizes for n in inputs)
        output = next(n for n in nodes if n.op == "output")
        outputs = output.args[0]
        flat_outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        # None among the outputs (a backward graph's gradient of an input
        # that needs none) is put back around the op's results, and so are
        # sizes (the sizes a training graph's forward saves for its
        # backward), computed from the call's inputs, and inputs returned
        # as they are (the weights a training graph's forward saves): as
        # results of the kernel, each would be a copy of the input.
        read_outputs = {}
        for o in flat_outputs if isinstance(outputs, (list, tuple)) else ():
            if hasattr(o, "op") and (_is_size(o.meta.get("val")) or o.op == "placeholder"):
                read_outputs[o] = _size_reader(o, inputs)
        if outputs is None or not all(
                (hasattr(o, "op") and not _is_size(o.meta.get("val"))) or o is None or
                read_outputs.get(o) is not None for o in flat_outputs):
            return self._refuse("an output that is not a tensor")
        tensor_outputs = [o for o in flat_outputs if o is not None and o not in read_outputs]
        if not tensor_outputs:
            return self._refuse("no tensor among its outputs")
        if _GRAPH_LIBRARY is None and native is None:
            _GRAPH_LIBRARY = _opal.library.Library("torchgraph", "DEF")
        # Values no later node reads, per node: dropped after it (run op by
        # op, the memory of an intermediate goes back as soon as it can).
        done_after, seen = {}, set(tensor_outputs)
        for node in reversed(nodes):
            if node.op == "call_function":
                done_after[node] = [n for n in node.all_input_nodes
                                    if n not in seen and n.op == "call_function"]
                seen.update(node.all_input_nodes)

        body = _GraphSource().function(
            placeholders, sizes,
            [(node, done_after[node]) for node in nodes if node.op == "call_function"],
            tensor_outputs, isinstance(outputs, (list, tuple)), self._label())

        # For a tuple, which of its places hold tensors (True), sizes (the
        # function of the inputs that computes each) or None.
        layout = (tuple(read_outputs.get(o) or o is not None for o in flat_outputs)
                  if isinstance(outputs, (list, tuple)) else False)
        calls = sum(1 for n in nodes if n.op == "call_function")
        if native is not None:
            # The compiler would run it op by op: so does the graph itself,
            # each call through opal's dispatcher (its kernels from the disk
            # cache without loading the compiler).
            # (Folded, its batch norms leave convolutions that run faster
            # standalone than in one fused kernel: it stays op by op.)
            _log(f"running {self._label()} op by op in opal ({calls} aten calls): it calls "
                 f"{native}, whose CPU kernel is not defined in MLIR" +
                 (f" ({folded} folded into the convolutions before them)" if folded else ""))
            # Per tensor output: whether it may share memory with an input
            # (checked per call, and copied if it does).
            body._opal_interpreted = tuple(not _fresh_result(o) for o in tensor_outputs)
            _compile_ahead(nodes, self._label())
            return body, layout, tuple(constant_values), passed
        # Named by what it computes: the same graph (in this process or the
        # next, whose warm start finds its kernels by name) is the same op.
        name = "g" + _fingerprint(nodes)
        if not _C._has_schema(f"torchgraph::{name}"):
            params = ", ".join(f"Tensor a{i}" for i in range(len(placeholders)))
            returns = ("Tensor" if not isinstance(outputs, (list, tuple))
                       else "(" + ", ".join("Tensor" for _ in tensor_outputs) + ")")
            _GRAPH_LIBRARY.define(f"{name}({params}) -> {returns}")
            body.__name__ = name
            # (Its text is checked when the compiler first reads it, which a
            # warm start never loads; one that does not parse is left out.)
            _opal.library.register_decomposition(f"torchgraph::{name}", lib=_GRAPH_LIBRARY,
                                                 _check=False)(body)
            if not sizes and not any(isinstance(n.meta.get("val"), torch.Tensor) and
                                     _has_symbolic_size(n.meta["val"]) for n in inputs):
                # Its name says its shapes (_fingerprint), which Dynamo made
                # static: a kernel for every size would be compiled in vain.
                _C._jit_declare_static_shapes(f"torchgraph::{name}")
        _log(f"compiled {self._label()} into torchgraph::{name} ({calls} aten calls)")
        return (getattr(_ops.torchgraph, name).default, layout, tuple(constant_values),
                passed)

    def _refuse(self, why):
        _log(f"running {self._label()} in PyTorch: {why}")
        return None

    def _label(self):
        return self.label

    @staticmethod
    def _runner(entry):
        """What runs what _to_opal_op made (never None) on torch tensors,
        made once per graph: a piece's module is built here, not per call
        (nn.Module's constructor costs tens of microseconds)."""
        if not isinstance(entry, tuple):  # a split graph: a torch.fx module
            def run_split(*tensors):
                with torch.no_grad():
                    return entry(*tensors)
            return run_split
        return _OpalPiece(*entry).forward


class CompiledFunction(_GraphCompiler):
    """What compile() returns: calls fn's traced aten graph as one opal op
    per shape and dtype signature, or fn itself in PyTorch where opal cannot."""

    def __init__(self, fn, example_inputs):
        super().__init__(getattr(fn, "__name__", type(fn).__name__))
        self.fn = fn
        self.module = fn if isinstance(fn, torch.nn.Module) else None
        self._entries = {}  # per shape signature: a runner, or None (PyTorch runs it)
        self.traces = 0
        self(*example_inputs)  # trace now, so that a refusal comes at compile()

    def _state(self):
        if self.module is None:
            return [], []
        state = {**dict(self.module.named_parameters()), **dict(self.module.named_buffers())}
        return list(state), [t.detach() for t in state.values()]

    def _trace(self, inputs):
        from torch.fx.experimental.proxy_tensor import make_fx
        names, state = self._state()
        if self.module is not None:
            from torch.nn.utils.stateless import functional_call
            module, count = self.module, len(names)

            def flat(*args):
                return functional_call(module, dict(zip(names, args[:count])), args[count:])
        else:
            flat = self.fn
        with torch.no_grad():
            try:
                graph = make_fx(flat, tracing_mode="fake")(*state, *inputs)
            except RuntimeError as error:
                if "data-dependent" in str(error) or "get value out of a tracing tensor" in \
                        str(error):
                    raise RuntimeError(
                        "opal.torch.compile: the function branches on the values of its "
                        "tensors (data-dependent control flow), which one aten graph cannot "
                        "express; compile the parts around the branch") from error
                raise
        self.traces += 1
        _jit_counters["torch_traces"] += 1
        return self._to_opal_op(graph)

    def __call__(self, *inputs):
        if not all(isinstance(t, torch.Tensor) for t in inputs):
            raise TypeError("opal.torch.compile: the compiled function takes tensors only")
        key = tuple((tuple(t.shape), t.dtype, t.device.type) for t in inputs)
        if key not in self._entries:
            entry = self._trace(inputs)
            self._entries[key] = None if entry is None else self._runner(entry)
        run = self._entries[key]
        if run is None:
            return self.fn(*inputs)
        _, state = self._state()
        return run(*state, *inputs)


class _Conversions:
    """Torch tensors as opal tensors sharing their memory, for the calls of
    one graph: an argument that is the same tensor as at the previous call
    (a parameter or buffer: the same object, memory and version) is given
    the opal tensor made for it then (from_torch costs a microsecond or
    two, and a CNN's graph takes hundreds of parameters). Whether it is the
    same is checked by a weak reference, so an input seen once (a batch of
    activations) is not kept alive by its record."""

    def __init__(self):
        self.seen = []  # per argument: (weakref, (data_ptr, version), opal tensor or None)

    def __call__(self, arguments):
        seen = self.seen
        if len(seen) != len(arguments):
            seen[:] = [None] * len(arguments)
        converted = []
        for i, value in enumerate(arguments):
            if not isinstance(value, torch.Tensor):
                converted.append(_to_opal(value))
                continue
            try:
                key = (value.data_ptr(), value._version)
            except RuntimeError:  # (an inference tensor has no version: not kept)
                seen[i] = None
                converted.append(from_torch(value))
                continue
            record = seen[i]
            if record is not None and record[0]() is value and record[1] == key:
                if record[2] is None:  # the second time: kept from now on
                    record = seen[i] = (record[0], key, from_torch(value))
                converted.append(record[2])
                continue
            seen[i] = (weakref.ref(value), key, None)
            converted.append(from_torch(value))
        return converted


class _OpalPiece(torch.nn.Module):
    """An opal op called on torch tensors: one compiled piece of a graph
    (a module, so that it can stand in a split torch.fx graph)."""

    def __init__(self, op, layout, constants=(), passed=None):
        """`layout`: False for a graph returning one tensor; for a tuple,
        whether each of its places holds a tensor (True), a size (the
        function of the graph's inputs that computes it) or None.
        `constants`: the graph's constant tensors, its last inputs.
        `passed`: which of the graph's inputs the op takes (the others are
        sizes, which it reads from its tensors); None for all."""
        super().__init__()
        self.op, self.layout, self.constants, self.passed = op, layout, constants, passed
        # Per tensor output of a graph run op by op, whether it may be a
        # view of an input; () for a graph op (its results are new).
        self.shared = getattr(op, "_opal_interpreted", ())
        self.converted = _Conversions()

    def forward(self, *given):
        inputs = given
        if self.passed is not None:
            inputs = tuple(value for value, keep in zip(given, self.passed) if keep)
        result = self.op(*self.converted(inputs + self.constants))
        if self.layout is False:
            return self._fresh(_to_torch(result, meta=False), inputs, 0)
        # (A graph returning one tensor in a tuple: "(Tensor)" is one.)
        results = _to_torch(tuple(result) if isinstance(result, (list, tuple)) else (result,),
                            meta=False)
        values, index = [], 0
        for place in self.layout:
            if place is True:
                values.append(self._fresh(results[index], inputs, index))
                index += 1
            else:
                values.append(place(given) if place else None)
        return tuple(values)

    def _fresh(self, result, inputs, index):
        """A graph's result (its `index`-th tensor) as new memory, as a graph
        op's are: a graph run op by op may return a view of an input."""
        if not (self.shared and self.shared[index]):
            return result
        storage = result.untyped_storage().data_ptr()
        if any(isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() == storage
               for t in inputs + self.constants):
            return result.clone()
        return result


def compile(fn, example_inputs=None, *, dynamic=None):
    """`fn` (a function or nn.Module) compiled by opal: a callable over
    torch tensors. On PyTorch 2 it is `torch.compile(fn, backend="opal",
    dynamic=dynamic)` (see backend()): nothing runs until the first call,
    and `example_inputs` is not needed (accepted for PyTorch 1.x's form).
    On PyTorch 1.x, which has no torch.compile, `fn` is traced into aten
    ops on `example_inputs` (make_fx, on fake tensors) and each shape and
    dtype signature retraces (see the module's docstring); parameters of a
    module are read at every call."""
    if hasattr(torch, "compile"):
        return torch.compile(fn, backend=backend, dynamic=dynamic)
    if example_inputs is None:
        raise TypeError("opal.torch.compile: PyTorch 1.x has no torch.compile; pass "
                        "example_inputs to trace fn on")
    return CompiledFunction(fn, list(example_inputs))


def _saved_packable(node):
    """Whether a tensor the forward saves for the backward can travel
    packed: a value the forward computes (not one of its inputs, which
    cost nothing to save), dense, of sizes known when the graph compiles,
    small enough that copying it costs less than its crossing, and saved
    with the usual version-counter check."""
    value = node.meta.get("val")
    return (node.op != "placeholder" and isinstance(value, torch.Tensor) and
            not node.meta.get("saved_tensor_with_no_vc_check", False) and
            all(isinstance(size, int) for size in value.shape) and
            value.is_contiguous() and 0 < value.numel() and
            value.numel() * value.element_size() <= _PACKED_SAVED_BYTES)


# Each saved tensor costs about 2 us to cross from opal to PyTorch and back
# and more in AOTAutograd's and autograd's bookkeeping; a stack costs a copy
# of each tensor into it (opal-drop-overwritten-fills leaves no zero fill
# under it), about 1 us per 16 KiB, where a large result might have been
# computed in its own output. Larger tensors travel alone.
_PACKED_SAVED_BYTES = 16 << 10


def _pack_saved(forward, backward, num_outputs):
    """Rewrites a partitioned training graph so that the small tensors its
    forward saves for the backward travel stacked, one tensor per dtype,
    device and shape: the forward returns the stacks first among what it
    saves, and the backward selects from them. A recurrent layer saves a
    few small tensors per step, each a crossing and an entry in PyTorch's
    autograd; stacked, an LSTM's 224 are two. Returns how many it packed."""
    output = next(iter(forward.graph.find_nodes(op="output")))
    results = list(output.args[0])
    saved = results[num_outputs:]
    placeholders = {node.name: node for node in backward.graph.find_nodes(op="placeholder")}
    if not all(node.name in placeholders for node in saved if isinstance(node, torch.fx.Node)):
        return 0  # (not the partition this rewrite knows: left as it is)
    groups = {}
    for node in saved:
        if isinstance(node, torch.fx.Node) and _saved_packable(node):
            value = node.meta["val"]
            groups.setdefault((value.dtype, value.device, tuple(value.shape)),
                              []).append(node)
    groups = {key: nodes for key, nodes in groups.items() if len(nodes) > 1}
    if not groups:
        return 0
    packed_nodes = {node for nodes in groups.values() for node in nodes}
    descs = output.meta.get("desc")
    aten = torch.ops.aten
    # The forward: each group stacked, the stacks first among the saved.
    packs = []
    with forward.graph.inserting_before(output):
        for nodes in groups.values():
            pack = forward.graph.call_function(aten.stack.default, (list(nodes),))
            pack.meta["val"] = torch.stack([node.meta["val"] for node in nodes])
            packs.append(pack)
    kept = [node for node in saved if node not in packed_nodes]
    output.args = (tuple(results[:num_outputs] + packs + kept),)
    if descs is not None:
        from torch._functorch._aot_autograd.descriptors import SavedForBackwardsAOTOutput
        kept_descs = [desc for node, desc in zip(saved, descs[num_outputs:])
                      if node not in packed_nodes]
        output.meta["desc"] = (list(descs[:num_outputs]) +
                               [SavedForBackwardsAOTOutput(i) for i in range(len(packs))] +
                               [type(desc)(len(packs) + i) if hasattr(desc, "idx") else desc
                                for i, desc in enumerate(kept_descs)])
    forward.graph.lint()
    forward.recompile()
    # The backward: a placeholder per stack before the saved tensors' (after
    # the saved sizes', which come first), and a view of it for each tensor.
    first_saved = next(placeholders[node.name] for node in saved
                       if isinstance(node, torch.fx.Node) and
                       isinstance(node.meta.get("val"), torch.Tensor))
    body = next(node for node in backward.graph.nodes if node.op != "placeholder")
    for index, nodes in enumerate(groups.values()):
        with backward.graph.inserting_before(first_saved):
            pack = backward.graph.placeholder(f"opal_saved_pack_{index}")
        pack.meta["val"] = packs[index].meta["val"]
        for at, node in enumerate(nodes):
            old = placeholders[node.name]
            with backward.graph.inserting_before(body):
                piece = backward.graph.call_function(aten.select.int, (pack, 0, at))
            piece.meta["val"] = pack.meta["val"][at]
            old.replace_all_uses_with(piece)
            backward.graph.erase_node(old)
    backward.graph.lint()
    backward.recompile()
    return len(packed_nodes)


def backend(graph_module, example_inputs):
    """torch.compile's backend "opal":

        torch.compile(model, backend="opal")

    (PyTorch finds it by the `torch_dynamo_backends` entry point opal's
    package declares; `backend=opal.torch.backend` works as well.) Dynamo
    captures the program's FX graphs (its graph breaks are its own);
    AOTAutograd functionalizes each (in-place ops become out-of-place ones,
    and writes into inputs are copied back after the call, as eager makes
    them), lifts parameters and buffers to inputs, decomposes the ops opal
    lacks with PyTorch's own Core ATen decompositions and, where gradients
    are needed, splits the forward graph from the backward one (its
    min-cut partitioner: the backward recomputes cheap elementwise ops
    rather than reading them saved by the forward; the small tensors the
    forward saves travel to the backward stacked, see _pack_saved); opal then
    compiles each aten graph into one fused kernel, or into runs of them
    around the ops opal cannot run, which stay PyTorch's (OPAL_LOG=torch
    says which). Symbolic sizes (dynamic=True, or Dynamo's second shape)
    are read from the inputs per call: one kernel serves them all."""
    from torch._dynamo.backends.common import aot_autograd
    from functorch.compile import make_boxed_func, min_cut_rematerialization_partition

    def compile_graph(graph, inputs):
        return make_boxed_func(_aten_graph_runner(graph, inputs))

    def partition(joint, inputs, *, num_fwd_outputs, **options):
        forward, backward = min_cut_rematerialization_partition(
            joint, inputs, num_fwd_outputs=num_fwd_outputs, **options)
        packed = _pack_saved(forward, backward, num_fwd_outputs)
        if packed:
            _log(f"the forward saves {packed} small tensors for the backward packed")
        return forward, backward

    # While AOTAutograd traces: oneDNN off, so that the recurrent layers
    # trace into their steps' products and gates rather than oneDNN's
    # mkldnn_rnn_layer; and the flash kernel of scaled_dot_product_attention
    # off, so that attention traces into its math (matrix products and a
    # softmax) and its backward is the derivative of that math. (PyTorch's
    # decomposition of _scaled_dot_product_flash_attention_for_cpu returns
    # the attention probabilities where the op returns their logsumexp:
    # with the flash kernel's backward, gradients came out wrong.)
    switches = ((torch._C._get_mkldnn_enabled, torch._C._set_mkldnn_enabled),
                (torch._C._get_flash_sdp_enabled, torch._C._set_sdp_use_flash))
    before = [get() for get, _ in switches]
    for _, set_ in switches:
        set_(False)
    try:
        return aot_autograd(fw_compiler=compile_graph, decompositions=_decompositions,
                             partition_fn=partition,
                             keep_inference_input_mutations=True)(
            graph_module, example_inputs)
    finally:
        for (_, set_), value in zip(switches, before):
            set_(value)


def _attention(query, key, value, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
               proj_bias, need_weights, average_attn_weights):
    """Multi-head attention without a mask, as PyTorch's fused CPU kernel
    (_native_multi_head_attention) computes it: the projections of query,
    key and value by the thirds of qkv_weight, softmax(q k^T / sqrt(d)) v
    per head, the output projection; and the attention weights (averaged
    over heads, or per head) when asked for, else an empty tensor."""
    batch, length, _ = query.shape
    head = embed_dim // num_heads
    weights, biases = qkv_weight.chunk(3), qkv_bias.chunk(3)
    q, k, v = (torch.nn.functional.linear(x, w, b).view(batch, -1, num_heads, head)
               .transpose(1, 2) for x, w, b in zip((query, key, value), weights, biases))
    attention = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(head), -1)
    out = (attention @ v).transpose(1, 2).reshape(batch, length, embed_dim)
    out = torch.nn.functional.linear(out, proj_weight, proj_bias)
    if not need_weights:
        return out, query.new_empty(0)
    return out, attention.mean(1) if average_attn_weights else attention


def _multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
                          proj_weight, proj_bias, mask=None, need_weights=True,
                          average_attn_weights=True, mask_type=None):
    """nn.MultiheadAttention's fast path (eval, no grad), for 3-d inputs
    without a mask; otherwise it stays the op (PyTorch runs it)."""
    if mask is not None or query.dim() != 3:
        return NotImplemented
    return _attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
                      proj_weight, proj_bias, need_weights, average_attn_weights)


def _encoder_layer(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                   use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
                   norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None,
                   mask_type=None):
    """nn.TransformerEncoderLayer's fast path (eval, no grad), as PyTorch's
    kernel composes it: attention with a residual, then the feed-forward
    block (gelu or relu) with a residual, each layer-normalized before
    (norm_first) or after; for 3-d inputs without a mask."""
    if mask is not None or src.dim() != 3:
        return NotImplemented
    F = torch.nn.functional

    def norm(x, weight, bias):
        return F.layer_norm(x, [embed_dim], weight, bias, eps)

    x = norm(src, norm_weight_1, norm_bias_1) if norm_first else src
    x = _attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
                   proj_bias, False, True)[0] + src
    if not norm_first:
        x = norm(x, norm_weight_1, norm_bias_1)
    y = norm(x, norm_weight_2, norm_bias_2) if norm_first else x
    y = F.linear(y, ffn_weight_1, ffn_bias_1)
    y = F.linear(F.gelu(y) if use_gelu else F.relu(y), ffn_weight_2, ffn_bias_2)
    x = x + y
    return x if norm_first else norm(x, norm_weight_2, norm_bias_2)


_RECURRENT = frozenset(("lstm", "gru", "rnn_tanh", "rnn_relu"))


def _decompositions():
    """PyTorch's Core ATen decompositions of the ops opal lacks (opal's own
    decompositions of the others fuse), and opal's of the fused attention
    and encoder fast paths, which PyTorch has none of. The table without
    PyTorch's CompositeImplicitAutograd ops where this PyTorch has it (those
    decompose while AOTAutograd traces anyway; listing them costs 70 ms a
    process)."""
    import torch._decomp as decomp
    table = getattr(decomp, "_core_aten_decompositions_post_autograd",
                    decomp.core_aten_decompositions)()
    # (Not the flash attention one: its second result is not the op's.)
    table = {op: fn for op, fn in table.items() if not _opal_has(op) and
             "scaled_dot_product_flash_attention" not in str(op)}
    # The recurrent layers (their CPU kernels are oneDNN's, mkldnn_rnn_layer):
    # PyTorch's decompositions into each step's products and gates.
    for op, fn in decomp.decomposition_table.items():
        schema = getattr(op, "_schema", None)
        if schema is not None and schema.name.partition("::")[2] in _RECURRENT and \
                not _opal_has(op):
            table[op] = fn
    aten = torch.ops.aten
    for name, fn in (("_native_multi_head_attention", _multi_head_attention),
                     ("_transformer_encoder_layer_fwd", _encoder_layer)):
        if hasattr(aten, name):
            table[getattr(aten, name).default] = fn
    return table


_BACKEND_GRAPHS = itertools.count()


def _aten_graph_runner(graph, inputs):
    """What runs the aten graph AOTAutograd gives the backend: opal's
    kernels, or the graph itself (in PyTorch) where opal cannot."""
    label = f"torch.compile graph {next(_BACKEND_GRAPHS)}"
    _jit_counters["torch_traces"] += 1
    # (opal's JIT compiles no complex dtype.)
    foreign = next((v for v in inputs if isinstance(v, torch.Tensor) and (
        v.dtype not in _DTYPES or v.dtype.is_complex or v.device.type not in ("cpu", "cuda"))),
        None)
    if foreign is not None:
        _log(f"running {label} in PyTorch: an input of {foreign.dtype} on {foreign.device}, "
             "which opal's kernels do not take")
        return graph
    writes = _input_writes(graph)
    if writes:
        graph = _writes_as_results(graph)
        _log(f"{label} writes {len(writes)} of its inputs, "
             f"{sum(ok for _, _, ok in writes)} of them in place")
    compiler = _GraphCompiler(label)
    seeded = _seeded_devices(graph)
    entry = compiler._to_opal_op(graph)
    if entry is None:
        if writes:  # (PyTorch runs the graph, whose writes are now results)
            return _writing_back(graph, writes, graph)
        return graph

    runner = compiler._runner(entry)
    ahead = [_compile_ahead_of_first_call(entry, graph, label)]

    def compute(*tensors):
        if ahead[0] is not None:  # (its kernel in memory once the thread ends)
            ahead[0].join()
            ahead[0] = None
        result = runner(*tensors)
        return result if isinstance(result, (list, tuple)) else (result,)

    # (An opal op's name, for its kernel to write in place; a piece run
    # op by op, a Python function, writes nothing in place.)
    schema = getattr(entry[0], "_schema", None) if isinstance(entry, tuple) else None
    op = (schema.name, entry[1]) if schema is not None else None
    run = _writing_back(graph, writes, compute, in_place=op) if writes else compute

    if not seeded:
        return run

    def run_seeded(*tensors):
        with _seeded_from_torch(seeded):
            return run(*tensors)

    return run_seeded


def _compile_ahead_of_first_call(entry, graph, label):
    """For a graph compiled into one opal op (`entry` from _to_opal_op),
    a thread started to compile its kernel for the shapes and strides of
    the graph's example inputs (tensors whose data is never read), so that
    the compile overlaps what Dynamo and AOTAutograd do before the first
    call (its guards, its wrappers; a tenth of a second on ConvNeXt-tiny).
    The first call waits for the thread and finds the kernel in memory.
    None where there is nothing to start: a graph run op by op or split
    (their kernels compile ahead in _compile_ahead), an input no tensor can
    stand in for (_stand_in_signature: symbolic sizes, another device)."""
    if not isinstance(entry, tuple) or not isinstance(entry[0], _OpOverload):
        return None
    op, _, constants, passed = entry
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    metas = [n.meta.get("val") for n, keep in zip(placeholders, passed) if keep]
    signatures = [_stand_in_signature(meta) for meta in metas + list(constants)]
    if None in signatures:
        return None
    args = tuple(_ops.aten.empty_strided(sizes, strides, dtype=dtype)
                 for sizes, strides, dtype in signatures)
    call = [(op, args, {})]

    def compile_kernel():
        try:
            start = time.perf_counter()
            (what, error), = _C._jit_compile_ahead(call, 1)
            _log(f"{label}: kernel {what} ahead of the first call in "
                 f"{time.perf_counter() - start:.2f} s" + (f" ({error})" if error else ""))
        except Exception as e:  # (the call raises what it raises itself)
            _log(f"{label}: no kernel ahead of the first call: {type(e).__name__}: {e}")

    thread = threading.Thread(target=compile_kernel, name="opal-compile-ahead")
    thread.start()
    return thread


def _input_writes(graph):
    """The writes of `graph` into its inputs, in order, as (copy node, the
    input's index, whether the kernel may write the value into the input's
    memory: _in_place_safe): AOTAutograd (keep_inference_input_mutations)
    leaves an inference graph's writes as aten.copy_ nodes whose result
    nothing reads."""
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    writes, written = [], set()
    for node in graph.graph.nodes:
        if not (node.op == "call_function" and node.target is torch.ops.aten.copy_.default
                and not node.users and len(node.args) == 2 and not node.kwargs):
            continue
        target, value = node.args
        if not isinstance(target, torch.fx.Node) or target.op != "placeholder" or \
                target in written or not isinstance(value, torch.fx.Node):
            return []  # (an unusual graph: AOTAutograd's copies back, as before)
        written.add(target)
        writes.append((node, placeholders.index(target), _in_place_safe(target, value, graph)))
    return writes


def _in_place_safe(placeholder, value, graph):
    """Whether a kernel computing `value` may write it into `placeholder`'s
    memory as it reads it: every op that reads the input, directly or
    through others, is a pointwise op (PyTorch's pointwise tag) on the way
    to `value` itself (so each element of the input is read, at its own
    index, before that index is written, and nothing reads the old value
    after), `value` has the input's shape and dtype and is not also a
    result."""
    def meta(node):
        value = node.meta.get("val")
        return (tuple(value.shape), value.dtype) if isinstance(value, torch.Tensor) else None

    if value is placeholder or meta(value) is None or meta(value) != meta(placeholder):
        return False
    output = next(n for n in graph.graph.nodes if n.op == "output")
    if value in output.all_input_nodes:
        return False
    ancestors, stack = set(), [value]
    while stack:
        node = stack.pop()
        for source in node.all_input_nodes:
            if source not in ancestors:
                ancestors.add(source)
                stack.append(source)
    readers, stack = set(), [placeholder]
    while stack:
        for user in stack.pop().users:
            if user is value or user in readers:
                continue
            if user.op == "call_function" and user.target is torch.ops.aten.copy_.default:
                continue  # (a write at the end: of this value, or of another into its input)
            if user.op == "call_function" and user.target in _SHAPE_READERS:
                continue  # (reads the sizes alone)
            readers.add(user)
            stack.append(user)
    return all(node in ancestors for node in readers) and all(
        node.op == "call_function" and (torch.Tag.pointwise in getattr(node.target, "tags", ())
                                        or node.target is torch.ops.aten.copy.default)
        for node in readers | {value})


# Ops that read a tensor's sizes, dtype and device, never its elements.
_SHAPE_READERS = {getattr(torch.ops.aten, name).default for name in (
    "new_full", "new_zeros", "new_ones", "new_empty", "empty_like", "zeros_like", "ones_like",
    "full_like")}


def _writes_as_results(graph):
    """`graph` without its copies into inputs: their values become its last
    results."""
    graph = torch.fx.GraphModule(graph, copy.deepcopy(graph.graph))
    copies = [n for n in graph.graph.nodes if n.op == "call_function"
              and n.target is torch.ops.aten.copy_.default and not n.users]
    output = next(n for n in graph.graph.nodes if n.op == "output")
    values = [node.args[1] for node in copies]
    for node in copies:
        graph.graph.erase_node(node)
    results = output.args[0]
    output.args = (tuple(results) + tuple(values),)
    graph.graph.lint()
    graph.recompile()
    return graph


def _writing_back(graph, writes, compute, in_place=None):
    """`compute` (of `graph` with its writes as results) as the graph with
    writes: each write's value goes into its input, written there by the
    kernel of the opal op `in_place` names (its "ns::name" and _OpalPiece's
    layout of its results; None: none) itself where _in_place_safe says it
    may and the input fits (on the CPU: CUDA kernels recompute elementwise
    values where they are read, which may read an input after it was
    written), else copied; the input's version counter moves, as a copy_
    moves it."""
    count = len(writes)
    safe = [placeholder for _, placeholder, ok in writes if ok] if in_place else []
    if safe:
        # Which of the op's results each write's value is: the op returns
        # the graph's tensor results (layout True), not its sizes or Nones.
        op, layout = in_place
        places = [True] if layout is False else list(layout)
        slots = [sum(place is True for place in places[:i]) if places[i] is True else None
                 for i in range(len(places) - count, len(places))]
        tensor_results = sum(place is True for place in places)

    def run(*tensors):
        into = None
        if safe and _distinct_memory(tensors, safe):
            into = [None] * tensor_results
            for (_, placeholder, ok), slot in zip(writes, slots):
                if ok and slot is not None and tensors[placeholder].device.type == "cpu":
                    into[slot] = _to_opal(tensors[placeholder])
        if into is not None and any(t is not None for t in into):
            with _C._ResultsInto(into, op):
                results = compute(*tensors)
        else:
            results = compute(*tensors)
        results = tuple(results)
        written = []
        for (_, placeholder, _), value in zip(writes, results[len(results) - count:]):
            target = tensors[placeholder]
            if value.data_ptr() == target.data_ptr() and value.dtype == target.dtype:
                written.append(target)
            else:
                with torch.no_grad():
                    target.copy_(value)
        if written:
            torch.autograd.graph.increment_version(written)
        return results[:len(results) - count]

    return run


def _distinct_memory(tensors, written):
    """Whether each of the inputs at `written` shares its memory with no
    other input (an input written in place must not change another)."""
    storages = collections.Counter(
        t.untyped_storage().data_ptr() for t in tensors if isinstance(t, torch.Tensor))
    return all(storages[tensors[i].untyped_storage().data_ptr()] == 1 for i in written)


def _seeded_devices(graph):
    """The device types whose generators the random ops of `graph`
    (dropout, rand, bernoulli, ...: PyTorch tags them nondeterministic_seeded)
    draw from; empty when it has none."""
    devices = set()
    for node in graph.graph.nodes:
        if node.op == "call_function" and torch.Tag.nondeterministic_seeded in getattr(
                node.target, "tags", ()):
            value = node.meta.get("val")
            value = value[0] if isinstance(value, (list, tuple)) else value
            devices.add(value.device.type if isinstance(value, torch.Tensor) else "cpu")
    return sorted(devices)


@contextlib.contextmanager
def _seeded_from_torch(devices):
    """Around one call of a graph with random ops: opal's generator of each
    of `devices` seeded by a number drawn from PyTorch's generator of that
    device, so that torch.manual_seed makes a compiled model's dropout masks
    reproducible (they are opal's Philox numbers, not eager's); opal's own
    generators are left as they were."""
    saved = []
    for device_type in devices:
        device = _C.device(device_type)
        saved.append((device, _C._default_generator_state(device)))
        generator = (torch.cuda.default_generators[torch.cuda.current_device()]
                     if device_type == "cuda" else torch.default_generator)
        seed = int(torch.randint(0, 2 ** 63 - 1, (), generator=generator,
                                 device=generator.device))
        _C._set_default_generator_state(device, seed, 0)
    try:
        yield
    finally:
        for device, (seed, offset) in saved:
            _C._set_default_generator_state(device, seed, offset)


from .jit import _python_counters as _jit_counters  # noqa: E402
