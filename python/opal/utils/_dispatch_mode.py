"""Dispatch modes: intercept every operator call inside a `with` block.

    class Logging(opal.utils.DispatchMode):
        def __opal_dispatch__(self, func, types, args=(), kwargs=None):
            print(func)
            return func(*args, **(kwargs or {}))

    with Logging():
        opal.ops.mylib.scale(x)

While a mode is active, the Python dispatch key is included in every call's
keyset; its fallback hands the call to the innermost mode, with that mode
popped, so calling `func` inside continues below it (to an outer mode, or to
the kernels).
"""

from opal import _C, _ops


class DispatchMode:
    """Base class of dispatch modes; override __opal_dispatch__."""

    def __opal_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError(
            f"{type(self).__name__} must implement __opal_dispatch__(func, types, args, kwargs)")

    def __enter__(self):
        _ops._mode_stack.append(self)
        self._python_key_guard = _C._IncludeDispatchKeyGuard(_C.DispatchKey.Python)
        return self

    def __exit__(self, exc_type, exc, tb):
        guard = self._python_key_guard
        del self._python_key_guard
        guard.__exit__(None, None, None)
        _ops._mode_stack.remove(self)
        return False


class OpRecorder(DispatchMode):
    """Records the operators called inside its block, in order:

        with opal.utils.OpRecorder() as rec:
            ...
        rec.ops  # ['mylib.scale.default', ...]
    """

    def __init__(self):
        self.ops = []
        self.calls = []

    def __opal_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.ops.append(str(func))
        self.calls.append((func, args, kwargs))
        return func(*args, **kwargs)
