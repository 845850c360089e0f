"""Every built-in aten op, compiled by the JIT, against PyTorch 1.13 on
random inputs: dtypes, broadcasting, non-contiguous inputs, 0-d and empty
tensors, reductions over each dim with and without keepdim.

The inputs live on OPAL_TEST_DEVICE (default cpu): with `cuda`, the same
suite checks the CUDA JIT (test_cuda.py runs it so on a machine with a GPU).
"""

import os

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the numerical reference")

A = opal.ops.aten
DEVICE = os.environ.get("OPAL_TEST_DEVICE", "cpu")
rng = np.random.default_rng(1234)

FLOATS = [np.float32, np.float64]
SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4)]


def array(shape, dtype=np.float32, low=-2.0, high=2.0):
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-6, 7, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def on_device(value):
    return opal.tensor(value, device=DEVICE)


def host(value):
    """The values of an opal tensor (on any device) as a numpy array."""
    return np.asarray(value.cpu() if isinstance(value, opal.Tensor) else value)


def to_opal(value):
    if isinstance(value, np.ndarray):
        return on_device(value)
    return value


def to_torch(value):
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    return value


def tolerance(dtype):
    return (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-12)


def check(opal_fn, torch_fn, *args, rtol=None, atol=None, **kwargs):
    got = opal_fn(*[to_opal(a) for a in args], **kwargs)
    want = torch_fn(*[to_torch(a) for a in args], **kwargs)
    want_dtype = str(want.dtype).replace("torch.", "")
    assert str(got.dtype) == "opal." + want_dtype
    assert tuple(got.shape) == tuple(want.shape)
    default_rtol, default_atol = tolerance(want_dtype)
    np.testing.assert_allclose(host(got), want.numpy(),
                               rtol=rtol or default_rtol, atol=atol or default_atol)
    return got


def transposed(a):
    """A non-contiguous opal tensor with the values of a.T."""
    return on_device(np.ascontiguousarray(a)).transpose(0, 1)


UNARY = {
    "neg": (A.neg, torch.neg, {}),
    "abs": (A.abs, torch.abs, {}),
    "exp": (A.exp, torch.exp, {}),
    "log": (A.log, torch.log, {"low": 0.01, "high": 4.0}),
    "log1p": (A.log1p, torch.log1p, {"low": -0.9, "high": 3.0}),
    "sqrt": (A.sqrt, torch.sqrt, {"low": 0.0, "high": 4.0}),
    "rsqrt": (A.rsqrt, torch.rsqrt, {"low": 0.1, "high": 4.0}),
    "sin": (A.sin, torch.sin, {}),
    "cos": (A.cos, torch.cos, {}),
    "tanh": (A.tanh, torch.tanh, {}),
    "erf": (A.erf, torch.erf, {}),
    "relu": (A.relu, torch.relu, {}),
    "sigmoid": (A.sigmoid, torch.sigmoid, {}),
    "silu": (A.silu, torch.nn.functional.silu, {}),
    "reciprocal": (A.reciprocal, torch.reciprocal, {"low": 0.5, "high": 3.0}),
    "square": (A.square, torch.square, {}),
    "softplus": (A.softplus, torch.nn.functional.softplus, {"low": -30.0, "high": 30.0}),
    "leaky_relu": (A.leaky_relu, torch.nn.functional.leaky_relu, {}),
    "hardtanh": (A.hardtanh, torch.nn.functional.hardtanh, {}),
    "gelu": (A.gelu, torch.nn.functional.gelu, {}),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary(name, dtype, shape):
    opal_fn, torch_fn, domain = UNARY[name]
    check(opal_fn, torch_fn, array(shape, dtype, **domain))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_non_contiguous(name):
    opal_fn, torch_fn, domain = UNARY[name]
    a = array((4, 3), np.float32, **domain)
    got = opal_fn(transposed(a))
    np.testing.assert_allclose(host(got), torch_fn(torch.from_numpy(a).t()).numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["neg", "abs", "relu", "square"])
def test_unary_int64(name):
    opal_fn, torch_fn, _ = UNARY[name]
    check(opal_fn, torch_fn, array((3, 4), np.int64))


@pytest.mark.parametrize("name", ["exp", "sigmoid", "sqrt"])
def test_unary_int_promotes_to_float(name):
    opal_fn, torch_fn, _ = UNARY[name]
    check(opal_fn, torch_fn, np.abs(array((5,), np.int64)))


def test_gelu_tanh_and_scalar_arguments():
    a = array((3, 4))
    check(A.gelu, torch.nn.functional.gelu, a, approximate="tanh")
    check(A.softplus, torch.nn.functional.softplus, a, 2.0, 1.5)
    check(A.leaky_relu, torch.nn.functional.leaky_relu, a, 0.2)
    check(A.hardtanh, torch.nn.functional.hardtanh, a, -0.5, 0.5)


BROADCAST = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((0, 3), (3,)),
             ((1,), (2, 1))]
