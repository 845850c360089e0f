#!/usr/bin/env python3
"""Loops with little work per element: add, mul, relu and a copy from 16M
floats down to 17, and a broadcast add over short rows, on one thread;
opal and PyTorch (with out=, so neither side allocates) interleaved round
by round.

The A/B of docs/jit.md's `HintLoops` paragraph for light loops (how
their remainder is handled): run it with each build in turn, e.g.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/light_loop_benchmark.py --rounds 15

The small sizes are timed over many calls a round and reported per call,
in microseconds (opal's per-call overhead is in every row: compare rows of
the same size across builds).
"""
import argparse

import numpy as np
import torch

import opal
import interleaved

A = opal.ops.aten


def repeated(fn, times):
    if times == 1:
        return fn

    def many():
        for _ in range(times):
            fn()
    return many


def cases():
    """(name, opal call, PyTorch call, calls per round) for each case."""
    rng = np.random.default_rng(0)
    table = []
    for n in [1 << 24, 1 << 20, 4096, 1000, 100, 17]:
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        ox, oy, tx, ty = opal.tensor(x), opal.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
        out = torch.empty_like(tx)
        times = min(max(1, (1 << 18) // n), 200) if n < (1 << 20) else 1
        label = f"{n >> 20}M" if n >= (1 << 20) else str(n)
        table += [
            (f"add {label}", lambda ox=ox, oy=oy: A.add.Tensor(ox, oy),
             lambda tx=tx, ty=ty, out=out: torch.add(tx, ty, out=out), times),
            (f"mul {label}", lambda ox=ox, oy=oy: A.mul.Tensor(ox, oy),
             lambda tx=tx, ty=ty, out=out: torch.mul(tx, ty, out=out), times),
            (f"relu {label}", lambda ox=ox: A.relu(ox),
             lambda tx=tx, out=out: torch.clamp_min(tx, 0, out=out), times),
            (f"copy {label}", lambda ox=ox: A.clone(ox),
             lambda tx=tx, out=out: out.copy_(tx), times),
        ]
    for rows, columns in [(65536, 100), (16384, 1000), (262144, 17)]:
        x = rng.standard_normal((rows, columns)).astype(np.float32)
        b = rng.standard_normal(columns).astype(np.float32)
        ox, ob, tx, tb = opal.tensor(x), opal.tensor(b), torch.from_numpy(x), torch.from_numpy(b)
        out = torch.empty_like(tx)
        table.append((f"add rows of {columns}", lambda ox=ox, ob=ob: A.add.Tensor(ox, ob),
                      lambda tx=tx, tb=tb, out=out: torch.add(tx, tb, out=out), 1))
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", default="", help="run only the cases whose name contains this text")
    args = parser.parse_args()
    print(interleaved.blas())  # (refuses the reference BLAS)
    interleaved.set_threads(1)
    chosen = [case for case in cases() if args.only in case[0]]
    if not chosen:
        parser.error(f"no case's name contains '{args.only}'")
    measured = interleaved.run([(name, repeated(ours, times), repeated(theirs, times))
                                for name, ours, theirs, times in chosen], args.rounds)
    results = [(name, [t / times for t in mine], [t / times for t in reference])
               for (name, mine, reference), (_, _, _, times) in zip(measured, chosen)]
    interleaved.report(results, copy_column=False, unit="us")


if __name__ == "__main__":
    main()
