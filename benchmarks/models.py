"""Whole models: opal against PyTorch eager, Inductor and ONNX Runtime.

Each model of the zoo (torchvision, timm and Hugging Face transformers,
built with random weights, eval mode, no grad; nothing downloaded) runs per
batch size in a process of its own: PyTorch eager, torch.compile with
opal's backend, torch.compile with its default backend (Inductor) and, where
onnxruntime is installed, an ONNX Runtime session of the model exported by
torch.onnx, all on the same input, each checked against eager, then timed
round by round (one call of each per round) at every thread count (opal,
PyTorch and ONNX Runtime at the same count). A second process with opal's
filled kernel cache times opal's warm start (the first call, compiled
graphs loaded from disk). Prints a Markdown table: min / median ms per
call, the speedups (eager's median over opal's, Inductor's over opal's),
the cold compile (first call with empty caches) of opal and Inductor and
opal's warm start; then the geometric means over the zoo per batch and
thread count, and opal's speedup from 1 to 2 threads.

PyTorch must multiply with a real BLAS (the PyTorch 2 wheel's MKL and
oneDNN): the benchmark refuses the reference BLAS.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/models.py \\
        [--models resnet18 gpt2 ...] [--batches 1 16] [--threads 1 2] [--rounds 10] \\
        [--no-inductor] [--no-onnx] [--json results.json]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import blas  # noqa: E402

# name: (zoo, constructor, image size or token count). Sizes keep a round of
# batch 16 within seconds on two cores.
ZOO = {
    "resnet18": ("torchvision", "resnet18", 160),
    "resnet50": ("torchvision", "resnet50", 128),
    "mobilenet_v2": ("torchvision", "mobilenet_v2", 160),
    "efficientnet_b0": ("torchvision", "efficientnet_b0", 160),
    "regnet_y_400mf": ("torchvision", "regnet_y_400mf", 160),
    "convnext_tiny": ("torchvision", "convnext_tiny", 128),
    "vit_tiny": ("timm", "vit_tiny_patch16_224", 128),
    "gpt2": ("transformers", ("GPT2LMHeadModel", "GPT2Config",
                              dict(n_layer=4, n_embd=256, n_head=4, vocab_size=2048,
                                   n_positions=128)), 64),
    "bert": ("transformers", ("BertModel", "BertConfig",
                              dict(num_hidden_layers=4, hidden_size=256, num_attention_heads=4,
                                   intermediate_size=1024, vocab_size=2048,
                                   max_position_embeddings=128)), 64),
}

CHILD = r"""
import json, os, sys, tempfile, time, statistics
import torch
zoo, constructor, size, batch = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
threads, rounds, backends = json.loads(sys.argv[5]), int(sys.argv[6]), sys.argv[7].split(",")
torch.manual_seed(0)
if zoo == "torchvision":
    import torchvision
    model = getattr(torchvision.models, constructor)()
    x = torch.randn(batch, 3, size, size)
elif zoo == "timm":
    import timm
    model = timm.create_model(constructor, pretrained=False, img_size=size)
    x = torch.randn(batch, 3, size, size)
else:
    import transformers
    model_class, config_class, config = constructor
    model = getattr(transformers, model_class)(getattr(transformers, config_class)(**config))
    x = torch.randint(0, config["vocab_size"], (batch, size))
model = model.eval()

def first(result):
    # (transformers return a ModelOutput: its first tensor.)
    return result if isinstance(result, torch.Tensor) else result[0]

def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out