BINARY = {
    "add": (A.add.Tensor, torch.add),
    "sub": (A.sub.Tensor, torch.sub),
    "mul": (A.mul.Tensor, torch.mul),
    "div": (A.div.Tensor, torch.div),
    "maximum": (A.maximum, torch.maximum),
    "minimum": (A.minimum, torch.minimum),
    "pow": (A.pow.Tensor_Tensor, torch.pow),
    "eq": (A.eq.Tensor, torch.eq),
    "ne": (A.ne.Tensor, torch.ne),
    "lt": (A.lt.Tensor, torch.lt),
    "le": (A.le.Tensor, torch.le),
    "gt": (A.gt.Tensor, torch.gt),
    "ge": (A.ge.Tensor, torch.ge),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", BROADCAST)
def test_binary_broadcasting(name, shapes):
    opal_fn, torch_fn = BINARY[name]
    low = 0.5 if name == "pow" else -2.0
    check(opal_fn, torch_fn, array(shapes[0], low=low), array(shapes[1], low=low))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.int64, np.int64),
                                    (np.float32, np.int64), (np.int32, np.float64),
                                    (np.float32, np.float64)])
def test_binary_type_promotion(name, dtypes):
    opal_fn, torch_fn = BINARY[name]
    a, b = array((3, 4), dtypes[0]), array((4,), dtypes[1])
    if name == "pow":
        a, b = np.abs(a) + 1, np.abs(b)
        if np.issubdtype(b.dtype, np.integer):
            b = b % 4
    if name == "div" and np.issubdtype(b.dtype, np.integer):
        b[b == 0] = 1
    check(opal_fn, torch_fn, a, b)


