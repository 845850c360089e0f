"""Hostile inputs that once gave a silently wrong answer, crashed or hung.

Each case runs in its own Python process with a timeout, so a crash or a
hang fails that case alone and is reported as what it is. Where PyTorch
1.13 (Debian's python3-torch, a test-only reference) defines an answer, the
case is compared with it.
"""

import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import BUILD_DIR
from test_memory_safety import torch_available

BIN = os.path.join(BUILD_DIR, "bin")
PRELUDE = "import json, sys\nimport numpy as np\nimport opal\nA = opal.ops.aten\n"


def run(code, timeout=120, env=None, cache_dir=None):
    """Runs `code` (after PRELUDE) in a fresh process; its CompletedProcess.
    A hang fails the test with the case's code."""
    environment = dict(os.environ)
    if cache_dir is not None:
        environment["OPAL_CACHE_DIR"] = str(cache_dir)
    environment.update(env or {})
    try:
        return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
                              capture_output=True, text=True, timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for {timeout} s: {code}")


def outcome(expression, module="opal", timeout=120):
    """["value", repr] or [error type, message] of one expression, evaluated
    in its own process (`module`: "opal" or "torch")."""
    code = (f"import torch\n" if module == "torch" else "") + f"""
try:
    value = {expression}
    print(json.dumps(["value", repr(value.tolist() if hasattr(value, "tolist") else value)]))
except Exception as error:
    print(json.dumps([type(error).__name__, str(error)]))
"""
    result = run(code, timeout)
    assert result.returncode == 0, f"{expression} died ({result.returncode}): " \
                                   f"{result.stderr[-2000:]}"
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- 1. A registration is never ignored through the kernel cache ---------

OVERRIDE = """
if sys.argv[1] == "override":
    opal.library.register_decomposition(sys.argv[2])(lambda x: x * 100)
x = opal.tensor([1.0, 2.0])
print(json.dumps([opal.exp(x).tolist(), A.softplus(x, 1.0).tolist()]))
"""


@pytest.mark.parametrize("op", ["aten::exp", "prims::exp"])
def test_an_override_neither_poisons_nor_ignores_the_disk_cache(tmp_path, op):
    import math

    def process(mode):
        environment = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path))
        result = subprocess.run([sys.executable, "-c", PRELUDE + OVERRIDE, mode, op],
                                capture_output=True, text=True, timeout=300, env=environment)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    exact = [math.exp(1.0), math.exp(2.0)]
    # The cache holds the built-in kernels first, then the override's, then
    # the built-in ones are asked for again: each process gets its own.
    for mode in ("plain", "override", "plain", "override"):
        exp, softplus = process(mode)
        if mode == "plain":
            assert exp == pytest.approx(exact, rel=1e-6)
            assert softplus[0] == pytest.approx(math.log1p(math.e), rel=1e-6)
        else:
            assert exp == [100.0, 200.0]
            if op == "prims::exp":  # softplus reaches prims::exp too
                assert softplus[0] == pytest.approx(math.log1p(100.0), rel=1e-6)


def test_an_override_after_a_compile_and_its_removal_are_seen_in_one_process(tmp_path):
    result = run("""
        x = opal.tensor([1.0, 2.0])
        out = [opal.exp(x).tolist()]
        lib = opal.library.Library("aten", "IMPL")
        opal.library.register_decomposition("aten::exp", lib=lib)(lambda x: x * 100)
        out.append(opal.exp(x).tolist())
        lib._destroy()  # the built-in decomposition is opal.exp's again
        out.append(opal.exp(x).tolist())
        print(json.dumps(out))
    """, cache_dir=tmp_path)
    assert result.returncode == 0, result.stderr
    before, overridden, after = json.loads(result.stdout)
    assert overridden == [100.0, 200.0]
    assert before == after and before[0] == pytest.approx(2.7182817, rel=1e-6)


# --- 2. uint8 through the JIT, as PyTorch computes it ---------------------

# Each expression (in terms of M, opal or torch) runs in its own process for
# both; opal must give PyTorch's values and dtype, or raise its message.
U8 = "M.tensor([200, 3, 0, 255], dtype=M.uint8)"
UINT8_CALLS = [
    # The calls the attack run saw come back as int8.
    "A.full([2], 200, dtype=M.uint8)",
    "A._to_copy(M.ones(2), dtype=M.uint8)",
    "A._to_copy(M.tensor([-1.0, 300.0, 255.9, -0.5]), dtype=M.uint8)",
    "A.ones([2], dtype=M.uint8)",
    "A.new_full(M.ones(2), [2], 200, dtype=M.uint8)",
    "A.new_zeros(M.ones(2), [2], dtype=M.uint8)",
    "A.scalar_tensor(200, dtype=M.uint8)",
    "A.zeros_like(M.ones(2), dtype=M.uint8)",
    "A.empty_like(M.ones(2), dtype=M.uint8).zero_()",
    "A.cumsum(M.full([3], 100.0), 0, dtype=M.uint8)",
    "A.sum(M.full([3], 100.0), dtype=M.uint8)",
    "A.prod(M.full([3], 7.0), dtype=M.uint8)",
    "A.mean(" + U8 + ", dtype=M.float32)",
    # Values that differ from int8's bits: order, division, widening.
    U8 + " // M.tensor([7, 2, 1, 16], dtype=M.uint8)",
    U8 + " > 100",
    U8 + ".max()",
    U8 + ".argmax()",
    U8 + ".sum()",
    U8 + ".float()",
    U8 + ".abs()",
    U8 + ".sign()",
    U8 + ".cumsum(0)",
    U8 + " % 7",
    "M.fmod(" + U8 + ", 7)",
    U8 + " + M.tensor([-1, 2, 5, -128], dtype=M.int8)",
    U8 + " + 300",
    U8 + " - 201",
    U8 + ".neg()",
    "M.clamp(" + U8 + ", 10, 210)",
    "M.maximum(" + U8 + ", M.full([4], 100, dtype=M.uint8))",
    U8 + ".to(M.int8)",
    U8 + ".any()",
    U8 + ".all()",
    "A.pow.Tensor_Scalar(" + U8 + ", -1)",
    "A.pow.Tensor_Scalar(" + U8 + ", 2)",
    "A.hardtanh(" + U8 + ", -1, 1)",
    U8 + " // M.tensor([1, 0, 1, 1], dtype=M.uint8)",
    "M.tensor([[200, 3], [0, 255]], dtype=M.uint8).t().contiguous().max(0)[0]",
]


