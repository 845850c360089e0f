"""Model zoos through torch.compile(backend="opal"): torchvision's
classification models, a sample of timm's convnets and vision transformers,
and Hugging Face transformers built from small configs (GPT-2, BERT, and
Llama with rotary embeddings and grouped-query attention).

Each model runs in its own process (random weights, nothing downloaded,
eval mode, no grad, one input of a size the model takes): eager once, then
the compiled model, whose first call compiles. Prints a Markdown table, a
row per model: whether the result matches eager (max |difference| below
1e-3 relative to the output's scale), how the graph ran (opal ops, or
pieces: how many opal compiled, and the ops left to PyTorch) and the first
call's time (the compile, cold unless the kernel cache already holds the
model's kernels). It is a conformance table, not a benchmark: speed is
measured by benchmarks/, interleaved with PyTorch. docs/pytorch.md keeps the
last run's table.

Runs in the tests' environment (PyTorch 2, torchvision, timm, transformers):

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python scripts/torch_zoo.py \\
        [--zoo torchvision timm transformers] [--models resnet18 gpt2 ...] [--timeout 900]
"""

import argparse
import json
import os
import re
import subprocess
import sys

# One model per family, with the smallest input each takes.
TORCHVISION = {
    "alexnet": 64, "convnext_tiny": 64, "densenet121": 64, "efficientnet_b0": 64,
    "efficientnet_v2_s": 64, "googlenet": 64, "inception_v3": 75, "maxvit_t": 224,
    "mnasnet0_5": 64, "mobilenet_v2": 64, "mobilenet_v3_small": 64, "regnet_x_400mf": 64,
    "resnet18": 64, "resnet50": 64, "resnext50_32x4d": 64, "shufflenet_v2_x0_5": 64,
    "squeezenet1_0": 64, "swin_t": 64, "vgg11": 64, "vit_b_16": 224, "wide_resnet50_2": 64,
}
TIMM = {
    "resnet26d": 64, "efficientnet_b0": 64, "mobilenetv3_small_100": 64, "convnext_atto": 64,
    "regnetx_002": 64, "ghostnet_100": 64, "dla34": 64, "cspresnet50": 64,
    "vit_tiny_patch16_224": 64, "deit_tiny_patch16_224": 64, "mixer_s16_224": 64,
    "levit_128s": 224, "poolformer_s12": 64, "mobilevit_xxs": 64,
}
# Hugging Face models from configs: (class, config class, config), on 16 tokens.
TRANSFORMERS = {
    "gpt2": ("GPT2LMHeadModel", "GPT2Config",
             dict(n_layer=2, n_embd=64, n_head=4, vocab_size=512, n_positions=64)),
    "bert": ("BertModel", "BertConfig",
             dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                  intermediate_size=128, vocab_size=512, max_position_embeddings=64)),
    "llama": ("LlamaForCausalLM", "LlamaConfig",
              dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                   num_key_value_heads=2, intermediate_size=128, vocab_size=512,
                   max_position_embeddings=64)),
}
ZOOS = {"torchvision": TORCHVISION, "timm": TIMM, "transformers": TRANSFORMERS}

ONE = r"""
import json, sys, time
import torch
import opal
torch.manual_seed(0)
zoo, name, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if zoo == "torchvision":
    import torchvision
    kwargs = {"aux_logits": False, "init_weights": False} \
        if name in ("googlenet", "inception_v3") else {}
    model = getattr(torchvision.models, name)(**kwargs)
    x = torch.randn(1, 3, spec, spec)
elif zoo == "timm":
    import timm
    kwargs = {"img_size": spec} if any(k in name for k in ("vit_", "deit_", "mixer_")) else {}
    model = timm.create_model(name, pretrained=False, **kwargs)
    x = torch.randn(1, 3, spec, spec)
else:
    import transformers
    model_class, config_class, config = spec
    model = getattr(transformers, model_class)(getattr(transformers, config_class)(**config))
    x = torch.randint(0, config.get("vocab_size", 512), (1, 16))
model = model.eval()

def output(result):
    # (transformers return a ModelOutput: its first tensor, the logits or
    # the last hidden state.)
    return result if isinstance(result, torch.Tensor) else result[0]

with torch.no_grad():
    want = output(model(x))
    compiled = torch.compile(model, backend="opal")
    start = time.perf_counter(); got = output(compiled(x)); first = time.perf_counter() - start
error = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-6)
print(json.dumps({"error": error, "first": first, "graphs": opal.jit.stats()["torch_traces"]}))
"""

LACKING = re.compile(r"opal has no (\S+): it runs in PyTorch|"
                     r"(\S+) takes or returns a list of tensors|"
                     r"(aten\.arange\.\S+) of|"
                     r"(\S+) along a dim whose size is known per call")
SPLIT = re.compile(r"split into (\d+) pieces, (\d+) compiled by opal")
WHOLE = re.compile(r"compiled .* into torchgraph::")
OP_BY_OP = re.compile(r"running .* op by op in opal")


def one_model(zoo, name, spec, timeout):
    # (Nothing is downloaded: the Hugging Face hub is told so.)
    environment = dict(os.environ, OPAL_LOG="torch", HF_HUB_OFFLINE="1")
    try:
        done = subprocess.run([sys.executable, "-c", ONE, zoo, name, json.dumps(spec)],
                              capture_output=True, text=True, env=environment, timeout=timeout)
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
    if pieces:
        total = sum(p[0] for p in pieces)
        how = f"{sum(p[1] for p in pieces)} of {total} pieces in opal"
    elif any(WHOLE.search(line) or OP_BY_OP.search(line) for line in log):
        fused = sum(1 for line in log if WHOLE.search(line))
        kinds = [f"{fused} fused" if fused else "",
                 f"{row['graphs'] - fused} op by op" if row["graphs"] > fused else ""]
        how = ("one opal op" if fused == row["graphs"] == 1 else
               "op by op in opal" if fused == 0 and row["graphs"] == 1 else
               f"{row['graphs']} graphs in opal: " + ", ".join(k for k in kinds if k))
    else:
        how = "in PyTorch"
    row["status"] = "matches" if row["error"] < 1e-3 else f"DIFFERS ({row['error']:.1e})"
    row["how"] = how
    row["lacking"] = ", ".join(l.replace("aten.", "").replace(".default", "") for l in lacking)
    return row


def input_text(zoo, spec):
    return "16 tokens" if zoo == "transformers" else f"{spec}²"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", nargs="+", choices=list(ZOOS), default=list(ZOOS))
    parser.add_argument("--models", nargs="+",
                        help="models of the chosen zoos (default: all of them)")
    parser.add_argument("--timeout", type=int, default=900)
    args = parser.parse_args()
    chosen = [(zoo, name, spec) for zoo in args.zoo for name, spec in ZOOS[zoo].items()
              if not args.models or name in args.models]
    print("| zoo | model | input | result | how it ran | left to PyTorch | first call s |")
    print("|---|---|---|---|---|---|---:|")
    passed = 0
    for zoo, name, spec in chosen:
        row = one_model(zoo, name, spec, args.timeout)
        passed += row["status"] == "matches"
        where = f"| {zoo} | {name} | {input_text(zoo, spec)} | {row['status']} |"
        if "first" not in row:
            print(f"{where} | | |", flush=True)
            continue
        print(f"{where} {row['how']} | {row['lacking']} | {row['first']:.1f} |", flush=True)
    print(f"\n{passed} of {len(chosen)} models match eager")
    return 0 if passed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
