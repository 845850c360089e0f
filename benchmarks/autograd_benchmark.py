"""Autograd against PyTorch 1.13's, interleaved round by round.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/autograd_benchmark.py

1. The cost of recording: `x * y` on 1-element float32 tensors from Python,
   with inputs that require grad and without, ns per call (min / median of
   --repeats rounds of --number calls); the difference is what autograd
   adds per recorded op.
2. An MLP training step (linear, relu, linear, log_softmax cross-entropy
   against one-hot targets, backward, SGD), ms per step, at one thread for
   both (--threads to change).
"""

import argparse
import statistics
import time

import numpy as np
import opal
import torch


def per_call_ns(fn, number):
    start = time.perf_counter_ns()
    for _ in range(number):
        fn()
    return (time.perf_counter_ns() - start) / number


def call_costs(repeats, number):
    rows = {}
    for name, module in (("opal", opal), ("torch", torch)):
        a, b = module.ones(1), module.ones(1)
        ga, gb = module.ones(1, requires_grad=True), module.ones(1, requires_grad=True)
        rows[f"{name}: x * y, no grad"] = lambda a=a, b=b: a * b
        rows[f"{name}: x * y, recorded"] = lambda a=ga, b=gb: a * b
    samples = {key: [] for key in rows}
    for fn in rows.values():
        per_call_ns(fn, number)
    for _ in range(repeats):
        for key, fn in rows.items():
            samples[key].append(per_call_ns(fn, number))
    print(f"{'call':32s} {'min ns':>8s} {'median ns':>10s}")
    for key, values in samples.items():
        print(f"{key:32s} {min(values):8.0f} {statistics.median(values):10.0f}")
    for name in ("opal", "torch"):
        plain = samples[f"{name}: x * y, no grad"]
        recorded = samples[f"{name}: x * y, recorded"]
        print(f"{name}: recording adds {min(recorded) - min(plain):.0f} ns (min), "
              f"{statistics.median(recorded) - statistics.median(plain):.0f} ns (median)")


def mlp_step(module, batch, sizes, seed=0):
    rng = np.random.default_rng(seed)
    x = module.tensor(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    target = module.tensor(np.eye(sizes[-1], dtype=np.float32)[
        rng.integers(0, sizes[-1], batch)])
    params = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        params.append(module.tensor((rng.standard_normal((fan_out, fan_in)) /
                                     np.sqrt(fan_in)).astype(np.float32), requires_grad=True))
        params.append(module.zeros(fan_out, requires_grad=True))
    linear = torch.nn.functional.linear if module is torch else opal.linear

    def step():
        h = x
        for i in range(0, len(params), 2):
            h = linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = h.relu()
        loss = -(h.log_softmax(1) * target).sum(1).mean()
        loss.backward()
        with module.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss
    return step


def training(rounds, batch, sizes):
    ours, theirs = mlp_step(opal, batch, sizes), mlp_step(torch, batch, sizes)
    for _ in range(3):
        ours(), theirs()
    mine, reference = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        ours()
        mine.append((time.perf_counter() - start) * 1e3)
        start = time.perf_counter()
        theirs()
        reference.append((time.perf_counter() - start) * 1e3)
    med, their_med = statistics.median(mine), statistics.median(reference)
    print(f"MLP {sizes} batch {batch}: opal {min(mine):.3f} / {med:.3f} ms, PyTorch "
          f"{min(reference):.3f} / {their_med:.3f} ms (min / median); PyTorch/opal "
          f"{their_med / med:.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    opal.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    call_costs(args.repeats, args.number)
    for batch, sizes in ((64, [128, 256, 10]), (256, [784, 512, 512, 10])):
        training(args.rounds, batch, sizes)


if __name__ == "__main__":
    main()
