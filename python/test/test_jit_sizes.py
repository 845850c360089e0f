"""Output sizes that are sizes of the inputs: a compiled kernel whose sizes
entry only copies sizes of its tensor arguments records where each comes
from (`sizes: a<argument>.<dim>` in its description and disk cache
manifest), and calls read them from the arguments instead of calling the
sizes entry (docs/jit.md)."""

import json
import re
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import opal
import opal.cache

A = opal.ops.aten

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opal
    A = opal.ops.aten
    rng = np.random.default_rng(3)
    x = opal.tensor(rng.standard_normal((5, 7)).astype(np.float32))
    y = opal.tensor(rng.standard_normal(7).astype(np.float32))
    w = opal.tensor(rng.standard_normal((3, 7)).astype(np.float32))
    calls = [A.exp(x), A.add.Tensor(x, y), A.matmul(x, A.t(x)), A.linear(x, w),
             A.mean.dim(x, [0]), A.softmax.int(x, -1)]
    # Other sizes through the same kernels.
    x2 = opal.tensor(rng.standard_normal((2, 9)).astype(np.float32))
    calls += [A.exp(x2), A.mean.dim(x2, [0]), A.linear(x2, opal.tensor(np.ones((4, 9), np.float32)))]
    json.dump({"shapes": [list(t.shape) for t in calls], "out": [t.tolist() for t in calls],
               "stats": opal.jit.stats()}, sys.stdout)
""")


def run_process(cache_dir, extra_env=None):
    env = dict(os.environ, OPAL_CACHE_DIR=str(cache_dir))
    env.update(extra_env or {})
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    import json
    return json.loads(result.stdout)


def sizes_by_kernel(cache_dir):
    return {(m["op"], m["specialization"]): m.get("sizes")
            for _, _, m in opal.cache.entries(str(cache_dir))}


def test_kernels_record_which_input_sizes_their_outputs_have(tmp_path):
    first = run_process(tmp_path)
    assert first["shapes"] == [[5, 7], [5, 7], [5, 5], [5, 3], [7], [5, 7], [2, 9], [9], [2, 4]]
    sizes = sizes_by_kernel(tmp_path)
    assert sizes[("aten::exp", "(float32[?,?])")] == "a0.0 a0.1"
    assert sizes[("aten::add.Tensor", "(float32[?,?], float32[?], int)")] == "a0.0 a0.1"
    # t(x) of a 5 x 7 x is a view with a last stride of 7: a key of its own
    # (a product reads it from a copy all the same).
    assert sizes[("aten::matmul", "(float32[?,?], float32[?,?] strided)")] == "a0.0 a1.1"
    # linear(x, w) is x @ w^T: rows of x, rows of w.
    assert sizes[("aten::linear", "(float32[?,?], float32[?,?], None)")] == "a0.0 a1.0"
    assert sizes[("aten::mean.dim", "(float32[?,?], List[int]=[0], bool=False, None)")] == "a0.1"


def test_the_sizes_agree_with_numpy():
    rng = np.random.default_rng(5)
    for shape in [(1, 3), (4, 1), (6, 10), (0, 5), (3, 0)]:
        a = rng.standard_normal(shape).astype(np.float32)
        x = opal.tensor(a)
        np.testing.assert_allclose(A.exp(x).numpy(), np.exp(a), rtol=1e-6)
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of no rows: NaN
            expected = a.mean(0)
        np.testing.assert_allclose(A.mean.dim(x, [0]).numpy(), expected, rtol=1e-5,
                                   atol=1e-6)
        w = rng.standard_normal((2, shape[1])).astype(np.float32)
        np.testing.assert_allclose(A.linear(x, opal.tensor(w)).numpy(), a @ w.T, rtol=1e-5,
                                   atol=1e-5)
    # Meta tensors take their sizes the same way.
    m = opal.empty([6, 11], device="meta")
    assert list(A.linear(m, opal.empty([2, 11], device="meta")).shape) == [6, 2]


def test_a_disk_hit_reads_the_sizes_from_its_manifest(tmp_path):
    first = run_process(tmp_path)
    # OPAL_DUMP_DIR turns the warm start off: the compiler finds the objects
    # in the disk cache and the sizes in their manifests.
    second = run_process(tmp_path, {"OPAL_DUMP_DIR": str(tmp_path / "dump")})
    assert second["stats"]["compiles"] == 0 and second["stats"]["disk_hits"] > 0
    assert second["shapes"] == first["shapes"] and second["out"] == first["out"]


def damage_sizes_lines(cache_dir, reseal):
    """Damages the sizes line of every manifest; with `reseal`, signs the
    result again with the cache's key, as a writer holding the key would."""
    from cache_seal import body as unsealed, reseal as sign
    damaged = 0
    for name, directory, _ in opal.cache.entries(str(cache_dir)):
        path = os.path.join(directory, "manifest.txt")
        body = unsealed(open(path).read())
        changed = body.replace("sizes: a0.0", "sizes: a0.")
        # Well formed but naming a dim the argument does not have: refused
        # when called, the sizes entry runs instead.
        changed = changed.replace("sizes: a0.1", "sizes: a0.9")
        damaged += changed != body
        if reseal:
            sign(path, "entry", name, changed, cache_dir)
        else:
            open(path, "w").write(changed + "hmac: " + "0" * 64 + "\n")
    return damaged


