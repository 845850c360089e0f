"""col2im, grid_sampler_2d and _embedding_bag against PyTorch 1.13: every
mode and padding, dtypes, empty inputs, extreme grids, PyTorch's outputs
per mode (offset2bag, bag_size, max_indices) and its errors."""

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the reference")
A = opal.ops.aten
T = torch.ops.aten


def to_opal(t):
    return None if t is None else opal.tensor(t.numpy())


def assert_same(got, want, rtol=1e-6, atol=1e-6):
    want = want.numpy()
    assert got.shape == want.shape and got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)


# col2im: (input shape, output_size, kernel, dilation, padding, stride)
COL2IM = [((2, 12, 6), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1]),
          ((12, 6), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1]),
          ((2, 27, 16), [8, 8], [3, 3], [1, 1], [1, 1], [2, 2]),
          ((2, 27, 16), [7, 8], [3, 3], [1, 1], [1, 1], [2, 2]),
          ((1, 12, 20), [9, 10], [2, 3], [2, 1], [1, 0], [2, 2]),
          ((0, 12, 6), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1]),
          ((1, 4, 4), [1, 1], [2, 2], [1, 1], [1, 1], [1, 1])]


@pytest.mark.parametrize("case", COL2IM, ids=[str(c[0]) + str(c[1]) for c in COL2IM])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_col2im(case, dtype):
    shape, *args = case
    x = torch.randn(shape, dtype=dtype)
    assert_same(A.col2im(to_opal(x), *args), T.col2im(x, *args))


def test_col2im_sums_overlaps_and_takes_single_ints():
    got = A.col2im(opal.ones(1, 4, 4), [3, 3], 2, 1, 0, 1)
    np.testing.assert_array_equal(got.numpy()[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


@pytest.mark.parametrize("args, message", [
    (([4, 5], [2, 2], [1, 1], [0, 0], [1, 1]),
     "Given output_size=(4, 5), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
     "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
     "sliding blocks 3 * 4 = 12, but got input.size(2)=6."),
    (([3, 4], [0, 2], [1, 1], [0, 0], [1, 1]),
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 2"),
    (([3, 4], [2, 2], [1, 1], [0, 0], [0, 1]),
     "stride should be greater than zero, but got stride_height: 0 stride_width: 1"),
    (([3, 4], [2, 2], [1, 1], [-1, 0], [1, 1]),
     "padding should be non-negative, but got pad_height: -1 pad_width: 0"),
    (([3, 4, 1], [2, 2], [1, 1], [0, 0], [1, 1]),
     "It is expected output_size equals to 2, but got size 3"),
])
def test_col2im_errors(args, message):
    with pytest.raises(RuntimeError) as opal_error:
        A.col2im(opal.zeros(2, 12, 6), *args)
    with pytest.raises(RuntimeError) as torch_error:
        T.col2im(torch.zeros(2, 12, 6), *args)
    assert message in str(opal_error.value) and message in str(torch_error.value)


def test_col2im_needs_divisible_planes_and_blocks():
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size, but got "
                                           r"input.size\(1\)=10 and kernel_size=\(2, 2\)"):
        A.col2im(opal.zeros(2, 10, 6), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1])
    with pytest.raises(RuntimeError, match="Expected output spatial size to be positive"):
        A.col2im(opal.zeros(1, 4, 1), [0, 0], [2, 2], [1, 1], [1, 1], [1, 1])
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        A.col2im(opal.zeros(2, 12, 0), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1])
    with pytest.raises(RuntimeError, match="\"col2im_out_cpu\" not implemented for 'Long'"):
        A.col2im(opal.zeros(2, 12, 6, dtype=opal.int64), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1])


