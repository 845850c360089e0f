#!/usr/bin/env python3
"""opal's main job: define an op in Python by schema and decomposition,
call it, and get one fused native kernel, compiled once and cached.

    PYTHONPATH=build/python /usr/bin/python3 examples/jit_tour.py
"""

import os
import tempfile
import time

import numpy as np

# A cache of this demo's own, so that the first call really compiles.
os.environ.setdefault("OPAL_CACHE_DIR", tempfile.mkdtemp(prefix="opal-jit-tour-"))

import opal  # noqa: E402

A = opal.ops.aten

# 1. The op: a schema and a decomposition written over opal ops.
lib = opal.library.Library("tour", "DEF")
lib.define("softplus(Tensor x, float beta=1.0) -> Tensor")


@opal.library.register_decomposition("tour::softplus", lib=lib)
def softplus(x, beta):
    scaled = x * beta
    soft = A.log1p(A.exp(scaled)) / beta
    return A.where.self(A.gt.Scalar(scaled, 20.0), x, soft)


print("decomposition traced from Python:")
print(softplus._opal_decomposition)

# 2. Its dispatch table: the decomposition is the op's
# CompositeImplicitAutograd kernel, as in PyTorch.
table = opal._C._dispatch_dump_table("tour::softplus")
print("dispatch table (CPU and Autograd rows):")
for line in table.splitlines():
    if line.startswith(("CPU:", "AutogradCPU:", "CompositeImplicitAutograd")):
        print("  " + line)

# 3. The first call compiles one fused kernel; the next ones hit the cache.
x = np.random.default_rng(0).uniform(-5, 5, 1 << 24).astype(np.float32)
ox = opal.tensor(x)
start = time.perf_counter()
out = opal.ops.tour.softplus(ox, 2.0)
first = (time.perf_counter() - start) * 1e3
stats = opal.jit.stats()
print(f"\nfirst call on 16M elements: {first:.1f} ms, of which compiling "
      f"{stats['compile_ms']:.1f} ms ({stats['compiles']} compile)")
reference = np.where(2 * x > 20, x, np.log1p(np.exp(2 * x)) / 2)
print(f"largest difference from numpy: {np.max(np.abs(np.asarray(out) - reference)):.2e}")

start = time.perf_counter()
opal.ops.tour.softplus(ox, 0.5)  # another beta: the same kernel
second = (time.perf_counter() - start) * 1e3
stats = opal.jit.stats()
print(f"second call (beta=0.5): {second:.1f} ms, in-memory cache hits {stats['hits']}, "
      f"compiles still {stats['compiles']}")


# 4. Throughput beside numpy (which runs the same formula op by op).
def best(fn, repeats=5):
    fn()
    return min(_timed(fn) for _ in range(repeats))


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


t_opal = best(lambda: opal.ops.tour.softplus(ox, 2.0))
t_numpy = best(lambda: np.where(2 * x > 20, x, np.log1p(np.exp(2 * x)) / 2))
gb = 2 * x.nbytes / 1e9
ratio = t_numpy / t_opal
verdict = (f"opal is {ratio:.1f}x faster (one fused pass)" if ratio >= 1.05 else
           f"opal is {1 / ratio:.1f}x slower" if ratio <= 0.95 else "about the same")
print(f"\n16M float32 elements: opal {t_opal * 1e3:.1f} ms ({gb / t_opal:.1f} GB/s), "
      f"numpy {t_numpy * 1e3:.1f} ms: {verdict}")
