"""opal.ops: packets, overloads, argument parsing, PyOperator, load_library."""

import copy
import glob
import itertools
import os

import pytest

import opal
from opal.library import Library

_counter = itertools.count()


@pytest.fixture
def mylib():
    ns = f"pyops{next(_counter)}"
    lib = Library(ns, "DEF")
    lib.define("scale(Tensor x, float factor=2.0, *, bool negate=False) -> Tensor")
    lib.define("scale.int(int x, int factor=2) -> int")
    lib.define("info(Tensor x, Tensor[] ts, int[2] k=1, ScalarType? dtype=None, "
               "Device device=\"cpu\", str mode=\"a\", Scalar s=1, Tensor? w=None, "
               "bool[] flags=[]) -> str")
    lib.define("pair(Tensor x) -> (Tensor values, int count)")
    lib.define("nothing(Tensor x) -> ()")

    def scale(x, factor, *, negate):
        out = opal.from_numpy(x.numpy() * factor)
        return opal.from_numpy(-out.numpy()) if negate else out

    lib.impl("scale", scale, "CPU")
    lib.impl("scale.int", lambda x, factor: x * factor, "CompositeImplicitAutograd")
    lib.impl("info", lambda x, ts, k, dtype, device, mode, s, w, flags:
             f"{k} {dtype} {device} {mode} {s!r} {w is None} {len(ts)} {flags}", "CPU")
    lib.impl("pair", lambda x: (x, x.numel()), "CPU")
    lib.impl("nothing", lambda x: None, "CPU")
    yield ns, getattr(opal.ops, ns)
    lib._destroy()


def test_names_and_reprs(mylib):
    ns, ops = mylib
    packet = ops.scale
    assert str(packet) == f"{ns}.scale"
    assert repr(packet) == f"<OpOverloadPacket(op='{ns}.scale')>"
    assert packet.op_name == f"{ns}::scale"
    assert sorted(packet.overloads()) == ["default", "int"]
    overload = packet.default
    assert overload.name() == f"{ns}::scale"
    assert packet.int.name() == f"{ns}::scale.int"
    assert overload.__name__ == "scale.default"
    assert str(overload) == f"{ns}.scale.default"
    assert repr(overload) == f"<OpOverload(op='{ns}.scale', overload='default')>"
    assert overload.namespace == ns
    assert overload.overloadpacket is packet
    assert str(overload._schema) == (f"{ns}::scale(Tensor x, float factor=2., *, "
                                     "bool negate=False) -> Tensor")
    assert copy.deepcopy(overload) is overload
    assert packet.default is overload  # cached


def test_unknown_names_raise_attribute_error(mylib):
    ns, ops = mylib
    with pytest.raises(AttributeError, match=f"'_OpNamespace' '{ns}' object has no attribute 'nope'"):
        ops.nope
    with pytest.raises(AttributeError, match=f"The underlying op of '{ns}.scale' has no overload name 'float'"):
        ops.scale.float
    with pytest.raises(AttributeError, match="can't have an overload name beginning with '__'"):
        ops.scale.__origin__
    assert not hasattr(ops, "nope")


def test_argument_parsing(mylib):
    ns, ops = mylib
    x = opal.tensor([1.0, 2.0])
    assert ops.scale.default(x).tolist() == [2.0, 4.0]
    assert ops.scale.default(x, 3).tolist() == [3.0, 6.0]
    assert ops.scale.default(x, factor=0.5).tolist() == [0.5, 1.0]
    assert ops.scale.default(x, negate=True).tolist() == [-2.0, -4.0]
    assert ops.info(x, []) == "[1, 1] None cpu a 1 True 0 []"
    assert ops.info(x, [x, x], [2, 3], opal.float64, "meta", "b", 2.5, x, [True]) == \
        "[2, 3] opal.float64 meta b 2.5 False 2 [True]"
    assert ops.info(x, (), 4, s=True) == "[4, 4] None cpu a True True 0 []"


