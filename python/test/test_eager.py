"""The eager API (python/opal/_tensor_ops.py): Python operators, Tensor
methods and opal.<fn>, each evaluated on opal tensors and on PyTorch's and
compared (dtype, shape, values); numpy stands in where torch is missing."""

import numpy as np
import pytest

import opal

try:
    import torch
except ImportError:  # pragma: no cover - torch is installed by `make test`
    torch = None

A = opal.ops.aten

DATA = {
    "a": np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], dtype=np.float32),
    "b": np.array([1.0, 2.0, -3.0], dtype=np.float32),
    "i": np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int64),
    "j": np.array([2, 3, 1], dtype=np.int32),
    "h": np.array([0.5, 1.5, -2.5], dtype=np.float16),
    "m": np.array([True, False, True]),
}

# Each is evaluated with `lib` bound to opal and to torch.
EXPRESSIONS = [
    "a + b", "a - b", "a * b", "a / b", "a ** 2", "b ** b", "a @ b", "a @ a.t()",
    "a + 2", "2 + a", "a - 1", "1 - a", "a * 3", "3 * a", "a / 4", "2 / a", "2 ** b",
    "i + 2", "i * 2.5", "i / 2", "2 / i", "i + j", "i - j", "i * b",
    "h + 2.5", "h * b", "2.5 * h",
    "-a", "+a", "abs(a)", "abs(i)", "-i",
    "a > 0", "a >= b", "a < 1.5", "a <= b", "a == b", "a != 2", "0 < a", "i == 3",
    "a.sum()", "a.sum(1)", "a.sum(-1, keepdim=True)", "a.sum((0, 1))", "i.sum()",
    "a.mean()", "a.mean(0)", "a.mean(1, keepdim=True)", "a.amax(1)", "a.amin(0)",
    "a.max()", "a.min()", "a.max(b)", "a.min(b)",
    "a.exp()", "a.abs().log()", "a.abs().sqrt()", "a.tanh()", "a.sigmoid()", "a.relu()",
    "a.neg()", "a.sin()", "a.cos()", "a.reciprocal()", "a.square()", "a.abs().rsqrt()",
    "a.softmax(-1)", "a.log_softmax(0)", "a.clamp(-1, 1)", "a.clamp(min=0)",
    "a.clamp_min(0.5)", "a.clamp_max(0.5)", "a.where(a > 0, b)",
    "a.float()", "a.double()", "a.long()", "a.int()", "a.half()", "a.bool()", "i.float()",
    "a.add(b, alpha=2)", "a.sub(b, alpha=0.5)", "a.mul(b)", "a.div(b)", "a.pow(2)",
    "a.matmul(b)", "a.mm(a.t())", "a.eq(b)", "a.maximum(b)",
    "lib.exp(a)", "lib.matmul(a, b)", "lib.where(a > 0, a, b)", "lib.where(a > 0, a, 0.0)",
    "lib.add(a, b, alpha=3)", "lib.sum(a)", "lib.sum(a, 0)", "lib.mean(a, 1)",
    "lib.softmax(a, 1)", "lib.relu(a)", "lib.abs(i)", "lib.maximum(a, b)",
    "lib.clamp(a, max=1)", "lib.transpose(a, 0, 1)", "lib.t(a)", "lib.permute(a, (1, 0))",
    "lib.reshape(a, (3, 2))", "lib.unsqueeze(a, 0)", "lib.sigmoid(a)", "lib.tanh(a)",
    "lib.rsub(a, 2)", "lib.gt(a, b)", "lib.pow(a, 2)", "lib.sqrt(lib.abs(a))",
    "(a > 0).float().sum()", "((a * 2 + b) / 3).exp().sum(0)",
    "lib.sum(a, dtype=lib.float64)", "lib.mean(a)", "i.sum()",
    "i & j", "i | 8", "i ^ j", "~i", "~m", "m & True", "m | False", "m ^ m", "m & 3",
    "3 | i", "i.bitwise_and(j)", "lib.bitwise_or(i, 2)", "lib.bitwise_not(m)",
    "(a > 0) & (a < 3)", "~(a > 0)",
]


def evaluate(expression, lib, convert):
    names = {name: convert(value) for name, value in DATA.items()}
    names["lib"] = lib
    return eval(expression, {}, names)


