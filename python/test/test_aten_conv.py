"""aten.convolution and its CompositeImplicit forms against PyTorch 1.13:
1 to 3 spatial dims, groups, transposed with output_padding, dtypes, and
PyTorch's error messages."""

import random
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import opal

A = opal.ops.aten


def random_case(rng, i):
    spatial, transposed = rng.choice([1, 2, 2, 3]), rng.random() < 0.4
    groups, cg, fg = rng.choice([1, 1, 2, 3]), rng.choice([1, 2]), rng.choice([1, 2, 3])
    kernel = [rng.choice([1, 2, 3]) for _ in range(spatial)]
    sizes = [rng.choice([3, 4, 6]) for _ in range(spatial)]
    stride = [rng.choice([1, 2]) for _ in range(spatial)]
    dilation = [rng.choice([1, 2]) for _ in range(spatial)]
    padding = [rng.choice([0, 1]) for _ in range(spatial)]
    out_pad = [rng.randrange(max(s, d)) for s, d in zip(stride, dilation)] if transposed \
        else [0] * spatial
    dtype = rng.choice(["float32", "float64", "int64"])
    data = np.random.default_rng(i)
    x = data.uniform(-2, 2, [rng.choice([1, 2]), groups * cg] + sizes)
    w = data.uniform(-2, 2, ([groups * cg, fg] if transposed else [groups * fg, cg]) + kernel)
    b = data.uniform(-2, 2, [groups * fg]) if rng.random() < 0.5 else None
    cast = (lambda a: np.round(a * 3).astype(dtype)) if dtype == "int64" else \
        (lambda a: a.astype(dtype))
    return (cast(x), cast(w), None if b is None else cast(b),
            [stride, padding, dilation, transposed, out_pad, groups])


@pytest.mark.parametrize("seed", range(4))
def test_convolution_matches_pytorch(seed):
    rng = random.Random(seed)
    for i in range(12):
        x, w, b, args = random_case(rng, i)
        try:
            want = torch.convolution(torch.from_numpy(x), torch.from_numpy(w),
                                     None if b is None else torch.from_numpy(b), *args).numpy()
        except RuntimeError as error:  # a kernel larger than the padded input
            with pytest.raises(RuntimeError, match=re.escape(str(error).split("\n")[0])):
                A.convolution(opal.tensor(x), opal.tensor(w),
                              None if b is None else opal.tensor(b), *args)
            continue
        got = A.convolution(opal.tensor(x), opal.tensor(w),
                            None if b is None else opal.tensor(b), *args).numpy()
        assert got.shape == want.shape, (args, x.shape, w.shape)
        tol = {"float32": 1e-4, "float64": 1e-10, "int64": 0}[str(x.dtype)]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# Depthwise and grouped convolutions run as register tiles of 4 rows by 2
# vectors (opal-tile-depthwise): sizes with whole tiles, a masked last
# vector, rows left over, fewer columns than a vector, strides 1 and 2
# along the row (2: two loads whose even lanes are kept), dilations, and
# several channels and filters per group.
DEPTHWISE_CASES = [
    # input, weight, stride, padding, dilation, groups
    ((1, 8, 9, 45), (8, 1, 3, 3), [1, 1], [1, 1], [1, 1], 8),
    ((2, 4, 13, 70), (4, 1, 5, 3), [1, 2], [2, 1], [1, 1], 4),
    ((1, 6, 7, 33), (12, 2, 3, 3), [2, 1], [1, 2], [1, 2], 3),
    ((1, 3, 5, 5), (3, 1, 3, 3), [1, 1], [0, 0], [1, 1], 3),
    ((2, 5, 40), (5, 1, 7), [2], [3], [2], 5),
    ((1, 4, 5, 6, 35), (8, 1, 3, 2, 3), [1, 1, 1], [1, 0, 1], [1, 1, 1], 4),
]


