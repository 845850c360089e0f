#!/usr/bin/env python3
"""The CPU JIT beside numpy and PyTorch 1.13, in one run.

Not a test: run it and read the tables (docs/performance.md records them).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/jit_benchmark.py

1. Compile times, each in a fresh process: the first kernel of a process
   (loads libopal_compiler and LLVM), the next kernels, and the same kernels
   loaded from the disk cache by a second process.
2. Throughput at 1M and 16M float32 elements: add, relu, exp, softplus,
   gelu, softmax over the last dim, sum; and a 1024x1024 matmul. Best of N
   runs; numpy with out= where it has one; PyTorch eager (1 thread here).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

import opal

A = opal.ops.aten

COMPILE_SCRIPT = textwrap.dedent("""
    import json, time
    import numpy as np
    import opal
    A = opal.ops.aten
    x = opal.tensor(np.ones((4, 8), dtype=np.float32))
    calls = [("add", lambda: A.add.Tensor(x, x)), ("relu", lambda: A.relu(x)),
             ("exp", lambda: A.exp(x)), ("softplus", lambda: A.softplus(x)),
             ("gelu", lambda: A.gelu(x)), ("softmax", lambda: A.softmax.int(x, -1)),
             ("sum", lambda: A.sum.dim_IntList(x, [1])), ("mm", lambda: A.mm(x, A.t(x)))]
    times = []
    for name, call in calls:
        start = time.perf_counter()
        call()
        times.append((name, (time.perf_counter() - start) * 1e3))
    compiler = "libopal_compiler" in open("/proc/self/maps").read()
    print(json.dumps({"times": times, "stats": opal.jit.stats(), "compiler": compiler}))
""")


def run_compile_process(cache_dir, disable=False):
    env = dict(os.environ, OPAL_CACHE_DIR=cache_dir)
    if disable:
        env["OPAL_CACHE_DISABLE"] = "1"
    out = subprocess.run([sys.executable, "-c", COMPILE_SCRIPT], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def compile_times():
    with tempfile.TemporaryDirectory() as cache:
        cold = run_compile_process(cache)
        warm = run_compile_process(cache)
    print("## Compile times (ms per kernel, first call of each op in a fresh process)\n")
    print("| kernel | compiled (cold cache) | loaded from disk |")
    print("|---|---:|---:|")
    for (name, compiled), (_, loaded) in zip(cold["times"], warm["times"]):
        print(f"| {name} | {compiled:.1f} | {loaded:.2f} |")
    rest = [t for _, t in cold["times"][1:]]
    disk = [t for _, t in warm["times"][1:]]
    print(f"\nfirst kernel of a process: {cold['times'][0][1]:.1f} ms compiled (loads "
          f"libopal_compiler, MLIR and LLVM), {warm['times'][0][1]:.2f} ms from disk (a warm "
          f"start: {'the compiler loaded' if warm['compiler'] else 'no compiler loaded'}); "
          f"next kernels: median {np.median(rest):.1f} ms compiled, "
          f"{np.median(disk):.2f} ms from disk")
    print(f"stats: cold {cold['stats']}, warm {warm['stats']}\n")


def best(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def throughput(repeats):
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print("## Throughput (ms, best of %d; ratio = reference time / opal time)\n" % repeats)
    print("| op | elements | opal | numpy | PyTorch | numpy/opal | PyTorch/opal |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for n in (1 << 20, 1 << 24):
        x = rng.uniform(-3, 3, n).astype(np.float32)
        y = rng.uniform(-3, 3, n).astype(np.float32)
        rows = x.reshape(n // 1024, 1024)
        ox, oy, orows = opal.tensor(x), opal.tensor(y), opal.tensor(rows)
        out = np.empty_like(x)
        tx = torch.from_numpy(x) if torch else None
        ty = torch.from_numpy(y) if torch else None
        trows = torch.from_numpy(rows) if torch else None

        def np_softplus():
            np.exp(x, out=out)
            np.log1p(out, out=out)

        def np_softmax():
            e = np.exp(rows - rows.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        cases = [
            ("add", lambda: A.add.Tensor(ox, oy), lambda: np.add(x, y, out=out),
             lambda: torch.add(tx, ty)),
            ("relu", lambda: A.relu(ox), lambda: np.maximum(x, 0, out=out),
             lambda: torch.relu(tx)),
            ("exp", lambda: A.exp(ox), lambda: np.exp(x, out=out), lambda: torch.exp(tx)),
            ("softplus", lambda: A.softplus(ox), np_softplus,
             lambda: torch.nn.functional.softplus(tx)),
            ("gelu", lambda: A.gelu(ox), None, lambda: torch.nn.functional.gelu(tx)),
            ("softmax (last dim, rows of 1024)", lambda: A.softmax.int(orows, -1), np_softmax,
             lambda: torch.softmax(trows, -1)),
            ("sum", lambda: A.sum.dim_IntList(ox, [0]), lambda: np.sum(x),
             lambda: torch.sum(tx)),
        ]
        for name, run_opal, run_numpy, run_torch in cases:
            t_opal = best(run_opal, repeats)
            t_numpy = best(run_numpy, repeats) if run_numpy else None
            t_torch = best(run_torch, repeats) if torch else None
            fmt = lambda t: f"{t * 1e3:.3f}" if t else "–"
            ratio = lambda t: f"{t / t_opal:.2f}" if t else "–"
            print(f"| {name} | {n:,} | {fmt(t_opal)} | {fmt(t_numpy)} | {fmt(t_torch)} | "
                  f"{ratio(t_numpy)} | {ratio(t_torch)} |")
    a = rng.random((1024, 1024), dtype=np.float32)
    b = rng.random((1024, 1024), dtype=np.float32)
    oa, ob = opal.tensor(a), opal.tensor(b)
    flop = 2 * 1024 ** 3
    t_opal = best(lambda: A.mm(oa, ob), max(3, repeats // 4))
    t_numpy = best(lambda: a @ b, 3)
    t_torch = best(lambda: torch.from_numpy(a) @ torch.from_numpy(b), 3) if torch else None
    print(f"| matmul 1024x1024 (GFLOP/s) | – | {flop / t_opal / 1e9:.1f} | "
          f"{flop / t_numpy / 1e9:.1f} | {flop / t_torch / 1e9:.1f} | {t_numpy / t_opal:.2f} | "
          f"{t_torch / t_opal:.2f} |")
    print("\n(numpy's BLAS and PyTorch's here are Debian's reference BLAS.)")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--skip-compile", action="store_true")
    args = parser.parse_args()
    if not args.skip_compile:
        compile_times()
    throughput(args.repeats)


if __name__ == "__main__":
    main()
