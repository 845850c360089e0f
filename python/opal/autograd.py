"""Reverse-mode autograd with PyTorch's API (docs/autograd.md).

    x = opal.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()            # x.grad == 2 * x
    opal.autograd.grad(y2, [x])

Ops record at the Autograd dispatch keys (C++: opal/Autograd); their
derivatives are ops of the `aten_backward` op library, compiled and cached by
the JIT like any other kernel.
"""

import functools

from opal import _C

__all__ = ["backward", "grad", "gradcheck", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled"]

is_grad_enabled = _C.is_grad_enabled


def _tensors(value):
    if isinstance(value, _C.Tensor):
        return [value]
    return list(value)


def _grads(grads, count, what):
    if grads is None:
        return [None] * count
    grads = [grads] if isinstance(grads, _C.Tensor) else list(grads)
    if len(grads) != count:
        raise RuntimeError(f"{what} should be a sequence of length {count}, got {len(grads)}")
    return grads


def _no_create_graph(create_graph):
    if create_graph:
        raise NotImplementedError("create_graph=True (higher-order gradients) is not supported "
                                  "yet: the derivative ops do not record themselves")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the .grad of the leaves
    they depend on (torch.autograd.backward)."""
    _no_create_graph(create_graph)
    tensors = _tensors(tensors)
    grads = _grads(grad_tensors, len(tensors), "grad_tensors")
    retain = create_graph if retain_graph is None else retain_graph
    if inputs is None:
        _C._autograd_backward(tensors, grads, bool(retain))
        return
    _backward_into(tensors, grads, bool(retain), _tensors(inputs))


def _backward_into(tensors, grads, retain, inputs):
    """backward(inputs=...): the graph runs only where it reaches `inputs`
    (as grad() runs it), and each input's gradient is added to its .grad,
    leaf or not, in place where it has one; the other tensors' .grad are
    left alone."""
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    for t in inputs:
        # (A non-leaf input keeps its .grad from now on, as in PyTorch.)
        t.retain_grad()
    results = _C._autograd_grad(tensors, inputs, grads, retain, True)
    with no_grad():
        for t, g in zip(inputs, results):
            if g is None:
                continue
            if t.grad is None:
                # (A seed gradient the caller holds is not taken over.)
                t.grad = g.clone() if any(g is v for v in grads) else g
            else:
                t.grad.copy_(t.grad + g)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """The gradients of `outputs` with respect to `inputs`, returned as a
    tuple instead of accumulated (torch.autograd.grad)."""
    _no_create_graph(create_graph)
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    grads = _grads(grad_outputs, len(outputs), "grad_outputs")
    retain = create_graph if retain_graph is None else retain_graph
    return _C._autograd_grad(outputs, inputs, grads, bool(retain), bool(allow_unused))


class _GradModeContext:
    """A context manager and decorator that sets grad mode on this thread."""

    _enabled = None

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Ops run without recording (torch.no_grad)."""
    _enabled = False


class enable_grad(_GradModeContext):
    """Ops record again inside a no_grad block (torch.enable_grad)."""
    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode now (as a function) or for a block (as a context
    manager), like torch.set_grad_enabled."""

    def __init__(self, mode):
        self._enabled = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        _C._set_grad_enabled(self._previous)
        enabled = self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(enabled):
                return fn(*args, **kwargs)
        return wrapper


class RemovableHandle:
    """What Tensor.register_hook returns: remove() takes the hook away."""

    def __init__(self, tensor, hook_id):
        self._tensor = tensor
        self._id = hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register_hook(self, hook):
    """Registers `hook(grad)`, called with each gradient computed for this
    tensor before it is accumulated into .grad or passed on (a returned
    tensor of the same size replaces it); returns a handle whose remove()
    takes it away (Tensor.register_hook)."""
    if not callable(hook):
        raise TypeError(f"register_hook expects a callable, got {type(hook).__name__}")
    return RemovableHandle(self, self._register_hook(hook))


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward: opal.autograd.backward(self, gradient, ...)."""
    backward(self, None if gradient is None else [gradient], retain_graph, create_graph, inputs)


def _recording(tensor):
    return _C.is_grad_enabled() and tensor.requires_grad


def _getitem(self, index):
    """`x[index]` for a tensor that requires grad: ints, slices, None and
    `...` as aten select/slice/unsqueeze calls (views), tensors alone as
    aten::index.Tensor, so what it reads is recorded."""
    from opal._ops import ops
    A = ops.aten
    items = index if isinstance(index, tuple) else (index,)
    if items and all(isinstance(item, (_C.Tensor, list)) for item in items):
        # Advanced indexing by tensors alone: aten::index.Tensor.
        from opal._tensor import tensor as make_tensor
        return A.index.Tensor(self, [item if isinstance(item, _C.Tensor) else make_tensor(item)
                                     for item in items])
    if any(isinstance(item, _C.Tensor) or isinstance(item, (list, bool)) for item in items):
        raise NotImplementedError("indexing a tensor that requires grad with tensors mixed with "
                                  "ints, slices or None is not differentiable yet; index by "
                                  "tensors alone (x[i], x[i, j]), or use index_select or gather")
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for item in items if item is not None and item is not Ellipsis)
    if used > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result, dim = self, 0
    for item in items:
        if item is Ellipsis:
            dim += self.dim() - used
        elif item is None:
            result = A.unsqueeze(result, dim)
            dim += 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else item.step
            result = A.slice.Tensor(result, dim, item.start, item.stop, step)
            dim += 1
        else:
            result = A.select.int(result, dim, int(item))
    return result


