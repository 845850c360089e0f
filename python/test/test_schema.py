"""opal._C.parse_schema: canonical printing, fields, and errors.

Where PyTorch 1.13 is importable, every schema it has registered is parsed and
must print exactly as PyTorch prints it.
"""

import os
import subprocess
import sys

import pytest

import opal
from opal._C import parse_schema, parse_type

# (input, canonical form); None means the input is already canonical.
VALID = [
    ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", None),
    ("aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", None),
    ("aten::relu_(Tensor(a!) self) -> Tensor(a!)", None),
    ("aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", None),
    ("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", None),
    ("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", None),
    ("aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", None),
    ("aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", None),
    ("aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", None),
    ("aten::stack(Tensor[] tensors, int dim=0) -> Tensor", None),
    ("aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", None),
    ("aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", None),
    ("aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", None),
    ("aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", None),
    ("aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor", None),
    ("mylib::softplus(Tensor x, float beta=1.0, float threshold=20.0) -> Tensor",
     "mylib::softplus(Tensor x, float beta=1., float threshold=20.) -> Tensor"),
    ("mylib::f(int[2] k=1, float eps=1e-5, str mode='sum') -> ()",
     "mylib::f(int[2] k=1, float eps=1.0000000000000001e-05, str mode=\"sum\") -> ()"),
    ("mylib::g(Tensor x) -> (Tensor)", "mylib::g(Tensor x) -> Tensor"),
    ("mylib::h(...) -> ...", None),
    ("(Tensor a, Tensor b) -> Tensor", None),
    ("mylib::w(Tensor! x, Tensor(a|b) y, Tensor(c! -> *) z) -> ()", None),
    ("mylib::d(Dict(str, Tensor) d, (int, float) t) -> ((int, float))", None),
]


@pytest.mark.parametrize("text,canonical", VALID)
def test_canonical_form_and_round_trip(text, canonical):
    schema = parse_schema(text)
    expected = canonical or text
    assert str(schema) == expected
    again = parse_schema(str(schema))
    assert again == schema
    assert hash(again) == hash(schema)


def test_fields():
    s = parse_schema("mylib::op.out(Tensor(a) self, int[2] k=3, *, "
                     "ScalarType? dtype=None, Tensor(b!) out) -> (Tensor(a) view, Tensor(b!))")
    assert s.name == "mylib::op"
    assert s.overload_name == "out"
    assert s.namespace == "mylib"
    assert not s.is_vararg and not s.is_varret
    assert s.is_mutable
    names = [a.name for a in s.arguments]
    assert names == ["self", "k", "dtype", "out"]
    self_, k, dtype, out = s.arguments
    # As in PyTorch: the type without its annotation, which is alias_info.
    assert self_.type == "Tensor"
    assert str(self_.alias_info) == "(a)"
    assert self_.alias_info.before_set == ["a"]
    assert not self_.alias_info.is_write
    assert k.type == "int[2]" and k.N == 2
    assert k.default_value == [3, 3] and k.has_default_value()
    assert dtype.kwarg_only and dtype.default_value is None and dtype.has_default_value()
    assert dtype.python_type == "Optional[ScalarType]"
    assert out.is_out and out.alias_info.is_write
    assert not self_.has_default_value()
    assert [r.name for r in s.returns] == ["view", ""]
    assert str(s.returns[1]) == "Tensor(b!)"
    assert repr(k) == "<Argument int[2] k=3>"
    assert repr(s).startswith("<FunctionSchema mylib::op.out(")


def test_default_value_types():
    s = parse_schema("f(int i=-3, float f=0.5, bool b=True, str s=\"x\", complex c=2j, "
                     "Scalar n=1, float[] fl=[1, 2.5], bool[] bl=[False], float x=inf) -> ()")
    values = {a.name: a.default_value for a in s.arguments}
    assert values["i"] == -3 and type(values["i"]) is int
    assert values["f"] == 0.5
    assert values["b"] is True
    assert values["s"] == "x"
    assert values["c"] == 2j
    assert values["n"] == 1 and type(values["n"]) is int
    assert values["fl"] == [1.0, 2.5]
    assert values["bl"] == [False]
    assert values["x"] == float("inf")


@pytest.mark.parametrize("text", [
    "f(int[999999999] x=1) -> ()",
    "f(float[99999999999] x=0.5) -> ()",
    "mylib::g(Tensor t, bool[2000000000] b=True) -> Tensor",
])
def test_huge_sized_list_defaults_raise_in_their_own_process(text):
    # A scalar default of T[N] stands for N copies; a huge N once ran the
    # process out of memory (found by opal-fuzz-schema). Each case alone in
    # a process whose address space is capped at 2 GiB, so that a
    # regression fails here rather than exhausting the machine: it must
    # end with the parser's error.
    script = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from opal._C import parse_schema\n"
        f"try:\n    parse_schema({text!r})\n"
        "except RuntimeError as error:\n    print(str(error).splitlines()[0])\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().startswith("list size must be an integer from 1 to 1024, but found number ")


def test_largest_sized_list_default():
    # A scalar default of int[N] stands for N copies, as in PyTorch; N is at
    # most 1024 (int[1025] is refused above, before any copy is built).
    s = parse_schema("f(int[1024] k=7) -> ()")
    assert s.arguments[0].default_value == [7] * 1024
    assert str(s) == "f(int[1024] k=7) -> ()"


def test_parse_type():
    assert parse_type("Tensor(a!)?") == "Tensor(a!)?"
    assert parse_type("int [ 2 ]") == "int[2]"
    with pytest.raises(RuntimeError, match=r"unknown type 'Tensr'; did you mean 'Tensor'\?"):
        parse_type("Tensr")


