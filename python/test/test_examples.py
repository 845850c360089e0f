"""The examples run (they are `make demo`)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(name):
    result = subprocess.run([sys.executable, os.path.join(ROOT, "examples", name)],
                            capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_operator_tour():
    out = run("operator_tour.py")
    assert "tour::softplus(Tensor x, float beta=1., float threshold=20.) -> Tensor" in out
    assert "softplus(x)     = tensor([ 0.1269,  0.6931,  2.1269, 30.0000])" in out
    assert "bad call        -> tour::softplus() argument 'x' (position 1) must be Tensor, not str" in out
    assert "meta tensor     -> Could not run 'tour::softplus' with arguments from the 'Meta' backend." in out
    assert "CPU: registered at" in out and "[kernel]" in out
    assert "ops called: ['tour.softplus.default', 'tour.softplus.default']" in out


def test_compile_tour():
    out = run("compile_tour.py")
    assert "prims ops after opal-decompose:      21" in out
    gelu = [line for line in out.splitlines() if line.startswith("gelu")][0]
    assert gelu.split()[2:] == ["-0.045500", "-0.154269", "0.000000", "0.580029", "2.995950"]
    differences = [float(line.split()[2]) for line in out.splitlines()
                   if "largest difference" in line]
    assert len(differences) == 2 and max(differences) < 1e-5


def test_jit_tour():
    out = run("jit_tour.py")
    assert 'opal.decomposition "softplus" {' in out
    assert "%v2 = aten.exp %v1 : (!opal.tensor) -> !opal.tensor" in out
    assert "CompositeImplicitAutograd" not in out.split("dispatch table")[0]
    assert "AutogradCPU: registered at" in out and "[math kernel]" in out
    assert "(1 compile)" in out and "compiles still 1" in out
    difference = float(out.split("largest difference from numpy: ")[1].split()[0])
    assert difference < 1e-5
    assert "x faster (one fused pass)" in out