@pytest.mark.parametrize("call", UINT8_CALLS)
def test_uint8_computes_as_pytorch_does(call):
    if not torch_available():
        pytest.skip("PyTorch (python3-torch) is not installed")
    # Values and dtype (its name without the module).
    call = f"(lambda r: (r.tolist(), str(r.dtype).split('.')[-1]))({call})"
    ours = outcome(call.replace("M.", "opal.").replace("A.", "opal.ops.aten."))
    theirs = outcome(call.replace("M.", "torch.").replace("A.", "torch.ops.aten."), "torch")
    if theirs[0] == "value":
        assert ours == theirs
    else:
        assert ours[0] != "value" and theirs[1] in ours[1], (ours, theirs)


def test_uint8_from_python_factories_is_exact():
    assert outcome("opal.full((2,), 200, dtype=opal.uint8)") == ["value", "[200, 200]"]
    assert outcome("opal.tensor([200, -1], dtype=opal.uint8)") == ["value", "[200, 255]"]
    assert outcome("opal.zeros(2, dtype=opal.uint8).fill_(255)") == ["value", "[255, 255]"]


# --- 3. One rule for a Python number that becomes an element --------------

# (opal expression, PyTorch expression, expected: a value's repr or a message)
NUMBER_CASES = [
    ("opal.tensor([2**63])", "torch.tensor([2**63])", "Overflow when unpacking long"),
    ("opal.tensor([[1], [2**64]])", "torch.tensor([[1], [2**64]])",
     "Overflow when unpacking long"),
    ("opal.tensor([-2**63, 2**63 - 1])", "torch.tensor([-2**63, 2**63 - 1])",
     repr([-2**63, 2**63 - 1])),
    ("opal.tensor([2**63], dtype=opal.float32)", "torch.tensor([2**63], dtype=torch.float32)",
     repr([9.223372036854776e+18])),
    # PyTorch 2 has a uint64 dtype (with few ops); opal has none and says so.
    ("opal.tensor(np.array([2**63], dtype=np.uint64))", None,
     "can't convert np.ndarray of type numpy.uint64"),
    ("opal.tensor([300], dtype=opal.int8)", "torch.tensor([300], dtype=torch.int8)",
     "value cannot be converted to type int8 without overflow"),
    ("opal.tensor([-1], dtype=opal.uint8)", "torch.tensor([-1], dtype=torch.uint8)",
     repr([255])),
    ("opal.full((1,), 2**53 + 1)", "torch.full((1,), 2**53 + 1)", repr([2**53 + 1])),
    ("opal.full((1,), 2**63)", "torch.full((1,), 2**63)",
     "value cannot be converted to type int64_t without overflow"),
    ("opal.full((1,), 300, dtype=opal.int8)", "torch.full((1,), 300, dtype=torch.int8)",
     "value cannot be converted to type int8_t without overflow"),
    ("opal.full((1,), 1e10, dtype=opal.int8)", "torch.full((1,), 1e10, dtype=torch.int8)",
     "value cannot be converted to type int8_t without overflow"),
    ("opal.full((1,), -1, dtype=opal.uint8)", "torch.full((1,), -1, dtype=torch.uint8)",
     repr([255])),
    ("opal.full((1,), 256, dtype=opal.uint8)", "torch.full((1,), 256, dtype=torch.uint8)",
     "value cannot be converted to type uint8_t without overflow"),
    ("opal.zeros(1, dtype=opal.int64).fill_(2**53 + 1)",
     "torch.zeros(1, dtype=torch.int64).fill_(2**53 + 1)", repr([2**53 + 1])),
    ("opal.zeros(1, dtype=opal.int8).fill_(1e10)",
     "torch.zeros(1, dtype=torch.int8).fill_(1e10)",
     "value cannot be converted to type int8_t without overflow"),
    ("opal.zeros(1, dtype=opal.int32).fill_(2**40)",
     "torch.zeros(1, dtype=torch.int32).fill_(2**40)",
     "value cannot be converted to type int without overflow"),
    ("opal.zeros(1, dtype=opal.int64).fill_(float('nan'))",
     "torch.zeros(1, dtype=torch.int64).fill_(float('nan'))",
     "value cannot be converted to type int64_t without overflow"),
    # (PyTorch 2 rounds a number past float16's range to infinity.)
    ("opal.zeros(1, dtype=opal.float16).fill_(1e10)",
     "torch.zeros(1, dtype=torch.float16).fill_(1e10)", repr([float("inf")])),
    ("opal.zeros(1, dtype=opal.float16).fill_(float('inf'))",
     "torch.zeros(1, dtype=torch.float16).fill_(float('inf'))", repr([float("inf")])),
    ("opal.zeros(1, dtype=opal.bool).fill_(5)", "torch.zeros(1, dtype=torch.bool).fill_(5)",
     repr([True])),
    ("opal.arange(-2**63, 2**63 - 1, 2**62)", None,  # PyTorch 1.13 returns []
     repr([-2**63, -2**62, 0, 2**62])),
    ("opal.arange(0, 2**62, 2**60)", "torch.arange(0, 2**62, 2**60)",
     repr([0, 2**60, 2**61, 3 * 2**60])),
    ("A.full([1], 2**63)", "torch.ops.aten.full([1], 2**63)",
     "value cannot be converted to type int64_t without overflow"),
    ("A.full([1], 2**70)", "torch.ops.aten.full([1], 2**70)", "int too big to convert"),
    # An int Scalar reaches a compiled kernel as an int64: exact past 2**53.
    ("A.full([1], 2**53 + 1)", "torch.ops.aten.full([1], 2**53 + 1)", repr([2**53 + 1])),
    ("A.constant_pad_nd(opal.zeros(1, dtype=opal.int64), [1, 0], 2**53 + 1)",
     "torch.ops.aten.constant_pad_nd(torch.zeros(1, dtype=torch.int64), [1, 0], 2**53 + 1)",
     repr([2**53 + 1, 0])),
    ("A.add.Scalar(opal.zeros(1, dtype=opal.int64), 2**53 + 1)",
     "torch.ops.aten.add.Scalar(torch.zeros(1, dtype=torch.int64), 2**53 + 1)",
     repr([2**53 + 1])),
    # aten ops whose kernels write a Scalar into their result check it first.
    ("opal.zeros(2, dtype=opal.int8).masked_fill(opal.tensor([True, False]), 1e10)",
     "torch.zeros(2, dtype=torch.int8).masked_fill(torch.tensor([True, False]), 1e10)",
     "value cannot be converted to type int8_t without overflow"),
    ("opal.zeros(2, dtype=opal.int8).masked_fill(opal.tensor([True, False]), 100)",
     "torch.zeros(2, dtype=torch.int8).masked_fill(torch.tensor([True, False]), 100)",
     repr([100, 0])),
    ("A.fill.Scalar(opal.zeros(2, dtype=opal.int8), 300)",
     "torch.ops.aten.fill.Scalar(torch.zeros(2, dtype=torch.int8), 300)",
     "value cannot be converted to type int8_t without overflow"),
    # (aten::full checks its Scalar where torch.full and fill_ saturate.)
    ("A.full([2], 1e10, dtype=opal.float16)",
     "torch.ops.aten.full([2], 1e10, dtype=torch.float16)",
     "value cannot be converted to type c10::Half without overflow"),
    ("A.full([2], 1e300, dtype=opal.float32)",
     "torch.ops.aten.full([2], 1e300, dtype=torch.float32)",
     "value cannot be converted to type float without overflow"),
    ("A.full_like(opal.zeros(2, dtype=opal.int32), 2**40)",
     "torch.ops.aten.full_like(torch.zeros(2, dtype=torch.int32), 2**40)",
     "value cannot be converted to type int without overflow"),
    ("A.new_full(opal.zeros(2, dtype=opal.int16), [2], 70000)",
     "torch.ops.aten.new_full(torch.zeros(2, dtype=torch.int16), [2], 70000)",
     "value cannot be converted to type int16_t without overflow"),
    ("A.scalar_tensor(1e10, dtype=opal.int8)",
     "torch.ops.aten.scalar_tensor(1e10, dtype=torch.int8)",
     "value cannot be converted to type int8_t without overflow"),
]