def check_against_pytorch(case, dtype, seed):
    """One convolution of `case` (input, weight, stride, padding, dilation,
    groups shapes) with a bias, in `dtype`, against PyTorch's."""
    xs, ws, stride, padding, dilation, groups = case
    data = np.random.default_rng(seed)
    x = data.standard_normal(xs).astype(dtype)
    w = data.standard_normal(ws).astype(dtype)
    b = data.standard_normal(ws[0]).astype(dtype)
    spatial = len(xs) - 2
    args = [stride, padding, dilation, False, [0] * spatial, groups]
    want = torch.convolution(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                             *args).numpy()
    got = A.convolution(opal.tensor(x), opal.tensor(w), opal.tensor(b), *args).numpy()
    assert got.shape == want.shape
    tol = {"float32": 1e-4, "float64": 1e-10}[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def check_bfloat16_against_pytorch(xs, ws, stride, padding, groups, atol):
    """A bfloat16 conv2d, summed in float32 and rounded once, against
    PyTorch's float32 result of the same bfloat16 operands, rounded."""
    data = np.random.default_rng(sum(xs))
    x = torch.from_numpy(data.standard_normal(xs).astype(np.float32)).bfloat16()
    w = torch.from_numpy(data.standard_normal(ws).astype(np.float32)).bfloat16()
    want = torch.nn.functional.conv2d(x.float(), w.float(), None, stride, padding, 1,
                                      groups).bfloat16()
    got = A.conv2d(opal.tensor(x.float().numpy()).to(opal.bfloat16),
                   opal.tensor(w.float().numpy()).to(opal.bfloat16), None, [stride] * 2,
                   [padding] * 2, [1, 1], groups)
    assert got.dtype == opal.bfloat16
    np.testing.assert_allclose(got.to(opal.float32).numpy(), want.float().numpy(), rtol=1e-2,
                               atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_depthwise_register_tiles_match_pytorch(case, dtype):
    check_against_pytorch(case, dtype, seed=len(case[0]) + sum(case[1]))


def test_depthwise_bfloat16_sums_in_float32():
    # The padded input is converted to float32 as it is copied; the sums
    # are rounded to bfloat16 once.
    check_bfloat16_against_pytorch((1, 6, 9, 37), (6, 1, 3, 3), 1, 1, 6, atol=1e-2)


# Strided convolutions of one group (or 8+ channels per group) sum products
# over shifted rows of their padded input's phases (every stride-th pixel
# from each offset): the stem's 7x7/2 of 3 channels, ResNet's 3x3/2, a
# batch, unequal strides, a dilation, a stride of 3, 1-d and 3-d, groups.
STRIDED_CASES = [
    # input, weight, stride, padding, dilation, groups
    ((1, 3, 37, 35), (16, 3, 7, 7), [2, 2], [3, 3], [1, 1], 1),
    ((2, 16, 15, 17), (24, 16, 3, 3), [2, 2], [1, 1], [1, 1], 1),
    ((2, 8, 16, 16), (8, 8, 3, 3), [2, 1], [0, 2], [1, 2], 1),
    ((1, 8, 20, 21), (6, 8, 5, 4), [3, 2], [2, 1], [1, 1], 1),
    ((2, 16, 9, 10), (8, 8, 3, 3), [2, 2], [1, 1], [2, 1], 2),
    ((3, 4, 41), (6, 4, 5), [2], [2], [1], 1),
    ((1, 4, 9, 8, 7), (5, 4, 3, 3, 3), [2, 2, 2], [1, 1, 1], [1, 1, 1], 1),
    ((1, 8, 3, 3), (4, 8, 3, 3), [2, 2], [0, 0], [1, 1], 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", STRIDED_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_strided_convolutions_match_pytorch(case, dtype):
    check_against_pytorch(case, dtype, seed=len(case[0]) + sum(case[1]) + sum(case[2]))


# Unpadded convolutions whose kernel is narrower than its stride (ResNet's
# 1x1/2 shortcut) keep the columns (im2col), read without bounds checks
# (every read lies inside the input): 1-d, 2-d and 3-d, a dilation, groups,
# a batch, odd extents.
UNPADDED_CASES = [
    # input, weight, stride, padding, dilation, groups
    ((1, 16, 14, 15), (24, 16, 1, 1), [2, 2], [0, 0], [1, 1], 1),
    ((3, 8, 9, 11), (6, 4, 1, 1), [2, 3], [0, 0], [1, 1], 2),
    ((2, 4, 23), (5, 4, 1), [3], [0], [1], 1),
    ((1, 4, 7, 9, 8), (3, 4, 1, 1, 1), [2, 2, 2], [0, 0, 0], [1, 1, 1], 1),
    ((2, 6, 12, 13), (4, 6, 2, 2), [3, 3], [0, 0], [2, 2], 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", UNPADDED_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_unpadded_columns_match_pytorch(case, dtype):
    check_against_pytorch(case, dtype, seed=len(case[0]) + sum(case[1]) + 7)


# Convolutions of one group whose padded planes hold more than 1.4 times
# the rows their outputs need (ResNet's last layers: 2x2 and 4x4 planes
# padded by 1) run as one product of im2col rows and the weight, read in
# place; larger planes keep the shifted products. Both from one kernel,
# chosen per call: a stride, a dilation, 1-d and 3-d, a batch, a plane of
# one pixel.
SMALL_PLANE_CASES = [
    # input, weight, stride, padding, dilation, groups
    ((8, 64, 2, 2), (32, 64, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ((2, 32, 4, 4), (48, 32, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ((3, 16, 4, 5), (24, 16, 3, 3), [2, 2], [1, 1], [1, 1], 1),
    ((1, 8, 5, 5), (8, 8, 3, 3), [1, 1], [2, 2], [2, 2], 1),
    ((2, 8, 1, 1), (4, 8, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ((4, 16, 3), (8, 16, 3), [1], [1], [1], 1),
    ((1, 8, 2, 3, 2), (6, 8, 3, 3, 3), [1, 1, 1], [1, 1, 1], [1, 1, 1], 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", SMALL_PLANE_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_small_planes_match_pytorch(case, dtype):
    check_against_pytorch(case, dtype, seed=len(case[0]) + sum(case[1]) + 11)


# Pointwise convolutions (1x1 kernels, stride 1, no padding, one group) run
# on the CPU as one product per image of the weight and the image, both read
# in place, where the batch is one or the planes hold at least 128 pixels,
# else as im2col's one product (chosen per call): a batch of one and of
# several, planes on both sides of 128 pixels, 1 to 3 spatial dims, a plane
# of one pixel, and a non-contiguous input.
POINTWISE_CASES = [
    # input, weight, stride, padding, dilation, groups
    ((1, 104, 20, 20), (208, 104, 1, 1), [1, 1], [0, 0], [1, 1], 1),
    ((3, 24, 7, 9), (40, 24, 1, 1), [1, 1], [0, 0], [2, 2], 1),
    ((2, 17, 1, 1), (5, 17, 1, 1), [1, 1], [0, 0], [1, 1], 1),
    ((3, 16, 12, 12), (20, 16, 1, 1), [1, 1], [0, 0], [1, 1], 1),
    ((4, 8, 33), (12, 8, 1), [1], [0], [1], 1),
    ((2, 6, 3, 4, 5), (7, 6, 1, 1, 1), [1, 1, 1], [0, 0, 0], [1, 1, 1], 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", POINTWISE_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_pointwise_convolutions_match_pytorch(case, dtype):
    check_against_pytorch(case, dtype, seed=len(case[0]) + sum(case[1]) + 13)


def test_pointwise_convolution_of_a_strided_input():
    x = np.random.default_rng(3).standard_normal((2, 16, 6, 10)).astype(np.float32)
    w = np.random.default_rng(4).standard_normal((9, 8, 1, 1)).astype(np.float32)
    args = [[1, 1], [0, 0], [1, 1], False, [0, 0], 1]
    # Every other channel, and the width transposed with the height.
    want = torch.convolution(torch.from_numpy(x)[:, ::2].transpose(2, 3), torch.from_numpy(w),
                             None, *args)
    got = A.convolution(A.transpose(opal.tensor(x)[:, ::2], 2, 3), opal.tensor(w), None, *args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


def test_one_kernel_serves_small_and_large_planes():
    """The lowering is chosen per call: one compiled kernel runs a 2x2
    plane (im2col rows) and a 12x12 one (shifted products), and a weight
    that is a transposed view (its rows not dense: copied before the
    product reads it in place)."""
    data = np.random.default_rng(5)
    w = data.standard_normal((16, 8, 3, 3)).astype(np.float32)
    compiles = opal.jit.stats()["compiles"]
    for plane in (2, 12, 3, 7):
        x = data.standard_normal((2, 8, plane, plane)).astype(np.float32)
        want = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, 1, 1).numpy()
        got = A.conv2d(opal.tensor(x), opal.tensor(w), None, [1, 1], [1, 1]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert opal.jit.stats()["compiles"] - compiles <= 1
    wt = np.ascontiguousarray(w.transpose(1, 0, 2, 3))
    x = data.standard_normal((2, 8, 2, 2)).astype(np.float32)
    view = opal.tensor(wt).transpose(0, 1)
    want = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, 1, 1).numpy()
    got = A.conv2d(opal.tensor(x), view, None, [1, 1], [1, 1]).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_one_kernel_serves_every_group_count():
    """A convolution's groups above 1 is a runtime value of a CPU kernel: one
    compiled kernel runs 2, 3, 4 and 6 groups, one more every depthwise
    convolution (a weight of one channel per group, whose dim of size 1 is
    part of the key), and from 8 channels per group on one per count of
    channels a group, each as PyTorch computes it."""
    data = np.random.default_rng(7)

    def check(xs, ws, groups, stride):
        x = data.standard_normal(xs).astype(np.float32)
        w = data.standard_normal(ws).astype(np.float32)
        b = data.standard_normal(ws[0]).astype(np.float32)
        want = torch.convolution(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                                 [stride, stride], [1, 1], [1, 1], False, [0, 0], groups)
        got = A.convolution(opal.tensor(x), opal.tensor(w), opal.tensor(b), [stride, stride],
                            [1, 1], [1, 1], False, [0, 0], groups)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)

    compiles = opal.jit.stats()["compiles"]
    for groups in (2, 3, 4, 6):
        check((2, 12, 9, 9), (24, 12 // groups, 3, 3), groups, 3)
    assert opal.jit.stats()["compiles"] - compiles <= 1
    compiles = opal.jit.stats()["compiles"]
    for channels in (8, 12, 32):
        check((2, channels, 7, 7), (channels, 1, 3, 3), channels, 3)
        check((2, channels, 6, 6), (2 * channels, 1, 3, 3), channels, 3)  # two filters each
    assert opal.jit.stats()["compiles"] - compiles <= 1
    # 8 channels per group or more (RegNet's): a kernel per count of
    # channels a group and stride (products over shifted rows), which
    # serves every group count and size.
    compiles = opal.jit.stats()["compiles"]
    for groups in (2, 3, 5):
        for stride in (1, 2):
            check((2, 8 * groups, 9, 9), (8 * groups, 8, 3, 3), groups, stride)
            check((2, 8 * groups, 5, 7), (16 * groups, 8, 3, 3), groups, stride)
    check((3, 30, 6, 6), (30, 10, 3, 3), 3, 1)
    check((2, 40, 7, 7), (20, 10, 3, 3), 4, 1)
    assert opal.jit.stats()["compiles"] - compiles == 3


def test_strided_convolution_bfloat16_sums_in_float32():
    check_bfloat16_against_pytorch((2, 16, 15, 17), (8, 16, 3, 3), 2, 1, 1, atol=1e-1)


def test_composite_forms_and_unbatched_inputs():
    data = np.random.default_rng(0)
    F = torch.nn.functional
    x1, w1 = data.standard_normal((4, 9)).astype(np.float32), \
        data.standard_normal((6, 2, 3)).astype(np.float32)
    got = A.conv1d(opal.tensor(x1), opal.tensor(w1), None, [2], [1], [1], 2).numpy()
    np.testing.assert_allclose(got, F.conv1d(torch.from_numpy(x1), torch.from_numpy(w1), None,
                                             2, 1, 1, 2).numpy(), rtol=1e-5, atol=1e-5)
    x3 = data.standard_normal((2, 5, 4, 6)).astype(np.float32)
    w3 = data.standard_normal((2, 3, 2, 2, 3)).astype(np.float32)
    got = A.conv_transpose3d.input(opal.tensor(x3), opal.tensor(w3), None, [1, 2, 1]).numpy()
    want = F.conv_transpose3d(torch.from_numpy(x3), torch.from_numpy(w3), None, (1, 2, 1))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
    # bfloat16 sums in float32 and rounds once (PyTorch's mkldnn kernel
    # rounds differently: within a few bfloat16 steps of results near 16).
    x = data.standard_normal((1, 8, 6, 6)).astype(np.float32)
    w = data.standard_normal((4, 8, 3, 3)).astype(np.float32)
    tb = F.conv2d(torch.from_numpy(x).bfloat16(), torch.from_numpy(w).bfloat16())
    ob = A.conv2d(opal.tensor(x).to(opal.bfloat16), opal.tensor(w).to(opal.bfloat16))
    np.testing.assert_allclose(ob.to(opal.float32).numpy(), tb.float().numpy(), rtol=2e-2,
                               atol=0.5)


ERRORS = [
    ((2, 4, 5, 5), (6, 4, 3, 3), [1, 1, 1], [0], [1], False, [0], 1,
     "expected stride to be a single integer value or a list of 2 values to match the "
     "convolution dimensions, but got stride=[1, 1, 1]"),
    ((2, 4, 5, 5), (6, 4, 3, 3), [1], [0], [1], False, [0], 0,
     "non-positive groups is not supported"),
    ((2, 4, 5, 5), (6, 4, 3, 3), [0], [0], [1], False, [0], 1,
     "non-positive stride is not supported"),
    ((2, 4, 5, 5), (6, 4, 3, 3), [1], [-1], [1], False, [0], 1,
     "negative padding is not supported"),
    ((2, 4, 5, 5), (4, 3, 3, 3), [1], [1], [1], True, [1], 1,
     "output padding must be smaller than either stride or dilation, but got "
     "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
     "dilation_height: 1 dilation_width: 1"),
    ((2, 4, 5, 5), (5, 2, 3, 3), [1], [0], [1], False, [0], 2,
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight "
     "of size [[5, 2, 3, 3]] instead"),
    ((2, 4, 5, 5), (6, 2, 3, 3), [1], [0], [1], False, [0], 3,
     "Given groups=3, weight of size [6, 2, 3, 3], expected input[2, 4, 5, 5] to have 6 "
     "channels, but got 4 channels instead"),
    # (Groups above 1 is a runtime value: checked before the call.)
    ((2, 4, 5, 5), (2, 1, 3, 3), [1], [0], [1], False, [0], 4,
     "Given groups=4, expected weight to be at least 4 at dimension 0, but got weight of size "
     "[2, 1, 3, 3] instead"),
    ((2, 6, 5, 5), (4, 1, 3, 3), [1], [0], [1], False, [0], 4,
     "Given groups=4, weight of size [4, 1, 3, 3], expected input[2, 6, 5, 5] to have 4 "
     "channels, but got 6 channels instead"),
    # (Unpadded 1x1/2 convolutions read their columns unchecked: a channel
    # past the input's, or an input without channels, is read clamped or
    # from zeros before the data check raises.)
    ((2, 4, 5, 5), (6, 2, 1, 1), [2], [0], [1], False, [0], 3,
     "Given groups=3, weight of size [6, 2, 1, 1], expected input[2, 4, 5, 5] to have 6 "
     "channels, but got 4 channels instead"),
    ((2, 0, 5, 5), (6, 2, 1, 1), [2], [0], [1], False, [0], 3,
     "Given groups=3, weight of size [6, 2, 1, 1], expected input[2, 0, 5, 5] to have 6 "
     "channels, but got 0 channels instead"),
    # A pointwise convolution whose input has fewer or more channels than
    # its weight: each product reads the channels both have.
    ((2, 3, 5, 5), (6, 4, 1, 1), [1], [0], [1], False, [0], 1,
     "Given groups=1, weight of size [6, 4, 1, 1], expected input[2, 3, 5, 5] to have 4 "
     "channels, but got 3 channels instead"),
    ((1, 9, 4, 4), (6, 4, 1, 1), [1], [0], [1], False, [0], 1,
     "Given groups=1, weight of size [6, 4, 1, 1], expected input[1, 9, 4, 4] to have 4 "
     "channels, but got 9 channels instead"),
    ((2, 3, 12, 12), (6, 4, 1, 1), [1], [0], [1], False, [0], 1,
     "Given groups=1, weight of size [6, 4, 1, 1], expected input[2, 3, 12, 12] to have 4 "
     "channels, but got 3 channels instead"),
    ((2, 4, 1, 1), (6, 4, 3, 3), [1], [0], [1], False, [0], 1,
     "Calculated padded input size per channel: (1 x 1). Kernel size: (3 x 3). Kernel size "
     "can't be greater than actual input size"),
    ((2, 4, 5, 5), (3, 3, 3, 3), [1], [0], [1], True, [0], 1,
     "Given transposed=1, weight of size [3, 3, 3, 3], expected input[2, 4, 5, 5] to have 3 "
     "channels, but got 4 channels instead"),
    ((2, 4, 5), (6, 4, 3, 3), [1], [0], [1], False, [0], 1,
     "Expected 4-dimensional input for 4-dimensional weight [6, 4, 3, 3], but got "
     "3-dimensional input of size [2, 4, 5] instead"),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[-1][:40] for c in ERRORS])
def test_errors_as_pytorch(case):
    xs, ws, *args, message = case
    x, w = np.ones(xs, np.float32), np.ones(ws, np.float32)
    with pytest.raises(RuntimeError) as theirs:
        torch.convolution(torch.from_numpy(x), torch.from_numpy(w), None, *args)
    assert str(theirs.value).split("\n")[0] == message
    # (Checks before the call name the op; data checks after it do not.)
    with pytest.raises(RuntimeError, match="^(aten::convolution: )?" + re.escape(message)):
        A.convolution(opal.tensor(x), opal.tensor(w), None, *args)


UNCHECKED_READS = [case for case in ERRORS if case[1][2:] == (1, 1) and case[2] in ([1], [2])
                   and case[5] is False]


@pytest.mark.parametrize("case", UNCHECKED_READS, ids=lambda c: "x".join(map(str, c[0])))
def test_unchecked_column_reads_raise_in_their_own_process(case):
    # An unpadded 1x1/2 convolution reads its columns without bounds checks
    # (a channel past the input's clamped; no channel at all read from
    # zeros), a pointwise one (1x1/1) the channels both have: each bad case
    # alone in a process, which must end with the error, not a crash.
    xs, ws, *args, message = case
    script = (
        "import opal\n"
        f"try:\n    opal.ops.aten.convolution(opal.ones(*{xs!r}), opal.ones(*{ws!r}), None, "
        f"*{args!r})\n"
        "except RuntimeError as error:\n    print(str(error).splitlines()[0])\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith(message)


def test_dtypes_as_pytorch_cpu_kernels():
    x, w = np.ones((1, 2, 4, 4)), np.ones((3, 2, 2, 2))
    with pytest.raises(RuntimeError, match="\"slow_conv2d_cpu\" not implemented for 'Half'"):
        A.conv2d(opal.tensor(x.astype(np.float16)), opal.tensor(w.astype(np.float16)))
    with pytest.raises(RuntimeError,
                       match="\"slow_conv_transpose2d_out_cpu\" not implemented for 'Int'"):
        A.conv_transpose2d.input(opal.tensor(x.astype(np.int32)),
                                 opal.tensor(np.ones((2, 3, 2, 2), np.int32)))
    got = A.conv2d(opal.tensor(x.astype(np.int32)), opal.tensor(w.astype(np.int32)))
    assert got.dtype == opal.int32 and got.numpy().tolist() == [[[[8] * 3] * 3] * 3]


def test_a_transposed_convolution_with_an_empty_output_dim_raises():
    # Every data check's result reaches its own word: the output-size check
    # (the last of four) was lost when another check's word was copied over
    # the buffer it had been computed in.
    for x, w in (((2, 9, 2, 6), (9, 2, 3, 3)), ((2, 9, 5, 6), (9, 2, 3, 3))):
        args = (None, [1, 2], [2, 2], [1, 1], True, [0, 0], 1)
        try:
            want = tuple(torch.ops.aten.convolution(torch.ones(x), torch.ones(w), *args).shape)
        except RuntimeError as error:
            with pytest.raises(RuntimeError) as ours:
                opal.ops.aten.convolution(opal.ones(*x), opal.ones(*w), *args)
            assert str(error).splitlines()[0] in str(ours.value)
            assert "Calculated output size per channel: (0 x 9)" in str(ours.value)
        else:
            assert opal.ops.aten.convolution(opal.ones(*x), opal.ones(*w), *args).shape == want


def test_an_input_of_no_channels_gives_no_channels():
    """PyTorch's empty convolution: an input of 0 channels (a weight of 0
    channels per group) gives an output of 0 channels whatever the weight's
    count of filters, bias or none, over 1 to 3 spatial dims; the kernel is
    specialized on that size 0, so a call with channels afterwards gets the
    filters' output again, and so do meta tensors."""
    cases = [((2, 0, 5), (4, 0, 3), 1, False), ((2, 0, 5, 5), (4, 0, 3, 3), 1, True),
             ((2, 0, 5, 5), (4, 0, 3, 3), 2, True), ((1, 0, 4, 5, 5), (3, 0, 2, 3, 3), 1, False),
             ((0, 0, 5, 5), (4, 0, 3, 3), 1, True)]
    for xs, ws, groups, bias in cases:
        spatial = len(xs) - 2
        args = ([2] * spatial, [1] * spatial, [1] * spatial, False, [0] * spatial, groups)
        want = torch.ops.aten.convolution(torch.ones(xs), torch.ones(ws),
                                          torch.ones(ws[0]) if bias else None, *args)
        got = A.convolution(opal.ones(*xs), opal.ones(*ws), opal.ones(ws[0]) if bias else None,
                            *args)
        assert got.shape == tuple(want.shape), (xs, ws)
        meta = A.convolution(opal.empty(*xs, device="meta"), opal.empty(*ws, device="meta"),
                             opal.empty(ws[0], device="meta") if bias else None, *args)
        assert meta.shape == tuple(want.shape), (xs, ws)
    # conv1d/2d/3d key their input's channels too: batched (a view read
    # from a copy) and unbatched.
    view = opal.ones(2, 5, 0, 5).transpose(1, 2)
    assert A.conv2d(view, opal.ones(4, 0, 3, 3)).shape == (2, 0, 3, 3)
    assert A.conv2d(opal.ones(0, 5, 5), opal.ones(4, 0, 3, 3), opal.ones(4)).shape == (0, 3, 3)
    assert A.conv1d(opal.ones(3, 0, 6), opal.ones(2, 0, 2), None, [2]).shape == (3, 0, 3)
    assert tuple(torch.conv2d(torch.ones(0, 5, 5), torch.ones(4, 0, 3, 3))
                 .shape) == (0, 3, 3)
    # Its gradients: empty for the input and weight, zeros for the bias.
    x, w, b = opal.ones(2, 0, 5, 5), opal.ones(4, 0, 3, 3), opal.ones(4)
    for t in (x, w, b):
        t.requires_grad_(True)
    A.conv2d(x, w, b).sum().backward()
    assert x.grad.shape == (2, 0, 5, 5) and w.grad.shape == (4, 0, 3, 3)
    assert b.grad.numpy().tolist() == [0.0] * 4
    # The same shapes but for the channels: the filters' sums, with the bias.
    x, w = torch.randn(2, 3, 5, 5), torch.randn(4, 3, 3, 3)
    want = torch.conv2d(x, w, torch.ones(4), 2, 1)
    got = A.conv2d(opal.tensor(x.numpy()), opal.tensor(w.numpy()), opal.ones(4), [2, 2], [1, 1])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
