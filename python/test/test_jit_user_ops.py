"""User ops compiled by the JIT: decompositions traced from Python and
loaded from op-library files agree with numpy; later registrations are
never ignored."""

import os
import re

import numpy as np
import pytest

import opal

A = opal.ops.aten
INPUTS = os.path.join(os.path.dirname(__file__), "inputs")
rng = np.random.default_rng(7)


@pytest.fixture
def lib():
    library = opal.library.Library("pyjit", "DEF")
    yield library
    library._destroy()


def test_python_decomposition_is_traced_and_compiled(lib):
    lib.define("softplus(Tensor x, float beta=1.0) -> Tensor")

    @opal.library.register_decomposition("pyjit::softplus", lib=lib)
    def softplus(x, beta):
        return A.log1p(A.exp(x * beta)) / beta

    assert 'opal.decomposition "softplus"' in softplus._opal_decomposition
    assert "aten.exp" in softplus._opal_decomposition
    assert opal._C._dispatch_has_kernel_for_dispatch_key("pyjit::softplus",
                                                         "CompositeImplicitAutograd")
    x = rng.uniform(-3, 3, size=(4, 5)).astype(np.float32)
    got = opal.ops.pyjit.softplus(opal.tensor(x), 2.0)
    np.testing.assert_allclose(np.asarray(got), np.log1p(np.exp(2 * x)) / 2, rtol=1e-5)
    # beta is a runtime argument: another value shares the kernel.
    before = opal.jit.stats()["compiles"]
    got = opal.ops.pyjit.softplus(opal.tensor(x), 0.5)
    assert opal.jit.stats()["compiles"] == before
    np.testing.assert_allclose(np.asarray(got), np.log1p(np.exp(0.5 * x)) / 0.5, rtol=1e-5)


def test_python_decomposition_with_int_arguments_and_operators(lib):
    lib.define("centered(Tensor x, int dim) -> Tensor")

    @opal.library.register_decomposition("pyjit::centered", lib=lib)
    def centered(x, dim):
        return x - A.mean.dim(x, [dim], True)

    x = rng.standard_normal((3, 6))
    for dim in (0, 1):
        got = opal.ops.pyjit.centered(opal.tensor(x), dim)
        np.testing.assert_allclose(np.asarray(got), x - x.mean(axis=dim, keepdims=True),
                                   rtol=1e-12, atol=1e-12)


def test_traced_float_literals_are_exact(lib):
    # A float a Python function uses reaches the kernel bit for bit: 1e-05
    # (which MLIR reads only as 1.0e-05), inf and nan (as their bits).
    lib.define("literals(Tensor x) -> (Tensor, Tensor, Tensor)")

    @opal.library.register_decomposition("pyjit::literals", lib=lib)
    def literals(x):
        return (A.mul(x, 1e-5),
                A.add(x, float("inf")), A.mul(x, float("nan")))

    text = literals._opal_decomposition
    assert "arith.constant 1.0e-05 : f64" in text
    assert "arith.constant 0x7FF0000000000000 : f64" in text
    small, big, missing = opal.ops.pyjit.literals(opal.tensor([3.0], dtype=opal.float64))
    assert small.tolist() == [3.0 * 1e-5]
    assert big.tolist() == [float("inf")]
    assert np.isnan(missing.tolist()[0])


def test_tracing_errors_are_clear(lib):
    lib.define("bad(Tensor x) -> Tensor")
    with pytest.raises(TypeError, match="no overload accepts these arguments"):
        @opal.library.register_decomposition("pyjit::bad", lib=lib)
        def bad(x):
            return A.exp(x, x)
    with pytest.raises(TypeError, match="must return 1 tensor"):
        opal.library.register_decomposition("pyjit::bad", lambda x: 3.0, lib=lib)
    # Nothing was registered by the failed attempts.
    assert not opal._C._dispatch_has_kernel_for_dispatch_key("pyjit::bad",
                                                             "CompositeImplicitAutograd")


