"""The API a PyTorch user reaches for: every dtype readable (repr, tolist,
item; numpy where numpy has the dtype), x.T and x.mT, opal.isclose and
opal.allclose, opal.testing.assert_close with PyTorch's tolerances and
messages, casts in traced decompositions, and the error for a numpy array
passed where a tensor goes. Where PyTorch is installed, each behaviour is
checked against it."""

import re
import warnings

import numpy as np
import pytest

import opal
from opal.testing import assert_close

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_bfloat16_prints_lists_and_gives_items_as_pytorch_does():
    values = [1.5, 3.14159, 1e10, -0.0078125]
    t = opal.tensor(values, dtype=opal.bfloat16)
    assert t.tolist() == [1.5, 3.140625, 9999220736.0, -0.0078125]
    assert opal.tensor(3.14159, dtype=opal.bfloat16).item() == 3.140625
    # (The dtype passes 80 characters: on a line of its own, as PyTorch's.)
    assert repr(t) == ("tensor([ 1.5000e+00,  3.1406e+00,  9.9992e+09, -7.8125e-03],\n"
                       "       dtype=opal.bfloat16)")
    assert repr(opal.ones(2, dtype=opal.bfloat16)) == "tensor([1., 1.], dtype=opal.bfloat16)"
    if torch is not None:
        expected = torch.tensor(values, dtype=torch.bfloat16)
        assert t.tolist() == expected.tolist()
        assert repr(t).replace("opal.", "torch.") == repr(expected)


def test_numpy_of_bfloat16_raises_with_the_exact_conversion():
    t = opal.ones(2, dtype=opal.bfloat16)
    with pytest.raises(TypeError) as error:
        t.numpy()
    assert str(error.value) == (
        "Got unsupported ScalarType bfloat16: numpy has no bfloat16 dtype; convert first with "
        "t.float().numpy(), which is exact (every bfloat16 value is a float32)")
    assert t.float().numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])
def test_every_dtype_prints_lists_and_gives_an_item(dtype):
    t = opal.tensor([0, 1, 1], dtype=getattr(opal, dtype))
    want = [False, True, True] if dtype == "bool" else [0, 1, 1]
    assert t.tolist() == want
    assert t[1].item() == want[1]
    assert repr(t).startswith("tensor([")
    if torch is not None:
        expected = torch.tensor([0, 1, 1], dtype=getattr(torch, dtype))
        assert repr(t).replace("opal.", "torch.") == repr(expected)


def test_T_reverses_the_dims_and_mT_swaps_the_last_two():
    x = opal.arange(24.0).reshape(2, 3, 4)
    m = x[0]
    assert m.T.shape == (4, 3) and m.T.tolist() == np.array(m.tolist()).T.tolist()
    assert x.mT.shape == (2, 4, 3)
    assert x.mT.tolist() == np.swapaxes(np.array(x.tolist()), -1, -2).tolist()
    m.T[0, 1] = 100.0  # a view, as PyTorch's
    assert m[1, 0].item() == 100.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.T.shape == (4, 3, 2)
        assert opal.ones(3).T.shape == (3,)
    assert len(caught) == 2 and all("x.mT" in str(w.message) for w in caught)
    with pytest.raises(RuntimeError, match=r"^tensor.mT is only supported on matrices or "
                                           r"batches of matrices. Got 1-D tensor.$"):
        opal.ones(3).mT


def test_isclose_and_allclose_as_pytorch():
    a = opal.tensor([1.0, 2.0, float("inf"), float("nan"), 1e-9])
    b = opal.tensor([1.0 + 1e-6, 2.1, float("inf"), float("nan"), 0.0])
    assert opal.isclose(a, b).tolist() == [True, False, True, False, True]
    assert opal.isclose(a, b, equal_nan=True).tolist() == [True, False, True, True, True]
    assert opal.isclose(a, b, rtol=0.1).tolist() == [True, True, True, False, True]
    assert opal.allclose(opal.ones(2, 3), opal.ones(3)) is True  # broadcast
    assert opal.allclose(opal.tensor([1, 2]), opal.tensor([1, 3]), atol=1) is True
    if torch is not None:
        ta, tb = torch.tensor(a.tolist()), torch.tensor(b.tolist())
        for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.1}, {"atol": 0.05}):
            assert opal.isclose(a, b, **kwargs).tolist() == torch.isclose(ta, tb, **kwargs).tolist()
    errors = [
        (lambda: opal.isclose(opal.ones(2), opal.ones(2, dtype=opal.float64)),
         "Float did not match Double"),
        (lambda: opal.isclose(opal.ones(2), opal.ones(2), rtol=-1),
         "rtol must be greater than or equal to zero, but got -1"),
        (lambda: opal.allclose(opal.ones(2), opal.ones(3)),
         "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
         "dimension 0"),
    ]
    for call, message in errors:
        with pytest.raises(RuntimeError) as error:
            call()
        assert str(error.value) == message