def to_numpy(value, lib):
    if lib is opal:
        return value.numpy(), repr(value.dtype).split(".", 1)[1]
    return value.numpy(), str(value.dtype).split(".", 1)[1]


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_eager_expressions_agree_with_pytorch(expression):
    ours = evaluate(expression, opal, opal.tensor)
    theirs = evaluate(expression, torch, lambda v: torch.tensor(v))
    got, got_dtype = to_numpy(ours, opal)
    want, want_dtype = to_numpy(theirs, torch)
    assert got_dtype == want_dtype, f"{expression}: dtype {got_dtype}, PyTorch {want_dtype}"
    assert got.shape == want.shape
    tolerance = 2e-3 if want_dtype == "float16" else 1e-6
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=tolerance, atol=tolerance)


def test_expressions_agree_with_numpy_without_torch():
    a, b = DATA["a"], DATA["b"]
    x, y = opal.tensor(a), opal.tensor(b)
    np.testing.assert_allclose((x * 2 + y).numpy(), a * 2 + b)
    np.testing.assert_allclose((x @ y).numpy(), a @ b, rtol=1e-6)
    np.testing.assert_allclose(x.sum(1).numpy(), a.sum(1), rtol=1e-6)
    np.testing.assert_array_equal((x > 0).numpy(), a > 0)


def test_in_place_operators_write_into_the_tensor_and_its_views():
    x = opal.zeros(2, 3)
    row = x[1]
    alias = x
    x += opal.tensor([1.0, 2.0, 3.0])
    x *= 2
    x -= 1
    x /= 2
    assert x is alias
    np.testing.assert_allclose(x.numpy(), [[0.5, 1.5, 2.5]] * 2)
    np.testing.assert_allclose(row.numpy(), [0.5, 1.5, 2.5])
    row.add_(1, alpha=2)
    np.testing.assert_allclose(x.numpy()[1], [2.5, 3.5, 4.5])
    x.mul_(0).add_(opal.ones(3))
    np.testing.assert_allclose(x.numpy(), np.ones((2, 3)))
    x.zero_()
    assert x.sum().item() == 0.0
    x.clamp_(min=1)
    np.testing.assert_allclose(x.numpy(), np.ones((2, 3)))


def test_in_place_keeps_dtype_and_shape_as_pytorch_does():
    i = opal.arange(3)
    i += 2
    assert i.dtype == opal.int64 and i.tolist() == [2, 3, 4]
    with pytest.raises(RuntimeError) as error:
        i += 1.5
    assert str(error.value) == ("add_: result type Float can't be cast to the desired output "
                                "type Long")
    if torch is not None:
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                               "output type Long"):
            t = torch.arange(3)
            t += 1.5
    f = opal.ones(3)
    f += opal.arange(3)  # int into float: allowed
    assert f.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError) as error:
        f += opal.ones(2, 3)
    assert str(error.value) == ("add_: output with shape [3] doesn't match the broadcast "
                                "shape [2, 3]")


def test_truth_value_and_scalars():
    assert bool(opal.tensor([2.0]) > 1)
    assert not bool(opal.tensor(0))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value "
                                           "is ambiguous"):
        bool(opal.ones(2))
    assert float(opal.tensor([2.5])) == 2.5
    t = opal.ones(2)
    assert t in [t] and len({t, opal.ones(2)}) == 2  # hashed by identity


def test_unsupported_operands_raise_pythons_type_error():
    with pytest.raises(TypeError):
        opal.ones(2) + "x"
    with pytest.raises(TypeError):
        opal.ones(2) @ 2


def test_every_spelling_calls_an_aten_overload():
    # Each spelling is a call of opal.ops.aten (so a dispatch mode that
    # reaches the Python key sees it as that op): the trace hook, which
    # sees every OpOverload call, records them.
    seen = []

    def hook(schemas, args, kwargs):
        seen.append(schemas[0].name + ("." + schemas[0].overload_name
                                       if schemas[0].overload_name else ""))
        return opal.ones(2)

    x, y = opal.ones(2), opal.ones(2)
    opal._C._set_trace_hook(hook)
    try:
        x + y, x * 2, 2 - x, x @ y, -x, x > 0, x.sum(), opal.exp(x), x.float()
    finally:
        opal._C._set_trace_hook(None)
    assert seen == ["aten::add.Tensor", "aten::mul.Scalar", "aten::rsub.Scalar", "aten::matmul",
                    "aten::neg", "aten::gt.Scalar", "aten::sum", "aten::exp"]


def test_foreign_tensors_are_refused_with_a_pointer_to_from_dlpack():
    if torch is None:
        pytest.skip("PyTorch is not installed")
    with pytest.raises(TypeError) as error:
        A.neg(torch.ones(2))
    assert ("argument 'self' (position 1) must be Tensor, not torch.Tensor (convert it with "
            "opal.from_dlpack(x), which shares its memory)") in str(error.value)
    t = torch.arange(3.0)
    shared = opal.from_dlpack(t)
    t.add_(1)
    assert shared.tolist() == [1.0, 2.0, 3.0]


