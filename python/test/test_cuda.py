"""opal.cuda and CUDA tensors.

Without a driver (this project's CI machine has none) every CUDA call must
raise one clear error and leave the CPU side working; the driver loader is
exercised with the toolkit's stub library and with a fake driver that lacks
entry points. Tests that need a device skip, saying so.
"""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opal

A = opal.ops.aten
STUB = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "stubs", "libcuda.so")
needs_gpu = pytest.mark.skipif(
    not opal.cuda.is_available(),
    reason=f"needs a CUDA device: {opal.cuda.unavailable_reason()}")


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with `env` added; returns stdout."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env={**os.environ, **env}, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


NO_DRIVER_PROBE = """
    import numpy as np
    import opal
    print(opal.cuda.is_available(), opal.cuda.device_count())
    print(opal.cuda.unavailable_reason())
    x = opal.tensor([1.0, 2.0])
    calls = [lambda: opal.tensor([1.0], device="cuda"), lambda: x.to("cuda"),
             lambda: x.cuda(), lambda: opal.zeros(2, device="cuda:0"),
             lambda: opal.empty(3, device="cuda"), lambda: opal.cuda.synchronize(),
             lambda: opal.cuda.get_device_name(0), lambda: opal.cuda.set_device(0)]
    for call in calls:
        try:
            call()
            print("no error")
        except RuntimeError as error:
            print(error)
    # The CPU side is untouched.
    print((x.numpy() * 2).tolist())
"""


def probe(**env):
    lines = run_python(NO_DRIVER_PROBE, **env).splitlines()
    return lines[0], lines[1], lines[2:-1], lines[-1]


def test_without_a_driver_every_cuda_call_says_why():
    head, reason, errors, cpu = probe(OPAL_LIBCUDA="/nonexistent/libcuda.so.1")
    assert head == "False 0"
    assert reason == ("/nonexistent/libcuda.so.1: cannot open shared object file: No such file "
                      "or directory (no NVIDIA driver is installed, or OPAL_LIBCUDA names no "
                      "driver)")
    assert errors == ["CUDA is not available: " + reason] * 8
    assert cpu == "[2.0, 4.0]"


@pytest.mark.skipif(not os.path.exists(STUB), reason=f"no CUDA stub library at {STUB}")
def test_the_stub_driver_resolves_every_entry_point_and_cuinit_fails():
    head, reason, errors, cpu = probe(OPAL_LIBCUDA=STUB)
    assert head == "False 0"
    assert reason == f"{STUB}: cuInit failed: CUDA_ERROR_STUB_LIBRARY: CUDA driver is a stub library"
    assert errors == ["CUDA is not available: " + reason] * 8
    assert cpu == "[2.0, 4.0]"


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_a_driver_without_an_entry_point_is_refused(tmp_path):
    # A "driver" with the first entry points of the table only.
    source = tmp_path / "fake.c"
    source.write_text("int cuGetErrorName(int e, const char **n) { return 1; }\n"
                      "int cuGetErrorString(int e, const char **s) { return 1; }\n"
                      "int cuInit(unsigned f) { return 0; }\n")
    library = tmp_path / "libfakecuda.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    head, reason, errors, _ = probe(OPAL_LIBCUDA=str(library))
    assert head == "False 0"
    assert reason == (f"{library} has no entry point cuDriverGetVersion (the driver is too old "
                      "for opal)")
    assert errors[0] == "CUDA is not available: " + reason


def test_devices_parse_and_numpy_refuses_cuda_names():
    assert str(opal.device("cuda:1")) == "cuda:1"
    assert opal.device("cuda").index is None
    with pytest.raises(ValueError, match="expected cpu, cuda, cuda:N or meta"):
        opal.device("gpu")


def test_cpu_round_trips_are_identity_and_meta_is_refused():
    x = opal.tensor([1.0, 2.0])
    assert x.to("cpu").data_ptr() == x.data_ptr()
    assert x.cpu().data_ptr() == x.data_ptr()
    assert not x.is_cuda
    with pytest.raises(RuntimeError, match="cannot copy between cpu and meta tensors"):
        x.to("meta")


def test_without_a_driver_jit_calls_on_cuda_fail_at_the_tensor():
    if opal.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        opal.ops.aten.exp(opal.tensor([1.0], device="cuda"))


@needs_gpu
def test_device_properties():
    assert opal.cuda.device_count() >= 1
    major, minor = opal.cuda.get_device_capability(0)
    assert major >= 5
    properties = opal.cuda.get_device_properties(0)
    assert properties["total_memory"] > 0 and properties["multi_processor_count"] > 0
    assert opal.cuda.get_device_name() == properties["name"]
    with pytest.raises(RuntimeError, match="CUDA device 99 does not exist"):
        opal.cuda.get_device_properties(99)