def test_a_damaged_sizes_line_falls_back_to_the_sizes_entry(tmp_path):
    first = run_process(tmp_path)
    assert damage_sizes_lines(tmp_path, reseal=True) == 6
    second = run_process(tmp_path, {"OPAL_DUMP_DIR": str(tmp_path / "dump")})
    assert second["stats"]["compiles"] == 0
    assert second["shapes"] == first["shapes"] and second["out"] == first["out"]


def test_a_sizes_line_changed_without_the_key_is_refused(tmp_path):
    first = run_process(tmp_path)
    entries = len(opal.cache.entries(str(tmp_path)))
    assert damage_sizes_lines(tmp_path, reseal=False) == 6
    second = run_process(tmp_path, {"OPAL_DUMP_DIR": str(tmp_path / "dump")})
    assert second["stats"]["compiles"] == entries
    assert second["shapes"] == first["shapes"] and second["out"] == first["out"]


def test_the_sources_of_several_outputs_follow_the_outputs_order(tmp_path):
    script = textwrap.dedent("""
        import json, sys
        import numpy as np
        import opal
        A = opal.ops.aten
        lib = opal.library.Library("sizes_test", "DEF")
        lib.define("pair(Tensor x, Tensor y) -> (Tensor, Tensor)")

        @opal.library.register_decomposition("sizes_test::pair", lib=lib)
        def pair(x, y):
            return A.exp(x), A.sum.dim_IntList(A.mm(x, y), [0])

        x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
        y = np.linspace(0, 2, 24, dtype=np.float32).reshape(4, 6)
        a, b = opal.ops.sizes_test.pair(opal.tensor(x), opal.tensor(y))
        json.dump({"shapes": [list(a.shape), list(b.shape)],
                   "exp": bool(np.allclose(a.numpy(), np.exp(x), rtol=1e-5)),
                   "sum": bool(np.allclose(b.numpy(), (x @ y).sum(0), rtol=1e-4))}, sys.stdout)
    """)
    env = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    import json
    out = json.loads(result.stdout)
    assert out == {"shapes": [[3, 4], [6]], "exp": True, "sum": True}
    # exp(x) has x's two sizes, the column sums of x @ y y's second.
    assert sizes_by_kernel(tmp_path) == {("sizes_test::pair", "(float32[?,?], float32[?,?])"):
                                         "a0.0 a0.1 a1.1"}


def test_a_warm_start_index_without_its_data_checks_is_not_used(tmp_path):
    # floor_divide's kernel has a data check (a zero divisor): an extra
    # output the caller never sees. A warm-start index whose `data:` line is
    # gone would hand that output to the caller and skip the check; the next
    # process refuses the index (and removes it) and loads the kernel through
    # its disk cache entry, whose description is whole.
    script = textwrap.dedent("""
        import json, sys
        import opal
        A = opal.ops.aten
        try:
            A.floor_divide(opal.tensor([7, 3]), opal.tensor([2, 0]))
            raised = None
        except RuntimeError as error:
            raised = str(error)
        out = A.floor_divide(opal.tensor([7, 3]), opal.tensor([2, 1]))
        json.dump({"raised": raised, "out": out.tolist(),
                   "compiles": opal.jit.stats()["compiles"]}, sys.stdout)
    """)
    env = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path))

    def run():
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    first = run()
    assert first == {"raised": "ZeroDivisionError", "out": [3, 3], "compiles": 1}
    damaged = 0
    for root, _, files in os.walk(tmp_path):
        for name in files:
            path = os.path.join(root, name)
            text = open(path, "rb").read()
            if b"\ndata: " in text and b"\nentry: " in text:
                lines = [line for line in text.split(b"\n") if not line.startswith(b"data: ")]
                open(path, "wb").write(b"\n".join(lines))
                damaged += 1
    assert damaged == 1
    assert run() == {"raised": "ZeroDivisionError", "out": [3, 3], "compiles": 0}