# (schema, exact first line of the message)
INVALID = [
    ("f(Tensor x)", "expected '->' after the argument list, but found end of input (column 12)"),
    ("mylib::op", "expected '(' after the operator name: only the operator name was given, but a schema needs '(arguments) -> returns' (column 10)"),
    ("f(Tensr x) -> ()", "unknown type 'Tensr'; did you mean 'Tensor'? (column 3)"),
    ("f(tensor x) -> ()", "unknown type 'tensor'; did you mean 'Tensor'? (column 3)"),
    ("f(Tensor x, Tensor x) -> ()", "duplicate argument name 'x' (column 20)"),
    ("f(Tensor x, int y=1, int z) -> ()", "non-default argument 'z' follows an argument with a default; give it a default or make it keyword-only (after '*') (column 26)"),
    ("f(Tensor x=0) -> ()", "invalid default for argument 'x' of type Tensor: expected None, but found 0 (column 12)"),
    ("f(Tensor x=None) -> ()", "argument 'x' of type Tensor cannot default to None; declare it as 'Tensor?' (column 12)"),
    ("f(int x=2.5) -> ()", "invalid default for argument 'x' of type int: expected an integer (or Mean), but found 2.5 (column 9)"),
    ("f(bool x=0) -> ()", "invalid default for argument 'x' of type bool: expected True or False, but found 0 (column 10)"),
    ("f(int[] x=7) -> ()", "invalid default for argument 'x' of type int[]: expected a list like [0, 1] (a single value is only allowed for sized lists like int[2]), but found 7 (column 11)"),
    ("f(Tensor[] x=[1]) -> ()", "invalid default for argument 'x' of type Tensor[]: list defaults are only supported for int, float, bool and complex lists (column 14)"),
    ("mylib::op.default(Tensor x) -> Tensor", "'default' is not a legal overload name: it stands for the overload with no name (column 11)"),
    ("mylib::op.__x(Tensor x) -> Tensor", "overload name '__x' must not begin with '__' (column 11)"),
    ("f(..., Tensor x) -> ()", "'...' must be the last argument (column 8)"),
    ("f(Tensor x, *) -> ()", "'*' must be followed by at least one keyword-only argument (column 13)"),
    ("f(str s='abc) -> ()", "unterminated string literal (column 9)"),
    ("f(Tensor x) -> Tensor y=1", "a return cannot have a default value (column 24)"),
    ("f(int[0] x) -> ()", "list size must be an integer from 1 to 1024, but found number 0 (column 7)"),
    ("f(int[1025] x=1) -> ()", "list size must be an integer from 1 to 1024, but found number 1025 (column 7)"),
    ("f(int[999999999] x=1) -> ()", "list size must be an integer from 1 to 1024, but found number 999999999 (column 7)"),
    ("f(int[99999999999999999999] x) -> ()", "list size must be an integer from 1 to 1024, but found number 99999999999999999999 (column 7)"),
    ("f(Tensor x) -> Tensor junk more", "unexpected 'more' after the end of the schema (column 28)"),
]


@pytest.mark.parametrize("text,message", INVALID)
def test_invalid_schemas_raise_runtime_error(text, message):
    with pytest.raises(RuntimeError) as info:
        parse_schema(text)
    lines = str(info.value).splitlines()
    assert lines[0] == message
    # The message shows the text and a caret under the offending column.
    assert lines[1] == "  " + text
    column = int(message.rsplit("(column ", 1)[1].rstrip(")"))
    assert lines[2].index("^") == column + 1


def test_version():
    assert opal.__version__ == "0.1.0"


def _torch():
    try:
        import torch  # noqa: F401
    except Exception as exc:  # ImportError, or a broken install
        pytest.skip(f"PyTorch is not importable ({exc}); it is only the reference")
    return sys.modules["torch"]


# PyTorch 1.13 registers one schema that names an argument twice; opal
# rejects duplicate argument names.
TORCH_SCHEMAS_OPAL_REJECTS = {
    "static_runtime::clamp_nan_to_num(Tensor input, Scalar? min, Scalar? max, "
    "float? nan, float? posinf, float? posinf) -> Tensor":
        "duplicate argument name 'posinf' (column 108)",
}


def test_every_pytorch_schema_prints_like_pytorch():
    torch = _torch()
    schemas = [str(s) for s in torch._C._jit_get_all_schemas()]
    assert len(schemas) > 3000
    mismatches = []
    for text in schemas:
        if text in TORCH_SCHEMAS_OPAL_REJECTS:
            with pytest.raises(RuntimeError) as info:
                parse_schema(text)
            assert str(info.value).splitlines()[0] == TORCH_SCHEMAS_OPAL_REJECTS[text]
            continue
        printed = str(parse_schema(text))
        if printed != text:
            mismatches.append((text, printed))
    assert mismatches == []


# PyTorch's parse_schema needs a name; the name-less form is opal's addition.
@pytest.mark.parametrize("text", [t for t, _ in VALID if not t.startswith("(")])
def test_fields_agree_with_pytorch(text):
    torch = _torch()
    ours = parse_schema(text)
    theirs = torch._C.parse_schema(text)
    assert ours.name == theirs.name
    assert ours.overload_name == theirs.overload_name
    assert [a.name for a in ours.arguments] == [a.name for a in theirs.arguments]
    assert [a.kwarg_only for a in ours.arguments] == [a.kwarg_only for a in theirs.arguments]
    assert [r.name for r in ours.returns] == [r.name for r in theirs.returns]


def test_schema_tour_example_runs():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, os.path.join(root, "examples", "schema_tour.py")],
                            capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in result.stdout
    assert "unknown type 'Tensr'; did you mean 'Tensor'?" in result.stdout