@needs_gpu
def test_copies_both_ways_keep_values():
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64, np.int64, np.bool_):
        data = rng.standard_normal((5, 7)) > 0 if dtype == np.bool_ else \
            rng.standard_normal((5, 7)).astype(dtype)
        x = opal.tensor(data)
        on_device = x.to("cuda")
        assert on_device.is_cuda and str(on_device.device) == "cuda:0"
        with pytest.raises(TypeError, match="Use Tensor.cpu"):
            on_device.numpy()
        np.testing.assert_array_equal(on_device.cpu().numpy(), data)
        # Views: a transpose and a slice come back as they are.
        np.testing.assert_array_equal(on_device.t().cpu().numpy(), data.T)
        np.testing.assert_array_equal(on_device[1:4, ::2].cpu().numpy(), data[1:4, ::2])


@needs_gpu
def test_factories_on_cuda():
    np.testing.assert_array_equal(opal.zeros(3, device="cuda").cpu().numpy(), np.zeros(3))
    np.testing.assert_array_equal(opal.full((2, 2), 7.0, device="cuda").cpu().numpy(),
                                  np.full((2, 2), 7.0, np.float32))
    np.testing.assert_array_equal(opal.arange(0, 5, device="cuda").cpu().numpy(), np.arange(5))
    opal.cuda.synchronize()


@needs_gpu
def test_the_caching_allocator_reuses_blocks():
    opal.cuda.empty_cache()
    before = opal.cuda.memory_stats()
    for _ in range(3):
        opal.empty(1000, device="cuda")
    after = opal.cuda.memory_stats()
    assert after["allocations"] - before["allocations"] == 3
    assert after["cache_hits"] - before["cache_hits"] >= 2


@needs_gpu
def test_cuda_kernels_registered_for_the_cuda_key_run():
    lib = opal.library.Library("cudatest", "DEF")
    try:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: opal.tensor(x.cpu().numpy() * 2, device=x.device), "CUDA")
        y = opal.ops.cudatest.twice(opal.tensor([1.0, 2.0], device="cuda"))
        assert y.is_cuda
        np.testing.assert_array_equal(y.cpu().numpy(), [2.0, 4.0])
    finally:
        lib._destroy()