@pytest.mark.parametrize("name", ["add", "sub", "mul"])
def test_binary_non_contiguous(name):
    opal_fn, torch_fn = BINARY[name]
    a, b = array((4, 3)), array((3, 4))
    got = opal_fn(transposed(a), on_device(b))
    np.testing.assert_allclose(host(got), torch_fn(torch.from_numpy(a).t(),
                                                         torch.from_numpy(b)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("alpha", [1, 2, 0.5])
def test_add_sub_alpha(alpha):
    a, b = array((3, 4)), array((4,))
    check(A.add.Tensor, torch.add, a, b, alpha=alpha)
    check(A.sub.Tensor, torch.sub, a, b, alpha=alpha)


SCALAR = {
    "add": (A.add.Scalar, lambda t, s: torch.add(t, s)),
    "sub": (A.sub.Scalar, lambda t, s: torch.sub(t, s)),
    "mul": (A.mul.Scalar, lambda t, s: torch.mul(t, s)),
    "div": (A.div.Scalar, lambda t, s: torch.div(t, s)),
    "pow": (A.pow.Tensor_Scalar, lambda t, s: torch.pow(t, s)),
    "rsub": (A.rsub.Scalar, lambda t, s: torch.rsub(t, s)),
    "eq": (A.eq.Scalar, torch.eq),
    "lt": (A.lt.Scalar, torch.lt),
    "ge": (A.ge.Scalar, torch.ge),
    "clamp_min": (A.clamp_min, torch.clamp_min),
    "clamp_max": (A.clamp_max, torch.clamp_max),
}


@pytest.mark.parametrize("name", sorted(SCALAR))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("scalar", [2, 0.5])
def test_scalar_overloads(name, dtype, scalar):
    opal_fn, torch_fn = SCALAR[name]
    a = array((3, 4), dtype)
    if name == "pow":
        a = np.abs(a) + 1
    check(opal_fn, torch_fn, a, scalar)


def test_scalar_values_share_one_kernel():
    a = on_device(array((8,)))
    A.mul.Scalar(a, 0.5)
    before = opal.jit.stats()
    out = A.mul.Scalar(a, 0.7)
    after = opal.jit.stats()
    assert after["compiles"] == before["compiles"] and after["disk_hits"] == before["disk_hits"]
    np.testing.assert_allclose(host(out), host(a) * np.float32(0.7), rtol=1e-6)


def test_where_and_clamp():
    c, a, b = array((3, 4), np.bool_), array((3, 4)), array((4,), np.float64)
    check(A.where.self, torch.where, c, a, b)
    a = array((3, 4))
    check(A.clamp, torch.clamp, a, -0.5, 0.5)
    check(A.clamp, torch.clamp, a, None, 0.5)
    check(A.clamp, torch.clamp, a, -0.5)

    # Three rank-6 tensors and a rank-6 output: more packed values than the
    # call keeps on its stack (they go to the heap).
    shape = (2, 1, 3, 2, 1, 2)
    c, a, b = array(shape, np.bool_), array(shape), array(shape)
    check(A.where.self, torch.where, c, a, b)


REDUCTIONS = {
    "sum": (A.sum.dim_IntList, torch.sum),
    "mean": (A.mean.dim, torch.mean),
    "amax": (A.amax, torch.amax),
    "amin": (A.amin, torch.amin),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dim", [0, 1, 2, -1, [0, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions(name, dim, keepdim):
    opal_fn, torch_fn = REDUCTIONS[name]
    a = array((2, 3, 4), np.float64)
    check(opal_fn, torch_fn, a, dim, keepdim)


def test_reduction_dtypes():
    a = array((3, 4), np.int64)
    check(A.sum.dim_IntList, torch.sum, a, [1])
    check(A.sum.dim_IntList, torch.sum, a, [0], dtype=opal.float64,
          ) if False else None
    got = A.sum.dim_IntList(on_device(a), [0], False, dtype=opal.float64)
    assert got.dtype == opal.float64
    np.testing.assert_allclose(host(got), a.sum(0).astype(np.float64))
    got = A.mean.dim(on_device(array((3, 4))), [1], True, dtype=opal.float64)
    assert got.dtype == opal.float64 and tuple(got.shape) == (3, 1)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax(op, dim, dtype):
    opal_fn = getattr(A, op).int
    torch_fn = getattr(torch, op)
    check(opal_fn, torch_fn, array((3, 5), dtype, -5, 5), dim)


def test_matrix_products():
    check(A.mm, torch.mm, array((3, 4)), array((4, 5)))
    check(A.bmm, torch.bmm, array((2, 3, 4)), array((2, 4, 5)))
    check(A.matmul, torch.matmul, array((3, 4), np.float64), array((4,), np.float64))
    check(A.matmul, torch.matmul, array((4,)), array((4, 5)))
    check(A.matmul, torch.matmul, array((2, 3, 4)), array((4, 5)))
    check(A.linear, torch.nn.functional.linear, array((3, 4)), array((5, 4)), array((5,)))
    check(A.linear, torch.nn.functional.linear, array((2, 2, 3, 4)), array((5, 4)), array((5,)))
    check(A.linear, torch.nn.functional.linear, array((2, 3, 4)), array((5, 4)))


def test_layer_norm():
    a, w, b = array((2, 3, 4)), array((4,)), array((4,))
    check(A.layer_norm, torch.nn.functional.layer_norm, a, [4], w, b, atol=1e-5)
    check(A.layer_norm, torch.nn.functional.layer_norm, a, [3, 4], atol=1e-5)


def test_shape_ops():
    a = array((2, 3, 4))
    check(A.transpose.int, torch.transpose, a, 0, 2)
    check(A.t, torch.t, array((3, 4)))
    check(A.permute, torch.permute, a, [2, 0, 1])
    check(A.unsqueeze, torch.unsqueeze, a, 1)
    check(A.squeeze.dim, torch.squeeze, array((2, 1, 4)), 1)
    check(A.expand, lambda t, s: t.expand(s), array((3, 1)), [2, 3, 4])
    check(A.reshape, torch.reshape, a, [4, 6])
    check(A.view, lambda t, s: t.view(s), a, [6, 4])


def test_factories_like():
    a = array((3, 4), np.float64)
    check(A.zeros_like, torch.zeros_like, a)
    check(A.ones_like, torch.ones_like, a)
    check(A.full_like, torch.full_like, a, 2.5)
    got = A.zeros_like(on_device(a), dtype=opal.int64)
    assert got.dtype == opal.int64 and host(got).sum() == 0


def test_meta_tensors_get_shapes_from_the_compiled_kernel():
    x = opal.empty(3, 1, 5, device="meta")
    y = opal.empty(4, 5, device="meta")
    out = A.add.Tensor(x, y)
    assert out.is_meta and tuple(out.shape) == (3, 4, 5)
    out = A.sum.dim_IntList(opal.empty(2, 7, device="meta"), [1], True)
    assert tuple(out.shape) == (2, 1)
    out = A.mm(opal.empty(6, 2, device="meta"), opal.empty(2, 9, device="meta"))
    assert tuple(out.shape) == (6, 9)


def test_prims_compile_when_called_directly():
    P = opal.ops.prims
    a, b = array((3, 4)), array((3, 4))
    np.testing.assert_allclose(host(P.add(on_device(a), on_device(b))), a + b)
    np.testing.assert_allclose(host(P.exp(on_device(a))), np.exp(a), rtol=1e-6)
    got = P.convert_element_type(on_device(a), opal.float64)
    assert got.dtype == opal.float64
    got = P.broadcast_in_dim(on_device(array((4,))), [3, 4], [1])
    assert tuple(got.shape) == (3, 4)
    got = P.sum(on_device(a), [1])
    np.testing.assert_allclose(host(got), a.sum(1), rtol=1e-6)
    got = P.full([2, 3], 1.5, dtype=opal.float32, device=opal.device("cpu"), requires_grad=False)
    np.testing.assert_array_equal(host(got), np.full((2, 3), 1.5, np.float32))


@pytest.mark.parametrize("shapes", [((2, 3, 4, 5), (5, 6)), ((2, 3, 4, 5), (2, 3, 5, 6)),
                                    ((4, 5), (2, 3, 5, 6)), ((3, 1, 4, 5), (2, 5, 6)),
                                    ((2, 4, 5), (5,)), ((5,), (2, 3, 5, 6)), ((1, 3, 4), (2, 4, 5)),
                                    ((5,), (5,)), ((2, 3, 4), (4,))])
def test_matmul_batch_broadcasting(shapes):
    check(A.matmul, torch.matmul, array(shapes[0], np.float64), array(shapes[1], np.float64))


def test_view_ops_return_views():
    # Native CompositeExplicitAutograd kernels, as in PyTorch: they share memory.
    base = on_device(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for view in [A.view(base, [6, 4]), A.reshape(base, [4, 6]), A.transpose.int(base, 0, 2),
                 A.permute(base, [2, 0, 1]), A.unsqueeze(base, 1),
                 A.expand(A.unsqueeze(base, 0), [3, 2, 3, 4]),
                 A.squeeze.dim(A.unsqueeze(base, 1), 1), A.t(A.view(base, [6, 4]))]:
        assert view.data_ptr() == base.data_ptr()
    view = A.view(base, [24])
    view.fill_(1.0)
    assert host(base).sum() == 24.0
    # Composites still compile through them into one kernel.
    before = opal.jit.stats()["compiles"]
    x, w = array((2, 3)), array((4, 3))
    check(A.linear, torch.nn.functional.linear, x, w)
    assert opal.jit.stats()["compiles"] in (before, before + 1)


@pytest.mark.parametrize("shapes", [((1001, 300), (300,)), ((1001, 1), (1, 300)),
                                    ((300,), (999, 300)), ((300001,), (300001,)),
                                    ((3, 1001, 100), (1001, 100)), ((1, 1001, 300), (7, 1, 300))])
def test_large_calls_split_across_threads(shapes):
    # Large calls split a loop over threads (opal-parallelize); every way the
    # inputs broadcast against it must still give PyTorch's values.
    a, b = array(shapes[0]), array(shapes[1])
    check(A.add.Tensor, torch.add, a, b)
    check(A.mul.Tensor, torch.mul, a, b)
    check(A.gelu, torch.nn.functional.gelu, a)
    check(A.where.self, torch.where, array(shapes[0], np.bool_), a, b)


def test_large_non_contiguous_input_split_across_threads():
    a = array((700, 900))
    got = A.exp(transposed(a))
    np.testing.assert_allclose(host(got), np.exp(a.T), rtol=1e-6)


@pytest.mark.parametrize("shape", [(1 << 20,), (1025, 513), (3, 200000), (2, 3, 50000)], ids=str)
def test_large_full_reductions_reduce_parts_on_threads(shape):
    # One reduction of the whole input to a scalar: each thread reduces its
    # part of the reduced loop, and the partials are combined in order.
    x = rng.uniform(-3, 3, shape)
    dims = list(range(len(shape)))
    for dtype in (np.float32, np.float64):
        a = opal.tensor(x.astype(dtype))
        got = float(np.asarray(A.sum.dim_IntList(a, dims)))
        exact = x.astype(dtype).astype(np.float64)
        # Rounding grows with the sum of magnitudes, not with the result.
        scale = np.abs(exact).sum() * (4e-7 if dtype == np.float32 else 1e-15)
        np.testing.assert_allclose(got, exact.sum(), rtol=0, atol=scale)
        assert float(np.asarray(A.amax(a, dims))) == x.astype(dtype).max()
        assert float(np.asarray(A.amin(a, dims))) == x.astype(dtype).min()
    near_one = opal.tensor(np.full(shape, 1.0000001, np.float64))
    np.testing.assert_allclose(float(np.asarray(opal.ops.prims.prod(near_one, dims))),
                               1.0000001 ** np.prod(shape), rtol=1e-9)
    ints = rng.integers(-1000, 1000, shape)
    assert int(np.asarray(A.sum.dim_IntList(opal.tensor(ints), dims))) == int(ints.sum())


def test_full_reductions_on_threads_keep_nan_and_views():
    x = rng.uniform(-3, 3, 1 << 20).astype(np.float32)
    for at in (3, (1 << 20) - 3):  # in the first half, in the second
        y = x.copy()
        y[at] = np.nan
        assert np.isnan(np.asarray(A.amax(opal.tensor(y), [0])))
        assert np.isnan(np.asarray(A.amin(opal.tensor(y), [0])))
        assert np.isnan(np.asarray(A.sum.dim_IntList(opal.tensor(y), [0])))
    # A transposed (non-contiguous) input is copied, then split.
    m = rng.uniform(-3, 3, (700, 600)).astype(np.float32)
    t = A.t(opal.tensor(m))
    np.testing.assert_allclose(float(np.asarray(A.sum.dim_IntList(t, [0, 1]))),
                               m.astype(np.float64).sum(), rtol=0,
                               atol=np.abs(m.astype(np.float64)).sum() * 4e-7)
    # Reductions that are not a plain reduction of the input run whole.
    np.testing.assert_allclose(float(np.asarray(A.mean.dim(opal.tensor(x), [0]))),
                               x.astype(np.float64).mean(), rtol=1e-5, atol=1e-7)


def test_large_row_independent_reductions_split_across_two_threads():
    # Softmax, log_softmax and layer_norm over the last dim, and sums with
    # keepdim over it, keep rows independent.
    a = array((1500, 300), np.float32, -5, 5)
    check(A.softmax.int, torch.softmax, a, -1)
    check(A.log_softmax.int, torch.log_softmax, a, 1, atol=1e-5)
    check(A.layer_norm, torch.nn.functional.layer_norm, a, [300], array((300,)), array((300,)),
          atol=1e-5)
    check(A.sum.dim_IntList, torch.sum, a, [1], True, rtol=1e-5, atol=1e-4)
    check(A.amax, torch.amax, a, [1], True)
    # ... and over dim 0 they do not, so they run whole.
    check(A.softmax.int, torch.softmax, a, 0)