# New ways in for a number: each refuses what is not one with a clean error.
NUMBER_CASES += [
    ("opal.zeros(2).fill_('x')", None, "fill_(): argument 'value': expected a number, got str"),
    ("opal.full((1,), None, dtype=opal.float32)", None,
     "full(): argument 'fill_value': expected a number, got NoneType"),
    ("opal.zeros(2).fill_(opal.ones(1))", "torch.zeros(2).fill_(torch.ones(1))",
     "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."),
    ("opal.zeros(2, dtype=opal.int64).fill_(opal.tensor(2**53 + 1))",
     "torch.zeros(2, dtype=torch.int64).fill_(torch.tensor(2**53 + 1))",
     repr([2**53 + 1, 2**53 + 1])),
    ("[opal._C._jit_remove_op_library_text(123456)]", None, repr([None])),
]


def assign(dtype, value, mask=False):
    index = "opal.tensor([True, False])" if mask else "0"
    return (f"(lambda x: (x.__setitem__({index}, {value}), x)[1])"
            f"(opal.zeros(2, dtype=opal.{dtype}))")


NUMBER_CASES += [
    (assign("int64", "2**53 + 1"), assign("int64", "2**53 + 1").replace("opal", "torch"),
     repr([2**53 + 1, 0])),
    (assign("int64", "2**53 + 1", mask=True),
     assign("int64", "2**53 + 1", mask=True).replace("opal", "torch"), repr([2**53 + 1, 0])),
    (assign("int8", "1e10"), assign("int8", "1e10").replace("opal", "torch"),
     "value cannot be converted to type int8_t without overflow"),
]