# Each case: (actual, expected, keyword arguments), built by `make` from a
# tensor module (opal or torch), so that both libraries run the same case.
ASSERT_CLOSE_CASES = {
    "one element off": lambda m: (m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.]), {}),
    "nan": lambda m: (m.tensor([[1., 2.], [3., float("nan")]]),
                      m.tensor([[1., 2.], [3.5, 1.]]), {}),
    "integers": lambda m: (m.tensor([1, 2]), m.tensor([1, 3]), {}),
    "bools": lambda m: (m.tensor([True, False]), m.tensor([True, True]), {}),
    "0-d": lambda m: (m.tensor(1.), m.tensor(2.), {}),
    "float64": lambda m: (m.tensor([1., 2.], dtype=m.float64),
                          m.tensor([1., 2.000001], dtype=m.float64), {}),
    "nested": lambda m: ([[m.ones(2)], {"a": 1}], [[m.zeros(2)], {"a": 1}], {}),
    "scalars": lambda m: (1.0, 1.1, {}),
    "scalar types": lambda m: (1, 1.0, {}),
    "lengths": lambda m: ([m.ones(2)], [m.ones(2), 1], {}),
    "keys": lambda m: ({"a": 1}, {"b": 1}, {}),
    "own tolerances": lambda m: (m.tensor([1., 2.]), m.tensor([1., 2.05]),
                                 {"rtol": 0.0, "atol": 0.01}),
    "message": lambda m: (m.tensor([1., 2.]), m.tensor([1., 3.]), {"msg": "custom"}),
    "message function": lambda m: (m.tensor([1., 2.]), m.tensor([1., 3.]),
                                   {"msg": lambda generated: "X " + generated[:10]}),
}


@pytest.mark.parametrize("case", sorted(ASSERT_CLOSE_CASES))
def test_assert_close_raises_pytorch_s_message(case):
    actual, expected, kwargs = ASSERT_CLOSE_CASES[case](opal)
    with pytest.raises(AssertionError) as error:
        assert_close(actual, expected, **kwargs)
    if torch is not None:
        t_actual, t_expected, t_kwargs = ASSERT_CLOSE_CASES[case](torch)
        with pytest.raises(AssertionError) as torch_error:
            torch.testing.assert_close(t_actual, t_expected, **t_kwargs)
        assert str(error.value) == str(torch_error.value).replace("torch.", "opal.")
    else:
        assert str(error.value)


def test_assert_close_passes_and_checks_what_pytorch_checks():
    assert_close(opal.ones(2), opal.ones(2) + 1e-7)  # within float32's tolerances
    assert_close(opal.tensor([float("nan")]), opal.tensor([float("nan")]), equal_nan=True)
    assert_close(opal.ones(2), opal.ones(2, dtype=opal.float64), check_dtype=False)
    assert_close({"w": [opal.ones(2), 3]}, {"w": [opal.ones(2), 3]})
    with pytest.raises(AssertionError, match=r"^The values for attribute 'shape' do not "
                                             r"match: \(2,\) != \(3,\).$"):
        assert_close(opal.ones(2), opal.ones(3))
    with pytest.raises(AssertionError, match=r"^The values for attribute 'dtype' do not "
                                             r"match: opal.float32 != opal.float64.$"):
        assert_close(opal.ones(2), opal.ones(2, dtype=opal.float64))
    with pytest.raises(ValueError, match=r"^Both 'rtol' and 'atol' must be either specified "
                                         r"or omitted, but got no atol.$"):
        assert_close(opal.ones(2), opal.ones(2), rtol=1e-3)
    with pytest.raises(TypeError, match=r"^No comparison pair was able to handle inputs of "
                                        r"type <class 'opal._C.Tensor'> and <class 'list'>.$"):
        assert_close(opal.ones(2), [1.0, 1.0])


