"""opal._C._ResultsInto (the torch bridge's in-place writes of a graph's
results into its inputs) on bad input, each case in its own process, as an
attacker would try it: a tensor that does not fit is never written (a new
result instead), a guard for another op is ignored, a list of non-tensors
is refused with a TypeError, and the guard is gone after its block, even
one that raised."""

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import opal
from opal import _C
x = opal.tensor([[1.0, 2.0], [3.0, 4.0]])
y = opal.tensor([[10.0, 20.0], [30.0, 40.0]])
def expect(result, values):
    assert result.tolist() == values, result.tolist()
"""

CASES = {
    # A target of another dtype, another shape, or not contiguous: left as
    # it was; the result is a new tensor with the right values.
    "dtype": """
        into = opal.zeros([2, 2], dtype=opal.float64)
        with _C._ResultsInto([into], "aten::add"):
            r = opal.ops.aten.add.Tensor(x, y)
        expect(r, [[11.0, 22.0], [33.0, 44.0]])
        expect(into, [[0.0, 0.0], [0.0, 0.0]])
    """,
    "shape": """
        into = opal.zeros([4])
        with _C._ResultsInto([into], "aten::add"):
            r = opal.ops.aten.add.Tensor(x, y)
        expect(r, [[11.0, 22.0], [33.0, 44.0]])
        expect(into, [0.0, 0.0, 0.0, 0.0])
    """,
    "view": """
        base = opal.zeros([2, 4])
        into = base[:, ::2]
        with _C._ResultsInto([into], "aten::add"):
            r = opal.ops.aten.add.Tensor(x, y)
        expect(r, [[11.0, 22.0], [33.0, 44.0]])
        expect(base, [[0.0] * 4, [0.0] * 4])
    """,
    # A guard for another op: the call makes a new tensor.
    "other op": """
        into = opal.zeros([2, 2])
        with _C._ResultsInto([into], "aten::mul"):
            r = opal.ops.aten.add.Tensor(x, y)
        expect(r, [[11.0, 22.0], [33.0, 44.0]])
        expect(into, [[0.0, 0.0], [0.0, 0.0]])
    """,
    # More targets than results, and None among them: the fitting one is
    # written, the others ignored.
    "too many": """
        into = opal.zeros([2, 2])
        with _C._ResultsInto([into, None, opal.zeros([3])], "aten::add"):
            r = opal.ops.aten.add.Tensor(x, y)
        expect(into, [[11.0, 22.0], [33.0, 44.0]])
        assert r.data_ptr() == into.data_ptr()
    """,
    # Not tensors: refused before anything is set.
    "not tensors": """
        try:
            _C._ResultsInto([1.5, "x"], "aten::add")
        except TypeError:
            pass
        else:
            raise AssertionError("no TypeError")
        r = opal.ops.aten.add.Tensor(x, y)
        expect(r, [[11.0, 22.0], [33.0, 44.0]])
    """,
    # The guard goes with its block, even one that raised: the next call
    # of the op writes a new tensor.
    "raised": """
        into = opal.zeros([2, 2])
        try:
            with _C._ResultsInto([into], "aten::add"):
                raise KeyError("inside")
        except KeyError:
            pass
        r = opal.ops.aten.add.Tensor(x, y)
        expect(into, [[0.0, 0.0], [0.0, 0.0]])
        assert r.data_ptr() != into.data_ptr()
    """,
    # Only the block's first call of the op is written into.
    "second call": """
        into = opal.zeros([2, 2])
        with _C._ResultsInto([into], "aten::add"):
            first = opal.ops.aten.add.Tensor(x, y)
            second = opal.ops.aten.add.Tensor(x, x)
        expect(into, [[11.0, 22.0], [33.0, 44.0]])
        expect(second, [[2.0, 4.0], [6.0, 8.0]])
        assert second.data_ptr() != into.data_ptr()
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_results_into_bad_input(case):
    script = PRELUDE + textwrap.dedent(CASES[case]) + "\nprint('ok')\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("ok")
