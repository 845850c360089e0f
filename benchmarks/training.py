"""A full training step (zero_grad, forward, loss, backward, optimizer step)
compiled by opal (torch.compile(model, backend="opal"), the optimizer's step
compiled the same way) against PyTorch eager and against torch.compile's
default backend (Inductor, model and step compiled), on the same weights and
batches, at equal threads, rounds interleaved in one process; min / median
ms per step and eager's median over each backend's.

Models (random weights, nothing downloaded): resnet18 (torchvision, 10
classes, batch 8 of 64x64 images), a 2-layer GPT-2 (transformers, width 128,
batch 8 of 64 tokens, vocabulary 1000) and a one-layer LSTM classifier (32
steps of 32 features, 128 hidden, batch 16). SGD with momentum 0.9.

With --parts, each step's forward (with the loss), backward and optimizer
step are timed apart, and the medians of each part follow the table. With
--kernels, each graph opal compiled is timed as the timed rounds call it
(its inputs' and results' crossings included) and then alone, its kernel
called 50 times on the last call's inputs: medians in microseconds.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/training.py \\
        [--model resnet18|gpt2|lstm] [--threads 1] [--rounds 10] [--no-inductor] [--parts]
        [--kernels]
"""

import argparse
import copy
import os
import statistics
import sys
import time

import torch

import opal
import opal.torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import blas  # noqa: E402


def resnet18():
    import torchvision
    model = torchvision.models.resnet18(num_classes=10)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(8, 3, 64, 64, generator=g), torch.randint(0, 10, (8,), generator=g)
    return model, x, lambda out: torch.nn.functional.cross_entropy(out, y)


class _Logits(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tokens):
        return self.model(tokens).logits


def gpt2():
    import transformers
    transformers.logging.set_verbosity_error()
    config = transformers.GPT2Config(n_layer=2, n_head=4, n_embd=128, vocab_size=1000,
                                     n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0,
                                     attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    model = _Logits(transformers.GPT2LMHeadModel(config))
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, 1000, (8, 65), generator=g)
    x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].reshape(-1)
    return model, x, lambda out: torch.nn.functional.cross_entropy(out.reshape(-1, 1000), y)


class _Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(32, 128, batch_first=True)
        self.head = torch.nn.Linear(128, 10)

    def forward(self, x):
        return self.head(self.lstm(x)[0][:, -1])


def lstm():
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(16, 32, 32, generator=g), torch.randint(0, 10, (16,), generator=g)
    return _Lstm(), x, lambda out: torch.nn.functional.cross_entropy(out, y)


MODELS = {"resnet18": resnet18, "gpt2": gpt2, "lstm": lstm}


def trainer(model, backend):
    """A step function of `model` (a copy) trained by SGD, compiled by
    `backend` (None: eager), and the copy."""
    model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    forward, step = model, optimizer.step
    if backend is not None:
        forward = torch.compile(model, backend=backend)
        step = torch.compile(optimizer.step, backend=backend)
    return forward, optimizer, step


