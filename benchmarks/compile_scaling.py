"""Compile time of a decomposition against its number of ops.

Each round is a fresh process without the disk cache (OPAL_CACHE_DISABLE=1)
that registers a Python decomposition of N aten ops (a chain alternating
x * 1.0001 + 0.5 and (x - 0.25).abs(): two ops per step) and times its
first call on 8 floats, whose time is the compile. Prints, per N, the min and
median ms over the rounds, the ms per op, and the compiler's own split
(decompose, MLIR passes, LLVM; OPAL_LOG=jit) of the fastest round. Compile
time should grow linearly with N: the ms per op should stay flat. There is
no PyTorch reference: PyTorch does not compile.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/compile_scaling.py \\
        [--ops 1000 2000 4000 10000] [--rounds 3]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROUND = r"""
import json, sys, time
import opal
steps = int(sys.argv[1]) // 2
opal.library.define("scaling::chain", "(Tensor x) -> Tensor")
def chain(x):
    for i in range(steps):
        x = x * 1.0001 + 0.5 if i % 2 else (x - 0.25).abs()
    return x
opal.library.register_decomposition("scaling::chain")(chain)
x = opal.ones(8)
start = time.perf_counter()
opal.ops.scaling.chain(x)
print(json.dumps((time.perf_counter() - start) * 1e3))
"""

SPLIT = re.compile(r"\(decompose ([\d.]+), MLIR passes ([\d.]+), LLVM ([\d.]+)")


def one_round(ops):
    env = dict(os.environ, OPAL_CACHE_DISABLE="1", OPAL_LOG="jit")
    done = subprocess.run([sys.executable, "-c", ROUND, str(ops)], capture_output=True,
                          text=True, env=env, timeout=3600)
    if done.returncode != 0:
        sys.exit(f"round with {ops} ops failed:\n{done.stderr[-2000:]}")
    split = [m for m in SPLIT.finditer(done.stderr)][-1].groups()
    return json.loads(done.stdout.strip().splitlines()[-1]), [float(v) for v in split]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[1000, 2000, 4000, 10000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'ops':>6} {'min ms':>9} {'median ms':>10} {'ms/op':>7}   "
          f"fastest round: decompose / MLIR passes / LLVM ms")
    for ops in args.ops:
        rounds = [one_round(ops) for _ in range(args.rounds)]
        times = [t for t, _ in rounds]
        best = min(rounds, key=lambda r: r[0])
        print(f"{ops:>6} {min(times):>9.0f} {statistics.median(times):>10.0f} "
              f"{min(times) / ops:>7.3f}   " + " / ".join(f"{v:.0f}" for v in best[1]),
              flush=True)


if __name__ == "__main__":
    main()
