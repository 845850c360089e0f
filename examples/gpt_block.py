"""A GPT-style decoder block written with opal's aten ops, on CPU.

Token and position embeddings, causal multi-head self-attention (one
projection split into queries, keys and values, a mask made with triu and
masked_fill, softmax), a GELU MLP, two layer norms with
residual connections, and the next token picked with argmax: every op is one
of opal.ops.aten's, compiled by the JIT. python/test/test_examples.py runs
the same block in PyTorch with the same weights and compares.

    python3 examples/gpt_block.py
"""

import numpy as np

import opal

A = opal.ops.aten

VOCAB, WIDTH, HEADS, CONTEXT = 64, 32, 4, 16


def parameters(seed=0):
    """The block's weights as numpy arrays (float32)."""
    rng = np.random.default_rng(seed)

    def normal(*shape, scale=0.02):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    return {
        "tokens": normal(VOCAB, WIDTH, scale=1.0), "positions": normal(CONTEXT, WIDTH, scale=1.0),
        "ln1.weight": 1 + normal(WIDTH), "ln1.bias": normal(WIDTH),
        "qkv.weight": normal(3 * WIDTH, WIDTH), "qkv.bias": normal(3 * WIDTH),
        "out.weight": normal(WIDTH, WIDTH), "out.bias": normal(WIDTH),
        "ln2.weight": 1 + normal(WIDTH), "ln2.bias": normal(WIDTH),
        "fc.weight": normal(4 * WIDTH, WIDTH), "fc.bias": normal(4 * WIDTH),
        "proj.weight": normal(WIDTH, 4 * WIDTH), "proj.bias": normal(WIDTH),
        "head.weight": normal(VOCAB, WIDTH),
    }


def attention(p, x):
    """Causal multi-head self-attention of x [batch, time, width]."""
    batch, time, width = x.shape
    head = width // HEADS

    def heads(y):  # [batch, heads, time, head]
        return A.transpose.int(A.reshape(y, [batch, time, HEADS, head]), 1, 2)

    # One projection for queries, keys and values, split into three views.
    qkv = A.linear(x, p["qkv.weight"], p["qkv.bias"])
    q, k, v = (heads(y) for y in A.split.Tensor(qkv, width, 2))
    scores = A.mul.Scalar(A.matmul(q, A.transpose.int(k, -2, -1)), 1.0 / np.sqrt(head))
    # Position j is hidden from position i < j.
    future = A.triu(A.ones([time, time], dtype=opal.bool), 1)
    scores = A.masked_fill.Scalar(scores, future, float("-inf"))
    weights = A.softmax.int(scores, -1)
    mixed = A.transpose.int(A.matmul(weights, v), 1, 2)
    return A.linear(A.reshape(mixed, [batch, time, width]), p["out.weight"], p["out.bias"])


def forward(p, tokens):
    """Logits [batch, time, vocab] of a batch of token ids [batch, time]."""
    time = tokens.shape[1]
    x = A.add.Tensor(A.embedding(p["tokens"], tokens),
                     A.embedding(p["positions"], opal.tensor(np.arange(time))))
    x = A.add.Tensor(x, attention(p, A.layer_norm(x, [WIDTH], p["ln1.weight"], p["ln1.bias"])))
    h = A.layer_norm(x, [WIDTH], p["ln2.weight"], p["ln2.bias"])
    h = A.linear(A.gelu(A.linear(h, p["fc.weight"], p["fc.bias"])), p["proj.weight"],
                 p["proj.bias"])
    x = A.add.Tensor(x, h)
    return A.linear(x, p["head.weight"])


def main():
    p = {name: opal.tensor(value) for name, value in parameters().items()}
    tokens = opal.tensor(np.random.default_rng(1).integers(0, VOCAB, (2, CONTEXT)))
    logits = forward(p, tokens)
    following = A.argmax(logits, -1)
    print("logits", list(logits.shape), logits.dtype)
    print("next tokens of sequence 0:", following.tolist()[0])


if __name__ == "__main__":
    main()