def test_dlpack_export_takes_the_array_apis_arguments():
    # PyTorch 2.x's from_dlpack asks for max_version=(1, 0) (and newer
    # consumers dl_device and copy): opal answers with a DLPack 0.x capsule.
    x = opal.tensor([1.0, 2.0, 3.0])
    capsule = x.__dlpack__(max_version=(1, 0), stream=None)
    shared = opal.from_dlpack(capsule)
    assert shared.data_ptr() == x.data_ptr()
    same_device = opal.from_dlpack(x.__dlpack__(dl_device=(1, 0), copy=False))
    assert same_device.data_ptr() == x.data_ptr()
    copied = opal.from_dlpack(x.__dlpack__(copy=True))
    assert copied.data_ptr() != x.data_ptr() and copied.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(BufferError, match=r"opal cannot export to DLPack device \(7, 0\); it "
                                          r"exports cpu \(1, 0\) and cuda \(2, N\) tensors"):
        x.__dlpack__(dl_device=(7, 0))
    with pytest.raises(TypeError, match=r"__dlpack__: max_version must be a pair of ints, "
                                        r"got 'one'"):
        x.__dlpack__(max_version="one")
    with pytest.raises(TypeError, match="copy must be True, False or None"):
        x.__dlpack__(copy=1)
    with pytest.raises(TypeError):
        x.__dlpack__(None)  # stream is keyword-only, as the protocol says
    if not opal.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            x.__dlpack__(dl_device=(2, 0))


def test_a_tensor_is_not_taken_for_a_number():
    # float() of a one-element tensor works, but an op's float/Scalar
    # argument never takes a tensor (nor calls its float()).
    x = opal.ones(3)
    with pytest.raises(TypeError, match="argument .other. \\(position 2\\) must be number, not "
                                        "Tensor"):
        A.add.Scalar(x, opal.ones(3))
    assert A.add(x, opal.ones(3)).tolist() == [2.0, 2.0, 2.0]  # the packet picks add.Tensor
    assert A.mul(x, np.float32(2.0)).tolist() == [2.0, 2.0, 2.0]  # numpy scalars are numbers


def test_a_mode_sees_the_aten_ops_pytorchs_mode_sees():
    # Ops PyTorch computes with backend kernels reach the Python key as
    # themselves: the mode records them, as torch's TorchDispatchMode does.
    x, y = opal.ones(2, 3), opal.ones(3)
    with opal.utils.OpRecorder() as recorder:
        x + y, x * y, -x, x > 0, x.sum(1), opal.exp(x), x.t(), A.mean.dim(x, [0]), \
            x.view(3, 2), x.transpose(0, 1), x.unsqueeze(0), x.sum(), x.mean()
    ours = recorder.ops
    assert ours == ["aten.add.Tensor", "aten.mul.Tensor", "aten.neg.default", "aten.gt.Scalar",
                    "aten.sum.dim_IntList", "aten.exp.default", "aten.t.default",
                    "aten.mean.dim", "aten.view.default", "aten.transpose.int",
                    "aten.unsqueeze.default", "aten.sum.default", "aten.mean.default"]
    # With a Python number opal calls the .Scalar overload; PyTorch wraps the
    # number in a 0-d tensor and calls .Tensor (docs/python.md).
    with opal.utils.OpRecorder() as recorder:
        x * 2
    assert recorder.ops == ["aten.mul.Scalar"]
    if torch is not None:
        from torch.utils._python_dispatch import TorchDispatchMode

        class Record(TorchDispatchMode):
            def __init__(self):
                super().__init__()
                self.ops = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.ops.append(str(func))
                return func(*args, **(kwargs or {}))

        tx, ty = torch.ones(2, 3), torch.ones(3)
        with Record() as theirs:
            tx + ty, tx * ty, -tx, tx > 0, tx.sum(1), torch.exp(tx), tx.t(), \
                torch.ops.aten.mean.dim(tx, [0]), tx.view(3, 2), tx.transpose(0, 1), \
                tx.unsqueeze(0), tx.sum(), tx.mean()
        assert theirs.ops == ours


