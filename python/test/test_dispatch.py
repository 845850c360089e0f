"""Keys, TLS guards, dispatch modes, logging and threads from Python."""

import itertools
import os
import subprocess
import sys
import threading

import pytest

import opal
from opal.library import Library

K = opal.DispatchKey
_counter = itertools.count()


@pytest.fixture
def op():
    ns = f"pydisp{next(_counter)}"
    lib = Library(ns, "DEF")
    lib.define("which(Tensor x) -> str")
    lib.define("double(Tensor x) -> Tensor")
    lib.impl("which", lambda x: "cpu", "CPU")
    lib.impl("which", lambda x: "meta", "Meta")
    lib.impl("which", lambda x: "python", "Python")
    lib.impl("double", lambda x: opal.from_numpy(x.numpy() * 2), "CPU")
    yield getattr(opal.ops, ns)
    lib._destroy()


def test_dispatch_key_enum_and_keysets():
    assert K.CPU.name == "CPU" and K.AutogradCPU.name == "AutogradCPU"
    assert K.CompositeImplicitAutograd.name == "CompositeImplicitAutograd"
    assert str(opal._C._dispatch_keys(opal.ones(1))) == \
        "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
    assert str(opal._C._dispatch_keys(opal.empty(1, device="meta"))) == \
        "DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)"
    ks = opal._C._dispatch_keys(opal.ones(1))
    assert ks.has(K.AutogradCPU) and ks.highestPriorityTypeId() == K.AutocastCPU
    assert str(opal._C._dispatch_tls_local_include_set()) == \
        "DispatchKeySet(BackendSelect, ADInplaceOrView)"
    # PyTorch 2's default: autocast off on every backend that has it.
    assert str(opal._C._dispatch_tls_local_exclude_set()) == (
        "DispatchKeySet(AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastIPU, "
        "AutocastHPU, AutocastXLA, AutocastMPS, AutocastCUDA, AutocastPrivateUse1)")


def test_tls_guards(op):
    x = opal.ones(1)
    assert op.which(x) == "cpu"
    with opal._C._IncludeDispatchKeyGuard(K.Meta):
        assert op.which(x) == "meta"
        assert opal._C._dispatch_tls_is_dispatch_key_included(K.Meta)
    assert not opal._C._dispatch_tls_is_dispatch_key_included(K.Meta)
    with opal._C._IncludeDispatchKeyGuard(K.Python):
        assert op.which(x) == "python"
        with opal._C._ExcludeDispatchKeyGuard(opal.DispatchKeySet(K.Python)):
            assert op.which(x) == "cpu"  # exclusion wins
    guard = opal._C._AutoDispatchBelowAutograd()
    assert opal._C._dispatch_tls_is_dispatch_key_excluded(K.AutogradOther)
    guard.__exit__(None, None, None)
    assert not opal._C._dispatch_tls_is_dispatch_key_excluded(K.AutogradOther)
    opal._C._dispatch_tls_set_dispatch_key_included(K.Meta, True)
    try:
        assert op.which(x) == "meta"
    finally:
        opal._C._dispatch_tls_set_dispatch_key_included(K.Meta, False)


def test_recording_mode(op):
    x = opal.ones(2)
    with opal.utils.OpRecorder() as rec:
        y = op.double(x)
        z = op.double.default(y)
    assert rec.ops == [str(op.double.default)] * 2
    assert z.tolist() == [4.0, 4.0]
    func, args, kwargs = rec.calls[0]
    # The mode sees the same tensor (a new Python wrapper of it: opal does
    # not keep one Python object per tensor, see docs/python.md).
    assert func is op.double.default and args[0].data_ptr() == x.data_ptr() and kwargs == {}
    # Outside the block, calls no longer reach the mode.
    op.double(x)
    assert len(rec.ops) == 2


def test_modes_nest_and_can_replace_results(op):
    calls = []

    class Outer(opal.utils.DispatchMode):
        def __opal_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(("outer", str(func)))
            return func(*args, **(kwargs or {}))

    class Inner(opal.utils.DispatchMode):
        def __init__(self):
            self.intercept = True

        def __opal_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(("inner", str(func), types))
            if self.intercept:
                self.intercept = False
                return opal.zeros(1)
            return func(*args, **(kwargs or {}))

    with Outer(), Inner():
        assert op.double(opal.ones(1)).tolist() == [0.0]  # intercepted
        assert op.double(opal.ones(1)).tolist() == [2.0]  # passed on
    double = str(op.double.default)
    assert calls == [("inner", double, (opal.Tensor,)),
                     ("inner", double, (opal.Tensor,)),
                     ("outer", double)]


def test_a_python_key_kernel_beats_the_mode_fallback(op):
    # `which` has its own kernel at the Python key, so modes never see it.
    with opal.utils.OpRecorder() as rec:
        assert op.which(opal.ones(1)) == "python"
    assert rec.ops == []


def test_mode_errors_propagate(op):
    class Broken(opal.utils.DispatchMode):
        def __opal_dispatch__(self, func, types, args=(), kwargs=None):
            raise KeyError("from the mode")

    with pytest.raises(KeyError, match="from the mode"):
        with Broken():
            op.double(opal.ones(1))
    assert op.double(opal.ones(1)).tolist() == [2.0]


def test_python_kernels_from_threads(op):
    results = []

    def work():
        for _ in range(50):
            results.append(op.double(opal.ones(2)).tolist())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[2.0, 2.0]] * 200


def test_dispatch_log(tmp_path):
    script = tmp_path / "log.py"
    script.write_text(
        "import opal\n"
        "lib = opal.library.Library('logged', 'DEF')\n"
        "lib.define('f(Tensor x) -> Tensor')\n"
        "lib.impl('f', lambda x: x, 'CPU')\n"
        "opal.ops.logged.f(opal.ones(1))\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=dict(os.environ, OPAL_LOG="dispatch"))
    assert result.returncode == 0, result.stderr
    # Registrations carry the location where their Library was made, as in
    # PyTorch.
    assert ("[opal:dispatch] logged::f keys=DispatchKeySet(CPU) -> CPU: registered at "
            f"{script}:2 [kernel]") in result.stderr
