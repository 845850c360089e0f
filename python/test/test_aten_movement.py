"""Ops that move elements: slice, select, narrow, alias (views), the splits
(lists of views), cat and stack (native kernels of tensor lists), flip and
constant_pad_nd (compiled). Values against numpy, errors as PyTorch's; the
views' MLIR definitions, which composites compile through, by a user op
library whose bodies call them."""

import numpy as np
import pytest

import opal

A = opal.ops.aten


def array(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def raises(call, message):
    with pytest.raises((RuntimeError, IndexError)) as error:
        call()
    assert str(error.value) == message


def test_views_share_memory():
    base = opal.tensor(array((3, 4)))
    assert A.alias(base).data_ptr() == base.data_ptr()
    assert A.slice.Tensor(base, 1, 1, None, 2).data_ptr() == base.data_ptr() + 4
    assert A.narrow(base, 0, -1, 1).data_ptr() == base.data_ptr() + 32
    row = A.select.int(base, 0, 1)
    row.fill_(7.0)
    assert base.numpy()[1].tolist() == [7.0] * 4
    column = A.slice.Tensor(base, 1, 3)
    assert column.shape == (3, 1) and column.stride() == (4, 1)
    assert A.narrow(base, 0, -1, 1).tolist() == [[8.0, 9.0, 10.0, 11.0]]
    pieces = A.split.Tensor(base, 3, 1)
    pieces[1].fill_(-1.0)
    assert base.numpy()[:, 3].tolist() == [-1.0, -1.0, -1.0]


@pytest.mark.parametrize("dim,start,end,step", [(0, None, None, 1), (1, 1, None, 2),
                                                (1, -3, -1, 1), (0, -100, 100, 2),
                                                (-1, 3, 1, 1), (1, 4, 9, 1)])
def test_slice(dim, start, end, step):
    a = array((3, 4))
    want = a[(slice(None),) * (dim % 2) + (slice(start, end, step),)]
    got = A.slice.Tensor(opal.tensor(a), dim, start, end, step)
    np.testing.assert_array_equal(got.numpy(), want)


def test_view_errors():
    x, scalar = opal.tensor(array((3, 4))), opal.tensor(1.0)
    raises(lambda: A.slice.Tensor(scalar), "slice() cannot be applied to a 0-dim tensor.")
    raises(lambda: A.slice.Tensor(x, 0, None, None, 0), "slice step must be positive")
    raises(lambda: A.slice.Tensor(x, 2),
           "Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    raises(lambda: A.select.int(x, 0, 3),
           "select(): index 3 out of range for tensor of size [3, 4] at dimension 0")
    raises(lambda: A.select.int(x, 1, -5),
           "select(): index -5 out of range for tensor of size [3, 4] at dimension 1")
    raises(lambda: A.narrow(x, 0, 2, 2), "start (2) + length (2) exceeds dimension size (3).")
    raises(lambda: A.narrow(x, 0, -4, 1),
           "start out of range (expected to be in range of [-3, 3], but got -4)")
    raises(lambda: A.split.Tensor(x, -1),
           "split expects split_size be non-negative, but got split_size=-1")
    raises(lambda: A.split.Tensor(x, 0),
           "split_size can only be 0 if dimension size is 0, but got dimension size of 3")
    raises(lambda: A.split_with_sizes(x, [1, 1]),
           "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
           "dimension 0), but got split_sizes=[1, 1]")
    raises(lambda: A.split_with_sizes(x, [-1, 4]),
           "split_with_sizes expects split_sizes have only non-negative entries, but got "
           "split_sizes=[-1, 4]")
    raises(lambda: A.chunk(x, 0), "chunk expects `chunks` to be greater than 0, got: 0")
    raises(lambda: A.chunk(scalar, 1), "chunk expects at least a 1-dimensional tensor")
    raises(lambda: A.unbind.int(scalar), "Dimension specified as 0 but tensor has no dimensions")


def test_splits():
    x = opal.tensor(array((5, 2)))
    assert [p.shape for p in A.split.Tensor(x, 2)] == [(2, 2), (2, 2), (1, 2)]
    assert [p.shape for p in A.split_with_sizes(x, [0, 5, 0])] == [(0, 2), (5, 2), (0, 2)]
    assert [p.shape for p in A.chunk(x, 3)] == [(2, 2), (2, 2), (1, 2)]
    assert [p.shape for p in A.chunk(opal.zeros(0), 3)] == [(0,), (0,), (0,)]
    assert [p.tolist() for p in A.unbind.int(x, 1)] == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    # More empty chunks than anyone needs are refused, not allocated.
    raises(lambda: A.chunk(opal.zeros(0), 1 << 40),
           "chunk: 1099511627776 chunks of an empty dimension are more than opal makes "
           "(at most 16777216)")


def test_cat_and_stack():
    a, b = array((2, 3)), array((2, 1), np.int64)
    got = A.cat([opal.tensor(a), opal.tensor(b)], -1)
    assert got.dtype == opal.float32
    np.testing.assert_array_equal(got.numpy(), np.concatenate([a, b], 1))
    # Non-contiguous inputs, other dtypes, and 1-d empty tensors (skipped).
    t = opal.tensor(array((3, 2), np.float64)).t()
    got = A.cat([t, opal.zeros(0, dtype=opal.int32), opal.tensor(a)], 0)
    assert got.dtype == opal.float64
    np.testing.assert_array_equal(got.numpy(), np.concatenate([array((3, 2)).T, a]))
    assert A.cat([opal.zeros(0), opal.zeros(0, dtype=opal.int64)], 3).shape == (0,)
    i8, u8 = opal.zeros(1, dtype=opal.int8), opal.zeros(1, dtype=opal.uint8)
    assert A.cat([i8, u8]).dtype == opal.int16
    got = A.stack([opal.tensor(a), opal.tensor(a + 1)], 1)
    np.testing.assert_array_equal(got.numpy(), np.stack([a, a + 1], 1))
    assert A.stack([opal.tensor(1.0), opal.tensor(2)]).tolist() == [1.0, 2.0]
    meta = A.cat([opal.empty(2, 3, device="meta"), opal.empty(4, 3, device="meta")])
    assert meta.shape == (6, 3) and meta.is_meta


def test_cat_and_stack_errors():
    z = opal.zeros
    raises(lambda: A.cat([]), "torch.cat(): expected a non-empty list of Tensors")
    raises(lambda: A.cat([z(2, 3), z(2)]), "Tensors must have same number of dimensions: got 2 and 1")
    raises(lambda: A.cat([z(2, 3), z(2, 4)]),
           "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 "
           "for tensor number 1 in the list.")
    raises(lambda: A.cat([z(2, 3), opal.tensor(1.0)]),
           "zero-dimensional tensor (at position 1) cannot be concatenated")
    raises(lambda: A.cat([z(2, 3), z(2, 4)], -3),
           "Dimension out of range (expected to be in range of [-2, 1], but got -3)")
    raises(lambda: A.stack([]), "stack expects a non-empty TensorList")
    raises(lambda: A.stack([z(2), z(3)]),
           "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1")


def test_flip_and_pad():
    a = array((2, 3, 4))
    np.testing.assert_array_equal(A.flip(opal.tensor(a), [0, -1]).numpy(), a[::-1, :, ::-1])
    assert A.flip(opal.tensor(a), []).tolist() == a.tolist()
    assert A.flip(opal.tensor(2.0), [0]).item() == 2.0
    got = A.constant_pad_nd(opal.tensor(a), [1, -2, 0, 1], 9.5)
    want = np.pad(a, [(0, 0), (0, 1), (1, 0)], constant_values=9.5)[:, :, :-2]
    np.testing.assert_array_equal(got.numpy(), want)
    ints = A.constant_pad_nd(opal.tensor(array((2,), np.int64)), [1, 1], 2.5)
    assert ints.dtype == opal.int64 and ints.tolist() == [2, 0, 1, 2]
    raises(lambda: A.flip(opal.tensor(a), [0, 0]),
           "aten::flip: dim 0 appears multiple times in the list of dims")
    raises(lambda: A.constant_pad_nd(opal.tensor(a), [1]),
           "aten::constant_pad_nd: Length of pad must be even but instead it equals 1")
    raises(lambda: A.constant_pad_nd(opal.tensor(array((2,))), [1, -3]),
           "aten::constant_pad_nd: The input size 2, plus negative padding 1 and -3 resulted in "
           "a negative output size, which is invalid. Check dimension 0 of your input. "
           "(argument 'self')")


MOVELIB = """
opal.library "movelib" {
  opal.def "slice_exp(Tensor x, int dim, int start, int end, int step) -> Tensor"
  opal.decomposition "slice_exp" {
  ^bb0(%x: !opal.tensor, %dim: i64, %start: i64, %end: i64, %step: i64):
    %s = aten.slice.Tensor %x, %dim, %start, %end, %step : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %r = aten.exp %s : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "select_neg(Tensor x, int dim, int index) -> Tensor"
  opal.decomposition "select_neg" {
  ^bb0(%x: !opal.tensor, %dim: i64, %index: i64):
    %s = aten.select.int %x, %dim, %index : (!opal.tensor, i64, i64) -> !opal.tensor
    %r = aten.neg %s : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "narrow_neg(Tensor x, int dim, int start, int length) -> Tensor"
  opal.decomposition "narrow_neg" {
  ^bb0(%x: !opal.tensor, %dim: i64, %start: i64, %length: i64):
    %s = aten.narrow %x, %dim, %start, %length : (!opal.tensor, i64, i64, i64) -> !opal.tensor
    %r = aten.neg %s : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
"""


@pytest.fixture(scope="module")
def movelib(load_op_library):
    return load_op_library("movelib", MOVELIB)


@pytest.mark.parametrize("shape", [(3, 4), (5, 1), (1, 7), (0, 3)])
def test_compiled_slice_select_narrow(movelib, shape):
    a = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = opal.tensor(a)
    for dim, start, end, step in [(0, 0, 2, 1), (1, -2, 100, 1), (1, 1, -1, 2), (0, -9, 9, 3),
                                  (-1, 2, 1, 1)]:
        want = np.exp(a[(slice(None),) * (dim % 2) + (slice(start, end, step),)])
        np.testing.assert_allclose(movelib.slice_exp(x, dim, start, end, step).numpy(), want,
                                   rtol=1e-6)
    for dim in (0, 1):
        for index in range(-shape[dim], shape[dim]):
            want = -np.take(a, index, axis=dim)
            np.testing.assert_array_equal(movelib.select_neg(x, dim, index).numpy(), want)
        for start in range(-shape[dim], shape[dim] + 1):
            begin = start % shape[dim] if start < 0 else start
            for length in range(0, shape[dim] - begin + 1):
                want = -np.take(a, range(begin, begin + length), axis=dim)
                got = movelib.narrow_neg(x, dim, start, length).numpy()
                np.testing.assert_array_equal(got, want)


def test_compiled_views_check_their_sizes_per_call(movelib):
    # One compiled kernel (dynamic sizes); each call's sizes are checked.
    x = opal.tensor(array((3, 4)))
    assert movelib.select_neg(x, 0, 2).tolist() == [-8.0, -9.0, -10.0, -11.0]
    raises(lambda: movelib.select_neg(opal.tensor(array((2, 4))), 0, 2),
           "movelib::select_neg: in aten::select.int: select(): index 2 out of range for tensor "
           "of size [2, 4] at dimension 0 (argument 'x')")
    raises(lambda: movelib.narrow_neg(opal.tensor(array((2, 4))), 0, 1, 2),
           "movelib::narrow_neg: in aten::narrow: start (1) + length (2) exceeds dimension size "
           "(2). (argument 'x')")


def test_eager_spellings():
    x = opal.tensor(array((4, 6)))
    q, k, v = x.split(2, dim=1)
    assert (q.shape, k.shape, v.shape) == ((4, 2), (4, 2), (4, 2))
    assert [p.shape for p in x.split([1, 3], 0)] == [(1, 6), (3, 6)]
    assert [p.shape for p in opal.chunk(x, 4, 1)] == [(4, 2)] * 3
    assert len(x.unbind()) == 4 and x.unbind(1)[5].tolist() == [5.0, 11.0, 17.0, 23.0]
    assert x.select(1, -1).tolist() == [5.0, 11.0, 17.0, 23.0]
    assert x.narrow(0, 1, 2).shape == (2, 6)
    assert x.flip(0)[0].tolist() == x[3].tolist() and opal.flip(x, [1])[0, 0].item() == 5.0
    np.testing.assert_array_equal(opal.cat([x, x], 1).numpy(), np.concatenate([array((4, 6))] * 2, 1))
    assert opal.concat((x, x)).shape == (8, 6)
    assert opal.stack([x, x], -1).shape == (4, 6, 2)


def test_repeat():
    a = array((2, 3))
    x = opal.tensor(a)
    np.testing.assert_array_equal(A.repeat(x, [2, 1, 2]).numpy(), np.tile(a, (2, 1, 2)))
    np.testing.assert_array_equal(x.repeat(2, 1).numpy(), np.tile(a, (2, 1)))
    assert A.repeat(opal.zeros(0, 2), [-1, 2]).shape == (0, 4)  # PyTorch: -1 * 0 is 0
    raises(lambda: A.repeat(x, [2]), "aten::repeat: Number of dimensions of repeat dims can "
           "not be smaller than number of dimensions of tensor")
    raises(lambda: A.repeat(x, [-1, 1]), "aten::repeat: Trying to create tensor with negative "
           "dimension: repeats [-1, 1] of a tensor of shape [2, 3] (argument 'self')")


def test_scatter_and_cumsum():
    x = opal.zeros(3, 4)
    index = opal.tensor([[0, 1, 2, 0], [2, 2, 0, 1]])
    src = opal.arange(8.0).view(2, 4)
    got = x.scatter_add(0, index, src)
    want = np.zeros((3, 4), np.float32)
    np.add.at(want, (index.numpy(), np.arange(4)[None, :].repeat(2, 0)), src.numpy())
    np.testing.assert_array_equal(got.numpy(), want)
    assert x.numpy().sum() == 0  # kernels never write into their inputs
    assert x.scatter(0, index, 5.0).numpy().sum() == 5.0 * 8  # eight distinct places
    got = A.scatter_reduce.two(x, 1, opal.tensor([[0, 0], [1, 1], [3, 3]]),
                               opal.tensor([[1.0, 3.0], [2.0, 2.0], [5.0, 7.0]]), "mean",
                               include_self=False)
    assert got.tolist() == [[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 6.0]]
    raises(lambda: x.scatter_add(0, opal.tensor([[3, 0, 0, 0]]), src),
           "index 3 is out of bounds for dimension 0 with size 3")
    np.testing.assert_array_equal(src.cumsum(1).numpy(), np.cumsum(src.numpy(), 1))
    assert opal.cumsum(opal.tensor([True, True, False]), 0).tolist() == [1, 2, 2]
    assert opal.nonzero(opal.tensor([[0, 1], [2, 0]])).tolist() == [[0, 1], [1, 0]]


def test_index_tensor():
    a = array((2, 3, 4))
    x = opal.tensor(a)
    T = opal.tensor
    np.testing.assert_array_equal(A.index.Tensor(x, [T([1, 0])]).numpy(), a[[1, 0]])
    np.testing.assert_array_equal(A.index.Tensor(x, [None, T([2, 0])]).numpy(), a[:, [2, 0]])
    # Indexed dims apart: the broadcast shape comes first.
    np.testing.assert_array_equal(A.index.Tensor(x, [T([1]), None, T([0, 3])]).numpy(),
                                  a[[1], :, [0, 3]])
    mask = np.array([[True, False, True], [False, False, True]])
    np.testing.assert_array_equal(A.index.Tensor(x, [T(mask)]).numpy(), a[mask])
    np.testing.assert_array_equal(A.index.Tensor(x, [T([-1])]).numpy(), a[[-1]])
    for indices, message in [
            ([T([5])], "index 5 is out of bounds for dimension 0 with size 2"),
            ([T([1.0])], "tensors used as indices must be long, int, byte or bool tensors"),
            ([T([0, 1]), T([0, 1, 2])], "shape mismatch: indexing tensors could not be "
             "broadcast together with shapes [2], [3]"),
            ([None, None, None, T([0])], "too many indices for tensor of dimension 3 (got 4)")]:
        raises(lambda: A.index.Tensor(x, indices), message)


def test_index_put():
    x = opal.zeros(3, 4)
    T = opal.tensor
    got = A.index_put(x, [T([0, 2])], T(5.0))
    assert got.numpy()[[0, 2]].tolist() == [[5.0] * 4] * 2 and x.numpy().sum() == 0
    got = A.index_put(x, [T([0, 0])], opal.ones(2, 4), True)  # duplicates add up
    assert got.numpy()[0].tolist() == [2.0] * 4
    got = A.index_put(x, [None, T([1])], T([1.0, 2.0, 3.0]).view(3, 1))
    assert got.numpy()[:, 1].tolist() == [1.0, 2.0, 3.0]
    raises(lambda: A.index_put(x, [T([0, 0])], opal.ones(3)),
           "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result "
           "of shape [2, 4]")
    raises(lambda: A.index_put(x, [T([0])], opal.ones(4, dtype=opal.int64)),
           "Index put requires the source and destination dtypes match, got Float for the "
           "destination and Long for the source.")
    raises(lambda: A.index_put(x, [T([5])], T(7.0)),
           "index 5 is out of bounds for dimension 0 with size 3")


def test_indexing_with_tensors_in_python():
    a = array((2, 3, 4))
    x = opal.tensor(a)
    mask = x > 10
    np.testing.assert_array_equal(x[mask].numpy(), a[a > 10])
    np.testing.assert_array_equal(x[opal.tensor([1]), :, opal.tensor([0, 3])].numpy(),
                                  a[[1], :, [0, 3]])
    # An int among index tensors is one too (PyTorch's and numpy's rule).
    np.testing.assert_array_equal(x[opal.tensor([0, 1]), 1].numpy(), a[[0, 1], 1])
    np.testing.assert_array_equal(x[1, opal.tensor([0, 2])].numpy(), a[1, [0, 2]])
    y = opal.zeros(3, 4)
    y[y.sum(1) == 0] = 2.0
    y[opal.tensor([0]), opal.tensor([1])] = 5
    y[:, opal.tensor([3])] += 1
    y[1:, opal.tensor([0])] = opal.tensor([[7], [8]], dtype=opal.int64)
    assert y.tolist() == [[2.0, 5.0, 2.0, 3.0], [7.0, 2.0, 2.0, 3.0], [8.0, 2.0, 2.0, 3.0]]
    raises(lambda: x[opal.tensor([5])], "index 5 is out of bounds for dimension 0 with size 2")


def test_masked_scatter():
    torch = pytest.importorskip("torch")
    mask = np.array([[True, False, True], [False, True, True]])
    for self_shape, m, source in [((2, 3), mask, np.arange(6.0)),
                                  ((2, 3), mask[0], np.arange(8.0).reshape(2, 4)),
                                  ((3,), mask[:1], np.arange(2.0)),
                                  ((2, 3), np.zeros((2, 3), bool), np.zeros(0))]:
        s = np.linspace(-1, 1, int(np.prod(self_shape))).reshape(self_shape)
        want = torch.ops.aten.masked_scatter(torch.from_numpy(s), torch.from_numpy(m),
                                             torch.from_numpy(source)).numpy()
        got = A.masked_scatter(opal.tensor(s), opal.tensor(m), opal.tensor(source)).numpy()
        np.testing.assert_array_equal(got, want)
    raises(lambda: A.masked_scatter(opal.zeros(2, 3), opal.tensor(mask), opal.arange(3.0)),
           "Number of elements of source < number of ones in mask")
    raises(lambda: A.masked_scatter(opal.zeros(2, 3), opal.tensor(mask), opal.arange(6)),
           "aten::masked_scatter: masked_scatter: expected self and source to have same dtypes "
           "but gotFloat and Long")
