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
"""

from opal import _C

__all__ = ["stats", "reset_stats"]


# Counters kept in Python: torch_traces (graphs opal.torch.compile traced;
# a new shape or dtype retraces).
_python_counters = {"torch_traces": 0}


def stats():
    return {**_C._jit_stats(), **_python_counters}


def reset_stats():
    _C._jit_reset_stats()
    for name in _python_counters:
        _python_counters[name] = 0
