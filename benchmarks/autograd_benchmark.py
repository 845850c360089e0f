"""Autograd against PyTorch's, interleaved round by round.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/autograd_benchmark.py

1. The cost of recording: `x * y` on 1-element float32 tensors from Python,
   with inputs that require grad and without, ns per call (min / median of
   --repeats rounds of --number calls); the difference is what autograd
   adds per recorded op. And aten.select.int of a 4x4 tensor in grad mode
   and under no_grad: what remembering a view's base costs.
2. The backward of a user's fused op, mish and rms_norm defined by traced
   decompositions (one fused forward kernel and one derived, fused backward
   kernel), against PyTorch eager autograd of the same composite: forward
   and backward of a float32 [rows, cols] input, ms (min / median).
3. An MLP training step (linear, relu, linear, log_softmax cross-entropy
   against one-hot targets, backward, SGD), ms per step, at one thread for
   both (--threads to change).
"""

import argparse
import statistics
import time

import numpy as np
import opal
import interleaved  # noqa: E402 (beside this file)
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
    # What a call that does not record pays for the op's Autograd kernel:
    # the same call with the Autograd keys excluded.
    # (The guard is entered once around the timed loop.)
    a, b = opal.ones(1), opal.ones(1)
    rows["opal: x * y, below autograd"] = lambda a=a, b=b: a * b
    # A view op through the dispatcher in grad mode remembers its base (for
    # writes into views): the same call under no_grad does not.
    for name, module in (("opal", opal), ("torch", torch)):
        m = module.ones(4, 4)
        view = module.ops.aten.select.int
        rows[f"{name}: select view, grad mode"] = lambda m=m, view=view: view(m, 0, 1)
        rows[f"{name}: select view, no_grad"] = lambda m=m, view=view: view(m, 0, 1)
    samples = {key: [] for key in rows}
    def timed(key, fn):
        if key.endswith("below autograd"):
            with opal._C._AutoDispatchBelowAutograd():
                return per_call_ns(fn, number)
        if key.endswith("no_grad"):
            with (opal if key.startswith("opal") else torch).no_grad():
                return per_call_ns(fn, number)
        return per_call_ns(fn, number)
    for key, fn in rows.items():
        timed(key, fn)
    for _ in range(repeats):
        for key, fn in rows.items():
            samples[key].append(timed(key, fn))
    print(f"{'call':36s} {'min ns':>8s} {'median ns':>10s}")
    for key, values in samples.items():
        print(f"{key:36s} {min(values):8.0f} {statistics.median(values):10.0f}")
    plain, below = samples["opal: x * y, no grad"], samples["opal: x * y, below autograd"]
    print(f"opal: the Autograd kernel of a call that does not record costs "
          f"{min(plain) - min(below):.0f} ns (min), "
          f"{statistics.median(plain) - statistics.median(below):.0f} ns (median)")
    for name in ("opal", "torch"):
        remembered = samples[f"{name}: select view, grad mode"]
        bare = samples[f"{name}: select view, no_grad"]
        print(f"{name}: a view op in grad mode costs {min(remembered) - min(bare):.0f} ns (min), "
              f"{statistics.median(remembered) - statistics.median(bare):.0f} ns (median) "
              f"more than under no_grad")
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


def fused_ops(rounds, rows, cols):
    lib = opal.library.Library("benchgrad", "DEF")
    lib.define("mish(Tensor x) -> Tensor")
    lib.define("rms_norm(Tensor x, Tensor w) -> Tensor")
    A = opal.ops.aten

    @opal.library.register_decomposition("benchgrad::mish", lib=lib)
    def mish(x):
        return x * A.tanh(A.softplus(x))

    @opal.library.register_decomposition("benchgrad::rms_norm", lib=lib)
    def rms_norm(x, w):
        return x * A.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w

    rng = np.random.default_rng(0)
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    wv = rng.standard_normal(cols).astype(np.float32)
    g = rng.standard_normal((rows, cols)).astype(np.float32)
    F = torch.nn.functional
    cases = [
        ("mish", lambda x, w: opal.ops.benchgrad.mish(x),
         lambda x, w: x * torch.tanh(F.softplus(x))),
        ("rms_norm", lambda x, w: opal.ops.benchgrad.rms_norm(x, w),
         lambda x, w: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w),
    ]
    for name, ours, theirs in cases:
        ox, ow = opal.tensor(a, requires_grad=True), opal.tensor(wv, requires_grad=True)
        tx, tw = torch.tensor(a, requires_grad=True), torch.tensor(wv, requires_grad=True)
        og, tg = opal.tensor(g), torch.tensor(g)

        def run_ours():
            ours(ox, ow).backward(og)
            ox.grad = ow.grad = None

        def run_theirs():
            theirs(tx, tw).backward(tg)
            tx.grad = tw.grad = None
        for _ in range(3):
            run_ours(), run_theirs()
        mine, reference, mine_back, reference_back = [], [], [], []
        for _ in range(rounds):
            start = time.perf_counter()
            run_ours()
            mine.append((time.perf_counter() - start) * 1e3)
            start = time.perf_counter()
            run_theirs()
            reference.append((time.perf_counter() - start) * 1e3)
            # The backward alone, after an untimed forward.
            y = ours(ox, ow)
            start = time.perf_counter()
            y.backward(og)
            mine_back.append((time.perf_counter() - start) * 1e3)
            ox.grad = ow.grad = None
            y = theirs(tx, tw)
            start = time.perf_counter()
            y.backward(tg)
            reference_back.append((time.perf_counter() - start) * 1e3)
            tx.grad = tw.grad = None
        for what, a_, b_ in (("forward + backward", mine, reference),
                             ("backward", mine_back, reference_back)):
            med, their_med = statistics.median(a_), statistics.median(b_)
            print(f"{name} [{rows}, {cols}] {what}: opal {min(a_):.3f} / {med:.3f} ms, "
                  f"PyTorch {min(b_):.3f} / {their_med:.3f} ms (min / median); "
                  f"PyTorch/opal {their_med / med:.2f}x")
    lib._destroy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(interleaved.blas())  # (refuses the reference BLAS)
    opal.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    call_costs(args.repeats, args.number)
    fused_ops(args.rounds, 2048, 1024)
    for batch, sizes in ((64, [128, 256, 10]), (256, [784, 512, 512, 10])):
        training(args.rounds, batch, sizes)


if __name__ == "__main__":
    main()
