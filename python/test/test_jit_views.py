"""Non-contiguous inputs of compiled CPU kernels: views whose last dim is
(nearly) dense are read in place through their strides, transposes are
copied first; the results match numpy either way, and the choice is in the
key and in the kernel's description (docs/jit.md, Specialization)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import opal

A = opal.ops.aten

RNG = np.random.default_rng(7)
BASE = RNG.standard_normal((9, 12, 10)).astype(np.float32)

# (name, the view of an opal tensor, the same view of a numpy array)
VIEWS = [
    ("column slice", lambda t: t[:, 2:9, :], lambda a: a[:, 2:9, :]),
    ("last-dim slice", lambda t: t[:, :, 1:7], lambda a: a[:, :, 1:7]),
    ("every other column", lambda t: t[:, :, ::2], lambda a: a[:, :, ::2]),
    ("steps everywhere", lambda t: t[::2, ::3, ::2], lambda a: a[::2, ::3, ::2]),
    ("expanded", lambda t: t[:1].expand(9, 12, 10), lambda a: np.broadcast_to(a[:1], (9, 12, 10))),
    ("select then slice", lambda t: t[3, 1:11], lambda a: a[3, 1:11]),
    ("1-d steps", lambda t: t[4, 5, ::3], lambda a: a[4, 5, ::3]),
    ("size-1 last dim", lambda t: t[:, :, 4:5], lambda a: a[:, :, 4:5]),
    ("transpose (copied)", lambda t: t.transpose(0, 2), lambda a: a.transpose(2, 1, 0)),
    ("permute (copied)", lambda t: t.permute([1, 2, 0]), lambda a: a.transpose(1, 2, 0)),
]

OPS = [
    ("gelu", lambda x: A.gelu(x),
     lambda a: 0.5 * a * (1 + np.vectorize(__import__("math").erf)(a / np.sqrt(2)))),
    ("add self", lambda x: A.add(x, x, alpha=2), lambda a: a + 2 * a),
    ("sum last", lambda x: A.sum(x, [-1]), lambda a: a.sum(-1)),
    ("softmax", lambda x: A._softmax(x, -1, False),
     lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True)),
    ("amax first", lambda x: A.amax(x, [0]), lambda a: a.max(0)),
]


@pytest.mark.parametrize("view", VIEWS, ids=[v[0] for v in VIEWS])
@pytest.mark.parametrize("op", OPS, ids=[o[0] for o in OPS])
def test_views_give_numpys_results(view, op):
    _, opal_view, numpy_view = view
    _, ours, theirs = op
    x = opal_view(opal.tensor(BASE))
    expected = theirs(np.ascontiguousarray(numpy_view(BASE)).astype(np.float64))
    np.testing.assert_allclose(ours(x).numpy(), expected, rtol=2e-5, atol=2e-6)


def test_a_view_and_its_base_mixed_with_integers():
    base = np.arange(60, dtype=np.int64).reshape(6, 10)
    x = opal.tensor(base)
    got = A.floor_divide(x[:, 1:9], A.add(x[:, ::4][:, :2].sum(1, keepdim=True), 1))
    expected = base[:, 1:9] // (base[:, ::4][:, :2].sum(1, keepdims=True) + 1)
    np.testing.assert_array_equal(got.numpy(), expected)


def test_matrix_products_of_views_are_correct():
    # A product reads dense operands: its views are copied first.
    a = RNG.standard_normal((20, 30)).astype(np.float32)
    x = opal.tensor(a)
    np.testing.assert_allclose(A.mm(x[:, 3:19], x[:16, ::2]).numpy(),
                               a[:, 3:19] @ a[:16, ::2], rtol=1e-4, atol=1e-4)


SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opal
    A = opal.ops.aten
    x = opal.tensor(np.arange(240, dtype=np.float32).reshape(6, 40))
    out = {"slice": A.neg(x[:, 1:5]).tolist(),
           "transpose": A.neg(x.t()).tolist(),
           "mm": A.mm(x[:, :6], x[:, 2:8]).tolist()}
    json.dump({"stats": opal.jit.stats(), "out": out}, sys.stdout)
""")


def run(cache_dir):
    env = dict(os.environ, OPAL_CACHE_DIR=str(cache_dir), OPAL_LOG="jit")
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def test_the_key_and_description_say_which_inputs_are_read_in_place(tmp_path):
    first, log = run(tmp_path)
    base = np.arange(240, dtype=np.float32).reshape(6, 40)
    assert first["out"]["slice"] == (-base[:, 1:5]).tolist()
    assert first["out"]["transpose"] == (-base.T).tolist()
    np.testing.assert_allclose(first["out"]["mm"], base[:, :6] @ base[:, 2:8], rtol=1e-6)
    # The slice and the product's views get kernels of their own; the
    # transpose (a last stride of 40) is copied and shares the contiguous
    # kernel.
    assert "aten::neg(float32[?,?] strided)" in log
    assert "aten::neg(float32[?,?])" in log
    assert "aten::mm(float32[?,?] strided, float32[?,?] strided)" in log
    indexes = {}
    for path in (tmp_path / "warm-v2").rglob("*"):
        if path.is_file():
            text = path.read_text()
            spec = next(line for line in text.splitlines() if line.startswith("specialization:"))
            indexes[spec] = text
    assert "inplace: 0\n" in indexes["specialization: (float32[?,?] strided)"]
    assert "inplace:" not in indexes["specialization: (float32[?,?])"]
    # A product wants dense operands: its views are copied, none in place.
    assert "inplace:" not in indexes["specialization: (float32[?,?] strided, float32[?,?] strided)"]
    # A second process starts from the index and reads the slice in place.
    second, _ = run(tmp_path)
    assert second["out"] == first["out"]
    assert second["stats"]["compiles"] == 0
