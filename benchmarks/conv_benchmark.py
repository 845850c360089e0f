"""Convolutions: opal's compiled batched-product kernels against PyTorch.

The convolutions of small CNNs in float32, opal and PyTorch interleaved
round by round in one process, both on one thread
(torch.set_num_threads(1); opal's convolution kernels run on the caller's
thread). A ResNet 3x3 layer, a batch of 8 through a small CNN layer, an
ImageNet stem (7x7, stride 2), ResNet's and the CNN's downsampling 3x3 of
stride 2, depthwise ones (groups = channels: a 3x3, a
MobileNet downsampling 3x3 of stride 2, a 5x5 over a batch of 8), a 1x1
projection, ResNet's 1x1 shortcut of stride 2, RegNet's and MobileNet's
pointwise layers over a batch of 16, a 1-d and a 3-d convolution, and a
transposed 2-d one (stride 2, a decoder's upsampling), resnet18's layers
at a batch of 8 of 64x64 images ("r18": planes of 16x16 to 2x2),
MobileNet-v2's depthwise and pointwise layers at a batch of 16 ("mb"),
RegNet-Y-400MF's grouped 3x3 layers of 8 channels a group at a batch of 16
("rg", with a bias), with and without a bias (a batch norm folded into the convolution gives it one:
"+bias"), and ResNet's max pool after its stem (values only, as an eval graph pools). Reports min and median
milliseconds and PyTorch's median over opal's, against the PyTorch 2 of
the bootstrap's environment (MKL and oneDNN; the reference BLAS is refused).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/conv_benchmark.py \
        [--rounds N] [--only r18]
"""


import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten
T = torch.ops.aten

# name, input shape, weight shape, stride, padding, groups, transposed
CASES = [
    ("resnet 3x3 64ch 56x56", (1, 64, 56, 56), (64, 64, 3, 3), 1, 1, 1, False),
    ("cnn 3x3 32->64ch 32x32 b8", (8, 32, 32, 32), (64, 32, 3, 3), 1, 1, 1, False),
    ("stem 7x7/2 3->64ch 224x224", (1, 3, 224, 224), (64, 3, 7, 7), 2, 3, 1, False),
    ("resnet 3x3/2 64->128ch 56x56", (1, 64, 56, 56), (128, 64, 3, 3), 2, 1, 1, False),
    ("cnn 3x3/2 32->64ch 32x32 b8", (8, 32, 32, 32), (64, 32, 3, 3), 2, 1, 1, False),
    ("depthwise 3x3 128ch 28x28", (1, 128, 28, 28), (128, 1, 3, 3), 1, 1, 128, False),
    ("depthwise 3x3/2 128ch 56x56", (1, 128, 56, 56), (128, 1, 3, 3), 2, 1, 128, False),
    ("depthwise 5x5 64ch 32x32 b8", (8, 64, 32, 32), (64, 1, 5, 5), 1, 2, 64, False),
    ("1x1 256ch 14x14", (1, 256, 14, 14), (256, 256, 1, 1), 1, 0, 1, False),
    ("1x1/2 256->512ch 56x56", (1, 256, 56, 56), (512, 256, 1, 1), 2, 0, 1, False),
    # RegNet's and MobileNet's pointwise layers over a batch of 16.
    ("1x1 104->208ch 20x20 b16", (16, 104, 20, 20), (208, 104, 1, 1), 1, 0, 1, False),
    ("1x1 208ch 10x10 b16", (16, 208, 10, 10), (208, 208, 1, 1), 1, 0, 1, False),
    ("1x1 440ch 5x5 b16", (16, 440, 5, 5), (440, 440, 1, 1), 1, 0, 1, False),
    ("conv1d k5 64ch 1024", (4, 64, 1024), (64, 64, 5), 1, 2, 1, False),
    ("conv3d 3x3x3 16ch 16^3", (1, 16, 16, 16, 16), (16, 16, 3, 3, 3), 1, 1, 1, False),
    ("transposed 4x4/2 64->32ch 28x28", (1, 64, 28, 28), (64, 32, 4, 4), 2, 1, 1, True),
    # resnet18's layers at a batch of 8 of 64x64 images (benchmarks/
    # training.py's): planes of 16x16 down to 2x2, where padding is a large
    # part of a padded plane.
    ("r18 3x3 64ch 16x16 b8", (8, 64, 16, 16), (64, 64, 3, 3), 1, 1, 1, False),
    ("r18 3x3 128ch 8x8 b8", (8, 128, 8, 8), (128, 128, 3, 3), 1, 1, 1, False),
    ("r18 3x3/2 128->256ch 8x8 b8", (8, 128, 8, 8), (256, 128, 3, 3), 2, 1, 1, False),
    ("r18 3x3 256ch 4x4 b8", (8, 256, 4, 4), (256, 256, 3, 3), 1, 1, 1, False),
    ("r18 3x3/2 256->512ch 4x4 b8", (8, 256, 4, 4), (512, 256, 3, 3), 2, 1, 1, False),
    ("r18 3x3 512ch 2x2 b8", (8, 512, 2, 2), (512, 512, 3, 3), 1, 1, 1, False),
    ("mb dw 3x3 144ch 40x40 b16", (16, 144, 40, 40), (144, 1, 3, 3), 1, 1, 144,
     False),
    ("mb 1x1 24->144ch 40x40 b16", (16, 24, 40, 40), (144, 24, 1, 1), 1, 0, 1, False),
    # RegNet-Y-400MF's grouped 3x3 layers (8 channels a group) at a batch
    # of 16 of 160x160 images, each with a bias (a folded batch norm).
    ("rg 3x3/2 48ch g6 80x80 b16", (16, 48, 80, 80), (48, 8, 3, 3), 2, 1, 6, False),
    ("rg 3x3/2 104ch g13 40x40 b16", (16, 104, 40, 40), (104, 8, 3, 3), 2, 1, 13, False),
    ("rg 3x3 104ch g13 20x20 b16", (16, 104, 20, 20), (104, 8, 3, 3), 1, 1, 13, False),
    ("rg 3x3 208ch g26 10x10 b16", (16, 208, 10, 10), (208, 8, 3, 3), 1, 1, 26, False),
    ("rg 3x3 440ch g55 5x5 b16", (16, 440, 5, 5), (440, 8, 3, 3), 1, 1, 55, False),
]
# Cases run again with a bias (named "<case> +bias").
BIASED = ("mb dw 3x3 144ch 40x40 b16", "mb 1x1 24->144ch 40x40 b16")
# Cases that run with a bias only.
ONLY_BIASED = ("rg ",)


