"""Threads of compiled CPU kernels: OPAL_NUM_THREADS, opal.set_num_threads and
get_num_threads with PyTorch's words, and results that do not depend on the
thread count (bitwise for every op but reductions, which split their reduced
loop into per-thread partials: equal within rounding, and bitwise equal
again at the same count)."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import opal

A = opal.ops.aten
rng = np.random.default_rng(23)


def run_fresh(script, **env):
    environment = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=environment,
                          capture_output=True, text=True)


@pytest.fixture
def threads():
    """Restores the thread count a test changes."""
    before = opal.get_num_threads()
    yield
    opal.set_num_threads(before)


def test_the_default_is_the_cores_this_process_may_use():
    environment = {k: v for k, v in os.environ.items() if k != "OPAL_NUM_THREADS"}
    result = subprocess.run([sys.executable, "-c", "import opal; print(opal.get_num_threads())"],
                            env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == len(os.sched_getaffinity(0))


def test_opal_num_threads_sets_the_count():
    result = run_fresh("import opal; print(opal.get_num_threads())", OPAL_NUM_THREADS="3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "3"


@pytest.mark.parametrize("value", ["0", "-2", "two", "", "1.5", " 4", "99999999999"])
def test_opal_num_threads_that_is_not_a_positive_integer_is_refused(value):
    result = run_fresh("import opal", OPAL_NUM_THREADS=value)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ValueError: OPAL_NUM_THREADS must be a positive integer (the threads compiled "
        f"kernels use), got '{value}'")


@pytest.mark.parametrize("env", [
    {"OMP_WAIT_POLICY": "PASSIVE"}, {"OMP_WAIT_POLICY": "passive"}, {"KMP_BLOCKTIME": "0"},
    {"OMP_WAIT_POLICY": "sleepy"}, {"OMP_WAIT_POLICY": ""}, {"KMP_BLOCKTIME": "forever"},
])
def test_openmp_wait_settings_of_any_value_leave_results_alone(env):
    # opal reads OMP_WAIT_POLICY and KMP_BLOCKTIME (the OpenMP runtime's own):
    # passive waits raise the work a nest needs before it forks. Any value,
    # the OpenMP runtime's or not, runs cleanly (libomp may warn of one it
    # does not take) and gives the same results at 1 and 2 threads.
    result = run_fresh("""
        import numpy as np, opal
        x = np.arange(1 << 21, dtype=np.float32).reshape(1024, 2048) / 1e6
        outs = []
        for threads in (1, 2):
            opal.set_num_threads(threads)
            t = opal.tensor(x)
            outs.append((opal.ops.aten.exp(t).numpy(), opal.ops.aten.sum.dim_IntList(t, [1]).numpy()))
        assert np.array_equal(outs[0][0], outs[1][0])
        assert np.allclose(outs[0][1], outs[1][1], rtol=1e-6)
        print("ok")
    """, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert "opal" not in result.stderr


def test_a_team_smaller_than_asked_for_runs_every_part():
    # OMP_THREAD_LIMIT=1 gives every parallel region a team of one thread
    # however many opal asks for: that thread runs the whole range (each
    # thread of a team runs the t-th of as many parts as the team has), so
    # elementwise results, full and row reductions, row-fused softmax and
    # products (whose packing is a nest too) are those of one thread.
    result = run_fresh("""
        import numpy as np, opal
        A = opal.ops.aten
        rng = np.random.default_rng(0)
        x = rng.standard_normal((1024, 2048)).astype(np.float32)
        m = rng.standard_normal((512, 512)).astype(np.float32)
        def run():
            t, p = opal.tensor(x), opal.tensor(m)
            return [A.exp(t).numpy(), A.sum.default(t).numpy(), A.sum.dim_IntList(t, [1]).numpy(),
                    A.softmax.int(t, -1).numpy(), A.mm(p, p).numpy(), A.linear(p, p).numpy()]
        opal.set_num_threads(1)
        one = run()
        opal.set_num_threads(2)
        limited = run()
        for a, b in zip(one, limited):
            assert np.array_equal(a, b), (a, b)
        assert np.allclose(one[0], np.exp(x), rtol=1e-6)
        assert np.allclose(one[4], m @ m, rtol=1e-4, atol=1e-3)
        print("ok")
    """, OMP_THREAD_LIMIT="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_set_num_threads_with_pytorchs_errors(threads):
    opal.set_num_threads(3)
    assert opal.get_num_threads() == 3
    for bad, message in [(0, "set_num_threads expects a positive integer"),
                         (-1, "set_num_threads expects a positive integer"),
                         (2.5, "set_num_threads expects an int, but got float"),
                         ("2", "set_num_threads expects an int, but got str"),
                         (True, "set_num_threads expects an int, but got bool")]:
        with pytest.raises(RuntimeError) as error:
            opal.set_num_threads(bad)
        assert str(error.value) == message
        assert opal.get_num_threads() == 3
    opal.set_num_threads(2 ** 80)  # more than any machine: every core
    assert opal.get_num_threads() == 2 ** 31 - 1


def at_thread_counts(fn, counts=(1, 2, 3, 4)):
    """fn() computed at each thread count, as numpy arrays."""
    results = []
    for count in counts:
        opal.set_num_threads(count)
        out = fn()
        out = out if isinstance(out, tuple) else (out,)
        results.append([np.asarray(o).copy() for o in out])
    return results


# Large enough to split (the runtime's grain is 32768 units of work).
BIG = rng.standard_normal((1031, 517)).astype(np.float32)
BIG64 = rng.standard_normal((1031, 517))


@pytest.mark.parametrize("name,fn", [
    ("add", lambda x: A.add.Tensor(x, A.mul.Scalar(x, 0.5))),
    ("gelu", lambda x: A.gelu(x)),
    ("where", lambda x: A.where.self(A.gt.Scalar(x, 0.0), x, A.neg(x))),
    ("softmax", lambda x: A.softmax.int(x, -1)),
    ("log_softmax_dim0", lambda x: A._log_softmax(x, 0, False)),
    ("layer_norm", lambda x: A.native_layer_norm(x, [517], None, None, 1e-5)),
    ("mm", lambda x: A.mm(x, A.t(x))),
    ("sum_rows", lambda x: A.sum.dim_IntList(x, [1])),
    ("amax_rows", lambda x: A.amax(x, [1])),
    ("cumsum", lambda x: A.cumsum(x, 1)),
    ("conv2d", lambda x: A.conv2d(A.view(A.slice.Tensor(x, 0, 0, 1024), [4, 4, 32, 1034]),
                                   opal.full([8, 4, 3, 3], 0.5, dtype=x.dtype))),
    ("rand_like", lambda x: (opal.manual_seed(7), A.rand_like(x))[1]),
    ("clone", lambda x: A.clone(x)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_results_do_not_depend_on_the_thread_count(threads, name, fn):
    for data in (BIG, BIG64):
        x = opal.tensor(data)
        results = at_thread_counts(lambda: fn(x))
        for other in results[1:]:
            for want, got in zip(results[0], other):
                np.testing.assert_array_equal(got, want)


# Convolutions on each of their paths, at batch 16 (a pointwise one splits
# its images over threads) and 1 (it splits its product's register tiles):
# 16 filters leave 4 rows after the 6-row tiles; planes of 5x5 take the
# columns path, chosen per call, whose gathers split in their branch.
CONVOLUTIONS = {
    "pointwise_b16": ((16, 96, 12, 12), (16, 96, 1, 1), 1, 0),
    "pointwise_b1": ((1, 96, 40, 40), (16, 96, 1, 1), 1, 0),
    "pointwise_small_planes": ((16, 96, 5, 5), (16, 96, 1, 1), 1, 0),
    "depthwise": ((16, 32, 20, 20), (32, 1, 3, 3), 32, 1),
    "three_by_three": ((16, 16, 10, 10), (24, 16, 3, 3), 1, 1),
}


@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_convolutions_do_not_depend_on_the_thread_count(threads, name):
    torch = pytest.importorskip("torch")
    shape, weight_shape, groups, padding = CONVOLUTIONS[name]
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(weight_shape).astype(np.float32)
    b = rng.standard_normal(weight_shape[0]).astype(np.float32)
    results = at_thread_counts(lambda: A.convolution(
        opal.tensor(x), opal.tensor(w), opal.tensor(b), [1, 1], [padding, padding], [1, 1],
        False, [0, 0], groups))
    for other in results[1:]:
        np.testing.assert_array_equal(other[0], results[0][0])
    want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w),
                                      torch.from_numpy(b), padding=padding, groups=groups)
    np.testing.assert_allclose(results[0][0], want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(1 << 20,), (1025, 513), (3, 200000), (2, 3, 50000)], ids=str)
def test_full_reductions_agree_across_thread_counts(threads, shape):
    x = rng.uniform(-3, 3, shape)
    dims = list(range(len(shape)))
    for dtype in (np.float32, np.float64):
        a = opal.tensor(x.astype(dtype))
        exact = x.astype(dtype).astype(np.float64)
        scale = np.abs(exact).sum() * (4e-7 if dtype == np.float32 else 1e-15)
        sums = at_thread_counts(lambda: A.sum.dim_IntList(a, dims))
        for (got,) in sums:
            np.testing.assert_allclose(float(got), exact.sum(), rtol=0, atol=scale)
        # The same count gives the same bits.
        again = at_thread_counts(lambda: A.sum.dim_IntList(a, dims))
        assert [s[0].tobytes() for s in sums] == [s[0].tobytes() for s in again]
        for count in (1, 2, 4):
            opal.set_num_threads(count)
            assert float(np.asarray(A.amax(a, dims))) == exact.max()
            assert float(np.asarray(A.amin(a, dims))) == exact.min()
    ints = rng.integers(-1000, 1000, shape)
    for count in (1, 3):
        opal.set_num_threads(count)
        assert int(np.asarray(A.sum.dim_IntList(opal.tensor(ints), dims))) == int(ints.sum())


def test_nan_reaches_a_full_reduction_from_any_threads_part(threads):
    x = rng.uniform(-3, 3, 1 << 20).astype(np.float32)
    for at in (3, (1 << 19) + 5, (1 << 20) - 3):
        y = x.copy()
        y[at] = np.nan
        for count in (1, 2, 4):
            opal.set_num_threads(count)
            assert np.isnan(float(np.asarray(A.amax(opal.tensor(y), [0]))))
            assert np.isnan(float(np.asarray(A.sum.default(opal.tensor(y)))))


def test_concurrent_callers_get_right_results(threads):
    opal.set_num_threads(4)
    inputs = [rng.standard_normal((512, 700)).astype(np.float32) for _ in range(4)]
    want = [np.asarray(A.softmax.int(opal.tensor(x), -1)).copy() for x in inputs]
    failures = []

    def work(i):
        x = opal.tensor(inputs[i])
        for _ in range(20):
            got = np.asarray(A.softmax.int(x, -1))
            if not np.array_equal(got, want[i]):
                failures.append(i)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []


def test_threads_are_right_with_pytorchs_openmp_loaded_first():
    # PyTorch loads GCC's libgomp (with omp_* functions of the same names
    # as libomp's) before opal: kernels use libomp's entry points only.
    pytest.importorskip("torch")
    result = run_fresh("""
        import torch, numpy as np, opal
        opal.set_num_threads(4)
        x = np.random.default_rng(0).standard_normal((1024, 700)).astype(np.float32)
        got = np.asarray(opal.ops.aten.softmax.int(opal.tensor(x), -1))
        want = torch.softmax(torch.from_numpy(x), -1).numpy()
        total = float(np.asarray(opal.ops.aten.sum.default(opal.tensor(x))))
        print(np.abs(got - want).max() < 1e-6, abs(total - x.astype(np.float64).sum()) < 0.5)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


