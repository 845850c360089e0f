"""Pooling against PyTorch 1.13: average pooling (avg_pool2d/3d,
adaptive_avg_pool2d/3d) with padding, ceil mode, count_include_pad,
divisor_override, int64 inputs and adaptive windows that overlap or repeat;
max pooling over 3 spatial dims (values and indices); bilinear upsampling;
PyTorch's errors."""

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the reference")
A = opal.ops.aten


@pytest.mark.parametrize("args", [([2, 2],), ([3, 3], [2, 2], [1, 1]),
                                  ([3, 2], [2, 1], [1, 0], True),
                                  ([3, 3], [2, 2], [1, 1], True, False),
                                  ([2, 2], [], [0], False, True, 3), ([3], [1], [1])])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 5)])
def test_avg_pool2d(args, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    got = A.avg_pool2d(opal.tensor(x), *args)
    want = torch.ops.aten.avg_pool2d(torch.from_numpy(x), *args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def test_avg_pool2d_of_integers_truncates():
    x = np.arange(32).reshape(1, 2, 4, 4)
    got = A.avg_pool2d(opal.tensor(x), [3, 3], [1, 1], [1, 1])
    want = torch.ops.aten.avg_pool2d(torch.from_numpy(x), [3, 3], [1, 1], [1, 1])
    assert got.dtype == opal.int64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("size", [[1, 1], [3, 4], [7, 6], [10, 9], [0, 2]])
def test_adaptive_avg_pool2d(size):
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 6)).astype(np.float32)
    got = A.adaptive_avg_pool2d(opal.tensor(x), size)
    want = torch.ops.aten.adaptive_avg_pool2d(torch.from_numpy(x), size)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def test_errors():
    for call, message in [
            (lambda: A.avg_pool2d(opal.ones(1, 1, 2, 2), [3, 3]),
             "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too "
             "small"),
            (lambda: A.avg_pool2d(opal.ones(1, 1, 4, 4), [3, 3], [], [2, 2]),
             "aten::avg_pool2d: pad should be at most half of effective kernel size, but got "
             "pad=2, kernel_size=3 and dilation=1"),
            (lambda: A.avg_pool2d(opal.ones(1, 1, 4, 4, dtype=opal.int32), [2, 2]),
             "aten::avg_pool2d: \"avg_pool2d\" not implemented for 'Int'"),
            (lambda: A.avg_pool2d(opal.ones(1, 1, 4, 4), [2, 2], [2, 2], [0, 0], False, True, 0),
             "aten::avg_pool2d: divisor must be not zero"),
            (lambda: A.adaptive_avg_pool2d(opal.ones(1, 1, 4, 4), [-1, 3]),
             "aten::adaptive_avg_pool2d: in aten::_adaptive_avg_pool2d: adaptive_avg_pool2d: "
             "elements of output_size must be greater than or equal to 0 but received {-1, 3}"),
            (lambda: A.adaptive_avg_pool2d(opal.ones(4, 4), [3, 3]),
             "aten::adaptive_avg_pool2d: in aten::_adaptive_avg_pool2d: adaptive_avg_pool2d(): "
             "Expected 3D or 4D tensor, but got [4, 4]")]:
        with pytest.raises(RuntimeError) as error:
            call()
        assert str(error.value) == message


@pytest.mark.parametrize("args", [([3, 3], [2, 2], [1, 1], [1, 1], True),
                                  ([2, 2], [2, 2], [0, 0], [1, 1], True),
                                  ([3, 2], [2, 3], [1, 1], [2, 1], True)])
def test_max_pool2d_ceil_mode(args):
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 6)).astype(np.float32)
    values, indices = A.max_pool2d_with_indices(opal.tensor(x), *args)
    want = torch.ops.aten.max_pool2d_with_indices(torch.from_numpy(x), *args)
    np.testing.assert_array_equal(values.numpy(), want[0].numpy())
    np.testing.assert_array_equal(indices.numpy(), want[1].numpy())