def cases():
    rng = np.random.default_rng(0)
    out = []
    runs = [(case, False) for case in CASES if not case[0].startswith(ONLY_BIASED)]
    runs += [(case, True) for case in CASES
             if case[0] in BIASED or case[0].startswith(ONLY_BIASED)]
    for (name, xs, ws, stride, padding, groups, transposed), biased in runs:
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        b = rng.standard_normal(ws[1] if transposed else ws[0]).astype(np.float32)
        spatial = len(xs) - 2
        args = ([stride] * spatial, [padding] * spatial, [1] * spatial, transposed,
                [0] * spatial, groups)
        ox, ow = opal.tensor(x), opal.tensor(w)
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        ob, tb = (opal.tensor(b), torch.from_numpy(b)) if biased else (None, None)
        out.append((name + (" +bias" if biased else ""),
                    lambda ox=ox, ow=ow, ob=ob, args=args: A.convolution(ox, ow, ob, *args),
                    lambda tx=tx, tw=tw, tb=tb, args=args: T.convolution(tx, tw, tb, *args)))
    # ResNet's max pool after its stem (at 160x160), values only, as an eval
    # graph computes it.
    x = rng.standard_normal((1, 64, 80, 80)).astype(np.float32)
    ox, tx = opal.tensor(x), torch.from_numpy(x)
    pool = ([3, 3], [2, 2], [1, 1])
    out.append(("max_pool2d 3x3/2 64ch 80x80", lambda: A.max_pool2d(ox, *pool),
                lambda: T.max_pool2d(tx, *pool)))
    return out


def main():
    interleaved.main(__doc__, cases, rounds=7, width=34, copy_column=False)


if __name__ == "__main__":
    main()
