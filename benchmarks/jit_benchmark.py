#!/usr/bin/env python3
"""The CPU JIT beside numpy and PyTorch, in one run.

Not a test: run it and read the tables (docs/performance.md records them).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/jit_benchmark.py

1. Compile times, each in a fresh process: the first kernel of a process
   (loads libopal_compiler and LLVM), the next kernels, and the same kernels
   loaded from the disk cache by a second process.
2. Throughput at 1M and 16M float32 elements: add, relu, exp, softplus,
   gelu, softmax over the last dim, sum, layer_norm with weight and bias
   over rows of 1024; and a 1024x1024 matmul. opal,
   numpy (out= where it has one), PyTorch and PyTorch with out= interleaved
   round by round, opal and PyTorch at the same thread count (--threads,
   1 by default); min and median of --rounds. PyTorch must multiply with a
   real BLAS (the bootstrap's PyTorch: MKL); numpy's matmul ratio is left
   out when numpy has the reference BLAS.
"""

import argparse
import json
import os
import subprocess
import statistics
import sys
import tempfile
import textwrap
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interleaved  # noqa: E402

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


def interleaved_times(calls, rounds):
    """Each call twice (compile, warm caches), then once per round in turn:
    opal, numpy, PyTorch, PyTorch out=, so drift hits every side alike.
    Seconds per call, a list per side (None for a missing side)."""
    live = [call for call in calls if call]
    for call in live:
        call(), call()
    times = [[] if call else None for call in calls]
    for _ in range(rounds):
        for call, into in zip(calls, times):
            if call:
                start = time.perf_counter()
                call()
                into.append(time.perf_counter() - start)
    return times


def throughput(rounds, threads):
    import torch
    reference = interleaved.blas()  # (refuses the reference BLAS)
    opal.set_num_threads(threads)
    torch.set_num_threads(threads)
    print(f"## Throughput (ms, min / median of {rounds} interleaved rounds, opal and PyTorch "
          f"on {threads} thread(s); ratio = reference median / opal median)\n")
    print("| op | elements | opal | numpy (out=) | PyTorch | PyTorch out= | numpy/opal | "
          "PyTorch/opal | PyTorch out=/opal |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    fmt = lambda t: f"{min(t) * 1e3:.3f} / {statistics.median(t) * 1e3:.3f}" if t else "–"
    for n in (1 << 20, 1 << 24):
        x = rng.uniform(-3, 3, n).astype(np.float32)
        y = rng.uniform(-3, 3, n).astype(np.float32)
        rows = x.reshape(n // 1024, 1024)
        # opal, numpy and PyTorch read the same memory: a copy of its own
        # would leave opal's input cold in the cache after the others ran.
        ox, oy, orows = opal.from_numpy(x), opal.from_numpy(y), opal.from_numpy(rows)
        out = np.empty_like(x)
        tx, ty, trows = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(rows)
        tout, trows_out = torch.empty_like(tx), torch.empty_like(trows)
        weight, bias = rng.standard_normal(1024, np.float32), rng.standard_normal(1024, np.float32)
        ow, ob = opal.from_numpy(weight), opal.from_numpy(bias)
        tw, tb = torch.from_numpy(weight), torch.from_numpy(bias)
        tsum = torch.empty(())

        def np_softplus():
            np.exp(x, out=out)
            np.log1p(out, out=out)

        def np_softmax():
            e = np.exp(rows - rows.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        # name, opal, numpy, PyTorch, PyTorch with out=
        cases = [
            ("add", lambda: A.add.Tensor(ox, oy), lambda: np.add(x, y, out=out),
             lambda: torch.add(tx, ty), lambda: torch.add(tx, ty, out=tout)),
            ("relu", lambda: A.relu(ox), lambda: np.maximum(x, 0, out=out),
             lambda: torch.relu(tx), lambda: torch.clamp(tx, min=0, out=tout)),
            ("exp", lambda: A.exp(ox), lambda: np.exp(x, out=out), lambda: torch.exp(tx),
             lambda: torch.exp(tx, out=tout)),
            ("softplus", lambda: A.softplus(ox), np_softplus,
             lambda: torch.nn.functional.softplus(tx), None),
            ("gelu", lambda: A.gelu(ox), None, lambda: torch.nn.functional.gelu(tx), None),
            ("softmax (last dim, rows of 1024)", lambda: A.softmax.int(orows, -1), np_softmax,
             lambda: torch.softmax(trows, -1), lambda: torch.softmax(trows, -1, out=trows_out)),
            ("sum", lambda: A.sum.dim_IntList(ox, [0]), lambda: np.sum(x),
             lambda: torch.sum(tx), lambda: torch.sum(tx, 0, out=tsum)),
            ("layer_norm (rows of 1024, weight and bias)",
             lambda: A.native_layer_norm(orows, [1024], ow, ob, 1e-5), None,
             lambda: torch.nn.functional.layer_norm(trows, [1024], tw, tb), None),
        ]
        for name, *calls in cases:
            t_opal, *others = interleaved_times(calls, rounds)
            ratio = lambda t: (f"{statistics.median(t) / statistics.median(t_opal):.2f}"
                               if t else "–")
            print(f"| {name} | {n:,} | {fmt(t_opal)} | {' | '.join(fmt(t) for t in others)} | "
                  f"{' | '.join(ratio(t) for t in others)} |")
    a = rng.random((1024, 1024), dtype=np.float32)
    b = rng.random((1024, 1024), dtype=np.float32)
    oa, ob, ta, tb = opal.from_numpy(a), opal.from_numpy(b), torch.from_numpy(a), torch.from_numpy(b)
    flop = 2 * 1024 ** 3
    t_opal, t_numpy, t_torch = interleaved_times(
        [lambda: A.mm(oa, ob), lambda: a @ b, lambda: ta @ tb], max(3, rounds // 4))
    rate = lambda t: f"{flop / min(t) / 1e9:.1f} / {flop / statistics.median(t) / 1e9:.1f}"
    ratio = lambda t: f"{statistics.median(t) / statistics.median(t_opal):.2f}"
    numpy_name, numpy_real = interleaved.numpy_blas()
    # (No ratio against the reference BLAS: it says nothing of opal.)
    numpy_ratio = ratio(t_numpy) if numpy_real else "– (reference BLAS)"
    print(f"| matmul 1024x1024 (GFLOP/s, max / median) | – | {rate(t_opal)} | {rate(t_numpy)} | "
          f"{rate(t_torch)} | – | {numpy_ratio} | {ratio(t_torch)} | – |")
    print(f"\n({numpy_name}; {reference}.)")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1,
                        help="opal's and PyTorch's thread count (the same)")
    parser.add_argument("--skip-compile", action="store_true")
    parser.add_argument("--compile-only", action="store_true",
                        help="only the compile-time table")
    args = parser.parse_args()
    if not args.skip_compile:
        compile_times()
    if not args.compile_only:
        throughput(args.rounds, args.threads)


if __name__ == "__main__":
    main()
