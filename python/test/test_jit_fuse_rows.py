"""Row-wise composites (softmax, log_softmax, layer_norm, a user's rms_norm)
run one row at a time (opal-fuse-rows): the same numbers as PyTorch or
numpy for many shapes, with large calls split over threads, views,
empty and single-row tensors."""

import numpy as np
import pytest

import opal

A = opal.ops.aten
torch = pytest.importorskip("torch")
rng = np.random.default_rng(11)

SHAPES = [(1, 1), (3, 1), (1, 17), (5, 7), (4, 6, 33), (2, 3, 4, 5), (0, 8), (8, 0),
          (1024, 300),   # split over threads
          (3, 131072)]   # long rows


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_and_log_softmax_over_the_last_dim(shape, dtype):
    x = rng.uniform(-8, 8, shape).astype(dtype)
    t = torch.from_numpy(x)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(A.softmax.int(opal.tensor(x), -1)),
                               torch.softmax(t, -1).numpy(), rtol=rtol, atol=1e-7)
    np.testing.assert_allclose(np.asarray(A.log_softmax.int(opal.tensor(x), -1)),
                               torch.log_softmax(t, -1).numpy(), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("shape", [(7, 5), (3, 1), (300, 1024), (2, 3, 17)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_and_log_softmax_over_dim_0(shape, dtype):
    # Each column's values (its max, its sum's reciprocal or log) computed
    # once per column rather than per element (opal-hoist-broadcast-work):
    # the same numbers as PyTorch.
    x = rng.uniform(-8, 8, shape).astype(dtype)
    t = torch.from_numpy(x)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(A._softmax(opal.tensor(x), 0, False)),
                               torch._softmax(t, 0, False).numpy(), rtol=rtol, atol=1e-7)
    np.testing.assert_allclose(np.asarray(A._log_softmax(opal.tensor(x), 0, False)),
                               torch._log_softmax(t, 0, False).numpy(), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("shape", [(5, 7), (4, 6, 33), (1024, 300)], ids=str)
def test_layer_norm(shape):
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(shape[-1]).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    got = np.asarray(A.layer_norm(opal.tensor(x), [shape[-1]], opal.tensor(w), opal.tensor(b)))
    want = torch.nn.functional.layer_norm(torch.from_numpy(x), [shape[-1]], torch.from_numpy(w),
                                          torch.from_numpy(b)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_views_and_other_dims():
    x = rng.uniform(-4, 4, (6, 10)).astype(np.float32)
    t = torch.from_numpy(x)
    # A transposed input (copied to contiguous by the runtime), dim 0.
    np.testing.assert_allclose(np.asarray(A.softmax.int(A.t(opal.tensor(x)), -1)),
                               torch.softmax(t.t(), -1).numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(A.softmax.int(opal.tensor(x), 0)),
                               torch.softmax(t, 0).numpy(), rtol=1e-5, atol=1e-7)
    # A slice of rows and columns.
    np.testing.assert_allclose(np.asarray(A.softmax.int(opal.tensor(x)[1:5, 2:], -1)),
                               torch.softmax(t[1:5, 2:], -1).numpy(), rtol=1e-5, atol=1e-7)


def test_a_user_composite_with_a_row_reduction():
    lib = opal.library.Library("fuserows", "DEF")
    lib.define("rms_norm(Tensor x, float eps) -> Tensor")

    @opal.library.register_decomposition("fuserows::rms_norm", lib=lib)
    def rms_norm(x, eps):
        mean = A.mean.dim(A.mul.Tensor(x, x), [-1], True)
        return A.mul.Tensor(x, A.rsqrt(A.add.Scalar(mean, eps)))

    x = rng.standard_normal((512, 700)).astype(np.float32)
    got = np.asarray(opal.ops.fuserows.rms_norm(opal.tensor(x), 1e-6))
    want = x / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def _conv1x1(x, w):
    return np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0])


@pytest.mark.parametrize("size", [3, 5, 16])
def test_a_transposing_read_of_a_convolutions_rows_is_not_fused_into_them(size):
    # Two 1x1 convolutions joined along channels (cat as slice_scatter, as
    # torch.compile's backend builds it): the join reads each convolution's
    # [C, H*W] rows through a reshape, [h * W + w] for w fixed, across
    # rows. opal-fuse-rows once fused it into the convolution's loop over
    # rows and read rows not computed yet: channels 0-1 came out wrong
    # where h > w.
    lib = opal.library.Library("fuserows_cat", "FRAGMENT")
    lib.define("join(Tensor x, Tensor a, Tensor b) -> Tensor")

    @opal.library.register_decomposition("fuserows_cat::join", lib=lib)
    def join(x, a, b):
        conv = lambda t, w: A.convolution(t, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
        y = A.zeros([1, 4, size, size], dtype=opal.float32)
        y = A.slice_scatter(y, conv(x, a), 1, 0, 2)
        return A.slice_scatter(y, conv(x, b), 1, 2, 4)

    x = rng.random((1, 4, size, size), dtype=np.float32)
    a, b = (rng.random((2, 4, 1, 1), dtype=np.float32) for _ in range(2))
    got = np.asarray(opal.ops.fuserows_cat.join(opal.tensor(x), opal.tensor(a), opal.tensor(b)))
    want = np.concatenate([_conv1x1(x, a), _conv1x1(x, b)], 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    lib._destroy()
