"""Max and min reductions keep NaN as PyTorch does, however they are
compiled: each vector loop takes the NaN-ignoring max (one instruction)
and a flag of whether any element, or the value the loop started from,
was NaN (MinMaxReductions.cpp). A NaN anywhere, in the vector part of a
row, its remainder, the first element, a row of NaN, in any of several
reduced dims or in a split over threads gives NaN in exactly the rows
where PyTorch gives it; elsewhere the values are PyTorch's."""

import numpy as np
import pytest

import opal

A = opal.ops.aten
torch = pytest.importorskip("torch")
rng = np.random.default_rng(5)

# (shape, reduced dims, NaN positions)
CASES = [
    ((4, 1024), [1], [(0, 0), (1, 511), (2, 1023)]),        # first, middle, last
    ((5, 1000), [1], [(0, 999), (3, 990)]),                 # in the scalar remainder
    ((3, 17), [1], [(1, 16)]),
    ((6, 64), [1], [(2, slice(None))]),                     # a whole row
    ((4, 6, 33), [0, 2], [(3, 1, 32), (0, 5, 0)]),          # several reduced dims
    ((4, 6, 33), [1], [(2, 0, 7)]),
    ((2, 3, 40, 40), [0, 2, 3], [(1, 2, 39, 39)]),          # a channel's dims
    ((1 << 20,), [0], [((1 << 20) - 5,)]),                  # split over threads
]


@pytest.mark.parametrize("shape,dims,nans", CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_amax_and_amin_keep_nan_where_pytorch_does(shape, dims, nans, dtype):
    x = rng.uniform(-5, 5, shape).astype(dtype)
    for at in nans:
        x[at] = np.nan
    t = torch.from_numpy(x)
    for ours, theirs in ((A.amax, torch.amax), (A.amin, torch.amin)):
        got = np.asarray(ours(opal.tensor(x), dims))
        want = theirs(t, dims).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_infinities_and_no_nan_are_exact(dtype):
    x = rng.uniform(-5, 5, (7, 300)).astype(dtype)
    x[0, :] = -np.inf
    x[1, 299] = np.inf
    x[2, :] = 0.0
    x[3, 5] = -0.0
    t = torch.from_numpy(x)
    np.testing.assert_array_equal(np.asarray(A.amax(opal.tensor(x), [1])),
                                  torch.amax(t, [1]).numpy())
    np.testing.assert_array_equal(np.asarray(A.amin(opal.tensor(x), [1])),
                                  torch.amin(t, [1]).numpy())


def test_softmax_rows_with_nan_are_nan_and_others_are_pytorchs():
    x = rng.uniform(-8, 8, (16, 1000)).astype(np.float32)
    x[3, 0] = np.nan
    x[9, 999] = np.nan
    got = np.asarray(A.softmax.int(opal.tensor(x), -1))
    want = torch.softmax(torch.from_numpy(x), -1).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[3]).all() and np.isnan(got[9]).all()
    np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=1e-5,
                               atol=1e-7)