def test_a_mode_sees_the_calls_a_composite_decomposes_into():
    # A CompositeImplicitAutograd op (a user's decomposition, aten.linear)
    # runs its body op by op while a mode is active, so the mode sees the
    # calls it makes (not the op); without a mode it runs fused.
    lib = opal.library.Library("modelib", "DEF")
    lib.define("scale_add(Tensor x, Tensor y) -> Tensor")

    @opal.library.register_decomposition("modelib::scale_add", lib=lib)
    def scale_add(x, y):
        return x * 2 + y

    try:
        x = opal.tensor([1.0, 2.0])
        with opal.utils.OpRecorder() as recorder:
            got = opal.ops.modelib.scale_add(x, x)
        assert got.tolist() == [3.0, 6.0]
        assert recorder.ops == ["aten.mul.Scalar", "aten.add.Tensor"]
        with opal.utils.OpRecorder() as recorder:
            A.linear(opal.ones(2, 3), opal.ones(4, 3))
        assert recorder.ops[0] == "aten.t.default" and "aten.linear.default" not in recorder.ops
        # Outside the mode: one fused kernel, no calls recorded anywhere.
        before = opal.jit.stats()["hits"]
        assert opal.ops.modelib.scale_add(x, x).tolist() == [3.0, 6.0]
        assert opal.ops.modelib.scale_add(x, x).tolist() == [3.0, 6.0]
        assert opal.jit.stats()["hits"] >= before + 1
    finally:
        lib._destroy()


def test_setitem_writes_through_basic_indexing():
    x = opal.zeros(3, 4)
    x[0] = 1.5
    x[1, 1:3] = opal.tensor([2.0, 3.0])
    x[:, -1] = opal.tensor(7.0)
    x[2][0] = 9
    want = np.zeros((3, 4), np.float32)
    want[0] = 1.5
    want[1, 1:3] = [2.0, 3.0]
    want[:, -1] = 7.0
    want[2][0] = 9
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(TypeError, match="can't assign a str to a Tensor"):
        x[0] = "a"


def test_bitwise_ops_refuse_floats_as_pytorch_does():
    with pytest.raises(RuntimeError) as error:
        opal.ones(2) & opal.ones(2)
    assert str(error.value) == ('aten::bitwise_and.Tensor: "bitwise_and_cpu" not implemented '
                                "for 'Float'")
    if torch is not None:
        with pytest.raises(RuntimeError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
            torch.ones(2) & torch.ones(2)
    with pytest.raises(RuntimeError, match="bitwise_not_cpu"):
        ~opal.ones(2)


EAGER_CALLS = [
    "x // 2", "x % 3", "7 // y", "x.floor_divide(y)", "x.remainder(y)", "x.fmod(3)",
    "x.div(y, rounding_mode='floor')", "x.div(y, rounding_mode='trunc')",
    "x.max(1)", "x.min(0, keepdim=True)", "x.max()", "x.max(y)", "x.argmax()",
    "x.argmin(1)", "x.argmax(0, keepdim=True)", "f.var(1)", "f.std()", "f.var(0, correction=0)",
    "x.prod(1)", "(x > 0).any(1)", "(x > 0).all()", "f.logsumexp(1)", "x.tril()", "x.triu(1)",
    "x.masked_fill(x < 0, 0)", "f.floor()", "f.round()", "f.sign()", "f.asin().isnan()",
    "f.expm1()", "x.gather(1, idx)", "x.index_select(0, idx[1])", "x.clone()", "f.atan2(f)",
    "(x > 0).logical_xor(x < 2)", "x.new_zeros(2, 3)", "x.new_full((2,), 7)",
]


@pytest.mark.parametrize("code", EAGER_CALLS)
def test_new_aten_methods_match_pytorch(code):
    # Each method of the Core ATen ops added in the eager API is one aten
    # call with PyTorch's arguments; results equal PyTorch's.
    if torch is None:
        pytest.skip("PyTorch 1.13 is the reference")
    values = dict(x=np.array([[7, -3, 2], [1, 5, -8]]), y=np.array([[2, 2, -3], [4, -1, 3]]),
                  f=np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]], dtype=np.float32),
                  idx=np.array([[0, 2], [1, 1]]))
    ours = eval(code, {k: opal.tensor(v) for k, v in values.items()})
    theirs = eval(code, {k: torch.from_numpy(v) for k, v in values.items()})
    if isinstance(theirs, tuple):
        assert tuple(ours._fields) == ("values", "indices")
        ours, theirs = list(ours), list(theirs)
    else:
        ours, theirs = [ours], [theirs]
    for o, t in zip(ours, theirs):
        assert np.asarray(o).dtype == t.numpy().dtype, code
        np.testing.assert_allclose(np.asarray(o), t.numpy(), rtol=1e-5, err_msg=code)
