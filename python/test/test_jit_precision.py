"""Precision of the JIT's vectorized f32 math (opal-approximate-math)
against float64 references, in units in the last place of the float32
result. The bounds are the ones docs/jit.md states."""

import math

import numpy as np
import pytest

import opal

A = opal.ops.aten
rng = np.random.default_rng(2024)
N = 1 << 16

CASES = {
    # op: (opal op, float64 reference, inputs, max ulp)
    "exp": (A.exp, np.exp, rng.uniform(-87, 88, N), 2),
    "log": (A.log, np.log, np.exp(rng.uniform(-80, 80, N)), 2),
    "log1p": (A.log1p, np.log1p,
              np.concatenate([rng.uniform(-0.999, 10, N // 2), 10 ** rng.uniform(-30, 30, N // 2)]),
              3),
    "tanh": (A.tanh, np.tanh, rng.uniform(-10, 10, N), 6),
    "erf": (A.erf, np.vectorize(math.erf), rng.uniform(-5, 5, N), 6),
    "sigmoid": (A.sigmoid, lambda x: 1 / (1 + np.exp(-x)), rng.uniform(-30, 30, N), 3),
    "softplus": (A.softplus, lambda x: np.where(x > 20, x, np.log1p(np.exp(x))),
                 rng.uniform(-30, 30, N), 4),
}


def max_ulp(got, reference):
    spacing = np.spacing(np.abs(reference.astype(np.float32))).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - reference) / spacing))


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_math_is_within_its_ulp_bound(name):
    op, reference, inputs, bound = CASES[name]
    x = inputs.astype(np.float32)
    got = np.asarray(op(opal.tensor(x)))
    assert max_ulp(got, reference(x.astype(np.float64))) <= bound


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 89.0, -104.0], dtype=np.float32)
    got = np.asarray(A.exp(opal.tensor(x)))
    with np.errstate(over="ignore"):
        want = np.exp(x)
    np.testing.assert_array_equal(got[:4], want[:4])
    assert np.isnan(got[4]) and np.isinf(got[5]) and got[6] == 0.0
    got = np.asarray(A.log(opal.tensor(np.array([0.0, 1.0, np.inf, -1.0], dtype=np.float32))))
    assert got[0] == -np.inf and got[1] == 0.0 and got[2] == np.inf and np.isnan(got[3])
    got = np.asarray(A.tanh(opal.tensor(np.array([-np.inf, np.inf, 0.0], dtype=np.float32))))
    np.testing.assert_array_equal(got, [-1.0, 1.0, 0.0])


def _host_has_avx512f():
    try:
        with open("/proc/cpuinfo") as info:
            return any(line.startswith("flags") and " avx512f" in line for line in info)
    except OSError:
        return False


@pytest.mark.skipif(not _host_has_avx512f(),
                    reason="exp's subnormal results come from vscalefps (AVX-512F); elsewhere "
                           "they flush to 0 (docs/jit.md, Precision)")
def test_exp_subnormal_results_as_pytorch():
    # exp(x) below 2^-126 (x < -87.34): the subnormal PyTorch returns, to
    # the subnormals' spacing; 0 once it rounds to 0.
    x = np.concatenate([np.linspace(-103.97, -87.0, 50000, dtype=np.float32),
                        np.array([-103.98, -104.0, -150.0, -1e30], dtype=np.float32)])
    got = np.asarray(A.exp(opal.tensor(x)))
    want = np.exp(x.astype(np.float64))
    spacing = np.spacing(want.astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got - want) / spacing) <= 1
    assert got[-4] <= 1.5e-45 and np.all(got[-3:] == 0.0)
    assert np.all(got[:-4] > 0)


def test_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.92, -4.0, 1e30, 1e-30, -1e-40],
                 dtype=np.float32)
    got = np.asarray(A.erf(opal.tensor(x)))
    np.testing.assert_array_equal(got[[0, 1, 2, 3, 5, 6, 7]], [0.0, -0.0, 1.0, -1.0, 1.0, -1.0, 1.0])
    assert np.signbit(got[1]) and np.isnan(got[4])
    # Tiny inputs: erf(x) = 2x / sqrt(pi), subnormals included (to their
    # coarser spacing).
    np.testing.assert_allclose(got[8:], 2 / math.sqrt(math.pi) * x[8:].astype(np.float64),
                               rtol=1e-6, atol=1e-44)
    # Odd over a dense grid, never past +-1.
    grid = np.linspace(-5, 5, 200001, dtype=np.float32)
    values = np.asarray(A.erf(opal.tensor(grid)))
    np.testing.assert_array_equal(values, -values[::-1])
    assert np.all(np.abs(values) <= 1)


def test_float64_math_stays_libm():
    # libm's exp: correctly rounded or within one ulp of numpy's.
    x = rng.uniform(-10, 10, 1000)
    got = np.asarray(A.exp(opal.tensor(x)))
    np.testing.assert_array_equal(got, [math.exp(v) for v in x])
    np.testing.assert_allclose(got, np.exp(x), rtol=5e-16, atol=0)


@pytest.fixture(scope="module")
def tanh_softplus():
    lib = opal.library.Library("precision", "DEF")
    lib.define("tanh_softplus(Tensor x) -> Tensor")

    @opal.library.register_decomposition("precision::tanh_softplus", lib=lib)
    def tanh_softplus(x):
        return A.tanh(A.softplus(x))

    yield opal.ops.precision.tanh_softplus
    lib._destroy()


def test_tanh_of_softplus_is_a_rational_within_4_ulp(tanh_softplus):
    # One fused kernel: tanh(log1p(exp(x))) becomes n / (n + 2), n = e (e + 2),
    # e = exp(x) (no log1p, no tanh), the side past softplus's threshold 1.
    x = np.concatenate([rng.uniform(-30, 30, N), -10 ** rng.uniform(-30, 1.9, 4096),
                        10 ** rng.uniform(-30, 1.9, 4096)]).astype(np.float32)
    got = np.asarray(tanh_softplus(opal.tensor(x)))
    xd = x.astype(np.float64)
    reference = np.tanh(np.where(xd > 20, xd, np.log1p(np.exp(xd))))
    assert max_ulp(got, reference) <= 4
    special = np.array([np.inf, -np.inf, np.nan, 0.0, 200.0, -200.0], dtype=np.float32)
    got = np.asarray(tanh_softplus(opal.tensor(special)))
    np.testing.assert_allclose(got[[0, 1, 3, 4, 5]], [1.0, 0.0, np.tanh(np.log(2.0)), 1.0, 0.0],
                               rtol=1e-7)
    assert np.isnan(got[2])