@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_grid_sampler_2d(interpolation, padding, align_corners, dtype):
    gen = torch.Generator().manual_seed(interpolation * 6 + padding * 2 + align_corners)
    for h, w in ((4, 5), (1, 1), (1, 3), (7, 2)):
        x = torch.randn(2, 3, h, w, generator=gen, dtype=dtype)
        # Points inside and well outside [-1, 1].
        grid = torch.rand(2, 5, 6, 2, generator=gen, dtype=dtype) * 3.2 - 1.6
        assert_same(A.grid_sampler_2d(to_opal(x), to_opal(grid), interpolation, padding,
                                      align_corners),
                    T.grid_sampler_2d(x, grid, interpolation, padding, align_corners),
                    rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_2d_extreme_points(interpolation, padding):
    x = torch.randn(1, 2, 3, 4)
    inf, nan = float("inf"), float("nan")
    grid = torch.tensor([[[[nan, 0.0], [inf, 1.0], [-inf, 3e9], [1e30, -1e30]]]])
    got = A.grid_sampler_2d(to_opal(x), to_opal(grid), interpolation, padding, False).numpy()
    want = T.grid_sampler_2d(x, grid, interpolation, padding, False).numpy()
    np.testing.assert_allclose(got, want, atol=1e-6, equal_nan=True)


def test_grid_sampler_2d_empty_and_errors():
    for shape, grid in (((0, 2, 3, 4), (0, 5, 6, 2)), ((2, 0, 3, 4), (2, 5, 6, 2)),
                        ((2, 2, 3, 4), (2, 0, 6, 2))):
        got = A.grid_sampler_2d(opal.zeros(*shape), opal.zeros(*grid), 0, 0, False)
        assert got.shape == tuple(T.grid_sampler_2d(torch.zeros(shape), torch.zeros(grid), 0, 0,
                                                    False).shape)
    bad = [((2, 3, 4, 5), (1, 6, 7, 2), "expected grid and input to have same batch size, but "
            "got input with sizes [2, 3, 4, 5] and grid with sizes [1, 6, 7, 2]"),
           ((2, 3, 4, 5), (2, 6, 7, 1), "expected grid to have size 2 in last dimension"),
           ((2, 3, 0, 5), (2, 6, 7, 2), "with dimension 2 being empty")]
    for shape, grid, message in bad:
        with pytest.raises(RuntimeError) as error:
            A.grid_sampler_2d(opal.zeros(*shape), opal.zeros(*grid), 0, 0, False)
        assert message in str(error.value)
    with pytest.raises(RuntimeError, match="grid_sampler_2d_cpu not implemented for Half"):
        A.grid_sampler_2d(opal.zeros(1, 1, 2, 2, dtype=opal.float16),
                          opal.zeros(1, 1, 1, 2, dtype=opal.float16), 0, 0, False)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        A.grid_sampler_2d(opal.zeros(1, 1, 2, 2), opal.zeros(1, 1, 1, 2, dtype=opal.float64),
                          0, 0, False)
    # PyTorch 1.13 returns uninitialized memory for modes it does not know.
    with pytest.raises(RuntimeError, match="interpolation_mode must be 0 .bilinear., 1 "
                                           ".nearest. or 2 .bicubic., but got 3"):
        A.grid_sampler_2d(opal.zeros(1, 1, 2, 2), opal.zeros(1, 1, 1, 2), 3, 0, False)


INDICES = [1, 2, 4, 5, 4, 3, 2, 0]


def embedding_bag_both(weight, indices, offsets, mode=0, weights=None, last=False, pad=-1):
    got = A._embedding_bag(to_opal(weight), to_opal(indices), to_opal(offsets), False, mode,
                           False, to_opal(weights), last, pad)
    want = T._embedding_bag(weight, indices, offsets, False, mode, False, weights, last, pad)
    return got, want


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("pad", [-1, 4, 2])
@pytest.mark.parametrize("dtypes", [(torch.float32, torch.int64, torch.int64),
                                    (torch.float64, torch.int64, torch.int64),
                                    (torch.float32, torch.int32, torch.int32),
                                    (torch.float32, torch.int32, torch.int64)])
@pytest.mark.parametrize("offsets, last", [([0, 2, 2, 5], False), ([0, 2, 5, 8], True),
                                           ([0, 8, 8], False), ([0], False)])
def test_embedding_bag(mode, pad, dtypes, offsets, last):
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(mode),
                         dtype=dtypes[0])
    got, want = embedding_bag_both(weight, torch.tensor(INDICES, dtype=dtypes[1]),
                                   torch.tensor(offsets, dtype=dtypes[2]), mode, last=last,
                                   pad=pad)
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-6, atol=1e-6)