def test_casts_are_traceable_in_decompositions():
    lib = opal.library.Library("everyday", "DEF")
    lib.define("mean_as_float(Tensor x) -> Tensor")
    lib.define("as_int(Tensor x) -> Tensor")

    @opal.library.register_decomposition("everyday::mean_as_float", lib=lib)
    def mean_as_float(x):
        return x.float().mean(0) + x.to(opal.float32).T.sum(1) * 0

    @opal.library.register_decomposition("everyday::as_int", lib=lib)
    def as_int(x):
        return x.long() + x.double().int().long()

    x = opal.tensor([[1, 2], [3, 5]])
    assert opal.ops.everyday.mean_as_float(x).tolist() == [2.0, 3.5]
    assert opal.ops.everyday.mean_as_float(x).dtype == opal.float32
    result = opal.ops.everyday.as_int(opal.tensor([1.7, -2.5]))
    assert result.dtype == opal.int64 and result.tolist() == [2, -4]


def test_a_numpy_array_where_a_tensor_goes_points_at_from_numpy():
    with pytest.raises(Exception) as error:
        opal.ops.aten.relu(np.ones(3, dtype=np.float32))
    assert ("argument 'self' (position 1) must be Tensor, not numpy.ndarray (convert it with "
            "opal.from_numpy(x), which shares its memory)") in str(error.value)


def test_the_version_is_the_build_s_and_opal_lit_prints_it():
    import os
    import subprocess
    from opal import _config
    assert opal.__version__ == _config.VERSION
    assert re.fullmatch(r"opal \d+\.\d+\.\d+ \(build [0-9a-f]{16}\)", opal._C._version_text())
    build = os.environ.get("OPAL_BUILD_DIR")
    if build is None:
        pytest.skip("OPAL_BUILD_DIR is not set: opal-lit is not found")
    done = subprocess.run([os.path.join(build, "bin", "opal-lit"), "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == opal._C._version_text(), done


def test_random_factories_compile_once_per_rank_and_new_fills_compile_none(tmp_path):
    # opal.rand/opal.randn call aten.rand/aten.randn, whose size list is a
    # kernel argument on the CPU; x.new_* fill in the runtime. A process of
    # its own with an empty cache.
    import json
    import os
    import subprocess
    import sys
    import textwrap
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import json, opal
        A = opal.ops.aten
        counts = {}
        for name in ("rand", "randn"):
            opal.jit.reset_stats()
            for n in (3, 5, 7, 9):
                getattr(opal, name)(n, 4)
            counts[name] = opal.jit.stats()["compiles"]
        opal.manual_seed(3); ours = opal.randn(6, 4, dtype=opal.float64)
        opal.manual_seed(3); aten = A.randn([6, 4], dtype=opal.float64)
        x = opal.ones(2, dtype=opal.int16)
        opal.jit.reset_stats()
        filled = [x.new_zeros(n, 4).shape for n in (3, 5)] + [x.new_full((2,), 7).tolist()]
        counts["new"] = opal.jit.stats()["compiles"]
        print(json.dumps([counts, ours.tolist() == aten.tolist(), filled,
                          str(x.new_ones(2).dtype)]))
    """)], capture_output=True, text=True, timeout=300,
        env=dict(os.environ, OPAL_CACHE_DIR=str(tmp_path)))
    assert done.returncode == 0, done.stderr[-3000:]
    counts, same, filled, dtype = json.loads(done.stdout.splitlines()[-1])
    assert counts == {"rand": 1, "randn": 1, "new": 0}
    assert same and filled == [[3, 4], [5, 4], [7, 7]] and dtype == "opal.int16"
    with pytest.raises(RuntimeError, match=r"^aten::randn: Trying to create tensor with "
                                           r"negative dimension -1: \[-1, 4\]$"):
        opal.randn(-1, 4)


def test_factory_ops_take_their_sizes_at_run_time(tmp_path):
    # aten's factories called directly compile once for every shape of a
    # rank (the size list is a kernel argument: its length and entries of 1
    # are keyed); so does a decomposition that makes a tensor of sizes it
    # reads per call. A process of its own with an empty cache.
    import json
    import os
    import subprocess
    import sys
    import textwrap
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import json, opal
        A = opal.ops.aten
        calls = {"zeros": lambda n: A.zeros([n, 4]), "ones": lambda n: A.ones([n, 4]),
                 "full": lambda n: A.full([n, 4], 2.5), "rand": lambda n: A.rand([n, 4]),
                 "randn": lambda n: A.randn([n, 4], dtype=opal.float64)}
        counts, shapes = {}, []
        for name, call in calls.items():
            opal.jit.reset_stats()
            shapes += [list(call(n).shape) for n in (3, 5, 0, 9)]
            counts[name] = opal.jit.stats()["compiles"]
        values = [A.full([2, 3], 7).tolist(), A.ones([2], dtype=opal.int16).tolist(),
                  A.zeros([1, 2]).tolist(), A.zeros([]).tolist()]
        opal.manual_seed(5); first = A.randn([6, 4]).tolist()
        opal.manual_seed(5); again = opal.randn(6, 4).tolist()
        lib = opal.library.Library("sizes_test", "DEF")
        lib.define("pad_rows(Tensor x) -> Tensor")
        @opal.library.register_decomposition("sizes_test::pad_rows", lib=lib)
        def pad_rows(x):
            return A.zeros([x.size(0) * 2, x.size(1)]) + x.sum()
        opal.jit.reset_stats()
        padded = [opal.ops.sizes_test.pad_rows(opal.ones(n, 3)) for n in (2, 4)]
        counts["traced"] = opal.jit.stats()["compiles"]
        print(json.dumps([counts, shapes[8:12], values, first == again,
                          [p.tolist() for p in padded]]))
    """)], capture_output=True, text=True, timeout=300,
        env=dict(os.environ, OPAL_CACHE_DIR=str(tmp_path)))
    assert done.returncode == 0, done.stderr[-3000:]
    counts, shapes, values, same, padded = json.loads(done.stdout.splitlines()[-1])
    assert counts == {"zeros": 1, "ones": 1, "full": 1, "rand": 1, "randn": 1, "traced": 1}
    assert shapes == [[3, 4], [5, 4], [0, 4], [9, 4]]
    assert values == [[[7] * 3] * 2, [1, 1], [[0.0, 0.0]], 0.0]
    assert same
    assert padded == [[[6.0] * 3] * 4, [[12.0] * 3] * 8]


