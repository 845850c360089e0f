"""The JIT: statistics of the kernels opal compiled and called.

`stats()` returns a dict: `hits` (calls that found their compiled kernel in
memory), `misses` (calls that did not), `compiles` (kernels compiled),
`disk_hits` (kernels loaded from the disk cache), `stale` (kernels dropped
because an op they reached was registered again), `compile_ms` (time spent
compiling and loading, in milliseconds). `reset_stats()` zeroes them.
"""

from opal import _C

__all__ = ["stats", "reset_stats"]


def stats():
    return _C._jit_stats()


def reset_stats():
    _C._jit_reset_stats()
