"""torchvision's classification models through torch.compile(backend="opal").

Each model runs in its own process (random weights, eval mode, no grad, one
input of a size the model takes): eager once, then the compiled model,
whose first call compiles. Prints a Markdown table, a row per model: whether
the result matches eager (max |difference| below 1e-3 relative to the
output's scale), how the graph ran (one opal op, or pieces: how many opal
compiled, and the ops left to PyTorch) and the first call's time (the
compile, cold unless the kernel cache already holds the model's kernels).
It is a conformance table, not a benchmark: speed is measured by
benchmarks/, interleaved with PyTorch. docs/pytorch.md keeps the last run's
table.

Runs in the tests' environment (PyTorch 2 and torchvision):

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python scripts/torch_zoo.py \\
        [--models resnet18 densenet121 ...] [--timeout 900]
"""

import argparse
import json
import os
import re
import subprocess
import sys

# One model per family, with the smallest input each takes.
MODELS = {
    "alexnet": 64, "convnext_tiny": 64, "densenet121": 64, "efficientnet_b0": 64,
    "efficientnet_v2_s": 64, "googlenet": 64, "inception_v3": 75, "maxvit_t": 224,
    "mnasnet0_5": 64, "mobilenet_v2": 64, "mobilenet_v3_small": 64, "regnet_x_400mf": 64,
    "resnet18": 64, "resnet50": 64, "resnext50_32x4d": 64, "shufflenet_v2_x0_5": 64,
    "squeezenet1_0": 64, "swin_t": 64, "vgg11": 64, "vit_b_16": 224, "wide_resnet50_2": 64,
}

ONE = r"""
import json, sys, time
import torch, torchvision
import opal
torch.manual_seed(0)
name, size = sys.argv[1], int(sys.argv[2])
kwargs = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") \
    else {}
model = getattr(torchvision.models, name)(**kwargs).eval()
x = torch.randn(1, 3, size, size)
with torch.no_grad():
    want = model(x)
    compiled = torch.compile(model, backend="opal")
    start = time.perf_counter(); got = compiled(x); first = time.perf_counter() - start
error = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-6)
print(json.dumps({"error": error, "first": first, "graphs": opal.jit.stats()["torch_traces"]}))
"""

LACKING = re.compile(r"opal has no (\S+): it runs in PyTorch|(\S+) takes a list of tensors|"
                     r"(\S+) has a kernel opal cannot compile")
SPLIT = re.compile(r"split into (\d+) pieces, (\d+) compiled by opal")
WHOLE = re.compile(r"compiled .* into torchgraph::")


def one_model(name, size, timeout):
    environment = dict(os.environ, OPAL_LOG="torch")
    try:
        done = subprocess.run([sys.executable, "-c", ONE, name, str(size)], capture_output=True,
                              text=True, env=environment, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"timed out ({timeout} s)"}
    if done.returncode != 0:
        last = [line for line in done.stderr.splitlines() if line.strip()][-1:]
        return {"status": "error: " + (last[0][:150] if last else f"exit {done.returncode}")}
    row = json.loads(done.stdout.strip().splitlines()[-1])
    log = [line for line in done.stderr.splitlines() if line.startswith("[opal:torch]")]
    lacking = sorted({next(g for g in m.groups() if g) for line in log
                      for m in [LACKING.search(line)] if m})
    pieces = [SPLIT.search(line) for line in log]
    pieces = [(int(m.group(1)), int(m.group(2))) for m in pieces if m]
    symbolic = any("sizes are symbolic" in line for line in log)
    if symbolic:
        how = "in PyTorch (symbolic sizes)"
    elif pieces:
        total = sum(p[0] for p in pieces)
        how = f"{sum(p[1] for p in pieces)} of {total} pieces in opal"
    elif any(WHOLE.search(line) for line in log):
        how = "one opal op" if row["graphs"] == 1 else f"{row['graphs']} opal ops"
    else:
        how = "in PyTorch"
    row["status"] = "matches" if row["error"] < 1e-3 else f"DIFFERS ({row['error']:.1e})"
    row["how"] = how
    row["lacking"] = ", ".join(l.replace("aten.", "").replace(".default", "") for l in lacking)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--timeout", type=int, default=900)
    args = parser.parse_args()
    print("| model | input | result | how it ran | left to PyTorch | first call s |")
    print("|---|---|---|---|---|---:|")
    passed = 0
    for name in args.models:
        size = MODELS.get(name, 64)
        row = one_model(name, size, args.timeout)
        passed += row["status"] == "matches"
        if "first" not in row:
            print(f"| {name} | {size}² | {row['status']} | | | |", flush=True)
            continue
        print(f"| {name} | {size}² | {row['status']} | {row['how']} | {row['lacking']} | "
              f"{row['first']:.1f} |", flush=True)
    print(f"\n{passed} of {len(args.models)} models match eager")
    return 0


if __name__ == "__main__":
    sys.exit(main())