def test_reshapes_of_sizes_known_per_call_compile_once():
    """A view whose sizes are the input's sizes (or products of them, or
    constants with one -1) compiles once for every shape (sizes of 1 aside,
    which broadcasting specializes): the element count
    is checked before the call, with PyTorch's messages."""
    lib = opal.library.Library("dynview", "DEF")
    try:
        lib.define("rows(Tensor x) -> Tensor")
        lib.define("quads(Tensor x) -> Tensor")

        @opal.library.register_decomposition("dynview::rows", lib=lib)
        def rows(x):
            flat = A.view.default(A.relu.default(x), [x.size(0) * x.size(1), x.size(2)])
            return flat * 2

        @opal.library.register_decomposition("dynview::quads", lib=lib)
        def quads(x):
            return A.view.default(A.relu.default(x), [4, -1]) + 1

        rng = np.random.default_rng(5)
        before = opal.jit.stats()
        for shape in [(2, 3, 4), (5, 2, 8), (3, 4, 2), (0, 2, 4)]:
            a = rng.standard_normal(shape).astype(np.float32)
            got = opal.ops.dynview.rows(opal.tensor(a)).numpy()
            np.testing.assert_array_equal(got, np.maximum(a, 0).reshape(-1, shape[2]) * 2)
            got = opal.ops.dynview.quads(opal.tensor(a)).numpy()
            np.testing.assert_array_equal(got, np.maximum(a, 0).reshape(4, -1) + 1)
        after = opal.jit.stats()
        assert (after["compiles"] + after["disk_hits"]) - (before["compiles"] +
                                                          before["disk_hits"]) == 2
        # PyTorch's words: torch.zeros(3, 5).view(4, -1) and .view(0, -1).
        bad = opal.tensor(np.ones((3, 5), np.float32))
        with pytest.raises(RuntimeError, match=re.escape(
                "dynview::quads: in aten::view: shape '[4, -1]' is invalid for input of "
                "size 15")):
            opal.ops.dynview.quads(bad)
    finally:
        lib._destroy()


def test_a_kernel_with_many_data_checks_raises_the_one_that_failed():
    # One kernel of three gathers and an integer division: four data checks
    # whose words (a flag and the message's values) the kernel writes into
    # one buffer; the check that fails raises with its own values, a call
    # that passes them all returns the sum.
    import opal
    lib = opal.library.Library("manychecks", "DEF")
    lib.define("f(Tensor x, Tensor i, Tensor j, Tensor k, Tensor d) -> Tensor")

    @opal.library.register_decomposition("manychecks::f", lib=lib)
    def f(x, i, j, k, d):
        g = opal.ops.aten.gather
        total = g(x, 1, i) + g(x, 1, j) + g(x, 1, k)
        return opal.ops.aten.div.Tensor_mode(total, d, rounding_mode="floor")

    try:
        x = opal.tensor([[1, 2, 3], [4, 5, 6]])
        ok = opal.tensor([[0], [2]])
        d = opal.tensor([[1], [2]])
        assert opal.ops.manychecks.f(x, ok, ok, ok, d).tolist() == [[3], [9]]
        with pytest.raises(RuntimeError,
                           match=r"^index 7 is out of bounds for dimension 1 with size 3$"):
            opal.ops.manychecks.f(x, ok, opal.tensor([[1], [7]]), ok, d)
        with pytest.raises(RuntimeError,
                           match=r"^index -4 is out of bounds for dimension 1 with size 3$"):
            opal.ops.manychecks.f(x, ok, ok, opal.tensor([[-4], [0]]), d)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            opal.ops.manychecks.f(x, ok, ok, ok, opal.tensor([[1], [0]]))
        assert opal.ops.manychecks.f(x, ok, ok, ok, d).tolist() == [[3], [9]]
    finally:
        lib._destroy()
