"""Random ops: opal's compiled Philox kernels against PyTorch 1.13.

rand, randn and bernoulli at 16M float32 elements, dropout (native_dropout:
output and mask) on a 4096 x 4096 input, randperm of 1M; opal and PyTorch
interleaved round by round in one process, both on one thread
(torch.set_num_threads(1); random kernels always run whole on the caller's
thread). The numbers differ (PyTorch's CPU generator is a Mersenne
Twister), the work does not. "copy" is a clone of 16M floats, the speed
of memory. Reports min and median milliseconds and the ratios of the
medians.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/random_benchmark.py [--rounds N]
"""

import argparse
import statistics
import time

import numpy as np
import torch

import opal

A = opal.ops.aten
T = torch.ops.aten


def cases():
    x = np.random.default_rng(0).standard_normal((4096, 4096)).astype(np.float32)
    ox, tx = opal.tensor(x), torch.from_numpy(x.copy())
    size = [4096, 4096]
    return [
        ("copy (clone) 16M", lambda: ox.clone(), lambda: tx.clone()),
        ("rand 16M", lambda: A.rand(size), lambda: T.rand(size)),
        ("randn 16M", lambda: A.randn(size), lambda: T.randn(size)),
        ("bernoulli.p 16M", lambda: A.bernoulli.p(ox, 0.3), lambda: T.bernoulli.p(tx, 0.3)),
        ("native_dropout 16M", lambda: A.native_dropout(ox, 0.3, True),
         lambda: T.native_dropout(tx, 0.3, True)),
        ("randperm 1M", lambda: A.randperm(1 << 20), lambda: T.randperm(1 << 20)),
    ]


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(1)
    results = []
    for name, ours, theirs in cases():
        ours(), theirs(), ours(), theirs()  # compile, warm caches
        mine, pytorch = [], []
        for _ in range(args.rounds):
            mine.append(timed(ours))
            pytorch.append(timed(theirs))
        results.append((name, mine, pytorch))
    copy = statistics.median(results[0][1])
    print(f"{'op':22s} {'opal min/med ms':>18s} {'PyTorch min/med ms':>20s} "
          f"{'PyTorch/opal':>12s} {'copy/opal':>10s}")
    for name, mine, pytorch in results:
        med, their_med = statistics.median(mine), statistics.median(pytorch)
        print(f"{name:22s} {min(mine):8.2f} / {med:7.2f} {min(pytorch):9.2f} / {their_med:7.2f} "
              f"{their_med / med:11.2f}x {copy / med:9.0%}")


if __name__ == "__main__":
    main()