@pytest.mark.parametrize("code,reference,expected", NUMBER_CASES,
                         ids=[case[0] for case in NUMBER_CASES])
def test_numbers_become_elements_by_pytorchs_rule(code, reference, expected):
    kind, text = outcome(code)
    if expected.startswith("["):
        assert kind == "value", f"{code} raised {kind}: {text}"
        assert text == expected
    else:
        assert kind != "value", f"{code} returned {text}"
        assert expected in text
    if reference and torch_available():
        torch_kind, torch_text = outcome(reference, "torch")
        assert (torch_kind == "value") == (kind == "value")
        if kind == "value":
            assert torch_text == text


# --- 4. Checks the ops were missing ----------------------------------------

POOL = ("x = opal.randn(1, 1, 4, 4)\n"
        "y, i = A.max_pool2d_with_indices(x, [2, 2], [2, 2], [0, 0], [1, 1], False)\n")

MISSING_CHECKS = [
    (POOL + "A.max_pool2d_with_indices_backward(opal.randn(1, 1, 3, 3), x, [2, 2], [2, 2], "
            "[0, 0], [1, 1], False, i)",
     "Expected a tensor of dimension 4 and tensor.size[2] == 2 but got: dimension 4 and "
     "tensor.size[2] = 3"),
    (POOL + "A.max_pool2d_with_indices_backward(y, x, [2, 2], [2, 2], [0, 0], [1, 1], False, "
            "opal.zeros(1, 1, 3, 3, dtype=opal.int64))",
     "Expected a tensor of dimension 4 and tensor.size[2] == 2 but got: dimension 4 and "
     "tensor.size[2] = 3"),
    (POOL + "A.max_pool2d_with_indices_backward(y, x, [2, 2], [2, 2], [0, 0], [1, 1], False, "
            "i.float())", "expected scalar type Long but found Float"),
    (POOL + "A.max_pool2d_with_indices_backward(y, x, [2, 2], [0, 2], [0, 0], [1, 1], False, i)",
     "stride should not be zero"),
    (POOL + "A.max_pool2d_with_indices_backward(y, x, [2, 2], [2, 2], [0, 0], [2**62, 1], "
            "False, i)", "Output size is too small"),
    ("A.conv2d(opal.randn(1, 1, 5, 5), opal.randn(1, 1, 3, 3), None, [1, 1], [0, 0], "
     "[2**62, 1], 1)",
     "Calculated padded input size per channel: (5 x 5). Kernel size: (9223372036854775807 x 3)."
     " Kernel size can't be greater than actual input size"),
    ("A.conv2d(opal.randn(1, 1, 5, 5), opal.randn(1, 1, 3, 3), None, [1, 1], [0, 0], "
     "[2**40, 1], 1)",
     "Calculated padded input size per channel: (5 x 5). Kernel size: (2199023255553 x 3)."
     " Kernel size can't be greater than actual input size"),
]


@pytest.mark.parametrize("code,expected", MISSING_CHECKS, ids=[c[0].splitlines()[-1]
                                                               for c in MISSING_CHECKS])
def test_missing_checks_raise(code, expected):
    lines = code.splitlines()
    result = run("\n".join(lines[:-1]) + f"""
try:
    value = {lines[-1]}
    print(json.dumps(["value", str(value.shape)]))
except Exception as error:
    print(json.dumps([type(error).__name__, str(error)]))
""")
    assert result.returncode == 0, result.stderr[-2000:]
    kind, message = json.loads(result.stdout.strip().splitlines()[-1])
    assert kind == "RuntimeError", f"returned {message}"
    assert expected in message


def test_max_pool2d_backward_still_matches_pytorch():
    if not torch_available():
        pytest.skip("PyTorch (python3-torch) is not installed")
    import numpy as np
    import torch
    import opal
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 6)).astype(np.float32)
    args = ([3, 2], [2, 2], [1, 1], [1, 1], True)
    y, i = opal.ops.aten.max_pool2d_with_indices(opal.tensor(x), *args)
    ty, ti = torch.ops.aten.max_pool2d_with_indices(torch.tensor(x), *args)
    g = np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np.float32)
    ours = opal.ops.aten.max_pool2d_with_indices_backward(opal.tensor(g), opal.tensor(x),
                                                          *args, i)
    theirs = torch.ops.aten.max_pool2d_with_indices_backward(torch.tensor(g), torch.tensor(x),
                                                             *args, ti)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


# --- 5. A traced decomposition cannot keep the branch it took --------------