def test_the_openmp_block_time_is_short_unless_the_user_sets_it():
    # libomp's idle workers spin 200 ms by default, taking the cores of the
    # process's other thread pools: opal sets 1 ms before libomp starts,
    # and leaves a user's KMP_BLOCKTIME or OMP_WAIT_POLICY alone.
    script = """
        import ctypes, numpy as np, opal
        opal.set_num_threads(2)
        opal.ops.aten.exp(opal.tensor(np.ones((1024, 1024), np.float32)))
        omp = ctypes.CDLL("libomp.so.5", mode=4)  # (RTLD_NOLOAD: opal's)
        print(omp.kmp_get_blocktime())
    """
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("KMP_BLOCKTIME", "OMP_WAIT_POLICY")}
    for extra, expected in (({}, "1"), ({"KMP_BLOCKTIME": "50"}, "50"),
                            ({"OMP_WAIT_POLICY": "ACTIVE"}, None)):
        result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)],
                                env=dict(environment, **extra), capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        if expected is None:
            assert result.stdout.strip() != "1"
        else:
            assert result.stdout.strip() == expected


def test_kernels_run_on_pytorchs_threads_once_opal_torch_is_imported():
    # opal.torch puts compiled kernels' parallel nests on PyTorch's libgomp
    # threads: results as on opal's own libomp threads (bitwise but for the
    # reductions' partials), and no second pool of workers in the process.
    pytest.importorskip("torch")
    script = """
        import os, sys, numpy as np
        import torch, opal
        if sys.argv[1] == "gnu":
            import opal.torch
        else:  # (else the first fork would choose the libgomp torch loaded)
            opal._C._set_parallel_runtime("llvm")
        A = opal.ops.aten
        rng = np.random.default_rng(5)
        x = opal.tensor(rng.standard_normal((512, 1024)).astype(np.float32))
        w = opal.tensor(rng.standard_normal((1024, 256)).astype(np.float32))
        opal.set_num_threads(2)
        torch.set_num_threads(2)
        torch.ones(1 << 20).exp()  # (PyTorch's pool starts)
        outs = [A.exp(x), A.gelu(x), A.mm(x, w), A.softmax.int(x, -1), A.sum.dim_IntList(x, [1])]
        np.save(sys.argv[2], np.concatenate([o.numpy().ravel() for o in outs]))
        print(opal._C._parallel_runtime(), len(os.listdir("/proc/self/task")))
    """
    import tempfile
    with tempfile.TemporaryDirectory() as where:
        results = {}
        for runtime in ("gnu", "llvm"):
            path = os.path.join(where, runtime + ".npy")
            done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), runtime, path],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            name, threads = done.stdout.split()
            results[runtime] = (name, int(threads), np.load(path))
    assert results["gnu"][0] == "gnu" and results["llvm"][0] == "llvm"
    assert results["gnu"][1] < results["llvm"][1]  # (libomp's worker never started)
    np.testing.assert_allclose(results["gnu"][2], results["llvm"][2], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("runtime", ["gnu", "llvm"])
def test_nests_of_every_size_keep_one_team_of_threads(runtime):
    # A nest forks as many threads as the setting (or PyTorch's pool, where
    # larger) and runs its parts on the first ones: libgomp ends the surplus
    # threads of a smaller team and creates new ones when the team grows
    # again (two threads per call here before; 14 on 16 cores). Nests whose
    # work deserves 2, 3, 4 and all 6 threads, elementwise and reductions
    # (per-part partials), stay right and start no thread after the first
    # round.
    if runtime == "gnu":
        pytest.importorskip("torch")
    result = run_fresh("""
        import os, sys, numpy as np
        if sys.argv[1] == "gnu":
            import torch
        import opal
        opal._C._set_parallel_runtime(sys.argv[1])
        opal.set_num_threads(6)
        A = opal.ops.aten
        rng = np.random.default_rng(1)
        xs = [rng.standard_normal(n * 32768).astype(np.float32) for n in (2, 3, 4, 5, 64)]
        def run():
            for x in xs:
                t = opal.tensor(x)
                assert np.array_equal(A.neg(t).numpy(), -x)
                assert np.isclose(A.sum.default(t).numpy(), x.sum(dtype=np.float64), rtol=1e-4)
        run()
        seen = set(os.listdir("/proc/self/task"))
        for _ in range(20):
            run()
        print(opal._C._parallel_runtime(), len(set(os.listdir("/proc/self/task")) - seen))
    """.replace("sys.argv[1]", repr(runtime)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [runtime, "0"]


def test_the_first_fork_chooses_pytorchs_threads_when_pytorch_is_loaded():
    pytest.importorskip("torch")
    for first, expected in (("import torch, opal", "gnu"), ("import opal", "llvm")):
        result = run_fresh(first + """
import numpy as np
opal.set_num_threads(2)
opal.ops.aten.exp(opal.tensor(np.ones((1024, 1024), np.float32)))
print(opal._C._parallel_runtime())
""")
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == expected


def test_choosing_pytorchs_threads_without_pytorch_is_refused():
    result = run_fresh("""
        import opal
        # (A numpy built with OpenBLAS's OpenMP flavour loads libgomp too.)
        assert "libgomp" not in open("/proc/self/maps").read()
        for name in ("gnu", "omp"):
            try:
                opal._C._set_parallel_runtime(name)
            except (RuntimeError, ValueError) as e:
                print(type(e).__name__, e)
        print(opal._C._parallel_runtime())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "RuntimeError set_parallel_runtime: 'gnu' runs kernels' parallel nests on the libgomp "
        "the process has loaded (PyTorch's), but none is loaded",
        "ValueError _set_parallel_runtime: expected 'llvm' or 'gnu', got 'omp'",
        "llvm"]