def test_op_library_file_ops_compile():
    libraries = opal.library.load(os.path.join(INPUTS, "userlib.opal.mlir"))
    try:
        x = rng.uniform(-3, 3, size=(7,)).astype(np.float32)
        got = opal.ops.userlib.softplus(opal.tensor(x), 1.5)
        np.testing.assert_allclose(np.asarray(got), np.log1p(np.exp(1.5 * x)) / 1.5, rtol=1e-5)
        y = rng.standard_normal((4, 3))
        got = opal.ops.userlib.rms(opal.tensor(y), 1)
        np.testing.assert_allclose(np.asarray(got), np.sqrt((y * y).mean(1, keepdims=True)),
                                   rtol=1e-12)
        assert tuple(got.shape) == (4, 1)
    finally:
        for library in libraries:
            library._destroy()


def test_late_registration_invalidates_a_compiled_composite(lib):
    lib.define("twice_exp(Tensor x) -> Tensor")

    @opal.library.register_decomposition("pyjit::twice_exp", lib=lib)
    def twice_exp(x):
        return A.exp(x) * 2.0

    x = opal.tensor(np.array([0.0, 1.0], dtype=np.float32))
    np.testing.assert_allclose(np.asarray(opal.ops.pyjit.twice_exp(x)), 2 * np.exp([0.0, 1.0]),
                               rtol=1e-6)
    stale = opal.jit.stats()["stale"]
    # A kernel registered later for an op the composite reached makes that op
    # a boundary: the composite now runs op by op, calling it (as PyTorch).
    impl = opal.library.Library("aten", "IMPL")
    calls = []

    def python_mul(t, s):
        calls.append(s)
        return opal.tensor(np.asarray(t) * s + 100.0)

    try:
        impl.impl("mul.Scalar", python_mul, "CPU")
        out = opal.ops.pyjit.twice_exp(x)
        assert opal.jit.stats()["stale"] == stale + 1
        assert calls == [2.0]
        np.testing.assert_allclose(np.asarray(out), 2 * np.exp([0.0, 1.0]) + 100.0, rtol=1e-6)
    finally:
        impl._destroy()
    # Removing it makes the composite one fused kernel again.
    out = opal.ops.pyjit.twice_exp(x)
    assert calls == [2.0]
    np.testing.assert_allclose(np.asarray(out), 2 * np.exp([0.0, 1.0]), rtol=1e-6)


def test_builtin_composite_with_an_opaque_inner_kernel_runs_op_by_op():
    # aten::silu decomposes through aten::sigmoid; a Python CPU kernel for
    # sigmoid is called by silu, as in PyTorch.
    x = np.array([-1.0, 0.0, 2.0], dtype=np.float32)
    impl = opal.library.Library("aten", "IMPL")
    try:
        impl.impl("sigmoid", lambda t: opal.tensor(np.full(t.numel(), 0.5, np.float32)), "CPU")
        out = A.silu(opal.tensor(x))
        np.testing.assert_allclose(np.asarray(out), x * 0.5, rtol=1e-6)
    finally:
        impl._destroy()
    np.testing.assert_allclose(np.asarray(A.silu(opal.tensor(x))), x / (1 + np.exp(-x)),
                               rtol=1e-6)


