#!/usr/bin/env python3
"""Fits the f32 erf of opal-approximate-math (lib/Transforms/ApproximateMath.cpp).

    /usr/bin/python3 scripts/fit_erf.py [--numerator 6] [--denominator 4]
                                       [--clamp 3.92] [--tune 3000]

erf(x) = x P(x^2) / Q(x^2) for |x| <= clamp (erf(3.92) is within half an ulp
of 1 in f32), with Q(0) = 1. The steps:

1. A rational fit of g(t) = erf(sqrt t) / sqrt t on t in [0, clamp^2] that
   minimizes the relative error: linearized least squares (P - g Q = 0,
   weighted by 1 / (g Q) of the previous iteration), with Lawson reweighting
   towards the minimax solution.
2. The coefficients rounded to f32, then tuned by a few ulps each (random
   steps that lower the largest error of the f32 evaluation on a sample).
3. The error of the f32 evaluation as the kernel computes it (Horner with
   fused multiply-adds, one multiplication, one division, results clamped to
   [-1, 1]), in ulps of the f32 result against float64 math.erf, on a
   sample that is not the tuning one.

Prints the coefficients as C++ hex floats. Deterministic for a given numpy.
"""

import argparse
import math
import re

import numpy as np

ERF = np.vectorize(math.erf)


def fit(degree_p, degree_q, clamp, iterations=60):
    x = np.concatenate([np.linspace(1e-4, clamp, 20000), np.geomspace(1e-6, 1, 2000)])
    t = x * x
    g = ERF(x) / x
    q_values = np.ones_like(t)
    lawson = np.ones_like(t)
    for iteration in range(iterations):
        weight = lawson / (g * q_values)
        columns = [t**i for i in range(degree_p + 1)]
        columns += [-g * t**j for j in range(1, degree_q + 1)]
        design = np.stack(columns, 1) * weight[:, None]
        solution, *_ = np.linalg.lstsq(design, g * weight, rcond=None)
        p = solution[:degree_p + 1]
        q = np.concatenate([[1.0], solution[degree_p + 1:]])
        q_values = np.polyval(q[::-1], t)
        error = np.abs(np.polyval(p[::-1], t) / q_values - g) / g
        if iteration > 10:
            lawson = lawson * np.sqrt(error / error.max())
        lawson /= lawson.mean()
    return p, q, float(error.max())


def evaluate(x, p, q, clamp):
    """The kernel's f32 arithmetic (an FMA is exact in float64, then rounded)."""
    bound = np.float32(clamp)
    x = np.clip(x.astype(np.float32), -bound, bound)
    t = (x * x).astype(np.float64)

    def horner(coefficients):
        total = np.full(x.shape, coefficients[-1], np.float32)
        for c in coefficients[-2::-1]:
            total = (total.astype(np.float64) * t + np.float64(c)).astype(np.float32)
        return total

    result = (x * horner(p)) / horner(q)
    return np.clip(result, np.float32(-1), np.float32(1))


def max_ulp(x, p, q, clamp, reference):
    spacing = np.spacing(np.abs(reference.astype(np.float32))).astype(np.float64)
    return np.abs(evaluate(x, p, q, clamp) - reference) / spacing


def step(value, ulps):
    direction = np.float32(np.inf if ulps > 0 else -np.inf)
    for _ in range(abs(int(ulps))):
        value = np.nextafter(value, direction)
    return value


def tune(p, q, clamp, rounds, seed=7):
    rng = np.random.default_rng(seed)
    sample = np.concatenate([rng.uniform(0, 4, 300000), np.geomspace(1e-30, 1, 2000)])
    sample = sample.astype(np.float32)
    reference = ERF(sample.astype(np.float64))
    best = max_ulp(sample, p, q, clamp, reference).max()
    for _ in range(rounds):
        p_try, q_try = p.copy(), q.copy()
        index = rng.integers(0, len(p) + len(q) - 1)
        ulps = rng.integers(-3, 4)
        if index < len(p):
            p_try[index] = step(p_try[index], ulps)
        else:  # Q(0) stays 1
            q_try[index - len(p) + 1] = step(q_try[index - len(p) + 1], ulps)
        score = max_ulp(sample, p_try, q_try, clamp, reference).max()
        if score < best:
            best, p, q = score, p_try, q_try
    return p, q


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--numerator", type=int, default=6, help="degree of P in x^2")
    parser.add_argument("--denominator", type=int, default=4, help="degree of Q in x^2")
    parser.add_argument("--clamp", type=float, default=3.92)
    parser.add_argument("--tune", type=int, default=3000, help="tuning rounds (0: none)")
    args = parser.parse_args()

    p, q, fit_error = fit(args.numerator, args.denominator, args.clamp)
    print(f"float64 fit: max relative error {fit_error:.3g}")
    p, q = p.astype(np.float32), q.astype(np.float32)
    if args.tune:
        p, q = tune(p, q, args.clamp, args.tune)
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-6, 6, 2_000_000), np.linspace(-5, 5, 1_000_001),
                        np.geomspace(1e-38, 1e-2, 10000)]).astype(np.float32)
    ulps = max_ulp(x, p, q, args.clamp, ERF(x.astype(np.float64)))
    print(f"f32 evaluation: max error {ulps.max():.2f} ulp at x = {x[ulps.argmax()]!r}, "
          f"mean {ulps.mean():.2f} ulp")
    for name, values in (("kNumerator", p), ("kDenominator", q)):
        hexes = (re.sub(r"0+p", "p", float(v).hex()) + "f" for v in values)
        print(f"{name} = {{" + ", ".join(hexes) + "}")


if __name__ == "__main__":
    main()
