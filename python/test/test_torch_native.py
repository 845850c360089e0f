"""opal.torch's C++ kernels (opal._torch_C): an opal op called through
torch.ops runs from PyTorch's dispatcher into opal's without Python, with
every kind of value crossing, in-place writes and views kept, gradients
through the Python kernel, and errors as PyTorch raises them."""

import gc
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is not installed")

import opal  # noqa: E402
import opal.torch  # noqa: E402

pytestmark = pytest.mark.skipif(
    opal.torch._native is None,
    reason="opal._torch_C is not built for this PyTorch (make test builds it against the "
           "PyTorch 2 of scripts/bootstrap-python.sh's environment and runs this file there)")

A = opal.ops.aten


def _define():
    lib = opal.library.Library("native", "DEF")
    lib.define("scale(Tensor x, float by=2.0) -> Tensor")
    lib.define("scaled(Tensor x, *, float by=2.0) -> Tensor")
    lib.define("bump_(Tensor(a!) self, Tensor other) -> Tensor(a!)")
    lib.define("flipped(Tensor(a) x) -> Tensor(a)")
    lib.define("total(Tensor[] xs) -> Tensor")
    lib.define("maybe_add(Tensor x, Tensor? y) -> Tensor")
    lib.define("halves(Tensor x) -> Tensor[]")
    lib.define("stats(Tensor x) -> (Tensor, int, float, bool)")
    lib.define("cast(Tensor x, ScalarType dtype, int[] dims, bool[] keep, str how, "
               "Device device) -> Tensor")
    lib.define("noisy(Tensor x, *, Generator? generator=None) -> Tensor")

    @opal.library.register_decomposition("native::scale", lib=lib)
    def scale(x, by):
        return x * by

    @opal.library.register_decomposition("native::scaled", lib=lib)
    def scaled(x, by):
        return x * by

    lib.impl("bump_", lambda self, other: self.add_(other), "CPU")
    lib.impl("flipped", lambda x: A.t.default(x), "CPU")

    def total(xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out
    lib.impl("total", total, "CPU")

    def maybe_add(x, y):
        return x if y is None else x + y
    lib.impl("maybe_add", maybe_add, "CPU")
    lib.impl("halves", lambda x: list(A.chunk.default(x, 2)), "CPU")
    lib.impl("stats", lambda x: (x.sum(), x.numel(), 0.5, True), "CPU")

    def cast(x, dtype, dims, keep, how, device):
        assert (dims, keep, how, str(device)) == ([1, 0], [True, False], "up", "cpu")
        return x.to(dtype)
    lib.impl("cast", cast, "CPU")
    lib.impl("noisy", lambda x, generator=None: x + 1, "CPU")
    lib.define("refuse(Tensor x) -> Tensor")

    def refuse(x):
        raise ValueError("native::refuse: not this one")
    lib.impl("refuse", refuse, "CPU")
    opal.torch.register("native")
    return lib


LIB = _define()


def _kernels(name):
    """PyTorch's registration of `name` at CPU and AutogradCPU."""
    table = dict(line.split(": ", 1) for line in
                 torch._C._dispatch_dump_table(name).splitlines() if ": " in line)
    return table["CPU"], table["AutogradCPU"]


def test_the_cpu_and_autograd_kernels_are_cpp():
    for key in _kernels("native::scale"):
        assert "TorchBridge.cpp" in key
    # A Generator does not cross in C++: that op keeps the Python kernels.
    for key in _kernels("native::noisy"):
        assert "TorchBridge.cpp" not in key
    assert torch.equal(torch.ops.native.noisy(torch.zeros(2)), torch.ones(2))


def test_values_cross():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    assert torch.equal(torch.ops.native.scale(x), x * 2)
    assert torch.equal(torch.ops.native.scale(x, 0.5), x * 0.5)
    assert torch.equal(torch.ops.native.scaled(x, by=3.0), x * 3)
    assert torch.equal(torch.ops.native.total([x, x, x]), x * 3)
    assert torch.equal(torch.ops.native.maybe_add(x, None), x)
    assert torch.equal(torch.ops.native.maybe_add(x, x), x * 2)
    first, second = torch.ops.native.halves(torch.arange(4.0))
    assert torch.equal(first, torch.tensor([0.0, 1.0]))
    assert torch.equal(second, torch.tensor([2.0, 3.0]))
    total, count, half, flag = torch.ops.native.stats(x)
    assert (total.item(), count, half, flag) == (15.0, 6, 0.5, True)
    out = torch.ops.native.cast(x, torch.float64, [1, 0], [True, False], "up",
                                torch.device("cpu"))
    assert out.dtype == torch.float64 and torch.equal(out, x.double())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int64,
                                   torch.int8, torch.uint8, torch.bool, torch.complex64])
def test_every_dtype_crosses_as_it_is(dtype):
    x = torch.tensor([[1, 0, 1], [0, 1, 1]]).to(dtype)
    y = torch.ops.native.flipped(x)
    assert y.dtype == dtype and torch.equal(y, x.t())


def test_in_place_writes_return_the_argument_and_count_a_version():
    x = torch.ones(2, 3)
    version = x._version
    y = torch.ops.native.bump_(x, torch.full((2, 3), 2.0))
    assert y is x
    assert torch.equal(x, torch.full((2, 3), 3.0))
    assert x._version == version + 1


