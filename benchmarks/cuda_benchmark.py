#!/usr/bin/env python3
"""The CUDA JIT on a GPU: bandwidth, launch overhead and compile time.

Not a test: run it on a machine with a GPU and read the tables
(docs/performance.md records them with the device named).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/cuda_benchmark.py

1. Elementwise add, exp, softplus and gelu at 16M to 256M float32 elements,
   a sum over the last dim and a last-dim softmax, each as a fraction of the
   device-to-device copy bandwidth measured in the same run (bytes read and
   written by the op over the time of one call, against a clone's), and
   where PyTorch with CUDA is installed, PyTorch's time for the same op on
   the same memory, alternating with opal's call by call.
2. The Python launch overhead of a cached kernel: calls per second of exp
   on 16 elements, the stream synchronized once at the end.
3. Cold compile time per kernel (in a fresh process, no disk cache).

--launch-only runs part 2 alone: with OPAL_LIBCUDA naming the test suite's
fake driver (python/test/inputs/fake_cuda.c), it measures opal's own side of
a launch (argument parsing, dispatch, the cache lookup, output allocation,
the host code) without a GPU.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

import opal

A = opal.ops.aten


def timed(call, repeat=10, synchronize=None):
    """Best seconds of one call, the device synchronized around each."""
    synchronize = synchronize or opal.cuda.synchronize
    call()
    synchronize()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        synchronize()
        best = min(best, time.perf_counter() - start)
    return best


def timed_pair(ours, theirs, torch, repeat=10):
    """Best seconds of `ours` and of `theirs` (None: not timed), the two
    alternating call by call, each synchronized around its call."""
    if theirs is None:
        return timed(ours, repeat), None
    best = [float("inf"), float("inf")]
    sync = [opal.cuda.synchronize, torch.cuda.synchronize]
    calls = [ours, theirs]
    for side in (0, 1):
        calls[side]()
        sync[side]()
    for _ in range(repeat):
        for side in (0, 1):
            start = time.perf_counter()
            calls[side]()
            sync[side]()
            best[side] = min(best[side], time.perf_counter() - start)
    return best[0], best[1]


def cuda_torch():
    """PyTorch with CUDA where it is installed (the reference column), else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def bandwidth_table(sizes):
    torch = cuda_torch()
    header = f"{'elements':>10} {'op':<24} {'ms':>8} {'GB/s':>8} {'of copy':>8}"
    print(header + (f" {'PyTorch ms':>10} {'PyTorch/opal':>12}" if torch is not None else ""),
          flush=True)

    def row(n, name, seconds, fraction, bandwidth, theirs):
        # Printed as measured: a run cut short still shows what it timed.
        line = f"{n:>10} {name:<24} {seconds * 1e3:>8.3f} {bandwidth / 1e9:>8.1f} {fraction:>8.0%}"
        if theirs is not None:
            line += f" {theirs * 1e3:>10.3f} {theirs / seconds:>11.2f}x"
        print(line, flush=True)

    for n in sizes:
        x = opal.tensor(np.random.default_rng(0).standard_normal(n, dtype=np.float32),
                        device="cuda")
        y = opal.tensor(np.ones(n, dtype=np.float32), device="cuda")
        rows_2d = x.reshape([n // 1024, 1024])
        ops = [("add", lambda: A.add.Tensor(x, y), 3), ("exp", lambda: A.exp(x), 2),
               ("softplus", lambda: A.softplus(x), 2), ("gelu", lambda: A.gelu(x), 2),
               ("sum (rows of 1024)", lambda: A.sum.dim_IntList(rows_2d, [1]), 1),
               ("softmax (rows of 1024)", lambda: A.softmax.int(rows_2d, -1), 2)]
        reference = {}
        if torch is not None:
            # The same memory as PyTorch tensors (DLPack, no copy): each op
            # timed with opal and PyTorch alternating call by call.
            tx, ty = torch.from_dlpack(x), torch.from_dlpack(y)
            trows = tx.view(n // 1024, 1024)
            F = torch.nn.functional
            reference = {"copy": lambda: tx.clone(), "add": lambda: tx + ty,
                         "exp": lambda: torch.exp(tx), "softplus": lambda: F.softplus(tx),
                         "gelu": lambda: F.gelu(tx), "sum (rows of 1024)": lambda: trows.sum(1),
                         "softmax (rows of 1024)": lambda: torch.softmax(trows, -1)}
        copy, theirs = timed_pair(lambda: x.clone(), reference.get("copy"), torch)
        copy_bw = 2 * 4 * n / copy
        row(n, "copy", copy, 1.0, copy_bw, theirs)
        for name, call, passes in ops:
            seconds, theirs = timed_pair(call, reference.get(name), torch)
            bw = passes * 4 * n / seconds
            row(n, name, seconds, bw / copy_bw, bw, theirs)
    if torch is not None:
        print(f"(PyTorch {torch.__version__} on the same memory)")


def launch_overhead(calls=100000):
    """Per-call time of a cached exp on 16 elements, best of 5 rounds of
    `calls` calls with one synchronize each; PyTorch's (where it has CUDA)
    on the same memory, its rounds alternating with opal's."""
    x = opal.tensor(np.ones(16, dtype=np.float32), device="cuda")
    sides = [("opal", A.exp.default, x, opal.cuda.synchronize)]
    torch = cuda_torch()
    if torch is not None:
        sides.append((f"PyTorch {torch.__version__}", torch.exp, torch.from_dlpack(x),
                      torch.cuda.synchronize))
    best = {}
    for name, function, argument, synchronize in sides:
        function(argument)
        synchronize()
        best[name] = float("inf")
    for _ in range(5):
        for name, function, argument, synchronize in sides:
            start = time.perf_counter()
            for _ in range(calls):
                function(argument)
            synchronize()
            best[name] = min(best[name], (time.perf_counter() - start) / calls)
    print(f"cached launch of exp on 16 elements from Python: {best['opal'] * 1e6:.2f} us per call "
          f"(device: {opal.cuda.get_device_name()})")
    for name, microseconds in list(best.items())[1:]:
        print(f"the same with {name}: {microseconds * 1e6:.2f} us per call")


COMPILE_SCRIPT = textwrap.dedent("""
    import json, time
    import numpy as np
    import opal
    A = opal.ops.aten
    x = opal.tensor(np.ones((4, 8), dtype=np.float32), device="cuda")
    calls = [("add", lambda: A.add.Tensor(x, x)), ("exp", lambda: A.exp(x)),
             ("softplus", lambda: A.softplus(x)), ("gelu", lambda: A.gelu(x)),
             ("softmax", lambda: A.softmax.int(x, -1)), ("sum", lambda: A.sum.dim_IntList(x, [1]))]
    times = []
    for name, call in calls:
        start = time.perf_counter()
        call()
        opal.cuda.synchronize()
        times.append((name, (time.perf_counter() - start) * 1e3))
    print(json.dumps(times))
""")


def compile_times():
    env = dict(os.environ, OPAL_CACHE_DISABLE="1")
    out = subprocess.run([sys.executable, "-c", COMPILE_SCRIPT], env=env, check=True,
                         capture_output=True, text=True).stdout
    print("cold compile, fresh process, no disk cache (the first includes loading LLVM):")
    for name, ms in json.loads(out):
        print(f"  {name:<10} {ms:8.1f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launch-only", action="store_true")
    parser.add_argument("--sizes", default="16777216,67108864,268435456")
    parser.add_argument("--watchdog", type=float, default=0,
                        help="after this many seconds, print where every thread is (a hang)")
    args = parser.parse_args()
    if args.watchdog:
        import faulthandler
        faulthandler.dump_traceback_later(args.watchdog, exit=True)
    if not opal.cuda.is_available():
        sys.exit(f"no CUDA device: {opal.cuda.unavailable_reason()}")
    if not args.launch_only:
        bandwidth_table([int(n) for n in args.sizes.split(",")])
        compile_times()
    launch_overhead()


if __name__ == "__main__":
    main()
