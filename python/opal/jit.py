"""The JIT: statistics of the kernels opal compiled and called.

`stats()` returns a dict: `hits` (calls that found their compiled kernel in
memory), `misses` (calls that did not), `compiles` (kernels compiled),
`plans` (composites that reach an opaque kernel, planned to run op by op
through the dispatcher: nothing compiled), `disk_hits` (kernels loaded
from the disk cache), `precompiled` (kernels installed from ahead-of-time
libraries), `stale` (kernels dropped because an op they reached was
registered again), `compile_ms` (time spent compiling and loading, in
milliseconds), `plan_ms` (time spent planning), `torch_traces` (aten
graphs opal.torch.compile traced). `reset_stats()` zeroes them.

`compile_ahead(calls, threads=None)` compiles the kernels that calls will
run, several at once, without running them: each call is `(op, args)` or
`(op, args, kwargs)`, with an `opal.ops` overload and the arguments a call
would pass (only the metadata of their tensors is read: dtype, sizes,
strides, device). The compiler lowers one kernel at a time and gives
LLVM's half of each compile (most of it) to a thread of its own, so on two
cores four convolutions compile in about two thirds of the time one after
another take. `threads` defaults to OPAL_COMPILE_THREADS, else the cores
this process may use. Returns, per call, `"compiled"` (compiled or loaded
from disk now), `"in memory"` (compiled before, or by an earlier call of
the list), `"no kernel"` (the call runs no MLIR kernel of its own: a native
kernel, or a call that records autograd) or `"failed: <error>"` (arguments
that do not fit the op, or the compile's error, which the call raises
too; a call's shape checks run at the call). opal.torch's backend compiles the calls of every graph it runs
op by op this way before the graph's first run.
"""

from opal import _C

__all__ = ["stats", "reset_stats", "compile_ahead"]


# Counters kept in Python: torch_traces (graphs opal.torch.compile traced;
# a new shape or dtype retraces).
_python_counters = {"torch_traces": 0}


def stats():
    return {**_C._jit_stats(), **_python_counters}


def reset_stats():
    _C._jit_reset_stats()
    for name in _python_counters:
        _python_counters[name] = 0


def compile_ahead(calls, threads=None):
    if threads is not None and (type(threads) is not int or not 1 <= threads <= 64):
        raise ValueError(f"compile_ahead(): threads must be an int from 1 to 64, got {threads!r}")
    triples = []
    for call in calls:
        if not isinstance(call, (list, tuple)) or len(call) not in (2, 3):
            raise TypeError("compile_ahead(): each call must be (op, args) or (op, args, kwargs), "
                            f"got {call!r}")
        op, args, kwargs = call[0], call[1], call[2] if len(call) == 3 else {}
        if not isinstance(op, _C._OpHandle):
            raise TypeError("compile_ahead(): a call's op must be an opal.ops overload "
                            f"(opal.ops.aten.add.Tensor), got {op!r}")
        triples.append((op, tuple(args), dict(kwargs)))
    return [what if what != "failed" else f"failed: {error}"
            for what, error in _C._jit_compile_ahead(triples, threads)]
