"""Time to first result: an ahead-of-time op library against the JIT.

Each row runs in a fresh process (so nothing is cached in memory) with the
disk cache off: the time from the start of loading until the first call of
each precompiled specialization of examples/aot/myops.opal.mlir returned,
(a) loading build/lib/libmyops.so, (b) loading the same file with
opal.library.load, which JIT-compiles each specialization on its first call.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/aot_benchmark.py
"""

import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("OPAL_BUILD_DIR", os.path.join(ROOT, "build"))
LIBRARY = os.path.join(BUILD, "lib", "libmyops.so")
SOURCE = os.path.join(ROOT, "examples", "aot", "myops.opal.mlir")

SCRIPT = """
import json, time, numpy as np, opal
x1 = opal.tensor(np.linspace(-3, 3, 1000).astype(np.float32))
x2 = opal.tensor(np.linspace(-3, 3, 1000).reshape(20, 50).astype(np.float32))
d2 = opal.tensor(np.linspace(-3, 3, 1000).reshape(20, 50))
start = time.perf_counter()
if {aot}:
    opal.ops.load_library({library!r})
else:
    opal.library.load({source!r})
loaded = time.perf_counter()
opal.ops.myops.softplus(x1, 2.0); opal.ops.myops.softplus(x2, 2.0)
opal.ops.myops.rms_norm(x2); opal.ops.myops.rms_norm(d2, -1, 1e-3)
done = time.perf_counter()
maps = open("/proc/self/maps").read()
print(json.dumps(dict(load_ms=(loaded - start) * 1e3, first_calls_ms=(done - loaded) * 1e3,
                      compiles=opal.jit.stats()["compiles"],
                      llvm_loaded="libLLVM" in maps)))
"""


def run(aot):
    env = dict(os.environ, OPAL_CACHE_DISABLE="1",
               PYTHONPATH=os.path.join(BUILD, "python"))
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(aot=aot, library=LIBRARY,
                                                              source=SOURCE)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    rows = {}
    for aot in (True, False):
        runs = [run(aot) for _ in range(5)]
        rows[aot] = runs
        total = statistics.median(r["load_ms"] + r["first_calls_ms"] for r in runs)
        print(f"{'ahead of time (libmyops.so)' if aot else 'JIT (opal.library.load)':30s} "
              f"load {statistics.median(r['load_ms'] for r in runs):7.2f} ms, "
              f"4 first calls {statistics.median(r['first_calls_ms'] for r in runs):7.2f} ms, "
              f"total {total:7.2f} ms, compiles {runs[0]['compiles']}, "
              f"LLVM loaded: {runs[0]['llvm_loaded']}")
    aot_total = statistics.median(r["load_ms"] + r["first_calls_ms"] for r in rows[True])
    jit_total = statistics.median(r["load_ms"] + r["first_calls_ms"] for r in rows[False])
    print(f"time to first results: {jit_total / aot_total:.0f}x shorter ahead of time")


if __name__ == "__main__":
    main()
