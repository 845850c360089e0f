"""The built-in op libraries: aten's schemas are PyTorch's, word for word.

lib/Library/aten*.opal.mlir claim PyTorch's names and schemas; where PyTorch
1.13 is importable every one of them must print exactly as PyTorch's own
registration of that operator.
"""

import glob
import os
import subprocess
import sys

import pytest

from opal import _C

LIBRARY = os.path.join(os.path.dirname(__file__), "..", "..", "lib", "Library")


def builtin(name):
    return _C._read_op_library_schemas(os.path.join(LIBRARY, name))


ATEN_FILES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(LIBRARY, "aten*.opal.mlir")))


def aten_schemas():
    return [schema for name in ATEN_FILES for schema in builtin(name)]


def test_aten_library_size_and_namespace():
    assert ATEN_FILES == ["aten-backward.opal.mlir", "aten-conv.opal.mlir",
                          "aten-distance.opal.mlir", "aten-factories.opal.mlir",
                          "aten-indexing.opal.mlir", "aten-math.opal.mlir",
                          "aten-movement.opal.mlir", "aten-nn.opal.mlir", "aten-norms.opal.mlir",
                          "aten-pool-backward.opal.mlir", "aten-pool.opal.mlir",
                          "aten-random.opal.mlir",
                          "aten-reductions.opal.mlir", "aten-spatial.opal.mlir", "aten.opal.mlir"]
    schemas = aten_schemas()
    assert len(schemas) == 253
    assert {s.name.split("::")[0] for s in schemas} == {"aten"}
    names = {str(s).split("(")[0] for s in schemas}
    for expected in ["aten::add.Tensor", "aten::add.Scalar", "aten::div.Tensor", "aten::relu",
                     "aten::sigmoid", "aten::silu", "aten::where.self", "aten::lt.Scalar"]:
        assert expected in names


def test_prims_library_is_separate():
    schemas = builtin("prims.opal.mlir")
    assert len(schemas) == 91
    assert {s.name.split("::")[0] for s in schemas} == {"prims"}


def test_aten_schemas_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the reference for aten schemas")
    theirs = {}
    for schema in torch._C._jit_get_all_schemas():
        key = schema.name + ("." + schema.overload_name if schema.overload_name else "")
        theirs[key] = str(schema)
    for schema in aten_schemas():
        text = str(schema)
        key = text.split("(")[0]
        assert key in theirs, f"{key} is not a PyTorch operator"
        assert text == theirs[key]


# The built-in operators are defined in the dispatcher when opal loads.

import opal  # noqa: E402


def test_builtin_operators_are_in_the_dispatcher():
    assert str(opal.ops.aten.add.Tensor._schema) == (
        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert str(opal.ops.prims.squeeze.default._schema) == (
        "prims::squeeze(Tensor(a) a, int[] dimensions) -> Tensor(a)")
    for schema in aten_schemas():
        name, _, overload = str(schema).split("(")[0].split("::")[1].partition(".")
        packet = getattr(opal.ops.aten, name)
        assert str(getattr(packet, overload or "default")._schema) == str(schema)


def test_builtin_operators_have_their_mlir_definitions_as_kernels():
    # An aten op is registered at the key PyTorch 1.13 has its kernel at:
    # add.Tensor has backend kernels there, so its compiled decomposition is
    # a CompositeExplicitAutograd kernel (a dispatch mode sees the op);
    # linear is CompositeImplicitAutograd (a mode sees what it calls). A
    # prim's lowering is its CompositeExplicitAutograd kernel.
    table = opal._C._dispatch_dump_table("aten::add.Tensor")
    assert "CPU: registered at" in table and "[default backend kernel]" in table
    assert opal._C._dispatch_has_kernel_for_dispatch_key("aten::add.Tensor",
                                                         "CompositeExplicitAutograd")
    assert not opal._C._dispatch_has_kernel_for_dispatch_key("aten::add.Tensor",
                                                             "CompositeImplicitAutograd")
    assert opal._C._dispatch_has_kernel_for_dispatch_key("aten::linear",
                                                         "CompositeImplicitAutograd")
    assert opal._C._dispatch_has_kernel_for_dispatch_key("prims::exp",
                                                         "CompositeExplicitAutograd")
    x = opal.tensor([1.0, 2.0])
    assert opal.ops.aten.add.Tensor(x, x, alpha=3).tolist() == [4.0, 8.0]


def test_aten_namespace_is_taken_but_open_to_kernels():
    with pytest.raises(RuntimeError, match="Only a single OPAL_LIBRARY can be used to register "
                                           "the namespace aten"):
        opal.library.Library("aten", "DEF")
    lib = opal.library.Library("aten", "IMPL")
    try:
        # A CPU kernel wins over the built-in decomposition...
        lib.impl("relu", lambda t: opal.tensor([7.0 for v in t.tolist()]), "CPU")
        assert opal.ops.aten.relu(opal.tensor([-1.0, 2.0])).tolist() == [7.0, 7.0]
    finally:
        lib._destroy()
    # ... and removing it brings the compiled decomposition back.
    assert opal.ops.aten.relu(opal.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]


def test_aten_ops_are_composite_implicit_exactly_where_pytorchs_are():
    torch = pytest.importorskip("torch")
    names = [str(schema).split("(")[0] for schema in aten_schemas()]
    assert len(names) >= 71
    for name in names:
        ours = opal._C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd")
        theirs = torch._C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd")
        assert ours == theirs, f"{name}: CompositeImplicitAutograd in opal {ours}, PyTorch {theirs}"


@pytest.mark.parametrize("script,library", [("generate-conv-library.py", "aten-conv.opal.mlir"),
                                            ("generate-pool-library.py", "aten-pool.opal.mlir"),
                                            ("generate-pool-backward-library.py",
                                             "aten-pool-backward.opal.mlir")])
def test_generated_libraries_are_their_generators_output(script, library):
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    written = subprocess.run([sys.executable, os.path.join(root, "scripts", script)],
                             capture_output=True, text=True, check=True).stdout
    with open(os.path.join(root, "lib", "Library", library)) as f:
        assert f.read() == written