@pytest.mark.parametrize("body", [
    "x * 2 if x.sum() > 0 else x",
    "x * 2 if bool(x.any()) else x",
    "x * float(x.sum())",
    "x * x.sum().item()",
    "opal.ops.aten.mul(x, len(x))",
])
def test_a_traced_decomposition_refuses_data_dependent_python(body):
    result = run(f"""
        opal.library.define("branchy::f", "(Tensor x) -> Tensor")
        try:
            opal.library.register_decomposition("branchy::f")(lambda x: {body})
            print("registered")
        except TypeError as error:
            print(error)
    """)
    assert result.returncode == 0, result.stderr
    assert "registered" not in result.stdout
    assert "a traced decomposition cannot use" in result.stdout or \
           "only known per call" in result.stdout


# --- 6. Freeing a deep autograd graph ---------------------------------------

def test_a_graph_of_a_million_chained_ops_is_freed():
    result = run("""
        x = opal.ones(2, requires_grad=True)
        y = x
        for _ in range(1_000_000):
            y = y * 1.0
        del y
        print("freed")
    """, timeout=600)
    assert result.returncode == 0, f"died ({result.returncode}): {result.stderr[-2000:]}"
    assert result.stdout.strip() == "freed"


# --- 7. Input-controlled depth is bounded ------------------------------------

DEPTH = 20000
DEEP_SCHEMAS = {
    "tuple": "f(" + "(" * DEPTH + "int" + ")" * DEPTH + " x) -> ()",
    "Dict": "f(" + "Dict(str, " * DEPTH + "int" + ")" * DEPTH + " x) -> ()",
    "Future": "f(" + "Future(" * DEPTH + "int" + ")" * DEPTH + " x) -> ()",
    "list": "f(int" + "[]" * DEPTH + " x) -> ()",
    "return tuple": "f(int x) -> " + "(" * DEPTH + "int" + ")" * DEPTH,
    "default": "f(int[] x=" + "[" * DEPTH + "1" + "]" * DEPTH + ") -> ()",
}