def test_views_share_the_torch_storage():
    x = torch.arange(6.0).reshape(2, 3)
    y = torch.ops.native.flipped(x)
    assert y.shape == (3, 2) and y.stride() == (1, 3)
    assert y.data_ptr() == x.data_ptr()
    y[2, 0] = 100.0
    assert x[0, 2].item() == 100.0
    # The view keeps the memory alive after its base is gone.
    del x
    gc.collect()
    assert y[2, 0].item() == 100.0


def test_results_own_opals_memory():
    x = torch.arange(4.0)
    y = torch.ops.native.scale(x)
    assert y.data_ptr() != x.data_ptr()
    z = y.clone()
    del y
    gc.collect()
    assert torch.equal(z, x * 2)


def test_non_contiguous_and_offset_inputs():
    base = torch.arange(24.0).reshape(4, 6)
    x = base[1:, ::2].t()
    assert not x.is_contiguous() and x.storage_offset() == 6
    assert torch.equal(torch.ops.native.scale(x, 3.0), x * 3)
    conj = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64).conj()
    # A conjugate view crosses as its values (PyTorch keeps a bit, opal does not).
    assert torch.equal(torch.ops.native.flipped(conj), conj.resolve_conj())


def test_gradients_go_through_the_python_kernel():
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    y = torch.ops.native.scaled(x, by=4.0)
    assert y.requires_grad
    y.sum().backward()
    assert torch.equal(x.grad, torch.full((3,), 4.0, dtype=torch.float64))
    # Calls that do not record run in C++ and give plain tensors.
    with torch.no_grad():
        assert not torch.ops.native.scaled(x, by=4.0).requires_grad
    with torch.inference_mode():
        assert torch.equal(torch.ops.native.scale(torch.ones(2)), torch.full((2,), 2.0))
    assert torch.autograd.gradcheck(lambda t: torch.ops.native.scale(t, 1.5), (x,))


def test_errors_are_pytorchs_exceptions_with_opals_words():
    with pytest.raises(RuntimeError, match="opal.torch: torch.complex128 has no opal dtype"):
        torch.ops.native.scale(torch.ones(2, dtype=torch.complex128))
    with pytest.raises(RuntimeError, match="opal.torch: a torch.sparse_coo tensor has no opal layout"):
        torch.ops.native.scale(torch.eye(2).to_sparse())
    with pytest.raises(RuntimeError,
                       match=r"The size of tensor a \(3\) must match the size of tensor b "
                             r"\(2\) at non-singleton dimension 0"):
        torch.ops.native.total([torch.ones(3), torch.ones(2)])
    # An opal kernel written in Python raises its own exception through
    # PyTorch's dispatcher.
    with pytest.raises(ValueError, match="native::refuse: not this one"):
        torch.ops.native.refuse(torch.ones(2))
    # PyTorch's own argument parsing comes first.
    with pytest.raises(RuntimeError, match="native::scale"):
        torch.ops.native.scale("x")


def test_torchscript_calls_the_cpp_kernel():
    @torch.jit.script
    def twice(x: torch.Tensor) -> torch.Tensor:
        return torch.ops.native.scale(x, 2.0) + 1

    assert torch.equal(twice(torch.ones(3)), torch.full((3,), 3.0))


def test_a_process_exits_cleanly_after_registering():
    # PyTorch destroys its kernels at exit, after Python has finalized.
    code = ("import torch, opal, opal.torch\n"
            "lib = opal.library.Library('exiting', 'DEF')\n"
            "lib.define('twice(Tensor x) -> Tensor')\n"
            "opal.library.register_decomposition('exiting::twice', lib=lib)(lambda x: x * 2)\n"
            "opal.torch.register('exiting')\n"
            "print(torch.ops.exiting.twice(torch.ones(2)).tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[2.0, 2.0]\n"


def test_threads_call_at_once():
    # torch.ops releases the GIL around the call: opal's dispatcher runs
    # the C++ kernels of several threads at once.
    import threading
    failures = []

    def work(seed):
        x = torch.full((64,), float(seed))
        for _ in range(200):
            if not torch.equal(torch.ops.native.scale(x, 3.0), x * 3):
                failures.append(seed)
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


@pytest.mark.parametrize("bad, message", [
    ("torch.ones(2, dtype=torch.complex128)", "opal.torch: torch.complex128 has no opal dtype"),
    ("torch.eye(2).to_sparse()", "opal.torch: a torch.sparse_coo tensor has no opal layout"),
    ("torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.qint8)",
     "opal.torch: torch.qint8 has no opal dtype"),
])
def test_bad_tensors_in_their_own_process(bad, message):
    # Each refusal in a fresh process: a clean RuntimeError, no crash.
    code = ("import torch, opal, opal.torch\n"
            "lib = opal.library.Library('badnative', 'DEF')\n"
            "lib.define('twice(Tensor x) -> Tensor')\n"
            "opal.library.register_decomposition('badnative::twice', lib=lib)(lambda x: x * 2)\n"
            "opal.torch.register('badnative')\n"
            "try:\n"
            f"    torch.ops.badnative.twice({bad})\n"
            "except RuntimeError as e:\n"
            "    print(str(e).splitlines()[0])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert message in done.stdout