def test_op_by_op_plans_are_counted_apart_from_compiles(tmp_path):
    # A composite that reaches a Python kernel is planned, not compiled:
    # opal.jit.stats() counts it in `plans`; only the kernel its mul step
    # compiles is in `compiles` (an empty cache, a process of its own).
    import json
    import subprocess
    import sys
    import textwrap
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import json, opal
        impl = opal.library.Library("aten", "IMPL")  # silu is x * sigmoid(x)
        impl.impl("sigmoid", lambda t: opal.full(t.shape, 0.5), "CPU")
        opal.jit.reset_stats()
        out = opal.ops.aten.silu(opal.full((3,), 4.0))
        out = opal.ops.aten.silu(opal.full((3,), 4.0))
        stats = opal.jit.stats()
        print(json.dumps([out.tolist(), stats["plans"], stats["compiles"], stats["misses"],
                          stats["plan_ms"] > 0]))
    """)], capture_output=True, text=True, timeout=300,
        env=dict(os.environ, OPAL_CACHE_DIR=str(tmp_path)))
    assert done.returncode == 0, done.stderr[-3000:]
    values, plans, compiles, misses, timed = json.loads(done.stdout.splitlines()[-1])
    assert values == [2.0, 2.0, 2.0]
    assert (plans, compiles, misses, timed) == (1, 1, 2, True)  # (the mul step's kernel)


def test_a_decomposition_of_a_mutating_op_is_refused_at_registration(lib):
    lib.define("inc_(Tensor(a!) x) -> Tensor(a!)")
    with pytest.raises(RuntimeError) as error:
        @opal.library.register_decomposition("pyjit::inc_", lib=lib)
        def inc_(x):
            return x + 1
    assert ("'opal.decomposition' op decomposes pyjit::inc_, which writes into its argument "
            "'x' (an alias annotation with '!' in its schema): a decomposition computes new "
            "tensors and cannot write into its arguments; register a kernel for the op "
            "instead") in str(error.value)
    assert not opal._C._dispatch_has_kernel_for_dispatch_key("pyjit::inc_",
                                                             "CompositeImplicitAutograd")


def test_traced_code_is_spelled_as_eager_code(lib):
    # Operators, methods, shapes and int arithmetic on traced values; the
    # function is traced once and serves every shape.
    lib.define("heads(Tensor x, int h) -> Tensor")

    @opal.library.register_decomposition("pyjit::heads", lib=lib)
    def heads(x, h):
        batch, width = x.shape[0], x.size(-1)
        y = x.reshape([batch * h, width // h])
        return (y * 0.5 - 1).exp().sum(1, keepdim=True) / y.dim()

    text = heads._opal_decomposition
    assert "opal.dim_size %a0, 0" in text and "opal.dim_size %a0, -1" in text
    assert "arith.muli" in text and "arith.floordivsi" in text
    for rows, h in ((2, 3), (4, 2)):
        x = rng.standard_normal((rows, 6)).astype(np.float32)
        got = opal.ops.pyjit.heads(opal.tensor(x), h).numpy()
        y = x.reshape(rows * h, 6 // h)
        np.testing.assert_allclose(got, np.exp(y * 0.5 - 1).sum(1, keepdims=True) / 2,
                                   rtol=1e-5)


def test_list_str_and_optional_tensor_arguments_are_traced(lib):
    lib.define("norm(Tensor x, int[] dims, Tensor? weight, str mode, float eps=1e-05) -> Tensor")

    @opal.library.register_decomposition("pyjit::norm", lib=lib)
    def norm(x, dims, weight, mode, eps):
        centered = x - x.mean(dims, keepdim=True)
        scaled = centered * ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
        return A.gelu(scaled, approximate=mode)

    text = norm._opal_decomposition
    assert "%a1: !opal.list<i64>" in text and "%a3: !opal.str" in text
    assert "arith.constant 1.0e-05 : f64" not in text  # eps is an argument, not a literal
    x = rng.standard_normal((3, 4)).astype(np.float32)
    got = opal.ops.pyjit.norm(opal.tensor(x), [1], None, "none").numpy()
    want = torch_like_gelu((x - x.mean(1, keepdims=True)) /
                           np.sqrt(x.var(1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def torch_like_gelu(v):
    from math import erf, sqrt
    return np.vectorize(lambda t: 0.5 * t * (1 + erf(t / sqrt(2))))(v).astype(np.float32)


def test_basic_indexing_traces_to_select_and_slice(lib):
    lib.define("rows(Tensor x, int n) -> Tensor")

    @opal.library.register_decomposition("pyjit::rows", lib=lib)
    def rows(x, n):
        return x[0] + x[1:, ::2].sum() + x[n][1:3].sum()

    text = rows._opal_decomposition
    assert "aten.select.int" in text and "aten.slice.Tensor" in text
    v = np.arange(24, dtype=np.float32).reshape(4, 6)
    got = opal.ops.pyjit.rows(opal.tensor(v), 2).numpy()
    np.testing.assert_allclose(got, v[0] + v[1:, ::2].sum() + v[2][1:3].sum())


def test_what_tracing_cannot_know_raises_clearly(lib):
    lib.define("bad(Tensor x, int n) -> Tensor")
    cases = [
        (lambda x, n: x.reshape([len(x.shape)]), "the rank of a traced tensor is only known per "
                                                  "call"),
        (lambda x, n: x if n > 0 else -x, "is only known per call: a traced decomposition "
                                          "cannot branch on it"),
        (lambda x, n: x[..., 0], "indexing a traced tensor takes ints and slices (basic "
                                 "indexing); ellipsis is not traced yet"),
        (lambda x, n: x[[0, 1]], "list is not traced yet"),
        (lambda x, n: 2 / x, "a Python number on the left of / or ** is not traced yet"),
    ]
    for fn, message in cases:
        with pytest.raises(TypeError, match=re.escape(message)):
            opal.library.register_decomposition("pyjit::bad", lib=lib)(fn)


def test_two_reductions_of_one_shape_get_their_own_outputs(tmp_path):
    """Two sums of one shape in one kernel: CSE gives them one zero-filled
    destination, which once made both outputs the first sum
    (opal-unshare-destinations)."""
    path = tmp_path / "twosums.opal.mlir"
    path.write_text("""