@needs_gpu
def test_jit_kernels_on_cuda_agree_with_numpy():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((300, 257)).astype(np.float32)
    b = rng.standard_normal(257).astype(np.float32)
    x, y = opal.tensor(a, device="cuda"), opal.tensor(b, device="cuda")
    A = opal.ops.aten
    np.testing.assert_allclose(A.exp(x).cpu().numpy(), np.exp(a), rtol=2e-6)
    np.testing.assert_allclose(A.add(x, y, alpha=2.0).cpu().numpy(), a + 2 * b, rtol=1e-6)
    np.testing.assert_allclose(A.softplus(x).cpu().numpy(), np.logaddexp(0, a), rtol=1e-5,
                               atol=1e-6)
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(A.softmax(x, -1).cpu().numpy(), e / e.sum(-1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(A.sum(x, [0]).cpu().numpy(), a.sum(0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(A.mm(x, x.t()).cpu().numpy(), a @ a.T, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(A.exp(x.t()).cpu().numpy(), np.exp(a.T), rtol=2e-6)


def run_suite_on_cuda(name):
    """Runs another test file with OPAL_TEST_DEVICE=cuda; passes if it does."""
    suite = os.path.join(os.path.dirname(__file__), name)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", suite],
                            capture_output=True, text=True, timeout=1800,
                            env={**os.environ, "OPAL_TEST_DEVICE": "cuda"})
    assert result.returncode in (0, 5), result.stdout[-6000:] + result.stderr[-2000:]


@needs_gpu
def test_the_aten_suite_runs_on_cuda():
    # test_jit_aten.py with every input on the GPU: the CPU JIT's numerical
    # suite, against PyTorch (skipped inside if PyTorch is missing).
    run_suite_on_cuda("test_jit_aten.py")


@needs_gpu
def test_every_aten_op_on_cuda_agrees_with_the_cpu():
    # test_differential.py's groups with every tensor on the GPU, against the
    # same op on the CPU: raises, messages, dtypes, shapes and values.
    run_suite_on_cuda("test_differential.py")


@needs_gpu
def test_dlpack_round_trip_with_pytorch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch here has no CUDA")
    x = opal.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), device="cuda")
    t = torch.from_dlpack(x)
    assert t.is_cuda
    back = opal.from_dlpack(t * 2)
    np.testing.assert_array_equal(back.cpu().numpy(), np.arange(6).reshape(2, 3) * 2)


# What a fake driver cannot show: ordering on the device, threads, the
# DLPack stream handshake, large kernels, the driver's own PTX compiler and
# its errors. Each test fails on a real GPU without the behaviour it names.

@needs_gpu
def test_a_freed_block_is_reused_only_after_the_kernels_that_read_it():
    # exp(x) is in flight when x's block goes back to the cache; the next
    # allocation of that size takes the block and overwrites it. The stream
    # orders the overwrite after exp's reads.
    n = 1 << 26
    data = np.random.default_rng(1).uniform(-2, 2, n).astype(np.float32)
    x = opal.tensor(data, device="cuda")
    opal.cuda.synchronize()
    hits = opal.cuda.memory_stats()["cache_hits"]
    y, s, m = A.exp(x), A.sin(x), A.mul.Scalar(x, 3.0)
    del x
    z = opal.full([n], 7.0, device="cuda")
    assert opal.cuda.memory_stats()["cache_hits"] > hits
    np.testing.assert_allclose(y.cpu().numpy(), np.exp(data), rtol=2e-6)
    np.testing.assert_allclose(s.cpu().numpy(), np.sin(data), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(m.cpu().numpy(), data * 3, rtol=1e-6)
    assert np.all(z.cpu().numpy() == 7.0)


@needs_gpu
def test_cuda_work_from_threads_other_than_the_first():
    # The driver's current context is per thread: a thread that never
    # touched the GPU launches on tensors made by the main thread, and makes
    # its own.
    import threading
    data = np.linspace(-1, 1, 4097, dtype=np.float32)
    shared = opal.tensor(data, device="cuda")
    results, errors = {}, []

    def work(i):
        try:
            own = opal.tensor(data + i, device="cuda")
            results[i] = (A.exp(shared).cpu().numpy(), A.mul.Scalar(own, 2.0).cpu().numpy())
        except Exception as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for i in range(4):
        np.testing.assert_allclose(results[i][0], np.exp(data), rtol=2e-6)
        np.testing.assert_allclose(results[i][1], (data + i) * 2, rtol=1e-6)


@needs_gpu
def test_dlpack_import_waits_for_the_producers_stream():
    # PyTorch computes on a stream of its own; opal.from_dlpack passes
    # opal's stream to __dlpack__, so PyTorch orders its pending work before
    # opal's (without it, PyTorch does not synchronize at all).
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch here has no CUDA")
    a = torch.randn(4096, 4096, device="cuda") / 64
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        t = a
        for _ in range(8):
            t = t @ a
        t = t.mul_(0).add_(3)
        x = opal.from_dlpack(t)
        y = A.add.Tensor(x, x)
    np.testing.assert_array_equal(y.cpu().numpy(), np.full((4096, 4096), 6, np.float32))


@needs_gpu
def test_large_reductions_and_long_rows():
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((3, 1 << 21)).astype(np.float32)
    x = opal.tensor(rows, device="cuda")
    e = np.exp(rows - rows.max(-1, keepdims=True))
    np.testing.assert_allclose(A.softmax.int(x, -1).cpu().numpy(), e / e.sum(-1, keepdims=True),
                               rtol=1e-4, atol=1e-12)
    np.testing.assert_allclose(A.sum.dim_IntList(x, [1]).cpu().numpy(),
                               rows.astype(np.float64).sum(1), rtol=1e-4, atol=1e-2)
    np.testing.assert_array_equal(A.argmax(x, 1).cpu().numpy(), rows.argmax(1))
    # Over a million outputs: a grid of a million blocks.
    many = rng.standard_normal((1 << 20, 6)).astype(np.float32)
    np.testing.assert_allclose(A.sum.dim_IntList(opal.tensor(many, device="cuda"), [1]).cpu().numpy(),
                               many.sum(1), rtol=1e-5, atol=1e-5)


@needs_gpu
@pytest.mark.parametrize("length", [1, 31, 32, 33, 255, 256, 257, 1000, 2048, 8191, 8192, 8193,
                                    20000])
def test_rows_in_registers_and_the_long_row_kernel(length):
    # Rows of up to 8192 elements run with each thread's 8 elements in
    # registers (a warp per 256), longer ones with the barrier kernel; the
    # boundaries of both, and of a block reduction's 8-load steps.
    rng = np.random.default_rng(length)
    rows = (rng.standard_normal((5, length)) * 4).astype(np.float32)
    x = opal.tensor(rows, device="cuda")
    wide = rows.astype(np.float64)
    e = np.exp(wide - wide.max(-1, keepdims=True))
    np.testing.assert_allclose(A.softmax.int(x, -1).cpu().numpy(), e / e.sum(-1, keepdims=True),
                               rtol=2e-5, atol=1e-7)
    np.testing.assert_allclose(A._log_softmax(x, -1, False).cpu().numpy(),
                               np.log(e / e.sum(-1, keepdims=True)), rtol=2e-5, atol=2e-5)
    weight = rng.standard_normal(length).astype(np.float32)
    bias = rng.standard_normal(length).astype(np.float32)
    mean, var = wide.mean(-1, keepdims=True), wide.var(-1, keepdims=True)
    want = (wide - mean) / np.sqrt(var + 1e-5) * weight + bias
    got = A.layer_norm(x, [length], opal.tensor(weight, device="cuda"),
                       opal.tensor(bias, device="cuda"), 1e-5).cpu().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 if length > 1 else 1e-3)
    np.testing.assert_allclose(A.sum.dim_IntList(x, [1]).cpu().numpy(), wide.sum(1),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(A.amax(x, [1]).cpu().numpy(), rows.max(1))


@needs_gpu
def test_softmax_of_empty_rows_on_cuda():
    x = opal.tensor(np.zeros((3, 0), dtype=np.float32), device="cuda")
    assert tuple(A.softmax.int(x, -1).cpu().numpy().shape) == (3, 0)
    y = opal.tensor(np.zeros((0, 5), dtype=np.float32), device="cuda")
    assert tuple(A.softmax.int(y, -1).cpu().numpy().shape) == (0, 5)


@needs_gpu
def test_ptx_compiled_by_the_driver():
    # OPAL_CUDA_FORMAT=isa hands the driver PTX, which it compiles on load.
    out = run_python("""
        import numpy as np, opal
        a = np.linspace(-3, 3, 1000, dtype=np.float32)
        y = opal.ops.aten.gelu(opal.tensor(a, device="cuda")).cpu().numpy()
        compiles = opal.jit.stats()["compiles"]
        print(compiles, float(np.abs(y - opal.ops.aten.gelu(opal.tensor(a)).numpy()).max()))
    """, OPAL_CUDA_FORMAT="isa", OPAL_CACHE_DISABLE="1")
    compiles, error = out.split()
    assert int(compiles) == 1 and float(error) < 2e-6


@needs_gpu
def test_scans_and_truncation_on_cuda():
    # cumsum runs a GPU thread per line (one thread for a single line);
    # math.trunc has no libdevice function and lowers to NVPTX's own.
    rng = np.random.default_rng(4)
    for shape, dim in [((300, 70), 0), ((300, 70), 1), ((5000,), 0), ((2, 3, 40), 1), ((0, 3), 1)]:
        a = rng.standard_normal(shape).astype(np.float32)
        got = A.cumsum(opal.tensor(a, device="cuda"), dim).cpu().numpy()
        np.testing.assert_allclose(got, np.cumsum(a.astype(np.float64), dim), rtol=1e-5, atol=1e-4)
    ints = rng.integers(-5, 5, (64, 33))
    np.testing.assert_array_equal(A.cumsum(opal.tensor(ints, device="cuda"), 1).cpu().numpy(),
                                  np.cumsum(ints, 1))
    a = np.array([-2.7, -0.5, -0.0, 0.3, 1.999, 3e9, np.inf, -np.inf, np.nan], np.float32)
    got = A.trunc(opal.tensor(a, device="cuda")).cpu().numpy()
    np.testing.assert_array_equal(got, np.trunc(a))
    assert np.signbit(got[1]) and np.signbit(got[2])


@needs_gpu
def test_out_of_memory_raises_and_leaves_the_device_usable():
    with pytest.raises(RuntimeError, match="CUDA_ERROR_OUT_OF_MEMORY"):
        opal.empty([1 << 40], device="cuda")
    # A kernel whose output does not fit: refused before it launches.
    with pytest.raises(RuntimeError, match="out of memory"):
        A.exp(opal.ones(1, device="cuda").expand([1 << 19, 1 << 20]))
    x = opal.tensor([0.0, 1.0], device="cuda")
    np.testing.assert_allclose(A.exp(x).cpu().numpy(), [1.0, np.e], rtol=1e-6)


@needs_gpu
def test_dlpack_round_trip_with_cupy():
    cupy = pytest.importorskip("cupy")
    x = opal.tensor(np.arange(12, dtype=np.float32).reshape(3, 4), device="cuda")
    c = cupy.from_dlpack(x)
    np.testing.assert_array_equal(cupy.asnumpy(c), np.arange(12).reshape(3, 4))
    back = opal.from_dlpack(c.T * 3)  # a transposed view: strides kept
    assert back.is_cuda and back.shape == (4, 3)
    np.testing.assert_array_equal(A.add.Tensor(back, back).cpu().numpy(),
                                  np.arange(12).reshape(3, 4).T * 6)