def pooling_case(rng, spatial):
    """A max pooling's arguments of `spatial` dims: kernel, stride, padding
    (at most half the kernel, as PyTorch's max_pool2d requires), dilation,
    ceil mode, and an input shape whose windows fit."""
    kernel = [int(rng.integers(1, 4)) for _ in range(spatial)]
    stride = [int(rng.integers(1, 4)) for _ in range(spatial)]
    dilation = [int(rng.integers(1, 3)) for _ in range(spatial)]
    padding = [int(rng.integers(0, k // 2 + 1)) for k in kernel]
    sizes = [int(rng.integers((k - 1) * d + 1, 12)) for k, d in zip(kernel, dilation)]
    batch = [int(rng.integers(1, 3))] if rng.random() < 0.7 else []
    return batch + [int(rng.integers(1, 4))] + sizes, \
        (kernel, stride, padding, dilation, bool(rng.random() < 0.5))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8"])
@pytest.mark.parametrize("spatial", [2, 3])
def test_max_pool_values_alone_match_pytorch(spatial, dtype):
    # max_pool2d/3d (no indices): the input padded with the smallest
    # value, the output loops innermost. Random kernels, strides, padding,
    # dilation and ceil mode; NaN wins its windows, as in PyTorch.
    rng = np.random.default_rng(spatial * 10 + len(dtype))
    op = {2: "max_pool2d", 3: "max_pool3d"}[spatial]
    for _ in range(6):
        shape, args = pooling_case(rng, spatial)
        x = rng.standard_normal(shape) * 50
        if dtype.startswith("float"):
            x.flat[rng.integers(0, x.size, 2)] = np.nan
        x = x.astype(dtype) if dtype.startswith("float") else \
            np.clip(x, -100, 100).astype(dtype) if dtype != "uint8" else np.abs(x).astype(dtype)
        try:
            want = getattr(torch, op)(torch.from_numpy(x), *args).numpy()
        except RuntimeError as error:  # (dtypes PyTorch's CPU kernels lack)
            with pytest.raises(RuntimeError):
                getattr(A, op)(opal.tensor(x), *args)
            assert "not implemented" in str(error)
            continue
        got = getattr(A, op)(opal.tensor(x), *args).numpy()
        np.testing.assert_array_equal(got, want, err_msg=f"{shape} {args}")


@pytest.mark.parametrize("args", [([4, 5],), ([3, 7], -1.0, None), ([1, 2],), ([6, 6],)])
def test_upsample_nearest2d(args):
    x = np.random.default_rng(4).standard_normal((2, 3, 2, 3)).astype(np.float32)
    got = A.upsample_nearest2d(opal.tensor(x), *args)
    want = torch.ops.aten.upsample_nearest2d(torch.from_numpy(x), *args)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("size,factors", [([5, 4], None), (None, [1.7, 2.5]), (None, [0.5, 2.0])])
def test_upsample_nearest2d_vec(size, factors):
    x = np.random.default_rng(5).standard_normal((1, 2, 4, 3)).astype(np.float32)
    got = A.upsample_nearest2d.vec(opal.tensor(x), size, factors)
    want = torch.ops.aten.upsample_nearest2d.vec(torch.from_numpy(x), size, factors)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(RuntimeError) as error:
        A.upsample_nearest2d.vec(opal.tensor(x), None, None)
    assert str(error.value) == ("aten::upsample_nearest2d.vec: Must specify exactly one of "
                                "output_size and scale_factors")


def test_one_dimensional_pools_are_the_two_dimensional_ones_over_a_row():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((2, 3, 9)).astype(np.float32)
    for args in ([3], [3, [2], [1], True, False], [2, [], [0], False, True]):
        want = torch.ops.aten.avg_pool1d(torch.from_numpy(x), *args).numpy()
        np.testing.assert_allclose(opal.ops.aten.avg_pool1d(opal.tensor(x), *args).numpy(), want,
                                   rtol=1e-6)
    for size in (1, 4, 9, 12):
        want = torch.ops.aten.adaptive_avg_pool1d(torch.from_numpy(x), [size]).numpy()
        got = opal.ops.aten.adaptive_avg_pool1d(opal.tensor(x[0]), [size]).numpy()
        np.testing.assert_allclose(got, want[0], rtol=1e-6)
    # An output of 1 x 1 is a mean: an empty row gives NaN, as in PyTorch.
    got = opal.ops.aten.adaptive_avg_pool1d(opal.ones(2, 0), [1]).numpy()
    assert got.shape == (2, 1) and np.isnan(got).all()
    with pytest.raises(RuntimeError) as error:
        opal.ops.aten.avg_pool1d(opal.ones(5), [2])
    assert str(error.value).endswith(
        "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' "
        "(while checking arguments for avg_pool1d)")


@pytest.mark.parametrize("args", [([2, 2, 2],), ([3], [2], [1]), ([3, 2, 3], [1, 2, 2], [1, 0, 1], [2, 1, 1]),
                                  ([2, 3, 2], [2], [1], [1], True)])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 5, 6, 4)])