row = {"threads": {}, "errors": {}, "compile": {}, "skipped": {}}
with torch.no_grad():
    want = first(model(x))
    scale = max(want.abs().max().item(), 1e-6)
    calls = {"eager": lambda: first(model(x))}
    # ("warm": opal's first call only, its kernels on disk.)
    first_call = next((b for b in ("opal", "warm") if b in backends), None)
    if first_call:
        import opal, opal.torch
        compiled = torch.compile(model, backend="opal")
        row["compile"][first_call], got = timed(lambda: first(compiled(x)))
        row["errors"]["opal"] = (got - want).abs().max().item() / scale
        calls["opal"] = lambda: first(compiled(x))
        if first_call == "warm":
            print(json.dumps(row))
            sys.exit(0)
    if "inductor" in backends:
        try:
            inductor = torch.compile(model)
            row["compile"]["inductor"], got = timed(lambda: first(inductor(x)))
            row["errors"]["inductor"] = (got - want).abs().max().item() / scale
            calls["inductor"] = lambda: first(inductor(x))
        except Exception as e:
            row["skipped"]["inductor"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    sessions = {}
    if "onnx" in backends:
        try:
            import onnxruntime
            path = os.path.join(tempfile.mkdtemp(), "model.onnx")
            class Exported(torch.nn.Module):
                # (The first output only: transformers return a ModelOutput.)
                def __init__(self):
                    super().__init__()
                    self.model = model
                def forward(self, x):
                    return first(self.model(x))
            torch.onnx.export(Exported().eval(), (x,), path, dynamo=False, input_names=["x"])
            for n in threads:
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = n
                options.inter_op_num_threads = 1
                # (Its idle threads sleep at once: spinning, they take the
                # cores the next backend's round needs.)
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                sessions[n] = onnxruntime.InferenceSession(
                    path, options, providers=["CPUExecutionProvider"])
            feed = {"x": x.numpy()}
            got = torch.from_numpy(sessions[threads[0]].run(None, feed)[0])
            row["errors"]["onnx"] = (got - want).abs().max().item() / scale
        except Exception as e:
            row["skipped"]["onnx"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
            sessions = {}
    for n in threads:
        torch.set_num_threads(n)
        if "opal" in calls:
            opal.set_num_threads(n)
        chosen = dict(calls)
        if sessions:
            session = sessions[n]
            chosen["onnx"] = lambda: session.run(None, feed)
        for fn in chosen.values():
            fn(), fn()
        times = {name: [] for name in chosen}
        for _ in range(rounds):
            for name, fn in chosen.items():
                times[name].append(timed(fn)[0] * 1e3)
        row["threads"][n] = {name: [min(t), statistics.median(t)] for name, t in times.items()}
print(json.dumps(row))
"""


def child(zoo, constructor, size, batch, threads, rounds, backends, cache, timeout):
    environment = dict(os.environ, OPAL_CACHE_DIR=cache, HF_HUB_OFFLINE="1",
                       TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"))
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, zoo, json.dumps(constructor), str(size), str(batch),
             json.dumps(threads), str(rounds), ",".join(backends)],
            capture_output=True, text=True, env=environment, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"failed": f"timed out after {timeout} s"}
    if done.returncode != 0:
        last = [line for line in done.stderr.splitlines() if line.strip()][-1:]
        return {"failed": last[0][:200] if last else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(times, name):
    return f"{times[name][0]:.1f} / {times[name][1]:.1f}" if name in times else "—"


def ratio(times, reference):
    if "opal" not in times or reference not in times:
        return None
    return times[reference][1] / times["opal"][1]


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def seconds(value, digits=1):
    return f"{value:.{digits}f}" if value is not None else "—"


def table_row(name, batch, threads, times, compiled):
    speedups = [ratio(times, reference) for reference in ("eager", "inductor", "onnx")]
    return (f"| {name} | {batch} | {threads} | {cell(times, 'eager')} | {cell(times, 'opal')} | "
            f"{cell(times, 'inductor')} | {cell(times, 'onnx')} | " +
            " | ".join(f"{s:.2f}x" if s else "—" for s in speedups) +
            f" | {seconds(compiled.get('opal'))} | {seconds(compiled.get('inductor'))} | "
            f"{seconds(compiled.get('warm'), 2)} |")


def summary(rows, batches, thread_counts):
    """The geometric means per batch and thread count, and opal's scaling
    from 1 to 2 threads."""
    lines = []
    for batch in batches:
        measured = [r for r in rows if r.get("batch") == batch and "threads" in r]
        for threads in thread_counts:
            timed = [(r["model"], r["threads"][str(threads)]) for r in measured
                     if str(threads) in r["threads"]]
            means = [(label, geomean([ratio(t, reference) for _, t in timed]))
                     for label, reference in (("eager/opal", "eager"),
                                              ("Inductor/opal", "inductor"),
                                              ("ORT/opal", "onnx"))]
            against_eager = [(ratio(t, "eager"), model) for model, t in timed
                             if ratio(t, "eager")]
            text = ", ".join(f"{label} {mean:.2f}x" for label, mean in means if mean)
            if against_eager:
                lowest = min(against_eager)
                text += f"; lowest eager/opal {lowest[0]:.2f}x ({lowest[1]})"
            lines.append(f"batch {batch}, {threads} thread(s), {len(timed)} models: "
                         f"geometric means {text}")
        if 1 in thread_counts and 2 in thread_counts:
            scaling = [r["threads"]["1"]["opal"][1] / r["threads"]["2"]["opal"][1]
                       for r in measured if "opal" in r["threads"].get("1", {})
                       and "opal" in r["threads"].get("2", {})]
            if scaling:
                lines.append(f"batch {batch}: opal at 2 threads against 1, geometric mean "
                             f"{geomean(scaling):.2f}x (lowest {min(scaling):.2f}x)")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=list(ZOO), default=list(ZOO))
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 16])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--no-onnx", action="store_true")
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--json", help="also write every row to this file")
    args = parser.parse_args()
    backends = ["opal"] + ([] if args.no_inductor else ["inductor"]) + \
        ([] if args.no_onnx else ["onnx"])
    try:
        import onnxruntime
        ort = f", ONNX Runtime {onnxruntime.__version__}"
    except ImportError:
        ort = ", no onnxruntime"
        backends = [b for b in backends if b != "onnx"]
    print(f"{blas()}{ort}; rounds of {args.rounds}, min / median ms per call\n")
    print("| model | batch | threads | eager | opal | Inductor | ONNX Runtime | "
          "eager/opal | Inductor/opal | ORT/opal | opal compile s | Inductor compile s | "
          "opal warm start s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name in args.models:
        zoo, constructor, size = ZOO[name]
        for batch in args.batches:
            with tempfile.TemporaryDirectory() as cache:
                row = child(zoo, constructor, size, batch, args.threads, args.rounds, backends,
                            cache, args.timeout)
                if "failed" not in row and "opal" in row["compile"]:
                    warm = child(zoo, constructor, size, batch, args.threads, 0, ["warm"],
                                 cache, args.timeout)
                    row["compile"]["warm"] = warm.get("compile", {}).get("warm")
            row.update(model=name, batch=batch)
            rows.append(row)
            if "failed" in row:
                print(f"| {name} | {batch} | | failed: {row['failed']} |", flush=True)
                continue
            for problem, error in row["errors"].items():
                if error > 1e-3:
                    print(f"<!-- {name} batch {batch}: {problem} differs from eager by "
                          f"{error:.1e} (relative to the output's largest value) -->")
            for skipped, why in row["skipped"].items():
                print(f"<!-- {name} batch {batch}: {skipped} skipped: {why} -->")
            for threads, times in row["threads"].items():
                print(table_row(name, batch, threads, times, row["compile"]), flush=True)
    print()
    for line in summary(rows, args.batches, args.threads):
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