opal.library "twosums" {
  opal.def "twosums::f(Tensor x, Tensor y) -> (Tensor, Tensor)"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor, %y: !opal.tensor):
    %none = opal.none
    %false = arith.constant false
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %dims = opal.list %c0, %c2 : i64, i64 -> !opal.list<i64>
    %xy = aten.mul.Tensor %x, %y : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %a = aten.sum.dim_IntList %xy, %dims, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %b = aten.sum.dim_IntList %x, %dims, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    opal.yield %a, %b : !opal.tensor, !opal.tensor
  }
}
""")
    libs = opal.library.load(str(path))
    try:
        rng = np.random.default_rng(0)
        x, y = rng.standard_normal((3, 2, 4)), rng.standard_normal((3, 2, 4))
        a, b = opal.ops.twosums.f(opal.tensor(x), opal.tensor(y))
        np.testing.assert_allclose(a.numpy(), (x * y).sum((0, 2)), rtol=1e-12)
        np.testing.assert_allclose(b.numpy(), x.sum((0, 2)), rtol=1e-12)
    finally:
        for lib in libs:
            lib._destroy()


def test_a_kernels_temporaries_share_one_buffer(lib):
    # A chain of products, compiled for static shapes (as torch.compile's
    # graphs are), whose results grow 4x, 2x, 2x and each die at the next
    # product: the kernel's temporaries (the results and each product's
    # packed weight) are views of one buffer (opal-plan-buffers) the size
    # of what is live at once, not a block each. A call allocates that buffer and its output, and gives back
    # all but the output; the result agrees with numpy.
    lib.define("chain(Tensor x, Tensor a, Tensor b, Tensor c, Tensor d) -> Tensor")

    @opal.library.register_decomposition("pyjit::chain", lib=lib)
    def chain(x, a, b, c, d):
        h = A.relu(A.mm(x, a))
        h = A.relu(A.mm(h, b))
        h = A.tanh(A.mm(h, c))
        return A.mm(h, d)

    opal._C._jit_declare_static_shapes("pyjit::chain")
    shapes = [(256, 32), (32, 64), (64, 256), (256, 512), (512, 16)]
    x, a, b, c, d = (rng.standard_normal(s).astype(np.float32) / np.sqrt(s[0]) for s in shapes)
    args = [opal.tensor(v) for v in (x, a, b, c, d)]
    opal.ops.pyjit.chain(*args)
    opal._C._empty_cache()
    before = opal._C._allocator_stats()
    got = opal.ops.pyjit.chain(*args)
    after = opal._C._allocator_stats()
    want = np.tanh(np.maximum(np.maximum(x @ a, 0) @ b, 0) @ c) @ d
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)
    assert after["allocations"] - before["allocations"] == 2  # the buffer, the output
    output = after["bytes_in_use"] - before["bytes_in_use"]
    assert output == 256 * 16 * 4
    # The buffer: the last product's input and result and its packed weight
    # (1.3 MB), in the caching allocator's 2 MiB size class.
    largest_pair = 4 * 256 * (256 + 512)
    assert largest_pair <= after["bytes_cached"] <= 2 << 20, (before, after)
