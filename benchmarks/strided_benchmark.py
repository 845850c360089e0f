"""Non-contiguous inputs against PyTorch: a transposed 2048x2048 float32
matrix made contiguous, copied into an existing tensor, and fed to gelu (the
JIT copies a non-contiguous input before the kernel reads it). opal and
PyTorch 1.13 at the same thread count, interleaved round by round in one
process, sharing the input memory; min and median of the rounds, in ms.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/strided_benchmark.py [--threads N]
"""

import argparse
import statistics
import time

import numpy as np
import torch

import opal


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    opal.set_num_threads(args.threads)
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
    o, t = opal.from_numpy(a).t(), torch.from_numpy(a).t()
    out_o, out_t = opal.empty([2048, 2048]), torch.empty(2048, 2048)
    cases = {
        ".contiguous()": (lambda: o.contiguous(), lambda: t.contiguous()),
        "copy_ into a contiguous tensor": (lambda: out_o.copy_(o), lambda: out_t.copy_(t)),
        "gelu": (lambda: opal.ops.aten.gelu(o), lambda: torch.nn.functional.gelu(t)),
        "add (transposed + contiguous)": (lambda: opal.ops.aten.add(o, out_o),
                                          lambda: torch.add(t, out_t)),
    }
    np.testing.assert_allclose(o.contiguous().numpy(), t.contiguous().numpy())
    times = {name: ([], []) for name in cases}
    for fns in cases.values():
        fns[0](), fns[1]()  # compile, warm up
    for _ in range(args.rounds):
        for name, fns in cases.items():
            for side, fn in enumerate(fns):
                start = time.perf_counter()
                fn()
                times[name][side].append((time.perf_counter() - start) * 1e3)
    print(f"transposed 2048x2048 float32, {args.threads} thread(s), {args.rounds} rounds: "
          "min / median ms")
    print(f"{'case':32} {'opal':>14} {'PyTorch':>14} {'PyTorch/opal':>13}")
    for name, (mine, theirs) in times.items():
        ratio = statistics.median(theirs) / statistics.median(mine)
        print(f"{name:32} {min(mine):6.2f} / {statistics.median(mine):5.2f} "
              f"{min(theirs):6.2f} / {statistics.median(theirs):5.2f} {ratio:12.2f}x")


if __name__ == "__main__":
    main()
