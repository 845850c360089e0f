"""A small convolutional network written with opal's aten ops, on CPU.

Three 3x3 convolutions, each followed by batch normalization (inference:
running statistics) and a ReLU, 2x2 max pooling after the first and stride 2
in the others, global average pooling (a mean over the spatial dims), a
linear classifier and the top 3 classes (topk), on a batch of 16x16 RGB
images: every op is one of
opal.ops.aten's, compiled by the JIT. python/test/test_examples.py runs the
same network in PyTorch with the same weights and compares.

    python3 examples/small_cnn.py
"""

import numpy as np

import opal

A = opal.ops.aten

CHANNELS = [3, 8, 16, 32]
CLASSES = 10


def parameters(seed=0):
    """The network's weights as numpy arrays (float32, He-initialized)."""
    rng = np.random.default_rng(seed)
    p = {}
    for i, (c_in, c_out) in enumerate(zip(CHANNELS, CHANNELS[1:])):
        scale = np.sqrt(2.0 / (c_in * 9))
        p[f"conv{i}.weight"] = (rng.standard_normal((c_out, c_in, 3, 3)) * scale).astype(np.float32)
        p[f"conv{i}.bias"] = (rng.standard_normal(c_out) * 0.1).astype(np.float32)
        p[f"bn{i}.weight"] = (1 + rng.standard_normal(c_out) * 0.1).astype(np.float32)
        p[f"bn{i}.bias"] = (rng.standard_normal(c_out) * 0.1).astype(np.float32)
        p[f"bn{i}.running_mean"] = (rng.standard_normal(c_out) * 0.1).astype(np.float32)
        p[f"bn{i}.running_var"] = (1 + rng.random(c_out)).astype(np.float32)
    p["fc.weight"] = (rng.standard_normal((CLASSES, CHANNELS[-1])) * 0.1).astype(np.float32)
    p["fc.bias"] = np.zeros(CLASSES, dtype=np.float32)
    return p


def forward(p, images):
    """Class scores [batch, classes] of images [batch, 3, height, width]."""
    x = images
    for i in range(len(CHANNELS) - 1):
        stride = 1 if i == 0 else 2
        x = A.conv2d(x, p[f"conv{i}.weight"], p[f"conv{i}.bias"], [stride, stride], [1, 1])
        x = A.relu(A.batch_norm(x, p[f"bn{i}.weight"], p[f"bn{i}.bias"],
                                p[f"bn{i}.running_mean"], p[f"bn{i}.running_var"], False, 0.1,
                                1e-5, False))
        if i == 0:
            x = A.max_pool2d(x, [2, 2])
    pooled = A.mean.dim(x, [2, 3])
    return A.linear(pooled, p["fc.weight"], p["fc.bias"])


def main():
    p = {name: opal.tensor(value) for name, value in parameters().items()}
    images = opal.tensor(np.random.default_rng(1).standard_normal((4, 3, 16, 16)).astype(np.float32))
    scores = forward(p, images)
    print("scores", list(scores.shape), scores.dtype)
    print("classes:", A.argmax(scores, 1).tolist())
    print("top 3:", A.topk(scores, 3)[1].tolist())


if __name__ == "__main__":
    main()
