#!/usr/bin/env python3
"""Loops with much work per element: exp, gelu and softmax on one thread,
opal and PyTorch interleaved round by round (min over the rounds).

The A/B of docs/jit.md's `HintLoops` paragraph (masked vs unmasked
busy loops): run it with each build in turn, e.g.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/busy_loop_benchmark.py [ROUNDS]

Softmax over rows of 4096, 1000 and 100 (a scalar remainder of 0, 8 and 4
per row when a loop steps one vector of 16), exp and gelu on 1M floats and
on 1000 (those averaged over 50 calls a round).
"""
import sys, time, numpy as np, opal, torch
A = opal.ops.aten
rng = np.random.default_rng(0)
torch.set_num_threads(1); opal.set_num_threads(1)
cases = []
for shape in [(4096, 4096), (16384, 1000), (65536, 100)]:
    x = rng.standard_normal(shape).astype(np.float32); ox, tx = opal.tensor(x), torch.from_numpy(x)
    cases.append(("softmax %s" % (shape,), (lambda ox: lambda: A.softmax.int(ox, -1))(ox), (lambda tx: lambda: torch.softmax(tx, -1))(tx)))
for n in [1 << 20, 1000]:
    y = rng.standard_normal(n).astype(np.float32); oy, ty = opal.tensor(y), torch.from_numpy(y)
    cases.append(("exp %d" % n, (lambda oy: lambda: A.exp(oy))(oy), (lambda ty: lambda: torch.exp(ty))(ty)))
    cases.append(("gelu %d" % n, (lambda oy: lambda: A.gelu(oy))(oy), (lambda ty: lambda: torch.nn.functional.gelu(ty))(ty)))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 15
for name, o, t in cases:
    o(); t()
    to, tt = [], []
    reps = 1 if "softmax" in name or "1048576" in name else 50
    for i in range(n):
        a = time.perf_counter()
        for _ in range(reps): o()
        b = time.perf_counter()
        for _ in range(reps): t()
        c = time.perf_counter()
        to.append((b - a)/reps); tt.append((c - b)/reps)
    print("%-22s opal %8.1f us  torch %8.1f  ratio %.2f" % (name, min(to)*1e6, min(tt)*1e6, min(tt)/min(to)))