def _install():
    """Tensor.backward, and the Tensor methods that copy or index natively
    made to record when the tensor requires grad (the others are already
    dispatcher calls)."""
    from opal._ops import ops
    A = ops.aten
    Tensor = _C.Tensor
    Tensor.backward = _tensor_backward
    Tensor.register_hook = _register_hook

    def recorded_when_needed(name, recorded):
        direct = getattr(Tensor, name)

        def method(self, *args, **kwargs):
            if _recording(self):
                return recorded(self, *args, **kwargs)
            return direct(self, *args, **kwargs)
        method.__name__ = name
        method.__doc__ = getattr(direct, "__doc__", None)
        setattr(Tensor, name, method)

    def to(self, *args, **kwargs):
        target = kwargs.pop("dtype", None) or kwargs.pop("device", None) or (
            args[0] if args else None)
        if isinstance(target, _C.dtype):
            return self if target == self.dtype else A._to_copy(self, dtype=target)
        device = _C.device(str(target))
        return self if device == self.device else A._to_copy(self, device=device)

    recorded_when_needed("__getitem__", _getitem)
    recorded_when_needed("clone", lambda self: A.clone(self))
    recorded_when_needed("contiguous",
                         lambda self: self if self.is_contiguous() else A.clone(self))
    recorded_when_needed("to", to)


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0):
    """Checks the gradients autograd gives `fn` at `inputs` against central
    finite differences, as torch.autograd.gradcheck does, through one
    random vector-Jacobian product per output: for a random `v`, the
    gradient of sum(v * fn(inputs)) with respect to each input that
    requires grad against (f(x + eps e_i) - f(x - eps e_i)) / 2eps . v per
    element. Use float64 inputs. Returns True, or raises AssertionError
    naming the input and the worst element."""
    import numpy as np
    from opal._tensor import tensor as make_tensor

    inputs = _tensors(inputs)
    rng = np.random.default_rng(seed)

    def outputs_of(args):
        result = fn(*args)
        return [result] if isinstance(result, _C.Tensor) else list(result)

    first = outputs_of(inputs)
    vectors = [rng.standard_normal(tuple(out.shape)) for out in first]
    grad_outputs = [make_tensor(v, dtype=out.dtype) for v, out in zip(vectors, first)]
    wrt = [x for x in inputs if x.requires_grad]
    analytic = grad(first, wrt, grad_outputs, allow_unused=True)

    def projected(args):
        with no_grad():
            return sum(float((out.numpy() * v).sum()) for out, v in zip(outputs_of(args), vectors))

    for position, (x, derived) in enumerate(zip(wrt, analytic)):
        base = x.detach().numpy().copy()
        numeric = np.zeros(base.size)
        for i in range(base.size):
            values = []
            for step in (eps, -eps):
                moved = base.copy().reshape(-1)
                moved[i] += step
                replaced = make_tensor(moved.reshape(base.shape), dtype=x.dtype)
                values.append(projected([replaced if a is x else a for a in inputs]))
            numeric[i] = (values[0] - values[1]) / (2 * eps)
        got = np.zeros(base.size) if derived is None else derived.numpy().reshape(-1)
        error = np.abs(got - numeric)
        bound = atol + rtol * np.abs(numeric)
        if (error > bound).any():
            worst = int(np.argmax(error - bound))
            raise AssertionError(f"gradcheck: input {position}, element {worst}: autograd gives "
                                 f"{got[worst]!r}, finite differences {numeric[worst]!r}")
    return True