@pytest.mark.parametrize("kind", sorted(DEEP_SCHEMAS))
def test_deeply_nested_schemas_are_refused(kind, tmp_path):
    path = tmp_path / "schema.txt"
    path.write_text(DEEP_SCHEMAS[kind])
    result = run(f"""
        try:
            opal.parse_schema(open({str(path)!r}).read())
        except RuntimeError as error:
            print(str(error).splitlines()[0])
    """)
    assert result.returncode == 0, f"died ({result.returncode}): {result.stderr[-2000:]}"
    assert "nest deeper than 128 levels" in result.stdout
    done = subprocess.run([os.path.join(BIN, "opal-schema"), str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1 and "nest deeper than 128 levels" in done.stderr


def deep_library(path, depth):
    """An op library whose decomposition nests `depth` opal.static_if regions."""
    body = "    opal.static_if %c {\n" * depth + \
           "    opal.yield\n    } else {\n    opal.yield\n    }\n" * depth
    path.write_text('opal.library "deep" {\n'
                    '  opal.def "deep::f(Tensor x) -> Tensor"\n'
                    '  opal.decomposition "f" {\n'
                    '  ^bb0(%x: !opal.tensor):\n'
                    '    %c = arith.constant true\n' + body +
                    '    opal.yield %x : !opal.tensor\n  }\n}\n')


@pytest.mark.parametrize("depth", [5000, 20000])
def test_deeply_nested_op_libraries_are_refused_by_every_tool(depth, tmp_path):
    path = tmp_path / "deep.opal.mlir"
    deep_library(path, depth)
    expected = "brackets nest deeper than 256 levels"
    result = run(f"""
        try:
            opal.library.load({str(path)!r})
        except RuntimeError as error:
            print(error)
    """)
    assert result.returncode == 0, f"died ({result.returncode}): {result.stderr[-2000:]}"
    assert expected in result.stdout
    for command in ([os.path.join(BIN, "opal-opt"), f"--op-library={path}", os.devnull],
                    [os.path.join(BIN, "opal-opt"), str(path)],
                    [os.path.join(BIN, "opal-aot"), str(path), "-o",
                     str(tmp_path / "deep.so")]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, f"{command[0]} ended with {done.returncode}"
        assert expected in done.stderr


def test_a_library_nested_within_the_limit_still_loads(tmp_path):
    path = tmp_path / "nested.opal.mlir"
    deep_library(path, 100)
    result = run(f"""
        opal.library.load({str(path)!r})
        print(opal.ops.deep.f(opal.ones(2)).tolist())
    """)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[1.0, 1.0]"


# --- 9. A Library destroyed while other threads call its op ------------------

def test_destroying_a_library_during_calls_never_crashes():
    code = """
        import threading, time
        lib = opal.library.Library("racy", "DEF")
        lib.define("scale(Tensor x) -> Tensor")
        opal.library.register_decomposition("racy::scale", lib=lib)(lambda x: x * 2.0)
        op = opal.ops.racy.scale.default
        x = opal.ones(4)
        op(x)
        stop, calls, errors = False, [0], set()
        def work():
            while not stop:
                try:
                    op(x)
                    calls[0] += 1
                except RuntimeError as error:
                    errors.add(str(error))
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(0.2)
        lib._destroy()
        time.sleep(0.1)
        stop = True
        for t in threads:
            t.join()
        print(json.dumps([calls[0], sorted(errors)]))
    """
    for _ in range(3):
        result = run(code)
        assert result.returncode == 0, f"died ({result.returncode}): {result.stderr[-2000:]}"
        calls, errors = json.loads(result.stdout)
        assert calls > 0
        # Calls after the destruction raise: the op has no kernel, then no
        # schema any more.
        assert errors and all("racy::scale" in e for e in errors)
        assert any("has no schema (it was never defined, or the Library that defined it was "
                   "destroyed)" in e or "Could not run 'racy::scale'" in e for e in errors)


# --- 12. Regular files only where a file is expected -------------------------

@pytest.mark.parametrize("load", ["opal.library.load(path)", "opal.ops.load_library(path)"])
def test_a_fifo_is_refused_not_waited_on(load, tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    result = run(f"""
        path = {str(path)!r}
        try:
            {load}
        except (RuntimeError, OSError) as error:
            print(error)
    """, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "not a regular file" in result.stdout
    if load.startswith("opal.library"):
        done = subprocess.run([os.path.join(BIN, "opal-opt"), f"--op-library={path}",
                               os.devnull], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and "it is not a regular file" in done.stderr


# --- 1 (continued). `opal.cache verify` checks the warm-start index ---------

def test_cache_verify_finds_an_index_that_names_another_kernel(tmp_path):
    from cache_seal import body, reseal
    plain = "print(json.dumps(opal.exp(opal.tensor([1.0, 2.0])).tolist()))"
    override = ('opal.library.register_decomposition("aten::exp")(lambda x: x * 100)\n'
                + plain)
    for code in (plain, override):
        result = run(code, cache_dir=tmp_path)
        assert result.returncode == 0, result.stderr
    verify = [sys.executable, "-m", "opal.cache", "--dir", str(tmp_path), "verify"]
    done = subprocess.run(verify, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 bad" in done.stdout and "warm-start index files checked, 0 bad" in done.stdout
    # Forge what an opal before this check wrote: the index of the built-in
    # aten::exp naming the override's entry (sealed with the cache's key),
    # without the pin of the override's definition that opal writes now.
    import opal.cache
    exp_entries = [key for key, _, fields in opal.cache.entries(str(tmp_path))
                   if fields.get("op") == "aten::exp"]
    assert len(exp_entries) == 2
    forged = 0
    for path in (tmp_path / "warm-v2").rglob("*"):
        if not path.is_file():
            continue
        text = body(path.read_text())
        if "\nop: aten::exp\n" not in text:
            continue
        entry = text.split("\nentry: ")[1].split("\n")[0]
        pinned = "\npinned: " + text.split("\npinned: ")[1].split("\n")[0]
        if pinned != "\npinned: ":  # the override's own index: unpin it
            forged_text = text.replace(pinned, "\npinned: ")
        else:
            forged_text = text.replace(entry, next(key for key in exp_entries if key != entry))
        reseal(path, "index", path.name, forged_text, tmp_path)
        forged += 1
    assert forged == 1
    # A warm start runs what the index names...
    result = run(plain, cache_dir=tmp_path)
    assert json.loads(result.stdout) == [100.0, 200.0]
    # ...and verify says so.
    done = subprocess.run(verify, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "warm-start index files checked, 1 bad" in done.stdout
    assert "(aten::exp(float32[?])): it names cache entry" in done.stdout
    assert "but opal's definitions compile aten::exp(float32[?]) to entry" in done.stdout


STATIC_ONLY = """
lib = opal.library.Library("mylib", "DEF")
lib.define("f(Tensor x) -> Tensor")
opal.library.register_decomposition("mylib::f", lib=lib)(
    lambda x: opal.ops.aten.reshape(x, [x.shape[0] // 2, -1]) * 2)
print(json.dumps(opal.ops.mylib.f(opal.arange(4.0)).tolist()))
"""


@pytest.mark.parametrize("damage", ["pinned", "reached", "op", "entry"])
def test_a_damaged_static_shapes_only_index_is_refused_not_followed(tmp_path, damage):
    # The index file saying a call compiles for static shapes only, edited
    # and resealed with the cache's key: another definition pinned, a reached
    # op that does not exist, another op, or an entry where it names none.
    # Each next process computes the call right (and nothing crashes).
    from cache_seal import body, reseal
    first = run(STATIC_ONLY, cache_dir=tmp_path)
    assert first.returncode == 0, first.stderr
    want = json.loads(first.stdout)
    markers = [p for p in (tmp_path / "warm-v2").rglob("*")
               if p.is_file() and "static-shapes-only: yes" in p.read_text()]
    assert len(markers) == 1
    text = body(markers[0].read_text())
    pinned = "\npinned: " + text.split("\npinned: ")[1].split("\n")[0]
    edits = {"pinned": (pinned, "\npinned: mylib::f=" + "0" * 64),
             "reached": ("\nreached: ", "\nreached: nowhere::op mylib::f "),
             "op": ("\nop: mylib::f", "\nop: aten::exp"),
             "entry": ("static-shapes-only: yes", "static-shapes-only: no\nentry: " + "0" * 64)}
    old, new = edits[damage]
    assert old in text
    reseal(markers[0], "index", markers[0].name, text.replace(old, new), tmp_path)
    second = run(STATIC_ONLY, cache_dir=tmp_path, env={"OPAL_LOG": "cache"})
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == want == [[0.0, 2.0], [4.0, 6.0]]
    why = {"pinned": "mylib::f is defined otherwise now",
           "reached": "nowhere::op has a CPU kernel other than opal's built-in one now",
           "op": "it is malformed or names another call (removed)",
           "entry": "no kernel description (removed)"}[damage]
    assert why in second.stderr, second.stderr


# --- 10. A damaged shared library is refused, not crashed on ----------------

import struct  # noqa: E402

LIBRARY_SOURCE = r"""
#include <stdio.h>
int value = 42;
int *pointer = &value;
static int counter;
__attribute__((constructor)) static void start(void) { counter = 1; }
int answer(void) { return printf("%d", counter) + *pointer; }
"""


def elf_dynamic(data):
    """(offset of the dynamic section in the file, [(tag, value, offset)],
    [(vaddr, offset, filesz)] of the loadable segments) of a 64-bit ELF."""
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dynamic = p_offset
    entries, at = [], dynamic
    while True:
        tag, value = struct.unpack_from("<qQ", data, at)
        entries.append((tag, value, at))
        if tag == 0:
            return dynamic, entries, loads
        at += 16


def file_offset(loads, address):
    for vaddr, offset, size in loads:
        if vaddr <= address < vaddr + size:
            return offset + address - vaddr
    raise ValueError(address)


DT = {"NEEDED": 1, "HASH": 4, "STRTAB": 5, "SYMTAB": 6, "RELA": 7, "RELASZ": 8,
      "INIT_ARRAY": 25, "GNU_HASH": 0x6ffffef5, "JMPREL": 23}
WILD = 0x7ff0_0000_0000


def damaged(data, how):
    """`data` with one targeted edit."""
    data = bytearray(data)
    _, entries, loads = elf_dynamic(data)
    value = {tag: (v, at) for tag, v, at in entries}
    if how.startswith("DT_"):
        tag, new = how[3:].split("=")
        _, at = value[DT[tag]]
        struct.pack_into("<Q", data, at + 8, WILD if new == "wild" else int(new))
    elif how == "relocation target":
        rela = file_offset(loads, value[DT["RELA"]][0])
        struct.pack_into("<Q", data, rela, WILD)
    elif how == "symbol name":
        symtab = file_offset(loads, value[DT["SYMTAB"]][0])
        struct.pack_into("<I", data, symtab + 24 * 2, 0x7fff_ffff)
    elif how == "gnu hash buckets":
        gnu_hash = file_offset(loads, value[DT["GNU_HASH"]][0])
        struct.pack_into("<I", data, gnu_hash, 0x7fff_ffff)
    return bytes(data)


@pytest.fixture(scope="module")
def clean_library(tmp_path_factory):
    directory = tmp_path_factory.mktemp("damaged")
    source = directory / "lib.c"
    source.write_text(LIBRARY_SOURCE)
    path = directory / "libclean.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(path), str(source)], check=True)
    return path.read_bytes()


def load_in_own_process(path):
    result = run(f"""
        try:
            opal.ops.load_library({str(path)!r})
            print("loaded")
        except (RuntimeError, OSError) as error:
            print(error)
    """, timeout=120)
    assert result.returncode == 0, \
        f"the process died ({result.returncode}) loading {path}: {result.stderr[-1000:]}"
    return result.stdout.strip()


TARGETED = ["DT_STRTAB=wild", "DT_SYMTAB=wild", "DT_RELA=wild", "DT_RELASZ=1099511627776",
            "DT_NEEDED=4000000", "DT_INIT_ARRAY=wild", "DT_GNU_HASH=wild", "DT_JMPREL=wild",
            "relocation target", "symbol name", "gnu hash buckets"]


def test_the_clean_library_loads(clean_library, tmp_path):
    path = tmp_path / "libok.so"
    path.write_bytes(clean_library)
    assert load_in_own_process(path) == "loaded"


@pytest.mark.parametrize("how", TARGETED)
def test_a_damaged_dynamic_section_or_relocation_is_refused(clean_library, tmp_path, how):
    path = tmp_path / "libdamaged.so"
    path.write_bytes(damaged(clean_library, how))
    message = load_in_own_process(path)
    assert message.startswith("could not load op library"), message
    assert str(path) in message


def test_random_byte_flips_in_what_the_loader_reads_are_refused_or_load(clean_library, tmp_path):
    import random
    dynamic, entries, loads = elf_dynamic(clean_library)
    value = {tag: v for tag, v, _ in entries}
    # The dynamic section, the relocations' places and types, the symbol,
    # string and hash tables. Not the addends or symbol numbers: one that
    # stays valid for the loader (a GOT entry bound to another symbol) makes
    # the library's own initializers run wrong code, which no check before
    # dlopen sees.
    regions = [(dynamic, 16 * len(entries))]
    for tag, size in (("SYMTAB", 24 * 8), ("STRTAB", 64), ("GNU_HASH", 64)):
        if DT[tag] in value:
            regions.append((file_offset(loads, value[DT[tag]]), size))
    rela = file_offset(loads, value[DT["RELA"]])
    for entry in range(value[DT["RELASZ"]] // 24):
        regions.append((rela + 24 * entry, 12))
    rng = random.Random(52)
    outcomes = {"loaded": 0, "refused": 0}
    for case in range(60):
        data = bytearray(clean_library)
        start, size = rng.choice(regions)
        at = start + rng.randrange(max(size, 1))
        data[at] ^= 1 << rng.randrange(8)
        path = tmp_path / f"libflip{case}.so"
        path.write_bytes(bytes(data))
        message = load_in_own_process(path)
        outcomes["loaded" if message == "loaded" else "refused"] += 1
        if message != "loaded":
            assert message.startswith("could not load op library"), message
    assert outcomes["refused"] > 0


# --- 8. opal-opt refuses a second definition as the dispatcher does ----------

@pytest.mark.parametrize("case", ["twice in one file", "one file twice", "aten::relu",
                                  "prims::exp"])
def test_opal_opt_refuses_duplicate_definitions(case, tmp_path):
    defs = {"twice in one file": ('mylib', ['mylib::foo(Tensor x) -> Tensor'] * 2),
            "one file twice": ('mylib', ['mylib::foo(Tensor x) -> Tensor']),
            "aten::relu": ('aten', ['aten::relu(Tensor self) -> Tensor']),
            "prims::exp": ('prims', ['prims::exp(Tensor self) -> Tensor'])}
    ns, schemas = defs[case]
    path = tmp_path / "dup.opal.mlir"
    path.write_text(f'opal.library "{ns}" {{\n' +
                    "".join(f'  opal.def "{schema}"\n' for schema in schemas) + "}\n")
    libraries = [f"--op-library={path}"] * (2 if case == "one file twice" else 1)
    done = subprocess.run([os.path.join(BIN, "opal-opt"), *libraries, os.devnull],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, f"ended with {done.returncode}: {done.stderr[-500:]}"
    original = ("opal's built-in op library" if case in ("aten::relu", "prims::exp")
                else str(path))
    assert done.stderr.startswith(
        f"{path}: error: Tried to register an operator ({schemas[0]}) with the same name and "
        f"overload name multiple times. Each overload's schema should only be registered with "
        f"a single call to def(). Duplicate registration: {path}. Original registration: "
        f"{original}")


# --- 11. Zero-element tensors skip their loops --------------------------------

@pytest.mark.parametrize("call", ["x.sum()", "x.exp()", "x + 1", "x.softmax(-1)",
                                  "x.sum(0)", "A.mean(x)"])
def test_huge_empty_tensors_do_not_loop(call):
    result = run(f"""
        x = opal.empty(2**62, 0)
        y = {call}
        print(json.dumps([list(y.shape), y.numel() and y.tolist()]))
    """, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    shape, values = json.loads(result.stdout)
    assert shape in ([], [0], [2**62, 0])
    if shape == []:
        assert values == 0.0 or values != values  # sum 0, mean nan


def test_declaring_static_shapes_takes_only_a_name_and_changes_no_result(tmp_path):
    # _C._jit_declare_static_shapes (what the torch.compile backend calls for
    # graphs of static sizes) takes an op's name: anything else is a
    # TypeError; a name of no op is harmless; a real op declared static
    # compiles per shape and computes what it did.
    done = run("""
        from opal import _C
        errors = []
        for bad in (None, 3, ["aten::sin"]):
            try:
                _C._jit_declare_static_shapes(bad)
            except TypeError:
                errors.append("TypeError")
        _C._jit_declare_static_shapes("")
        _C._jit_declare_static_shapes("no such op ::\\x00")
        _C._jit_declare_static_shapes("aten::sin")
        values = []
        for n in (3, 5):
            x = opal.tensor([0.5 * i for i in range(n)])
            values.append([round(v, 6) for v in A.sin(x).tolist()])
        print(json.dumps([errors, values]))
    """, cache_dir=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    errors, values = json.loads(done.stdout.strip().splitlines()[-1])
    assert errors == ["TypeError"] * 3
    assert values == [[round(math.sin(0.5 * i), 6) for i in range(n)] for n in (3, 5)]


# A convolution's groups above 1 is a runtime value of its CPU kernel: bad
# group counts and meta tensors each in a process of their own, the checks
# made per call raising PyTorch's message, never a crash.
GROUPS_CASES = [
    ("A.convolution(opal.ones(2, 4, 5, 5), opal.ones(2, 1, 3, 3), None, [1], [0], [1], False, "
     "[0], 4)", "Given groups=4, expected weight to be at least 4 at dimension 0"),
    ("A.convolution(opal.empty([2, 4, 5, 5], device='meta'), opal.empty([2, 1, 3, 3], "
     "device='meta'), None, [1], [0], [1], False, [0], 4)",
     "Given groups=4, expected weight to be at least 4 at dimension 0"),
    ("A.convolution(opal.ones(1, 2, 3, 3), opal.ones(2, 1, 1, 1), None, [1], [0], [1], False, "
     "[0], 2**62)", "expected weight to be at least 4611686018427387904 at dimension 0"),
    ("A.convolution(opal.ones(2, 6, 5, 5), opal.ones(4, 1, 3, 3), None, [1], [0], [1], False, "
     "[0], 4)", "expected input[2, 6, 5, 5] to have 4 channels, but got 6 channels instead"),
]


@pytest.mark.parametrize("case", GROUPS_CASES, ids=range(len(GROUPS_CASES)))
def test_runtime_groups_raise_pytorchs_errors_in_their_own_process(case):
    expression, message = case
    kind, text = outcome(expression)
    assert kind == "RuntimeError" and message in text, (kind, text)