@pytest.mark.parametrize("call, reference", [
    ("opal.zeros(2, -1)", "torch.zeros(2, -1)"),
    ("opal.ops.aten.zeros([-3])", "torch.ops.aten.zeros([-3])"),
    ("opal.ops.aten.ones([4, -1])", "torch.ops.aten.ones([4, -1])"),
    ("opal.ops.aten.full([-2], 1.0)", "torch.ops.aten.full([-2], 1.0)"),
    ("opal.ops.aten.randn([2, -1])", "torch.ops.aten.randn([2, -1])"),
])
def test_negative_factory_sizes_raise_as_pytorch_does(call, reference):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as expected:
        eval(reference, {"torch": torch})
    with pytest.raises(RuntimeError) as got:
        eval(call, {"opal": opal})
    message = str(got.value)
    for prefix in ("aten::zeros: ", "aten::ones: ", "aten::full: ", "aten::randn: "):
        message = message.removeprefix(prefix)
    assert message == str(expected.value).removeprefix("zeros: ") or \
        message == str(expected.value)


# Inputs a user can build that these functions cannot read: each in a
# process of its own, expecting a clean error (or PyTorch's meta behaviour).
UNREADABLE = {
    "isclose of meta": ("print(opal.isclose(m, m).is_meta, tuple(opal.isclose(m, m).shape))",
                        "True (2, 3)"),
    "allclose of meta": ("opal.allclose(m, m)",
                         "RuntimeError: Tensor.item() cannot be called on meta tensors"),
    "assert_close of meta": ("opal.testing.assert_close(m, opal.empty(2, 3, device='meta')); "
                             "print('passed')", "passed"),
    "tolist of meta": ("m.tolist()", "NotImplementedError: Cannot copy out of meta tensor; "
                                     "no data!"),
    "item of meta": ("m[0, 0].item()", "RuntimeError: Tensor.item() cannot be called on meta "
                                       "tensors"),
    "isclose of numpy": ("opal.isclose(opal.ones(2), np.ones(2))",
                         "TypeError: isclose(): expected two Tensors, got Tensor and ndarray"),
    "save of numpy": ("opal.save(np.ones(2), io.BytesIO())",
                      "TypeError: opal.save: cannot save a numpy.ndarray (it saves opal tensors"),
    "save of a meta view": ("opal.save(m[1], io.BytesIO()); print('saved')", "saved"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_unreadable_inputs_raise_clean_errors_in_their_own_process(case):
    import subprocess
    import sys
    code, expected = UNREADABLE[case]
    script = ("import io, numpy as np, opal\nm = opal.empty(2, 3, device='meta')\n"
              f"try:\n    {code}\nexcept Exception as e:\n"
              "    print(f'{type(e).__name__}: {e}')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(expected), done.stdout