def test_argument_errors_name_the_op_and_argument(mylib):
    ns, ops = mylib
    x = opal.ones(2)
    decl = f". Declaration: {ns}::scale(Tensor x, float factor=2., *, bool negate=False) -> Tensor"
    with pytest.raises(TypeError) as info:
        ops.scale.default(1)
    assert str(info.value) == f"{ns}::scale() argument 'x' (position 1) must be Tensor, not int" + decl
    with pytest.raises(TypeError) as info:
        ops.scale.default(x, "big")
    assert str(info.value) == f"{ns}::scale() argument 'factor' (position 2) must be float, not str" + decl
    with pytest.raises(TypeError) as info:
        ops.scale.default(x, 2.0, True)
    assert str(info.value) == f"{ns}::scale() expected at most 2 argument(s) but received 3 argument(s)" + decl
    with pytest.raises(TypeError) as info:
        ops.scale.default(x, scale=3)
    assert str(info.value) == f"{ns}::scale() got an unexpected keyword argument 'scale'" + decl
    with pytest.raises(TypeError) as info:
        ops.scale.default()
    assert str(info.value) == f"{ns}::scale() missing value for argument 'x'" + decl
    with pytest.raises(TypeError) as info:
        ops.scale.default(x, 2.0, factor=3.0)
    assert str(info.value) == f"{ns}::scale() got multiple values for argument 'factor'" + decl
    with pytest.raises(TypeError, match=r"argument 'dtype' \(position 4\) must be dtype, not str"):
        ops.info(x, [], 1, "float")
    with pytest.raises(TypeError, match="invalid device 'gpu'"):
        ops.info(x, [], device="gpu")
    with pytest.raises(TypeError, match=r"argument 'ts' \(position 2\) must be List\[Tensor\], not list"):
        ops.info(x, [1])


def test_packet_picks_the_first_matching_overload(mylib):
    ns, ops = mylib
    assert ops.scale(opal.ones(1)).tolist() == [2.0]
    assert ops.scale(21) == 42
    with pytest.raises(TypeError) as info:
        ops.scale("text")
    message = str(info.value)
    assert message.startswith(f"{ns}::scale(): no overload accepts these arguments. Tried:")
    assert f"{ns}::scale(Tensor x, float factor=2., *, bool negate=False) -> Tensor: argument 'x' (position 1) must be Tensor, not str" in message
    assert f"{ns}::scale.int(int x, int factor=2) -> int: argument 'x' (position 1) must be int, not str" in message


def test_packet_call_sees_overloads_defined_after_its_first_call(mylib):
    # The packet's call (C, _install_packet_call) reads the call list the
    # packet rebuilds when an overload is defined.
    ns, ops = mylib
    with pytest.raises(TypeError, match="no overload accepts these arguments"):
        ops.scale("text")
    lib = Library(ns, "FRAGMENT")
    lib.define("scale.str(str x) -> str")
    lib.impl("scale.str", lambda x: x * 2, "CompositeExplicitAutograd")
    assert ops.scale("ab") == "abab"
    assert ops.scale(21) == 42
    assert ops.scale(opal.ones(1)).tolist() == [2.0]


def test_packet_passes_over_overloads_that_do_not_fit_without_side_effects(mylib):
    # The first overload fails on its last argument: the stack it began is
    # dropped and the next overload parses from scratch.
    ns, ops = mylib
    assert ops.scale(3, 5) == 15
    assert ops.scale(x=4) == 8
    with pytest.raises(TypeError) as info:
        ops.scale(opal.ones(1), 2.0, True)
    assert "expected at most 2 argument(s) but received 3 argument(s)" in str(info.value)


def test_returns(mylib):
    ns, ops = mylib
    x = opal.ones(3)
    values, count = ops.pair(x)
    assert values.data_ptr() == x.data_ptr() and count == 3
    assert ops.nothing(x) is None


