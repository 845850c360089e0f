"""Dtype rules of aten ops that the differential test cannot reach through
torch.ops: bool Scalars (PyTorch 1.13's torch.ops reads them as ints, its
public functions as bools), against PyTorch's public API."""

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the behavioural reference")
A = opal.ops.aten


def same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(ours), theirs.numpy())


@pytest.mark.parametrize("fill", [True, False, 3, 2.5])
def test_full_takes_the_fill_values_dtype(fill):
    same(A.full([2, 3], fill), torch.full([2, 3], fill))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
@pytest.mark.parametrize("scalar", [True, 2, 0.5])
def test_bool_scalars_promote_as_bools(dtype, scalar):
    x = np.array([True, False, True]).astype(dtype)
    same(A.add.Scalar(opal.tensor(x), scalar), torch.add(torch.from_numpy(x), scalar))
    same(A.mul.Scalar(opal.tensor(x), scalar), torch.mul(torch.from_numpy(x), scalar))


def test_integer_division_by_zero_raises_instead_of_trapping():
    x = opal.tensor([7, -7, 5])
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        A.floor_divide(x, opal.tensor([2, 0, 1]))
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        A.remainder.Scalar(x, 0)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        opal.ops.prims.div(x, opal.tensor([1, 0, 1]))
    # The most negative int64 divided by -1 wraps, as two's complement does
    # (PyTorch 1.13 dies of SIGFPE there).
    smallest = opal.tensor([-2**63])
    assert opal.ops.prims.div(smallest, opal.tensor([-1])).tolist() == [-2**63]
    assert A.fmod.Tensor(smallest, opal.tensor([-1])).tolist() == [0]


def test_integer_powers():
    x = opal.tensor([2, 3, -1, -2, 0, 1])
    e = opal.tensor([-1, -2, -3, -1, -1, -5])
    same(A.pow.Tensor_Tensor(x, e), torch.pow(torch.tensor(x.tolist()), torch.tensor(e.tolist())))
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        A.pow.Tensor_Scalar(x, -1)


def test_dtype_names_in_messages():
    with pytest.raises(RuntimeError, match="\"GeluKernelImpl\" not implemented for 'Long'"):
        A.gelu(opal.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        A.mm(opal.ones(2, 2), opal.ones(2, 2, dtype=opal.float64))
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype. Input dtype "
                                           "must be either a floating point or complex dtype. "
                                           "Got: Bool"):
        A.mean(opal.tensor([True]))
