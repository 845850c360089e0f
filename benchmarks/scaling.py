"""Thread scaling: opal's compiled CPU kernels against PyTorch at 1, 2, 4, ... threads.

At each thread count, opal (opal.set_num_threads) and PyTorch
(torch.set_num_threads) run at that count, interleaved round by round in
one process: a copy (clone: the machine's memory speed), add (opal with a
fresh output, PyTorch with a fresh output and with out=), gelu, softmax
over rows, a full sum, mm of 2048x2048 float32 matrices and a ResNet 3x3
convolution. Counts above the cores this process may use are skipped.
Prints min and median milliseconds, PyTorch's median over opal's, opal's
speedup over its own one-thread median, and for the memory-bound rows
opal's bytes moved per second as a share of the copy's at the same count.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/scaling.py [--threads 1,2,4,8,16] [--rounds N]
        [--only NAME]   (only the rows whose name contains NAME; "of copy" needs the copy row)
        [--opal-only]   (opal alone: PyTorch's columns then time an empty call)
"""

import argparse
import os
import statistics

import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten
T = torch.ops.aten
N = 1 << 24  # elements of the memory-bound rows (64 MiB of float32)


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    rows = x.reshape(4096, 4096)
    m = rng.standard_normal((2048, 2048)).astype(np.float32)
    img = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    ox, oy, orows, om = (opal.tensor(v) for v in (x, y, rows, m))
    tx, ty, trows, tm = (torch.from_numpy(v) for v in (x, y, rows, m))
    oimg, ow, timg, tw = opal.tensor(img), opal.tensor(w), torch.from_numpy(img), torch.from_numpy(w)
    out = torch.empty_like(tx)
    conv = ([1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    # name, opal call, PyTorch call, bytes moved (None: not memory-bound)
    return [
        ("copy 64 MiB", lambda: A.clone(ox), lambda: tx.clone(), 8 * N),
        ("add 16M", lambda: A.add.Tensor(ox, oy), lambda: tx + ty, 12 * N),
        ("add 16M (PyTorch out=)", lambda: A.add.Tensor(ox, oy),
         lambda: torch.add(tx, ty, out=out), 12 * N),
        ("gelu 16M", lambda: A.gelu(ox), lambda: torch.nn.functional.gelu(tx), 8 * N),
        ("softmax 4096x4096", lambda: A.softmax.int(orows, -1),
         lambda: torch.softmax(trows, -1), 8 * N),
        ("sum 16M", lambda: A.sum.default(ox), lambda: tx.sum(), 4 * N),
        ("mm 2048^2", lambda: A.mm(om, om), lambda: tm @ tm, None),
        ("conv 3x3 64ch 56x56", lambda: A.convolution(oimg, ow, None, *conv),
         lambda: T.convolution(timg, tw, None, *conv), None),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2,4,8,16")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--opal-only", action="store_true",
                        help="time opal alone (PyTorch's OpenMP workers, spinning after "
                             "its calls, take cores opal's threads need on a small machine)")
    parser.add_argument("--only", default="",
                        help="run only the rows whose name contains this text")
    args = parser.parse_args()
    print(interleaved.blas())  # (refuses the reference BLAS)
    cores = len(os.sched_getaffinity(0))
    counts = [int(c) for c in args.threads.split(",") if int(c) <= cores]
    table = [case for case in cases() if args.only in case[0]]
    if not table:
        parser.error(f"no row's name contains '{args.only}'")
    print(f"{cores} cores; opal {opal.__version__}, PyTorch {torch.__version__}")
    print(f"{'op':26s} {'threads':>7s} {'opal min/med ms':>18s} {'PyTorch min/med ms':>20s} "
          f"{'PyTorch/opal':>12s} {'opal speedup':>12s} {'of copy':>8s}")
    single = {}
    for count in counts:
        interleaved.set_threads(count)
        results = interleaved.run(
            [(name, ours, (lambda: None) if args.opal_only else theirs)
             for name, ours, theirs, _ in table], args.rounds)
        copy_rate = None
        for (name, mine, reference), (_, _, _, moved) in zip(results, table):
            med, their = statistics.median(mine), statistics.median(reference)
            single.setdefault(name, med)
            rate = moved / med if moved else None
            if copy_rate is None and name.startswith("copy"):
                copy_rate = rate
            share = f"{rate / copy_rate:7.0%}" if rate and copy_rate else ""
            print(f"{name:26s} {count:7d} {min(mine):8.2f} / {med:7.2f} {min(reference):9.2f} / "
                  f"{their:7.2f} {their / med:11.2f}x {single[name] / med:11.2f}x {share:>8s}")


if __name__ == "__main__":
    main()
