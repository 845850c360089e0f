"""The GPT-style block of gpt_block.py and the CNN of small_cnn.py as
PyTorch modules, on the same weights: what opal.torch.compile compiles in
python/test/test_torch_bridge.py and benchmarks/torch_bridge.py.

    # compiles both, compares with eager:
    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python examples/torch_models.py
"""

import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt_block  # noqa: E402
import small_cnn  # noqa: E402

F = torch.nn.functional


class _Weights(torch.nn.Module):
    """A module whose parameters are an example's weights (numpy arrays by
    name; "ln1.weight" becomes the parameter ln1_weight)."""

    def __init__(self, weights):
        super().__init__()
        self.names = []
        for name, value in weights.items():
            self.names.append(name.replace(".", "_"))
            self.register_parameter(self.names[-1], torch.nn.Parameter(torch.from_numpy(value)))

    def weights(self):
        """The parameters by name, as attributes give them (so that
        functional_call's substitutes are the ones read)."""
        return {name: getattr(self, name) for name in self.names}


class GptBlock(_Weights):
    def __init__(self, seed=0):
        super().__init__(gpt_block.parameters(seed))

    def forward(self, tokens):
        p = self.weights()
        batch, time = tokens.shape
        width, heads = gpt_block.WIDTH, gpt_block.HEADS
        head = width // heads
        x = F.embedding(tokens, p["tokens"]) + p["positions"][:time]
        h = F.layer_norm(x, [width], p["ln1_weight"], p["ln1_bias"])

        def split_heads(y):
            return y.reshape(batch, time, heads, head).transpose(1, 2)

        q, k, v = (split_heads(y) for y in
                   F.linear(h, p["qkv_weight"], p["qkv_bias"]).split(width, 2))
        scores = q @ k.transpose(-2, -1) / math.sqrt(head)
        mask = torch.ones(time, time, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
        mixed = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, time, width)
        x = x + F.linear(mixed, p["out_weight"], p["out_bias"])
        h = F.layer_norm(x, [width], p["ln2_weight"], p["ln2_bias"])
        x = x + F.linear(F.gelu(F.linear(h, p["fc_weight"], p["fc_bias"])), p["proj_weight"],
                         p["proj_bias"])
        return F.linear(x, p["head_weight"])


class SmallCnn(_Weights):
    def __init__(self, seed=0):
        super().__init__(small_cnn.parameters(seed))

    def forward(self, x):
        p = self.weights()
        for i in range(len(small_cnn.CHANNELS) - 1):
            x = F.conv2d(x, p[f"conv{i}_weight"], p[f"conv{i}_bias"], 1 if i == 0 else 2, 1)
            x = F.relu(F.batch_norm(x, p[f"bn{i}_running_mean"], p[f"bn{i}_running_var"],
                                    p[f"bn{i}_weight"], p[f"bn{i}_bias"], False, 0.1, 1e-5))
            if i == 0:
                x = F.max_pool2d(x, 2)
        return F.linear(x.mean((2, 3)), p["fc_weight"], p["fc_bias"])


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    tokens = torch.from_numpy(rng.integers(0, gpt_block.VOCAB, (2, gpt_block.CONTEXT)))
    images = torch.from_numpy(rng.standard_normal((4, 3, 12, 12)).astype(np.float32))
    return tokens, images


if __name__ == "__main__":
    import opal.torch
    tokens, images = inputs()
    for model, x in ((GptBlock(), tokens), (SmallCnn(), images)):
        compiled = opal.torch.compile(model)
        # (Inference: the weights, running statistics included, are
        # parameters that require grad.)
        with torch.no_grad():
            eager = model(x)
            ours = compiled(x)
        print(f"{type(model).__name__}: output {list(ours.shape)}, largest difference from "
              f"PyTorch eager {float((ours - eager).abs().max()):.2e}")
