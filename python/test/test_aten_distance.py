"""_cdist_forward and _pdist_forward against PyTorch 1.13: every kind of
p, batch dims that broadcast, PyTorch's matrix-product form for p = 2, empty
inputs, and PyTorch's errors."""

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the reference")
A = opal.ops.aten
INF = float("inf")


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.5, INF, 0.5])
@pytest.mark.parametrize("mode", [None, 1, 2])
@pytest.mark.parametrize("shapes", [((3, 4), (5, 4)), ((2, 3, 4), (5, 4)), ((30, 4), (5, 4)),
                                    ((3, 0), (5, 0)), ((0, 4), (2, 4)),
                                    ((2, 1, 3, 4), (3, 5, 4))])
def test_cdist(p, mode, shapes):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    if a.size and b.size:
        a[..., 0] = b[..., 0].flat[0]  # equal columns: p = 0 counts the others
    got = A._cdist_forward(opal.tensor(a), opal.tensor(b), p, mode)
    want = torch.ops.aten._cdist_forward(torch.from_numpy(a), torch.from_numpy(b), p, mode)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.5, INF, -1.0])
@pytest.mark.parametrize("shape", [(0, 3), (1, 3), (2, 3), (9, 3), (40, 5), (3, 0), (1,)])
def test_pdist(p, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got = A._pdist_forward(opal.tensor(x), p)
    want = torch.ops.aten._pdist_forward(torch.from_numpy(x), p)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,shapes,dtypes,args,message", [
    ("_cdist_forward", [(4,), (3, 4)], "ff", (2.0, None),
     "cdist only supports at least 2D tensors, X1 got: 1D"),
    ("_cdist_forward", [(3, 4), (5, 3)], "ff", (2.0, None),
     "X1 and X2 must have the same number of columns. X1: 4 X2: 3"),
    ("_cdist_forward", [(3, 4), (5, 4)], "lf", (2.0, None),
     "cdist only supports floating-point dtypes, X1 got: Long"),
    ("_cdist_forward", [(3, 4), (5, 4)], "ff", (-1.0, None),
     "cdist only supports non-negative p values"),
    ("_cdist_forward", [(3, 4), (5, 4)], "ff", (2.0, 3), "possible modes: 0, 1, 2, but was: 3"),
    ("_cdist_forward", [(3, 4), (5, 4)], "fd", (2.0, None),
     "expected scalar type Float but found Double"),
    ("_cdist_forward", [(2, 3, 4), (3, 5, 4)], "ff", (2.0, None),
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("_pdist_forward", [(3, 4)], "l", (2.0,), "\"pdist\" not implemented for 'Long'"),
    ("_pdist_forward", [(3,)], "f", (2.0,),
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
])
def test_errors_are_pytorchs(op, shapes, dtypes, args, message):
    kinds = {"f": np.float32, "d": np.float64, "l": np.int64}
    arrays = [np.ones(s, kinds[d]) for s, d in zip(shapes, dtypes)]
    with pytest.raises((RuntimeError, IndexError)) as ours:
        getattr(A, op)(*[opal.tensor(a) for a in arrays], *args)
    assert message in str(ours.value)
    with pytest.raises((RuntimeError, IndexError)) as theirs:
        getattr(torch.ops.aten, op)(*[torch.from_numpy(a) for a in arrays], *args)
    assert message in str(theirs.value)


def test_pdist_of_integers_without_pairs_is_pytorchs_empty_result():
    x = np.ones((1, 3), np.int64)
    got = A._pdist_forward(opal.tensor(x))
    assert got.dtype == opal.int64 and got.shape == (0,)
