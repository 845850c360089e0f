"""opal.library.load: op-library files define ops in the dispatcher."""

import os

import pytest

import opal

INPUTS = os.path.join(os.path.dirname(__file__), "..", "..", "test", "Dialect", "Inputs")


def test_loaded_library_ops_appear_in_opal_ops():
    libraries = opal.library.load(os.path.join(INPUTS, "mylib.opal.mlir"))
    try:
        assert [lib.ns for lib in libraries] == ["mylib"]
        packet = opal.ops.mylib.softplus
        assert str(packet.default._schema) == \
            "mylib::softplus(Tensor x, float beta=1., float threshold=20.) -> Tensor"
        assert opal.ops.mylib.scale.overloads() == ["out"]
        assert opal.ops.mylib.pick.default._schema.returns[1].name == "indices"
        # Defined, not implemented: a call says which backend is missing.
        with pytest.raises(NotImplementedError, match="Could not run 'mylib::softplus' with arguments from the 'CPU' backend"):
            packet(opal.ones(2))
        lib = opal.library.Library("mylib", "IMPL", "CPU")
        lib.impl("softplus", lambda x, beta, threshold: x)
        assert packet(opal.ones(2)).tolist() == [1.0, 1.0]
        lib._destroy()
        with pytest.raises(RuntimeError, match="is already loaded"):
            opal.library.load(os.path.join(INPUTS, "mylib.opal.mlir"))
    finally:
        for lib in libraries:
            lib._destroy()
    assert not hasattr(opal.ops.mylib, "softplus")


def test_bad_library_files_report_file_line_column():
    with pytest.raises(RuntimeError) as info:
        opal.library.load(os.path.join(INPUTS, "bad-schema.opal.mlir"))
    assert "bad-schema.opal.mlir:3:43: error: invalid schema: non-default argument 'z'" in str(info.value)
    # Nothing of the failed file stays defined.
    assert not hasattr(opal.ops.badlib, "ok")
    with pytest.raises(RuntimeError, match="cannot open op library"):
        opal.library.load(os.path.join(INPUTS, "missing.opal.mlir"))


def test_a_duplicate_definition_names_both_files_where_they_open_the_namespace(tmp_path):
    first, second = tmp_path / "a.opal.mlir", tmp_path / "b.opal.mlir"
    first.write_text('opal.library "duplib" {\n  opal.def "twice(Tensor x) -> Tensor"\n}\n')
    second.write_text('// another file\nopal.library "duplib" {\n'
                      '  opal.def "twice(Tensor x) -> Tensor"\n}\n')
    libraries = opal.library.load(str(first))
    try:
        with pytest.raises(RuntimeError) as info:
            opal.library.load(str(second))
        assert str(info.value).endswith(
            f"Duplicate registration: registered at {os.path.realpath(second)}:2. "
            f"Original registration: registered at {os.path.realpath(first)}:1"), info.value
    finally:
        for lib in libraries:
            lib._destroy()
