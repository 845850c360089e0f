"""python -m opal.coverage: PyTorch's Core ATen set against opal.ops.aten,
and docs/coverage.md, which is its output."""

import os
import subprocess
import sys

from opal import coverage

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "coverage.md")


def test_every_core_op_is_defined_or_has_a_reason():
    rows = list(coverage.rows())
    assert len(rows) == len(coverage.CORE_ATEN) == len(set(coverage.CORE_ATEN))
    for op, status, kind, where in rows:
        if status == "yes":
            assert kind in ("mlir", "native") and "CPU" in where, op
        else:
            assert op in coverage.MISSING, f"{op} is missing without a reason"
    # No reason is kept for an op opal now defines.
    defined = {op for op, status, _, _ in rows if status == "yes"}
    assert not defined & set(coverage.MISSING)


def test_kernel_kinds():
    from opal import _C
    assert _C._cpu_kernel_kind("aten::exp") == "mlir"
    assert _C._cpu_kernel_kind("aten::cat") == "native"
    assert _C._cpu_kernel_kind("aten::slice.Tensor") == "native"


def test_the_doc_is_the_output():
    out = subprocess.run([sys.executable, "-m", "opal.coverage"], capture_output=True,
                         text=True, check=True).stdout
    assert out == open(DOC).read(), "regenerate docs/coverage.md: python -m opal.coverage"
    assert out.count("| yes |") == len([r for r in coverage.rows() if r[1] == "yes"])


def test_missing_only_and_a_bad_argument():
    out = subprocess.run([sys.executable, "-m", "opal.coverage", "--missing"],
                         capture_output=True, text=True, check=True).stdout
    assert "| yes |" not in out and "| `resize_` | missing |" in out
    bad = subprocess.run([sys.executable, "-m", "opal.coverage", "--bogus"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unrecognized arguments: --bogus" in bad.stderr
    assert "Traceback" not in bad.stderr
