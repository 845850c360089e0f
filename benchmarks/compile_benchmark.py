"""First compile of the matrix products, and of the ResNet convolution.

Each round is a fresh process with an empty kernel cache (OPAL_CACHE_DIR)
that first compiles `exp` (so that no product pays the process's first
compile), then times the first call of each product on small operands (the
kernels are compiled for dynamic sizes, so the call itself is microseconds
of the milliseconds measured). Prints min and median ms over the rounds.
There is no PyTorch reference: PyTorch does not compile.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/compile_benchmark.py [--rounds N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROUND = r"""
import json, time
import numpy as np
import opal
A = opal.ops.aten
t = lambda *s: opal.tensor(np.ones(s, np.float32))
A.exp.default(t(4))
cases = [
    ("mm", lambda: A.mm.default(t(8, 8), t(8, 8))),
    ("linear without bias", lambda: A.linear.default(t(8, 8), t(8, 8))),
    ("linear with bias", lambda: A.linear.default(t(8, 8), t(8, 8), t(8))),
    ("addmm", lambda: A.addmm.default(t(8), t(8, 8), t(8, 8))),
    ("conv2d 3x3 (shifted products)", lambda: A.convolution.default(
        t(1, 16, 8, 8), t(16, 16, 3, 3), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)),
]
out = {}
for name, call in cases:
    start = time.perf_counter()
    call()
    out[name] = (time.perf_counter() - start) * 1e3
print(json.dumps(out))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    times = {}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, OPAL_CACHE_DIR=cache)
            done = subprocess.run([sys.executable, "-c", ROUND], env=env, check=True,
                                  capture_output=True, text=True)
        for name, ms in json.loads(done.stdout).items():
            times.setdefault(name, []).append(ms)
    print(f"first compile, {args.rounds} fresh processes:")
    print(f"{'kernel':32s} {'min ms':>8s} {'median ms':>10s}")
    for name, values in times.items():
        print(f"{name:32s} {min(values):8.1f} {statistics.median(values):10.1f}")


if __name__ == "__main__":
    main()
