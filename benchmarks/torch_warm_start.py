"""The first call of a compiled model in a new process whose kernels are on
disk (a warm start): torch.compile(model, backend="opal") against
torch.compile's default backend (Inductor, its FX graph and AOTAutograd
caches filled by a first process), each first call in a fresh process,
rounds interleaved, min / median.

"whole" is the model's first call (Dynamo's and AOTAutograd's tracing, the
backend, the first run). "opal's part" is what opal's backend spends from
the captured graph to the first result: its decomposition table, turning
AOTAutograd's graph into what runs it, and the first run (kernels loaded
from disk). A full collection of Python's garbage (PyTorch's heap of
objects) that falls inside opal's part is reported apart ("gc").

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/torch_warm_start.py \\
        [--model resnet18|gpt2|<torchvision model>] [--rounds 5] [--threads 2]
"""

import argparse
import json
import os

import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import gc, json, sys, time
import torch, torchvision
model, backend, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.set_num_threads(threads)
torch.manual_seed(0)
if model == "gpt2":  # a small GPT-2 from its config (random weights), 16 tokens
    import transformers
    config = transformers.GPT2Config(n_layer=2, n_head=4, n_embd=64, vocab_size=1000,
                                     n_positions=64)
    gpt = transformers.GPT2LMHeadModel(config).eval()
    m = lambda tokens: gpt(tokens).logits
    x = torch.randint(0, 1000, (1, 16))
else:
    m = getattr(torchvision.models, model)().eval()
    x = torch.randn(1, 3, 224, 224)
part = {"decompositions": 0.0, "graph": 0.0, "first run": 0.0}
gc_inside, inside, gc_start = [0.0], [False], [0.0]

def on_gc(phase, info):
    if inside[0] and phase == "start":
        gc_start[0] = time.perf_counter()
    elif inside[0] and phase == "stop":
        gc_inside[0] += time.perf_counter() - gc_start[0]

gc.callbacks.append(on_gc)

def timed(name, fn):
    def wrapper(*args):
        inside[0] = True
        start = time.perf_counter()
        try:
            return fn(*args)
        finally:
            part[name] += time.perf_counter() - start
            inside[0] = False
    return wrapper

if backend == "opal":
    import opal, opal.torch as bridge
    bridge._decompositions = timed("decompositions", bridge._decompositions)
    make_runner = bridge._aten_graph_runner

    def runner(graph, inputs):
        run = timed("graph", make_runner)(graph, inputs)
        first = [True]

        def call(*args):
            if not first[0]:
                return run(*args)
            first[0] = False
            return timed("first run", run)(*args)
        return call
    bridge._aten_graph_runner = runner
compiled = torch.compile(m, backend=backend)
start = time.perf_counter()
with torch.no_grad():
    out = compiled(x)
whole = time.perf_counter() - start
with torch.no_grad():
    error = (out - m(x)).abs().max().item()
stats = opal.jit.stats() if backend == "opal" else {}
with open("/proc/self/maps") as maps:
    compiler = "libopal_compiler" in maps.read()
print(json.dumps({"whole": whole, "part": part, "gc": gc_inside[0], "error": error,
                  "compiles": stats.get("compiles"), "disk_hits": stats.get("disk_hits"),
                  "compiler": compiler}))
"""


def child(model, backend, threads, environment):
    done = subprocess.run([sys.executable, "-c", CHILD, model, backend, str(threads)],
                          capture_output=True, text=True, env=environment, timeout=1800)
    if done.returncode != 0:
        sys.exit(f"{backend} on {model} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def describe(values, unit=1.0, suffix="s", digits=2):
    return (f"{min(values) * unit:.{digits}f} / {statistics.median(values) * unit:.{digits}f} "
            f"{suffix}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet18",
                        help="a torchvision classification model, or gpt2 (2 layers)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    from interleaved import blas
    shape = "16 tokens" if args.model == "gpt2" else "batch 1 224²"
    print(f"{blas()}, {args.threads} thread(s), {args.model} {shape}, {args.rounds} rounds")
    with tempfile.TemporaryDirectory() as opal_cache, \
            tempfile.TemporaryDirectory() as inductor_cache:
        environment = dict(os.environ, OPAL_CACHE_DIR=opal_cache,
                           TORCHINDUCTOR_CACHE_DIR=inductor_cache, HF_HUB_OFFLINE="1")
        environment.pop("OPAL_LOG", None)
        cold = {backend: child(args.model, backend, args.threads, environment)
                for backend in ("opal", "inductor")}
        warm = {"opal": [], "inductor": []}
        for _ in range(args.rounds):
            for backend in warm:
                warm[backend].append(child(args.model, backend, args.threads, environment))
    for backend in ("opal", "inductor"):
        print(f"{backend:9s} cold first call {cold[backend]['whole']:.2f} s; warm first call "
              f"(min / median) {describe([r['whole'] for r in warm[backend]])}")
    runs = warm["opal"]
    print("opal's part of the warm first call (min / median): "
          f"{describe([sum(r['part'].values()) for r in runs], 1e3, 'ms', 0)}, without gc "
          f"{describe([sum(r['part'].values()) - r['gc'] for r in runs], 1e3, 'ms', 0)}")
    for name in runs[0]["part"]:
        print(f"  {name:15s} {describe([r['part'][name] for r in runs], 1e3, 'ms', 1)}")
    print(f"  gc inside it    {describe([r['gc'] for r in runs], 1e3, 'ms', 1)}")
    print(f"compiles in the warm processes: {sorted({r['compiles'] for r in runs})}, "
          f"kernels from disk: {sorted({r['disk_hits'] for r in runs})}, compiler loaded: "
          f"{sorted({r['compiler'] for r in runs})}, max |opal - eager| "
          f"{max(r['error'] for r in runs):.1e}")
    ratio = [o["whole"] / i["whole"] for o, i in zip(warm["opal"], warm["inductor"])]
    print(f"opal's warm first call / Inductor's, per round (min / median): "
          f"{describe(ratio, suffix='', digits=2)}")


if __name__ == "__main__":
    main()