def test_python_kernel_errors_keep_their_type(mylib):
    ns, ops = mylib
    lib = Library(ns, "FRAGMENT")
    lib.define("fails(Tensor x) -> Tensor")
    lib.define("wrong(Tensor x) -> Tensor")

    def fails(x):
        raise ValueError("bad x")

    lib.impl("fails", fails, "CPU")
    lib.impl("wrong", lambda x: 3, "CPU")
    with pytest.raises(ValueError, match="bad x"):
        ops.fails(opal.ones(1))
    with pytest.raises(RuntimeError, match=f"the Python kernel of {ns}::wrong returned int, but the schema says Tensor"):
        ops.wrong(opal.ones(1))
    lib._destroy()


def test_missing_kernel_is_not_implemented(mylib):
    ns, ops = mylib
    with pytest.raises(NotImplementedError) as info:
        ops.scale.default(opal.empty(2, device="meta"))
    assert str(info.value).startswith(
        f"Could not run '{ns}::scale' with arguments from the 'Meta' backend. This could be "
        f"because the operator doesn't exist for this backend. '{ns}::scale' is only available "
        "for these backends: [CPU, ")


def test_decompose_and_key_attributes(mylib):
    ns, ops = mylib
    assert ops.scale.int.decompose(5, 3) == 15
    assert ops.scale.default.decompose(opal.ones(1)) is NotImplemented
    assert ops.scale.int.CPU == opal.DispatchKey.CompositeImplicitAutograd
    assert ops.scale.default.CPU == opal.DispatchKey.CPU
    assert ops.scale.default.AutogradCPU == opal.DispatchKey.AutogradCPU
    assert ops.scale.default.CUDA is None

    @ops.scale.default.py_impl(opal.DispatchKey.CUDA)
    def cuda_kernel(*args):
        return "cuda"

    assert ops.scale.default.CUDA is cuda_kernel


def test_packets_see_later_overloads(mylib):
    ns, ops = mylib
    packet = ops.scale
    lib = Library(ns, "FRAGMENT")
    lib.define("scale.str(str x) -> str")
    lib.impl("scale.str", lambda x: x * 2, "CompositeImplicitAutograd")
    assert "str" in packet.overloads()
    assert packet("ab") == "abab"
    lib._destroy()
    assert "str" not in packet.overloads()


def test_py_operator_dispatches_by_keys():
    op = opal._ops.PyOperator(f"pyop{next(_counter)}")

    @op.py_impl(opal.DispatchKey.CPU)
    def cpu(x, f):
        return ("cpu", f(x))

    @op.py_impl(opal.DispatchKey.Meta)
    def meta(x, f):
        return ("meta", None)

    assert getattr(opal.ops, op.name()) is op
    assert op(opal.ones(1), lambda t: t.numel()) == ("cpu", 1)
    assert op(opal.empty(1, device="meta"), len) == ("meta", None)
    with opal._C._IncludeDispatchKeyGuard(opal.DispatchKey.Meta):
        assert op(opal.ones(1), len)[0] == "meta"

    @op.py_impl(opal.DispatchKey.AutogradCPU)
    def autograd(x, f):
        return ("autograd", f(x))

    assert op(opal.ones(1), len)[0] == "autograd"
    op.fallthrough(opal.DispatchKey.AutogradCPU)
    assert op(opal.ones(1), len)[0] == "cpu"
    with pytest.raises(NotImplementedError, match="could not run"):
        op(3, len)


def test_load_library_registers_static_ops():
    build = os.environ.get("OPAL_BUILD_DIR") or os.path.join(
        os.path.dirname(__file__), "..", "..", "build")
    candidates = glob.glob(os.path.join(build, "lib", "libopal_test_oplib.so"))
    if not candidates:
        pytest.skip("the test op library was not built (target opal_test_oplib)")
    opal.ops.load_library(candidates[0])
    assert os.path.realpath(candidates[0]) in opal.ops.loaded_libraries
    assert opal.ops.loadedlib.double_size(opal.ones(3)).shape == (6,)
    with pytest.raises(OSError, match="could not load op library"):
        opal.ops.load_library("/nonexistent/libnothing.so")
