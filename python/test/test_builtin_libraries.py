"""The built-in op libraries: aten's schemas are PyTorch's, word for word.

lib/Library/aten.opal.mlir claims PyTorch's names and schemas; where PyTorch
1.13 is importable every one of them must print exactly as PyTorch's own
registration of that operator.
"""

import os

import pytest

from opal import _C

LIBRARY = os.path.join(os.path.dirname(__file__), "..", "..", "lib", "Library")


def builtin(name):
    return _C._read_op_library_schemas(os.path.join(LIBRARY, name))


def test_aten_library_size_and_namespace():
    schemas = builtin("aten.opal.mlir")
    assert len(schemas) == 71
    assert {s.name.split("::")[0] for s in schemas} == {"aten"}
    names = {str(s).split("(")[0] for s in schemas}
    for expected in ["aten::add.Tensor", "aten::add.Scalar", "aten::div.Tensor", "aten::relu",
                     "aten::sigmoid", "aten::silu", "aten::where.self", "aten::lt.Scalar"]:
        assert expected in names


def test_prims_library_is_separate():
    schemas = builtin("prims.opal.mlir")
    assert len(schemas) == 38
    assert {s.name.split("::")[0] for s in schemas} == {"prims"}


def test_aten_schemas_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the reference for aten schemas")
    theirs = {}
    for schema in torch._C._jit_get_all_schemas():
        key = schema.name + ("." + schema.overload_name if schema.overload_name else "")
        theirs[key] = str(schema)
    for schema in builtin("aten.opal.mlir"):
        text = str(schema)
        key = text.split("(")[0]
        assert key in theirs, f"{key} is not a PyTorch operator"
        assert text == theirs[key]
