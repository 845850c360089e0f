"""Training a small classifier with opal's autograd.

A two-layer MLP with a user-defined activation (mish, a decomposition traced
from Python, whose backward opal derives and compiles into one kernel) and
an rms_norm written the same way, trained with cross-entropy and plain SGD
on a synthetic dataset: three Gaussian clusters in 8 dimensions. Every op
of the forward records at the Autograd keys, the backward runs as compiled
kernels, and the loss falls step by step.

    python3 examples/train_mlp.py
"""

import numpy as np

import opal

A = opal.ops.aten

lib = opal.library.Library("example", "DEF")
lib.define("mish(Tensor x) -> Tensor")
lib.define("rms_norm(Tensor x, Tensor w) -> Tensor")


@opal.library.register_decomposition("example::mish", lib=lib)
def mish(x):
    return x * A.tanh(A.softplus(x))


@opal.library.register_decomposition("example::rms_norm", lib=lib)
def rms_norm(x, w):
    return x * A.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def dataset(samples=192, features=8, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((classes, features)) * 2.5
    labels = rng.integers(0, classes, samples)
    points = centers[labels] + rng.standard_normal((samples, features))
    onehot = np.eye(classes, dtype=np.float32)[labels]
    return opal.tensor(points.astype(np.float32)), opal.tensor(onehot), labels


def main(steps=30, lr=0.2):
    x, target, labels = dataset()
    rng = np.random.default_rng(1)
    w1 = opal.tensor((rng.standard_normal((32, 8)) * 0.35).astype(np.float32),
                     requires_grad=True)
    b1 = opal.zeros(32, requires_grad=True)
    g = opal.ones(32, requires_grad=True)
    w2 = opal.tensor((rng.standard_normal((3, 32)) * 0.18).astype(np.float32),
                     requires_grad=True)
    b2 = opal.zeros(3, requires_grad=True)
    params = [w1, b1, g, w2, b2]
    for step in range(steps):
        hidden = opal.ops.example.rms_norm(opal.ops.example.mish(opal.linear(x, w1, b1)), g)
        logits = opal.linear(hidden, w2, b2)
        loss = -(logits.log_softmax(1) * target).sum(1).mean()
        loss.backward()
        with opal.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        if step % 10 == 0 or step == steps - 1:
            accuracy = (logits.detach().numpy().argmax(1) == labels).mean()
            print(f"step {step:2d}  loss {loss.item():.4f}  accuracy {accuracy:.2f}")
    print("grad_fn of the hidden layer:", hidden.grad_fn.name())


if __name__ == "__main__":
    main()