def test_max_pool3d_values_and_indices(args, shape):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    values, indices = A.max_pool3d_with_indices(opal.tensor(x), *args)
    want_values, want_indices = torch.ops.aten.max_pool3d_with_indices(torch.from_numpy(x), *args)
    np.testing.assert_array_equal(values.numpy(), want_values.numpy())
    assert indices.dtype == opal.int64
    np.testing.assert_array_equal(indices.numpy(), want_indices.numpy())
    np.testing.assert_array_equal(A.max_pool3d(opal.tensor(x), *args).numpy(), want_values.numpy())


@pytest.mark.parametrize("args", [([2, 2, 2],), ([3, 3, 3], [2], [1]),
                                  ([3, 2, 3], [2, 1, 2], [1, 0, 1], True, False),
                                  ([2, 2, 2], [], [0], False, True, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_avg_pool3d(args, dtype):
    x = (np.random.default_rng(3).standard_normal((2, 3, 5, 6, 7)) * 10).astype(dtype)
    got = A.avg_pool3d(opal.tensor(x), *args)
    want = torch.ops.aten.avg_pool3d(torch.from_numpy(x), *args)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("size", [[1, 1, 1], [2, 3, 4], [5, 7, 9], [0, 2, 2]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_adaptive_avg_pool3d(size, dtype):
    x = np.random.default_rng(4).standard_normal((2, 3, 5, 6, 7)).astype(dtype)
    for op in ("adaptive_avg_pool3d", "_adaptive_avg_pool3d"):
        got = getattr(A, op)(opal.tensor(x), size)
        want = getattr(torch.ops.aten, op)(torch.from_numpy(x), size)
        assert got.shape == tuple(want.shape)
        tolerance = 2e-3 if dtype == np.float16 else 1e-6
        np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64),
                                   rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("op,dtype,args,message", [
    ("max_pool3d_with_indices", "float32", ([2, 2],),
     "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    ("max_pool3d_with_indices", "float32", ([2], [], [-1]), "pad must be non-negative, but got pad: -1"),
    ("max_pool3d_with_indices", "float32", ([2], [], [2]),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and "
     "dilation=1"),
    ("max_pool3d_with_indices", "float32", ([3], [], [2], [2]),
     "pad should be smaller than or equal to half of kernel size, but got kT: 3 kW: 3 kH: 3 "
     "padT: 2 padW: 2 padH: 2"),
    ("max_pool3d_with_indices", "float32", ([2], [-1]),
     "stride should be greater than zero, but got dT: -1 dH: -1 dW: -1"),
    ("max_pool3d_with_indices", "float32", ([6, 2, 2],),
     "Given input size: (3x5x6x7). Calculated output size: (3x0x3x3). Output size is too small"),
    ("max_pool3d_with_indices", "float32", ([3, 1, 1], [1], [0], [3]),
     "Given input size: (3x5x6x7). Calculated output size: (3x-1x6x7). Output size is too small"),
    ("max_pool3d_with_indices", "bool", ([2],), "\"max_pool3d\" not implemented for 'Bool'"),
    ("avg_pool3d", "float32", ([6, 2, 2],),
     "input image (T: 5 H: 6 W: 7) smaller than kernel size (kT: 6 kH: 2 kW: 2)"),
    ("avg_pool3d", "float32", ([2], [], [0], False, True, 0), "divisor must be not zero"),
    ("avg_pool3d", "bool", ([2],), "\"avg_pool3d_out_frame\" not implemented for 'Bool'"),
    ("_adaptive_avg_pool3d", "float32", ([2, 2],), "adaptive_avg_pool3d: output_size must be 3"),
    ("_adaptive_avg_pool3d", "int64", ([2, 2, 2],),
     "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'"),
])
def test_pool3d_errors_are_pytorchs(op, dtype, args, message):
    x = np.zeros((2, 3, 5, 6, 7), dtype)
    with pytest.raises(RuntimeError) as ours:
        getattr(A, op)(opal.tensor(x), *args)
    assert message in str(ours.value)
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.ops.aten, op)(torch.from_numpy(x), *args)
    assert message in str(theirs.value)


@pytest.mark.parametrize("args", [([10, 14], False), ([10, 14], True), ([3, 4], False),
                                  ([1, 1], True), ([7, 9], False, 2.5, 1.5), ([7, 9], False, -1.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_upsample_bilinear2d(args, dtype):
    x = np.random.default_rng(5).standard_normal((2, 3, 5, 7)).astype(dtype)
    got = A.upsample_bilinear2d(opal.tensor(x), *args)
    want = torch.ops.aten.upsample_bilinear2d(torch.from_numpy(x), *args)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [(None, False, [2.0, 1.5]), (None, True, [0.7, 3.0]),
                                  ([4, 4], True, None), (None, False, [2.3, 1.7])])
def test_upsample_bilinear2d_vec(args):
    x = np.arange(2 * 3 * 5 * 7, dtype=np.float64).reshape(2, 3, 5, 7) % 11
    got = A.upsample_bilinear2d.vec(opal.tensor(x), *args)
    want = torch.ops.aten.upsample_bilinear2d.vec(torch.from_numpy(x), *args)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,dtype,args,message", [
    ((2, 3, 4, 5), "float32", ([6, 7], False, [2.0, 2.0]),
     "Must specify exactly one of output_size and scale_factors"),
    ((3, 4, 5), "float32", ([6, 7], False, None),
     "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions"),
    ((2, 3, 4, 5), "float32", ([0, 3], True, None),
     "Input and output sizes should be greater than 0, but got input (H: 4, W: 5) output (H: 0, W: 3)"),
    ((2, 3, 4, 5), "float32", (None, True, [0.1, 2.0]),
     "Input and output sizes should be greater than 0, but got input (H: 4, W: 5) output (H: 0, W: 10)"),
    ((2, 0, 3, 3), "float32", ([2, 3], True, None),
     "Non-empty 4D data tensor expected but got a tensor with sizes [2, 0, 3, 3]"),
    ((2, 3, 4, 5), "bool", ([6, 7], False, None),
     "\"upsample_bilinear2d_channels_last\" not implemented for 'Bool'"),
    ((2, 3, 4, 5), "int64", ([6, 7], False, None),
     "\"upsample_bilinear2d_channels_last\" not implemented for 'Long'"),
])
def test_upsample_bilinear2d_errors_are_pytorchs(shape, dtype, args, message):
    x = np.zeros(shape, dtype)
    with pytest.raises(RuntimeError) as ours:
        A.upsample_bilinear2d.vec(opal.tensor(x), *args)
    assert message in str(ours.value)
    with pytest.raises(RuntimeError) as theirs:
        torch.ops.aten.upsample_bilinear2d.vec(torch.from_numpy(x), *args)
    assert message in str(theirs.value)


def _message(call):
    try:
        call()
    except RuntimeError as error:
        return str(error).split("  (Could this error message")[0]
    return None


def test_backward_errors_match_pytorch():
    """The average pools' and group norm's backward ops raise where PyTorch
    raises, with its words (after opal's "aten::op: " prefix; checks of
    computed sizes, made as the kernel runs, have none)."""
    T = torch.ops.aten
    rng = np.random.default_rng(6)

    def pair(*arrays):
        return [opal.tensor(a) for a in arrays], [torch.from_numpy(a) for a in arrays]

    x = rng.standard_normal((2, 3, 7, 6))
    g = rng.standard_normal((2, 3, 4, 4))
    pool = ([3, 2], [2, 2], [1, 1], True, False, None)
    x5 = rng.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    cases = [
        ("avg_pool2d_backward", (g[:, :, :3], x) + pool),
        ("avg_pool2d_backward", (g[0], x) + pool),
        ("avg_pool2d_backward", (g[0, 0], x) + pool),
        ("avg_pool2d_backward", (g.astype(np.float32), x) + pool),
        ("avg_pool2d_backward", (g.astype(np.int32), x.astype(np.int32)) + pool),
        ("avg_pool2d_backward", (g, x, [3, 2], [], [1, 1], True, False, None)),
        ("avg_pool3d_backward", (np.ones((2, 3, 3, 3, 3), np.float32), x5, [2, 2, 2], [2, 2, 2],
                                 [1, 1, 1], False, True, None)),
        ("avg_pool3d_backward", (np.ones((3, 3, 4, 2), np.float32), x5, [2, 2, 2], [2, 2, 2],
                                 [1, 1, 1], False, True, None)),
        ("avg_pool3d_backward", (np.ones((2, 3, 3, 3, 4)), x5, [2, 2, 2], [2, 2, 2], [1, 1, 1],
                                 False, True, None)),
        ("_adaptive_avg_pool2d_backward", (np.ones((2, 3, 2, 2), np.int64), x.astype(np.int64))),
        ("_adaptive_avg_pool2d_backward", (np.ones((2, 3, 0, 2)), x)),
        ("_adaptive_avg_pool2d_backward", (np.ones((2, 3, 2, 2), np.float32), x)),
        ("_adaptive_avg_pool2d_backward", (np.ones((3, 4)), x)),
        ("_adaptive_avg_pool2d_backward", (np.ones((2, 3, 2, 2), np.int32),
                                           x.astype(np.int32))),
        ("_adaptive_avg_pool2d_backward", (np.ones((2, 3, 2, 2)), x[0])),
        ("_adaptive_avg_pool3d_backward", (np.ones((2, 3, 2, 2, 2), np.int64),
                                           x5.astype(np.int64))),
        ("_adaptive_avg_pool3d_backward", (np.ones((2, 3, 2, 2, 2)), x5)),
    ]
    n, c, hxw, group = 2, 6, 12, 3
    xg, w = rng.standard_normal((n, c, 3, 4)), rng.standard_normal(c)
    mean, rstd = (t.numpy() for t in T.native_group_norm(torch.from_numpy(xg), None, None, n,
                                                          c, hxw, group, 1e-5)[1:])
    gg = rng.standard_normal(xg.shape)
    mask = [True, True, True]
    cases += [
        ("native_group_norm_backward", (gg, xg, mean, rstd, w, n, c, hxw, 4, mask)),
        ("native_group_norm_backward", (gg[0, 0, 0], xg, mean, rstd, w, n, c, hxw, group, mask)),
        ("native_group_norm_backward", (gg, xg, mean[:1], rstd, w, n, c, hxw, group, mask)),
        ("native_group_norm_backward", (gg, xg, mean, rstd, w[:2], n, c, hxw, group, mask)),
        ("native_group_norm_backward", (gg.astype(np.float32), xg, mean, rstd, w, n, c, hxw,
                                        group, mask)),
        ("native_group_norm_backward", (gg, xg, mean, rstd, w, n, c, 5, group, mask)),
    ]
    for name, args in cases:
        ours = [opal.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        theirs = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
        want = _message(lambda: getattr(T, name)(*theirs))
        assert want is not None, name
        got = _message(lambda: getattr(A, name)(*ours))
        assert got is not None, name
        got = got.removeprefix(f"aten::{name}: ").replace(" (argument 'grad_output')", "")
        assert got == want, (name, got, want)


def test_backward_errors_where_pytorch_reads_out_of_bounds():
    """PyTorch reads past its tensors for these (garbage, a crash or a
    corrupted heap); opal refuses them."""
    x = opal.ones(2, 3, 7, 6)
    for call, message in [
            (lambda: A._adaptive_avg_pool2d_backward(opal.ones(3, 4, 2, 2), x),
             "aten::_adaptive_avg_pool2d_backward: adaptive_avg_pool2d_backward(): expected "
             "grad_output with the rank, batch and channel sizes of input [2, 3, 7, 6], but got "
             "grad_output of shape [3, 4, 2, 2] (arguments 'grad_output' and 'self')"),
            (lambda: A._adaptive_avg_pool2d_backward(opal.ones(0, 3, 2, 2), x),
             "aten::_adaptive_avg_pool2d_backward: adaptive_avg_pool2d_backward(): expected "
             "grad_output with the rank, batch and channel sizes of input [2, 3, 7, 6], but got "
             "grad_output of shape [0, 3, 2, 2] (arguments 'grad_output' and 'self')"),
            (lambda: A._adaptive_avg_pool3d_backward(opal.ones(2, 3, 2, 2), opal.ones(2, 3, 4, 5, 6)),
             "aten::_adaptive_avg_pool3d_backward: adaptive_avg_pool3d_backward(): expected "
             "grad_output with the rank, batch and channel sizes of input [2, 3, 4, 5, 6], but "
             "got grad_output of shape [2, 3, 2, 2]"),
            (lambda: A.native_group_norm_backward(
                opal.ones(2, 6, 4), opal.ones(2, 6, 4), opal.ones(8), opal.ones(8), None, 2, 6, 4,
                4, [True, True, True]),
             "aten::native_group_norm_backward: Expected group > 0 && C % group == 0 to be true, "
             "but got false.")]:
        assert _message(call) == message
