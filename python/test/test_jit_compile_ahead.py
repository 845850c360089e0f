"""opal.jit.compile_ahead: the kernels of calls compiled before the calls,
several at once (the LLVM half of each compile on a thread of its own),
with the same kernels and results as compiling at the call; and the
torch.compile backend doing so for a graph it runs op by op."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opal

A = opal.ops.aten


def run_fresh(script, **env):
    environment = dict(os.environ, **env)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=environment,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


# (Each in a process of its own: what compiles is what no test compiled
# before in the process.)
PRELUDE = """
    import numpy as np
    import pytest
    import torch
    import opal
    A = opal.ops.aten
    rng = np.random.default_rng(5)
    def conv_call(k, stride, channels=6, size=9):
        x = opal.tensor(rng.standard_normal((1, channels, size, size)).astype(np.float32))
        w = opal.tensor(rng.standard_normal((channels + 2, channels, k, k)).astype(np.float32))
        b = opal.tensor(rng.standard_normal(channels + 2).astype(np.float32))
        return (A.convolution.default,
                (x, w, b, [stride, stride], [k // 2, k // 2], [1, 1], False, [0, 0], 1))
"""


def test_calls_compiled_ahead_run_without_compiling_and_agree_with_pytorch(tmp_path):
    # Distinct convolutions (one op, four keys: they compile in parallel
    # with the op's lock released) and an elementwise op, one call twice.
    run_fresh(PRELUDE + """
    calls = [conv_call(3, 1, 5), conv_call(3, 2, 5), conv_call(1, 1, 5), conv_call(5, 2, 5)]
    x = opal.tensor(rng.standard_normal((3, 7)).astype(np.float32))
    calls += [(A.softplus.default, (x, 2.0, 10.0)), (A.softplus.default, (x, 3.0, 10.0))]
    got = opal.jit.compile_ahead(calls, threads=2)
    assert got == ["compiled"] * 5 + ["in memory"], got
    opal.jit.reset_stats()
    for op, args in calls:
        got = op(*args).numpy()
        if op is A.softplus.default:
            want = torch.nn.functional.softplus(torch.from_numpy(x.numpy()), args[1], args[2])
        else:
            tx, tw, tb = (torch.from_numpy(t.numpy()) for t in args[:3])
            want = torch.nn.functional.conv2d(tx, tw, tb, args[3], args[4])
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)
    stats = opal.jit.stats()
    assert (stats["compiles"], stats["misses"], stats["hits"]) == (0, 0, 6), stats
    assert opal.jit.compile_ahead(calls) == ["in memory"] * 6
    """, OPAL_CACHE_DIR=str(tmp_path / "cache"))


def test_what_compiles_nothing_says_why(tmp_path):
    run_fresh(PRELUDE + """
    x = opal.tensor(rng.standard_normal((2, 3)).astype(np.float32))
    leaf = opal.tensor(rng.standard_normal((2, 3)).astype(np.float32), requires_grad=True)
    results = opal.jit.compile_ahead([
        (A.view.default, (x, [3, 2])),                  # a native kernel
        (A.sinh.default, (leaf,)),                      # records autograd: op by op
        (A.mul.Tensor, (x, "two")),                     # arguments that do not parse
        (A.cumsum.default, (x, 5)),                     # the call's own error
        (A.cosh.default, (x,), {}),
    ])
    assert results[:2] == ["no kernel", "no kernel"], results
    assert results[2] == ("failed: aten::mul.Tensor() argument 'other' (position 2) must be "
                          "Tensor, not str"), results
    message = ("aten::cumsum: Dimension out of range (expected to be in range of [-2, 1], but "
               "got 5)")
    assert results[3] == "failed: " + message, results
    assert results[4] == "compiled", results
    with pytest.raises(RuntimeError) as raised:
        A.cumsum.default(x, 5)
    assert str(raised.value) == message
    """, OPAL_CACHE_DIR=str(tmp_path / "cache"))


# Hostile calls, each in a process of its own: a clean result or error,
# never a crash. (Meta tensors compile the kernel a meta call computes
# shapes with: the CPU's; sizes that do not broadcast compile, and the call
# raises its shape check's error.)
HOSTILE = [
    ("[(A.convolution.default, (opal.empty(1, 3, 8, 8, device='meta'), "
     "opal.empty(4, 3, 3, 3, device='meta'), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1))]",
     "['compiled']"),
    ("[(A.cosh.default, (torch.randn(2, 2),))]",
     "[\"failed: aten::cosh() argument 'self' (position 1) must be Tensor, not torch.Tensor "
     "(convert it with opal.from_dlpack(x), which shares its memory)\"]"),
    ("[(A.cosh.default, (None,))]",
     "[\"failed: aten::cosh() argument 'self' (position 1) must be Tensor, not NoneType\"]"),
    ("[(A.add.Tensor, (opal.ones(2), opal.ones(3)))]", "['compiled']"),
    ("iter([])", "[]"),
    ("[(A.cosh.default, (opal.ones(2),), {'bogus': 1})]",
     "[\"failed: aten::cosh() got an unexpected keyword argument 'bogus'\"]"),
]


@pytest.mark.parametrize("calls,printed", HOSTILE, ids=[c[0][:40] for c in HOSTILE])
def test_hostile_calls_get_a_clean_answer_in_their_own_process(calls, printed, tmp_path):
    result = run_fresh(f"""
        import torch
        import opal
        A = opal.ops.aten
        print(opal.jit.compile_ahead({calls}))
    """, OPAL_CACHE_DIR=str(tmp_path / "cache"))
    assert result.stdout.strip() == printed


@pytest.mark.parametrize("calls,error", [
    ([(A.cosh,)], TypeError),
    ([(A.cosh, ())], TypeError),
    (["cosh"], TypeError),
])
def test_malformed_calls_are_refused(calls, error):
    with pytest.raises(error, match=r"compile_ahead\(\): "):
        opal.jit.compile_ahead(calls)


@pytest.mark.parametrize("threads", [0, 65, 1.5, "2"])
def test_a_thread_count_out_of_range_is_refused(threads):
    with pytest.raises(ValueError, match=r"compile_ahead\(\): threads must be an int from 1 "
                                         r"to 64, got "):
        opal.jit.compile_ahead([], threads=threads)


def test_callers_of_one_key_wait_for_its_single_compile():
    # Threads calling the same new key while others compile other keys of
    # the same op: one compile per key, every result right.
    run_fresh("""
        import threading
        import numpy as np
        import opal
        A = opal.ops.aten
        x = opal.tensor(np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4))
        shapes = [(24,), (4, 6), (2, 12), (3, 8)]
        results, errors = {}, []
        def call(i):
            try:
                shape = shapes[i % len(shapes)]
                results[i] = A.sum.dim_IntList(A.reshape.default(x, list(shape)), [0]).numpy()
            except Exception as e:
                errors.append(e)
        threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
        for t in threads: t.start()
        for t in threads: t.join()
        assert not errors, errors
        for i, got in results.items():
            want = x.numpy().reshape(shapes[i % len(shapes)]).sum(0)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)
        stats = opal.jit.stats()
        assert stats["compiles"] <= 2 * len(shapes), stats
    """)


def test_opal_compile_threads_sets_the_default():
    result = run_fresh("""
        import opal
        A = opal.ops.aten
        x = opal.ones(2, 2)
        print(opal.jit.compile_ahead([(A.tanh.default, (x,)), (A.erf.default, (x,))]))
    """, OPAL_COMPILE_THREADS="1", OPAL_CACHE_DISABLE="1")
    assert result.stdout.strip() == "['compiled', 'compiled']"
    assert result.stderr == ""


def test_a_graph_run_op_by_op_compiles_its_kernels_before_its_first_run(tmp_path):
    # A CNN in eval mode runs op by op (batch norm's native kernel): its
    # convolutions (folded batch norms included), its pool (max_pool2d, the
    # indices unread) and its head (linear, from addmm of the weight's
    # transpose) compile ahead, so the first run compiles nothing, and
    # agrees with eager.
    result = run_fresh("""
        import json
        import torch
        import opal, opal.torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
                self.na = torch.nn.BatchNorm2d(8)
                self.b = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
                self.nb = torch.nn.BatchNorm2d(8)
                self.c = torch.nn.Conv2d(8, 4, 1)
                self.head = torch.nn.Linear(36, 5)
            def forward(self, x):
                y = torch.relu(self.na(self.a(x)))
                y = torch.nn.functional.max_pool2d(y, 2)
                y = torch.relu(self.nb(self.b(y)))
                return self.head(self.c(y).sigmoid().flatten(1))
        m = Net().eval()
        x = torch.randn(2, 3, 12, 12)
        f = torch.compile(m, backend="opal")
        with torch.no_grad():
            error = (f(x) - m(x)).abs().max().item()
        print(json.dumps(error))
    """, OPAL_LOG="torch,jit", OPAL_CACHE_DIR=str(tmp_path / "cache"))
    assert float(result.stdout) < 1e-5
    log = result.stderr.splitlines()
    ahead = [i for i, line in enumerate(log) if "kernels ahead of the first run" in line]
    assert len(ahead) == 1, log
    assert "compiled 7 kernels ahead" in log[ahead[0]], log[ahead[0]]
    assert "0 left to fail at the run" in log[ahead[0]], log[ahead[0]]
    later = [line for line in log[ahead[0]:] if "[opal:jit] compiled " in line]
    assert later == [], later



def test_a_fused_graph_compiles_its_kernel_while_dynamo_finishes(tmp_path):
    # A graph fused into one kernel starts its compile on a thread of its
    # own when the backend has made its op, for the example inputs' sizes
    # and strides (a transposed input's kernel reads it strided); the first
    # call waits for it and compiles nothing more. Three graphs (Dynamo
    # recompiles for the contiguous input and for the second shape): three
    # kernels, each compiled ahead, and results that agree with eager.
    result = run_fresh("""
        import json
        import torch
        import opal, opal.torch
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                                torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)).eval()
        f = torch.compile(m, backend="opal", dynamic=False)
        errors = []
        with torch.no_grad():
            for x in (torch.randn(16, 4).t(), torch.randn(4, 16), torch.randn(6, 16)):
                errors.append((f(x) - m(x)).abs().max().item())
        print(json.dumps([errors, opal.jit.stats()["compiles"]]))
    """, OPAL_LOG="torch,jit", OPAL_CACHE_DIR=str(tmp_path / "cache"))
    errors, compiles = json.loads(result.stdout)
    assert max(errors) < 1e-5, errors
    log = result.stderr.splitlines()
    ahead = [line for line in log if "ahead of the first call" in line]
    assert [line.split("] ")[1].split(":")[0] for line in ahead] == \
        [f"torch.compile graph {i}" for i in range(3)], log
    assert all("kernel compiled ahead of the first call in" in line for line in ahead), log
    compiled = [line for line in log if "[opal:jit] compiled torchgraph::" in line]
    assert len(compiled) == 3 and compiles == 3, (compiled, compiles)
    assert "float32[4,16] strided" in compiled[0], compiled[0]
    assert "float32[6,16]" in compiled[2], compiled[2]

SPLIT_GRAPH = """
    import json
    import torch
    import opal, opal.torch
    torch.manual_seed(0)
    layers = []
    for a, b in [(32, 48), (48, 64), (64, 80), (80, 96)]:
        layers += [torch.nn.Linear(a, b),
                   torch.nn.TransformerEncoderLayer(b, 4, 2 * b, batch_first=True)]
    m = torch.nn.Sequential(*layers).eval()
    x = torch.randn(2, 10, 32)
    f = torch.compile(m, backend="opal")
    with torch.no_grad():
        got, want = f(x), m(x)
    print(json.dumps([(got - want).abs().max().item(), got.flatten()[:64].tolist()]))
"""


def test_a_large_kernel_compiles_in_modules_on_several_threads(tmp_path):
    # Four transformer layers of different widths fused into one kernel:
    # its nests split into two modules, compiled on two threads and loaded
    # as one group (from the disk cache too, without the compiler), with
    # the results of the kernel compiled whole.
    def run(threads, cache):
        result = run_fresh(SPLIT_GRAPH, OPAL_LOG="jit", OPAL_COMPILE_THREADS=threads,
                           OPAL_CACHE_DIR=str(tmp_path / cache))
        lines = [line for line in result.stderr.splitlines() if "torchgraph::" in line]
        return json.loads(result.stdout), lines

    (error, split), log = run("2", "two")
    assert error < 1e-4
    assert len(log) == 1 and "in 2 modules on as many threads" in log[0], log
    (_, warm), log = run("2", "two")
    assert warm == split
    assert len(log) == 1 and "from disk without the compiler" in log[0], log
    (_, whole), log = run("1", "one")
    assert "modules" not in log[0], log
    np.testing.assert_allclose(whole, split, rtol=1e-5, atol=1e-6)
