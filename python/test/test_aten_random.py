"""Random ops: rand, randn, rand_like, randn_like, bernoulli, native_dropout,
dropout (compiled from prims.philox_uniform / philox_normal) and randperm
(native). Each element is checked against a Python Philox4x32-10 at the
generator's seed and the op's offset; seeds, offsets and the state API as
torch.random has them; fused and op-by-op draws equal; statistics; PyTorch
1.13's semantics and error messages for dropout and bernoulli."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opal

A = opal.ops.aten
torch = pytest.importorskip("torch")

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox(counter, key):
    """Philox4x32-10, as Random123 defines it."""
    c = list(counter)
    k = list(key)
    for round_ in range(10):
        if round_:
            k = [(k[0] + W0) & MASK, (k[1] + W1) & MASK]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK]
    return c


def words(seed, offset, index):
    return philox([index & MASK, index >> 32, offset & MASK, offset >> 32],
                  [seed & MASK, seed >> 32])


def uniform32(seed, offset, n):
    return np.array([(words(seed, offset, i)[0] >> 8) * 2.0 ** -24 for i in range(n)],
                    dtype=np.float32)


def uniform64(w_high, w_low):
    return (((w_high << 32) | w_low) >> 11) * 2.0 ** -53


def test_philox_matches_random123_known_answers():
    assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert philox([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0]) \
        == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def state():
    seed, offset = np.asarray(opal.get_rng_state()).view("<u8")
    return int(seed), int(offset)


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_rand_is_philox_at_the_seed_and_the_op_offset(seed):
    opal.manual_seed(seed)
    assert state() == (seed, 0)
    first = A.rand([3, 5])
    second = A.rand([15])
    assert state() == (seed, 2)  # one offset per call
    np.testing.assert_array_equal(first.numpy().ravel(), uniform32(seed, 0, 15))
    np.testing.assert_array_equal(second.numpy(), uniform32(seed, 1, 15))
    double = A.rand([4], dtype=opal.float64).numpy()
    want = [uniform64(*words(seed, 2, i)[:2]) for i in range(4)]
    np.testing.assert_array_equal(double, want)


def test_randn_is_box_muller_of_two_words():
    opal.manual_seed(11)
    got64 = A.randn([6], dtype=opal.float64).numpy()
    got32 = A.randn([6]).numpy()
    want64, want32 = [], []
    for i in range(6):
        w = words(11, 0, i)
        u1, u2 = uniform64(w[0], w[1]), uniform64(w[2], w[3])
        want64.append(math.sqrt(-2 * math.log(1 - u1)) * math.cos(2 * math.pi * u2))
        w = words(11, 1, i)
        u1, u2 = (w[0] >> 8) * 2.0 ** -24, (w[1] >> 8) * 2.0 ** -24
        want32.append(math.sqrt(-2 * math.log(1 - u1)) * math.cos(2 * math.pi * u2))
    np.testing.assert_allclose(got64, want64, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(got32, want32, rtol=2e-6, atol=2e-6)


def test_a_large_call_runs_whole_so_its_last_elements_are_philox_too():
    # Large calls split over threads (opal-parallelize); each part of a random
    # kernel must count its elements from where the part starts, not from 0.
    opal.manual_seed(3)
    x = A.rand([1024, 1024]).numpy().ravel()
    n = x.size
    tail = np.array([(words(3, 0, i)[0] >> 8) * 2.0 ** -24 for i in range(n - 4, n)],
                    dtype=np.float32)
    np.testing.assert_array_equal(x[-4:], tail)


def test_seeds_state_and_meta_calls():
    opal.manual_seed(5)
    a = opal.rand(2, 3)
    saved = opal.get_rng_state()
    assert saved.dtype == opal.uint8 and tuple(saved.shape) == (16,)
    b = opal.randn(4)
    opal.set_rng_state(saved)
    np.testing.assert_array_equal(opal.randn(4).numpy(), b.numpy())
    opal.manual_seed(5)
    np.testing.assert_array_equal(opal.rand(2, 3).numpy(), a.numpy())
    assert opal.initial_seed() == 5
    # A meta call computes sizes only: it draws nothing.
    before = state()
    assert tuple(A.rand([2, 3], device=opal.device("meta")).shape) == (2, 3)
    assert state() == before
    opal.manual_seed(-1)
    assert opal.initial_seed() == 2**64 - 1
    assert opal.seed() == opal.initial_seed()
    with pytest.raises(RuntimeError, match="set_rng_state expects the uint8 tensor of 16 bytes"):
        opal.set_rng_state(opal.ones(16))


def test_dtypes_and_ranges():
    opal.manual_seed(1)
    for dtype in (opal.float16, opal.bfloat16, opal.float32, opal.float64):
        u = A.rand([20000], dtype=dtype)
        assert u.dtype == dtype
        v = u.to(opal.float64).numpy()
        assert v.min() >= 0 and v.max() < 1
        assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.003
        n = A.randn([20000], dtype=dtype).to(opal.float64).numpy()
        assert abs(n.mean()) < 0.03 and abs(n.var() - 1) < 0.04
        assert abs(np.mean(n ** 4) - 3) < 0.2  # the kurtosis of a normal
    like = opal.ones(3, 4).t()
    assert tuple(opal.rand_like(like).shape) == (4, 3)
    assert opal.randn_like(opal.ones(2, dtype=opal.float64)).dtype == opal.float64
    assert A.rand([0, 3]).numpy().shape == (0, 3)


def test_uniform_quantiles():
    # Kolmogorov-Smirnov distance against the uniform CDF: 1.63/sqrt(n) is
    # the 1% critical value.
    opal.manual_seed(2)
    n = 200000
    u = np.sort(A.rand([n], dtype=opal.float64).numpy())
    d = np.max(np.abs(u - np.arange(1, n + 1) / n))
    assert d < 1.63 / math.sqrt(n)
    z = np.sort(A.randn([n], dtype=opal.float64).numpy())
    cdf = 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
    assert np.max(np.abs(cdf - np.arange(1, n + 1) / n)) < 1.63 / math.sqrt(n)


def torch_error(call):
    with pytest.raises(Exception) as error:
        call()
    return str(error.value)


@pytest.mark.parametrize("opal_call, torch_call", [
    (lambda: A.rand([2], dtype=opal.int64), lambda: torch.rand(2, dtype=torch.int64)),
    (lambda: A.rand([2], dtype=opal.bool), lambda: torch.rand(2, dtype=torch.bool)),
    (lambda: A.randn([2], dtype=opal.int32), lambda: torch.randn(2, dtype=torch.int32)),
    (lambda: A.rand([-1]), lambda: torch.rand(-1)),
    (lambda: A.rand_like(opal.ones(2, dtype=opal.int64)),
     lambda: torch.rand_like(torch.ones(2, dtype=torch.int64))),
    (lambda: A.randn_like(opal.ones(2, dtype=opal.int64)),
     lambda: torch.randn_like(torch.ones(2, dtype=torch.int64))),
    (lambda: A.bernoulli.p(opal.ones(3), 1.3), lambda: torch.bernoulli(torch.ones(3), 1.3)),
    (lambda: A.bernoulli.p(opal.ones(3), float("nan")),
     lambda: torch.bernoulli(torch.ones(3), float("nan"))),
    (lambda: A.bernoulli.default(opal.full((3,), 1.5)),
     lambda: torch.bernoulli(torch.full((3,), 1.5))),
    (lambda: A.bernoulli.default(opal.ones(3, dtype=opal.int64)),
     lambda: torch.bernoulli(torch.ones(3, dtype=torch.int64))),
    (lambda: A.native_dropout(opal.ones(3), 1.5, True),
     lambda: torch.ops.aten.native_dropout(torch.ones(3), 1.5, True)),
    (lambda: A.native_dropout(opal.ones(3), -0.5, None),
     lambda: torch.ops.aten.native_dropout(torch.ones(3), -0.5, None)),
    (lambda: A.native_dropout(opal.ones(3, dtype=opal.int64), 0.5, True),
     lambda: torch.ops.aten.native_dropout(torch.ones(3, dtype=torch.int64), 0.5, True)),
    (lambda: A.native_dropout(opal.ones(3, dtype=opal.bool), 0.5, True),
     lambda: torch.ops.aten.native_dropout(torch.ones(3, dtype=torch.bool), 0.5, True)),
    (lambda: A.dropout(opal.ones(3), 1.5, True), lambda: torch.dropout(torch.ones(3), 1.5, True)),
    (lambda: A.dropout(opal.ones(3), 1.5, False),
     lambda: torch.dropout(torch.ones(3), 1.5, False)),
    (lambda: A.dropout(opal.ones(3), float("nan"), True),
     lambda: torch.dropout(torch.ones(3), float("nan"), True)),
    (lambda: A.randperm(-1), lambda: torch.randperm(-1)),
    (lambda: A.randperm(129, dtype=opal.int8), lambda: torch.randperm(129, dtype=torch.int8)),
    (lambda: A.randperm(257, dtype=opal.uint8), lambda: torch.randperm(257, dtype=torch.uint8)),
    (lambda: A.randperm(3, dtype=opal.bool), lambda: torch.randperm(3, dtype=torch.bool)),
])
def test_errors_are_pytorchs(opal_call, torch_call):
    # (opal names the op first where the check is its definition's.)
    want = torch_error(torch_call)
    got = torch_error(opal_call)
    assert got == want or got.endswith(": " + want), (got, want)


def test_native_dropout_and_dropout():
    opal.manual_seed(4)
    x = np.linspace(-3, 3, 40000, dtype=np.float32).reshape(200, 200)
    for p in (0.2, 0.5, 0.9):
        out, mask = A.native_dropout(opal.tensor(x), p, True)
        assert mask.dtype == opal.bool
        keep = mask.numpy()
        assert abs(keep.mean() - (1 - p)) < 4 * math.sqrt(p * (1 - p) / keep.size)
        np.testing.assert_allclose(out.numpy(), x * keep * np.float32(1 / (1 - p)), rtol=1e-6)
    # The mask is Philox at the op's offset: uniform < 1 - p.
    opal.manual_seed(9)
    _, mask = A.native_dropout(opal.ones(64), 0.3, None)
    np.testing.assert_array_equal(mask.numpy(), uniform32(9, 0, 64) < np.float32(0.7))
    out, mask = A.native_dropout(opal.tensor(x), 0.5, False)
    np.testing.assert_array_equal(out.numpy(), x)
    assert mask.numpy().all()
    # p = 0 keeps everything, p = 1 nothing (scaled by 0, as PyTorch).
    np.testing.assert_array_equal(A.dropout(opal.tensor(x), 0.0, True).numpy(), x)
    np.testing.assert_array_equal(A.dropout(opal.tensor(x), 1.0, True).numpy(), 0 * x)
    np.testing.assert_array_equal(A.dropout(opal.tensor(x), 0.5, False).numpy(), x)
    for dtype in (opal.float16, opal.bfloat16, opal.float64):
        out, mask = A.native_dropout(opal.ones(8, dtype=dtype), 0.5, True)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.to(opal.float32).numpy(), 2.0 * mask.numpy())
    # The eager spelling.
    opal.manual_seed(9)
    np.testing.assert_array_equal(opal.dropout(opal.ones(64), 0.3, True).numpy() != 0,
                                  uniform32(9, 0, 64) < np.float32(0.7))


def test_bernoulli():
    opal.manual_seed(6)
    x = opal.ones(50000, dtype=opal.float64)
    draws = A.bernoulli.p(x, 0.25)
    assert draws.dtype == opal.float64
    assert abs(draws.numpy().mean() - 0.25) < 0.01
    assert set(np.unique(draws.numpy())) <= {0.0, 1.0}
    probabilities = opal.tensor(np.linspace(0, 1, 11))
    hits = np.mean([A.bernoulli.default(probabilities).numpy() for _ in range(400)], axis=0)
    np.testing.assert_allclose(hits, np.linspace(0, 1, 11), atol=0.1)
    assert hits[0] == 0 and hits[-1] == 1
    assert A.bernoulli.p(opal.ones(3, dtype=opal.int64), 0.5).dtype == opal.int64
    assert opal.ones(3).bernoulli(0.5).dtype == opal.float32
    with pytest.raises(TypeError, match="the generator argument must be None"):
        opal.bernoulli(opal.ones(3), 0.5, generator=object())


def test_randperm():
    opal.manual_seed(8)
    for n in (0, 1, 2, 10, 1000):
        perm = A.randperm(n)
        assert perm.dtype == opal.int64
        assert sorted(perm.tolist()) == list(range(n))
    opal.manual_seed(8)
    # Fisher-Yates with the swap partner of step i from words 0 and 1 of
    # Philox at (seed, offset, i).
    want = list(range(10))
    for i in range(9, 0, -1):
        w = words(8, 0, i)
        j = ((w[0] << 32) | w[1]) % (i + 1)
        want[i], want[j] = want[j], want[i]
    assert A.randperm(10).tolist() == want
    assert A.randperm(128, dtype=opal.int8).dtype == opal.int8
    assert sorted(opal.randperm(5, dtype=opal.float32).tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]
    first = opal.randperm(50).tolist()
    assert opal.randperm(50).tolist() != first  # the offset moved on


RANDLIB = """
opal.library "randlib" {
  opal.def "noisy(Tensor x, float p) -> Tensor"
  opal.decomposition "noisy" {
  ^bb0(%x: !opal.tensor, %p: f64):
    %size = opal.shape_of %x : !opal.tensor -> !opal.list<i64>
    %none = opal.none
    %u = aten.rand %size, %none, %none, %none, %none : (!opal.list<i64>, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %true = arith.constant true
    %d = aten.dropout %x, %p, %true : (!opal.tensor, f64, i1) -> !opal.tensor
    %n = aten.randn_like %x, %none, %none, %none, %none, %none : (!opal.tensor, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
    %one = arith.constant 1 : i64
    %s = aten.add.Tensor %u, %d, %one : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    %r = aten.add.Tensor %s, %n, %one : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
"""


@pytest.fixture(scope="module")
def randlib(load_op_library):
    return load_op_library("randlib", RANDLIB)


def test_a_fused_kernel_draws_what_the_ops_draw_one_by_one(randlib):
    # One compiled kernel with three random streams takes three offsets per
    # call, in program order: the same numbers as the three eager calls.
    x = opal.tensor(np.linspace(-1, 1, 30, dtype=np.float32).reshape(5, 6))
    opal.manual_seed(12)
    fused = randlib.noisy(x, 0.4)
    assert state() == (12, 3)
    again = randlib.noisy(x, 0.4)
    assert state() == (12, 6)
    opal.manual_seed(12)
    eager = A.rand([5, 6]) + A.dropout(x, 0.4, True) + A.randn_like(x)
    np.testing.assert_allclose(fused.numpy(), eager.numpy(), rtol=1e-6, atol=1e-6)
    assert not np.array_equal(again.numpy(), fused.numpy())
    stats = opal.jit.stats()
    assert stats["compiles"] >= 1


def test_the_disk_cache_keeps_the_stream_count(tmp_path):
    # A second process loads the kernel from disk; its description's
    # "random: 1" makes it take the generator's offsets as the first did.
    code = textwrap.dedent("""
        import opal
        opal.manual_seed(21)
        a = opal.ops.aten.rand([4]).tolist()
        b = opal.ops.aten.rand([4]).tolist()
        print(a, b, a != b, opal.jit.stats()["disk_hits"])
    """)
    env = {**os.environ, "OPAL_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           check=True).stdout.split(" True ")
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, check=True).stdout.split(" True ")
    assert first[0] == second[0]
    assert int(first[1]) == 0 and int(second[1]) >= 1
    descriptions = [p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file()
                    and p.suffix in (".txt", ".desc", ".meta", "")]
    assert any("random: 1" in text for text in descriptions)


@pytest.mark.parametrize("damage", ["random: 0", "random: x", "random: -1",
                                    "random: 99999999999999999999"])
def test_a_damaged_stream_count_in_the_index_is_removed_and_rebuilt(tmp_path, damage):
    # Each case in a fresh process: the warm-start index's "random:" line
    # does not read, so the index is dropped (logged), the call goes
    # through the compiler, which finds the kernel on disk, and draws what
    # the first process drew.
    code = textwrap.dedent("""
        import opal
        opal.manual_seed(21)
        print(opal.ops.aten.rand([4]).tolist())
    """)
    env = {**os.environ, "OPAL_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, check=True)
    indexes = [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and
               p.read_bytes().startswith(b"opal-warm-start") and b"random: 1" in p.read_bytes()]
    assert len(indexes) == 1
    # Re-signed with the cache's key, so that the "random:" reader sees the
    # damage (an unsigned edit is refused by its HMAC before any line is read).
    from cache_seal import body, reseal
    reseal(indexes[0], "index", indexes[0].name,
           body(indexes[0].read_text()).replace("random: 1", damage), tmp_path / "cache")
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**env, "OPAL_LOG": "cache"})
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "bad random stream count" in second.stderr and "(removed)" in second.stderr
