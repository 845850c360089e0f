"""opal ops as PyTorch ops (opal.torch.register): called from torch.ops and
TorchScript on CPU and meta tensors, numerics against PyTorch's own ops,
tensors crossing without copies, and clear refusals."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is not installed")

import opal  # noqa: E402
import opal.torch  # noqa: E402

A = opal.ops.aten


def _define():
    lib = opal.library.Library("bridge", "DEF")
    lib.define("softplus(Tensor x, float beta=1.0) -> Tensor")
    lib.define("pair(Tensor x) -> (Tensor, Tensor)")
    lib.define("positive(Tensor x) -> Tensor")
    lib.define("pick(Tensor mask, Tensor a, Tensor b) -> Tensor")
    lib.define("rowsum(Tensor x, int[] dims, ScalarType dtype) -> Tensor")
    lib.define("shift(Tensor x, int by) -> Tensor")
    lib.define("shift.float(Tensor x, float by) -> Tensor")

    @opal.library.register_decomposition("bridge::softplus", lib=lib)
    def softplus(x, beta):
        return A.log1p(A.exp(x * beta)) / beta

    @opal.library.register_decomposition("bridge::pair", lib=lib)
    def pair(x):
        return x * 2, x.sum(0)

    @opal.library.register_decomposition("bridge::positive", lib=lib)
    def positive(x):
        return x > 0

    @opal.library.register_decomposition("bridge::pick", lib=lib)
    def pick(mask, a, b):
        return A.where.self(mask, a, b)

    @opal.library.register_decomposition("bridge::rowsum", lib=lib)
    def rowsum(x, dims, dtype):
        return A.sum.dim_IntList(x, dims, dtype=dtype)

    @opal.library.register_decomposition("bridge::shift", lib=lib)
    def shift(x, by):
        return x + by

    @opal.library.register_decomposition("bridge::shift.float", lib=lib)
    def shift_float(x, by):
        return x + by

    opal.torch.register("bridge")
    return lib


LIB = _define()


@torch.jit.script
def scripted(x: torch.Tensor) -> torch.Tensor:
    return torch.ops.bridge.softplus(x, 2.0) * 2


def test_torch_ops_run_opals_kernels():
    t = torch.linspace(-3, 3, 12).reshape(3, 4)
    torch.testing.assert_close(torch.ops.bridge.softplus(t, 2.0),
                               torch.nn.functional.softplus(t, 2.0))
    doubled, summed = torch.ops.bridge.pair(t)
    torch.testing.assert_close(doubled, t * 2)
    torch.testing.assert_close(summed, t.sum(0))
    # Overloads resolve by schema, as PyTorch's.
    assert torch.ops.bridge.shift(torch.ones(2, dtype=torch.int64), 3).tolist() == [4, 4]
    torch.testing.assert_close(torch.ops.bridge.shift.float(torch.ones(2), 0.5),
                               torch.full((2,), 1.5))
    # dtypes and int lists cross as opal's.
    out = torch.ops.bridge.rowsum(t, [1], torch.float64)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out, t.sum(1, dtype=torch.float64))


def test_tensors_cross_without_copies_and_keep_their_strides():
    t = torch.arange(12.0).reshape(3, 4)
    shared = opal.torch.from_torch(t)
    t.add_(1)
    assert shared.tolist()[0][:2] == [1.0, 2.0]
    transposed = t.t()
    torch.testing.assert_close(torch.ops.bridge.softplus(transposed, 1.0),
                               torch.nn.functional.softplus(transposed))
    back = opal.torch.to_torch(A.exp(opal.torch.from_torch(t)))
    torch.testing.assert_close(back, torch.exp(t))


def test_bool_tensors_cross_despite_dlpack():
    t = torch.tensor([-1.0, 0.0, 2.0])
    mask = torch.ops.bridge.positive(t)
    assert mask.dtype == torch.bool and mask.tolist() == [False, False, True]
    picked = torch.ops.bridge.pick(mask, t, torch.zeros(3))
    assert picked.tolist() == [0.0, 0.0, 2.0]


def test_meta_tensors_propagate_shapes():
    doubled, summed = torch.ops.bridge.pair(torch.empty(5, 7, device="meta"))
    assert doubled.device.type == "meta" and list(doubled.shape) == [5, 7]
    assert list(summed.shape) == [7]
    out = torch.ops.bridge.rowsum(torch.empty(4, 6, device="meta"), [0], torch.float64)
    assert out.dtype == torch.float64 and list(out.shape) == [6]


def test_torchscript_calls_them():
    t = torch.linspace(-1, 1, 5)
    torch.testing.assert_close(scripted(t), torch.nn.functional.softplus(t, 2.0) * 2)


def test_a_gradient_is_refused_never_dropped():
    t = torch.linspace(-1, 1, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"opal.torch: bridge::softplus has no derivative "
                                           r"formula yet \(opal has no autograd\)"):
        torch.ops.bridge.softplus(t, 1.0)
    with torch.no_grad():
        assert torch.ops.bridge.softplus(t, 1.0).shape == (5,)
    torch.testing.assert_close(torch.ops.bridge.softplus(t.detach(), 1.0),
                               torch.nn.functional.softplus(t.detach()))


@pytest.mark.skip(reason="opal has no autograd yet: gradcheck needs backward kernels")
def test_gradcheck():
    pass


def test_bad_input_is_refused_clearly():
    with pytest.raises(RuntimeError, match="opal.torch: torch.complex128 has no opal dtype"):
        torch.ops.bridge.softplus(torch.ones(2, dtype=torch.complex128), 1.0)
    with pytest.raises(RuntimeError, match="namespace aten is PyTorch's own"):
        opal.torch.register("aten")
    with pytest.raises(RuntimeError, match="bridge has no op nothere"):
        opal.torch.register("bridge", ops=["nothere"])
    # opal's own argument errors come through with opal's message.
    with pytest.raises(RuntimeError, match=r"bridge::softplus\(\) argument 'x' \(position 1\) "
                                           r"must be Tensor"):
        opal.ops.bridge.softplus("x", 1.0)