class PieceTimes:
    """Times each of opal's compiled graphs (opal.torch's pieces) per call,
    keeping the last call's inputs to time its kernel alone."""

    def __init__(self):
        self.calls, self.last, self.recording = {}, {}, False
        original = opal.torch._OpalPiece.forward
        times = self

        def timed(piece, *given):
            start = time.perf_counter()
            result = original(piece, *given)
            if times.recording:
                times.calls.setdefault(piece, []).append(time.perf_counter() - start)
                times.last[piece] = given
            return result
        opal.torch._OpalPiece.forward = timed

    def report(self, label):
        for index, (piece, calls) in enumerate(self.calls.items()):
            given = self.last[piece]
            inputs = given if piece.passed is None else tuple(
                value for value, keep in zip(given, piece.passed) if keep)
            args = [opal.torch._to_opal(t) for t in inputs + piece.constants]
            alone = []
            for _ in range(50):
                start = time.perf_counter()
                piece.op(*args)
                alone.append(time.perf_counter() - start)
            print(f"  {label} graph {index} ({len(args)} inputs): in the rounds "
                  f"{statistics.median(calls) * 1e6:.0f} us, its kernel alone "
                  f"{statistics.median(alone) * 1e6:.0f} us")
        self.calls.clear()
        self.last.clear()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), action="append",
                        help="the models to time (default: all)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--parts", action="store_true",
                        help="also time forward, backward and the optimizer step apart")
    parser.add_argument("--kernels", action="store_true",
                        help="also time opal's compiled graphs in the rounds and alone")
    parser.add_argument("--no-inductor", action="store_true",
                        help="leave out torch.compile's default backend (its compile takes "
                             "tens of seconds per model)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    opal.set_num_threads(args.threads)
    torch._dynamo.config.allow_rnn = True  # the LSTM's graph, for both backends
    torch._dynamo.config.cache_size_limit = 64
    pieces = PieceTimes() if args.kernels else None
    backends = {"eager": None, "opal": opal.torch.backend}
    if not args.no_inductor:
        backends["inductor"] = "inductor"
    print(f"{blas()}, {args.threads} thread(s), "
          f"{args.rounds} rounds; ms per training step, min / median")
    print(f"{'model':10s} " + " ".join(f"{name + ' ms':>17s}" for name in backends) + "  " +
          " ".join(f"{'eager/' + name:>14s}" for name in backends if name != "eager"))
    for name in args.model or sorted(MODELS):
        torch.manual_seed(0)
        model, x, loss_of = MODELS[name]()
        runs = {backend: trainer(model, compiler) for backend, compiler in backends.items()}

        parts = {backend: {"forward": [], "backward": [], "step": []} for backend in backends}

        def step(backend):
            forward, optimizer, optimizer_step = runs[backend]
            optimizer.zero_grad()
            start = time.perf_counter()
            loss = loss_of(forward(x))
            after_forward = time.perf_counter()
            loss.backward()
            after_backward = time.perf_counter()
            optimizer_step()
            end = time.perf_counter()
            for part, ms in (("forward", after_forward - start),
                             ("backward", after_backward - after_forward),
                             ("step", end - after_backward)):
                parts[backend][part].append(ms * 1e3)
            return loss.item()

        first, failed = {}, {}
        for backend in backends:  # compile, then settle
            try:
                first[backend] = step(backend)
                step(backend)
            except Exception as error:  # (reported in the table's place)
                failed[backend] = f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"
        if "eager" in failed:
            raise SystemExit(f"{name}: eager fails: {failed['eager']}")
        for backend in first:
            if abs(first[backend] - first["eager"]) > 1e-4 * abs(first["eager"]):
                raise SystemExit(f"{name}: the first loss under {backend} is {first[backend]}, "
                                 f"eager's {first['eager']}")
        times = {backend: [] for backend in first}
        for backend in parts:  # (only the timed rounds)
            parts[backend] = {part: [] for part in parts[backend]}
        if pieces:
            pieces.recording = True
        for _ in range(args.rounds):
            for backend in times:
                start = time.perf_counter()
                step(backend)
                times[backend].append((time.perf_counter() - start) * 1e3)
        medians = {b: statistics.median(t) for b, t in times.items()}
        cells = [f"{min(times[b]):8.1f} / {medians[b]:6.1f}" if b in times else f"{'failed':>17s}"
                 for b in backends]
        ratios = [f"{medians['eager'] / medians[b]:13.2f}x" if b in times else f"{'-':>14s}"
                  for b in backends if b != "eager"]
        print(f"{name:10s} " + " ".join(cells) + "  " + " ".join(ratios), flush=True)
        for backend, why in failed.items():
            print(f"  {name} under {backend} failed: {why}")
        if args.parts:
            for backend in times:
                print(f"  {backend:9s} " + ", ".join(
                    f"{part} {statistics.median(values):.1f}"
                    for part, values in parts[backend].items()) + " ms (medians)")
        if pieces:
            pieces.recording = False
            pieces.report(name)


if __name__ == "__main__":
    main()
