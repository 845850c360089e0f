"""Random ops: opal's compiled Philox kernels against PyTorch 1.13.

rand, randn and bernoulli at 16M float32 elements, dropout (native_dropout:
output and mask) on a 4096 x 4096 input, randperm of 1M; opal and PyTorch
interleaved round by round in one process, both on one thread
(torch.set_num_threads(1); random kernels always run whole on the caller's
thread). The numbers differ (PyTorch's CPU generator is a Mersenne
Twister), the work does not. "copy" is a clone of 16M floats, the speed
of memory. Reports min and median milliseconds and the ratios of the
medians.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/random_benchmark.py [--rounds N]
"""


import numpy as np
import torch

import opal

import interleaved

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


def main():
    interleaved.main(__doc__, cases, width=22)


if __name__ == "__main__":
    main()
