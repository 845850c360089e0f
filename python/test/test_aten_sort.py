"""sort, sort.stable and topk: native kernels. Values and indices against
numpy's stable sort, NaN above every number, PyTorch's errors."""

import numpy as np
import pytest

import opal

A = opal.ops.aten


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.int8,
                                   np.uint8, np.bool_])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sort_is_stable_numpy_order(dtype, dim):
    a = (np.random.default_rng(1).integers(0, 4, (5, 6, 7)) > 1 if dtype == np.bool_
         else np.random.default_rng(1).integers(0, 4, (5, 6, 7)).astype(dtype))
    values, indices = A.sort(opal.tensor(a), dim)
    order = np.argsort(a, axis=dim, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, order, dim))
    values, indices = A.sort(opal.tensor(a), dim, True)
    # Descending keeps equal values in index order too.
    order = np.argsort(-a.astype(np.int64), axis=dim, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), order)


def test_nan_sorts_above_every_number():
    x = opal.tensor([1.0, float("nan"), 0.0, float("nan"), -1.0])
    values, indices = x.sort()
    assert indices.tolist() == [4, 2, 0, 1, 3]
    values, indices = x.sort(descending=True)
    assert indices.tolist() == [1, 3, 0, 2, 4]
    values, indices = x.topk(2, largest=False)
    assert values.tolist() == [-1.0, 0.0] and indices.tolist() == [4, 2]


def test_topk_and_non_contiguous_inputs():
    a = np.random.default_rng(2).standard_normal((40, 30)).astype(np.float32)
    t = opal.tensor(a).t()  # a non-contiguous view
    values, indices = t.topk(5, dim=1)
    order = np.argsort(-a.T, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a.T, order, 1))
    values, indices = opal.topk(opal.tensor(a), 3, 0, largest=False)
    assert values.shape == (3, 30) and indices.dtype == opal.int64
    np.testing.assert_array_equal(values.numpy(), np.sort(a, axis=0)[:3])
    assert A.topk(opal.tensor(1.5), 1)[0].item() == 1.5
    assert A.topk(opal.tensor(1.5), 0)[0].item() == 1.5  # a 0-d tensor, as in PyTorch
    assert A.topk(opal.ones(3), 0)[0].shape == (0,)
    # Many equal values: the first indices, in order (one pass keeps the best).
    assert A.topk(opal.zeros(50), 3)[1].tolist() == [0, 1, 2]
    big = np.random.default_rng(3).standard_normal((3, 200)).astype(np.float32)
    for k in (1, 32, 33, 200):
        np.testing.assert_array_equal(A.topk(opal.tensor(big), k)[1].numpy(),
                                      np.argsort(-big, 1, kind="stable")[:, :k])
    s = opal.sort(opal.tensor(a), 0)
    np.testing.assert_array_equal(s.values.numpy(), np.sort(a, axis=0))
    assert A.sort.stable(opal.tensor([2, 1]), stable=True)[1].tolist() == [1, 0]
    meta = A.topk(opal.empty(4, 9, device="meta"), 2)
    assert meta[0].shape == (4, 2) and meta[1].is_meta


def test_sort_errors():
    for call, message in [
            (lambda: A.topk(opal.zeros(3), 4), "selected index k out of range"),
            (lambda: A.topk(opal.zeros(3), -1), "selected index k out of range"),
            (lambda: A.topk(opal.tensor([True, False]), 1),
             "\"topk_cpu\" not implemented for 'Bool'"),
            (lambda: A.sort(opal.zeros(3), 1),
             "Dimension out of range (expected to be in range of [-1, 0], but got 1)")]:
        with pytest.raises(RuntimeError) as error:
            call()
        assert str(error.value) == message