def test_embedding_bag_per_sample_weights_half_and_empty():
    weight = torch.randn(6, 3)
    got, want = embedding_bag_both(weight, torch.tensor(INDICES), torch.tensor([0, 2, 5]),
                                   weights=torch.randn(8))
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-5, atol=1e-6)
    got, want = embedding_bag_both(weight.half(), torch.tensor(INDICES), torch.tensor([0, 3]), 1)
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-3, atol=1e-3)
    # No indices: empty bags are zero; no bags: an empty output.
    for indices, offsets, mode in (([], [0, 0], 2), (INDICES, [], 0)):
        got, want = embedding_bag_both(weight, torch.tensor(indices, dtype=torch.long),
                                       torch.tensor(offsets, dtype=torch.long), mode)
        for g, w in zip(got, want):
            assert_same(g, w)


@pytest.mark.parametrize("indices, offsets, message", [
    (INDICES, [1, 2], "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                      "start from position 0. However, got 1"),
    (INDICES, [0, 9], "offsets[-1] can not be greater than input's length 8 but got offsets[-1] "
                      "of 9"),
    ([1, 2, 7, -1], [0, 2], "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                            "idx to be 7"),
])
def test_embedding_bag_data_errors(indices, offsets, message):
    with pytest.raises(RuntimeError) as error:
        A._embedding_bag(opal.ones(6, 2), opal.tensor(np.array(indices)),
                         opal.tensor(np.array(offsets)), False, 2, False, None, False, -1)
    assert message in str(error.value)
    with pytest.raises(RuntimeError) as torch_error:
        T._embedding_bag(torch.ones(6, 2), torch.tensor(indices), torch.tensor(offsets), False,
                         2, False, None, False, -1)
    assert message in str(torch_error.value)


def test_embedding_bag_argument_errors():
    w, idx, off = opal.ones(6, 2), opal.tensor(np.array(INDICES)), opal.tensor(np.array([0, 2]))
    cases = [
        ((w, idx, off, False, 1, False, opal.ones(8), False, -1),
         "embedding_bag: per_sample_weights only supported with mode='sum'"),
        ((w, idx, off, False, 0, False, opal.ones(7), False, -1),
         "Expected per_sample_weights.value().numel() == indices.numel() to be true"),
        ((w, idx, opal.zeros(0, dtype=opal.int64), False, 0, False, None, True, -1),
         "include_last_offset: number of offset should be at least 1"),
        ((w, opal.tensor(np.array(INDICES, np.float32)), off, False, 0, False, None, False, -1),
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
         "Long, Int; but got torch.FloatTensor instead"),
        ((opal.ones(6, 2, dtype=opal.int64), idx, off, False, 0, False, None, False, -1),
         "'weight' to have one of the following scalar types: Half, Float, Double; but got "
         "torch.LongTensor instead"),
        # Where PyTorch 1.13 crashes or computes garbage, opal raises.
        ((w, idx, off, False, 3, False, None, False, -1),
         "opal takes mode 0 (sum), 1 (mean) or 2 (max) for _embedding_bag, but got 3"),
        ((w, idx, opal.tensor(np.array([0, 5, 2])), False, 0, False, None, False, -1),
         "opal takes non-decreasing offsets for _embedding_bag, but an offset of 2 follows a "
         "larger one"),
    ]
    for args, message in cases:
        with pytest.raises(RuntimeError) as error:
            A._embedding_bag(*args)
        assert message in str(error.value)
