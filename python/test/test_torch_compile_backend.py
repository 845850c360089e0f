"""torch.compile(model, backend="opal") on PyTorch 2: Dynamo's graphs,
functionalized by AOTAutograd, run as opal's kernels; results, gradients and
input mutations as eager's. Each case runs in its own process (Dynamo's
caches and opal's registrations start empty), with OPAL_LOG=torch to see
which graphs opal compiled."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not hasattr(torch, "compile"):
    pytest.skip("PyTorch 1.x has no torch.compile", allow_module_level=True)

PRELUDE = """
import json, sys
import torch
import opal
torch.manual_seed(0)
"""


def run_logged(code, environment=None, log="torch,jit"):
    """(the JSON the case prints last, its stderr) with OPAL_LOG=`log`."""
    environment = dict(os.environ, OPAL_LOG=log, **(environment or {}))
    done = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=600, env=environment)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def run(code, environment=None):
    """(the JSON the case prints last, its OPAL_LOG=torch lines)."""
    result, stderr = run_logged(code, environment, log="torch")
    return result, [line for line in stderr.splitlines() if line.startswith("[opal:torch]")]


def test_the_backend_is_found_by_name_and_runs_a_model_in_one_kernel():
    result, log = run("""
        m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(inplace=True),
                                torch.nn.Linear(16, 4), torch.nn.Softmax(-1)).eval()
        x = torch.randn(3, 8)
        with torch.no_grad():
            got, want = torch.compile(m, backend="opal")(x), m(x)
        print(json.dumps([(got - want).abs().max().item(), opal.jit.stats()["torch_traces"]]))
    """)
    error, traces = result
    assert error < 1e-6
    assert traces == 1
    assert any("into torchgraph::" in line for line in log), log


def test_the_backend_function_spelling():
    result, _ = run("""
        import opal.torch
        f = torch.compile(lambda a, b: (a * b).tanh() + a, backend=opal.torch.backend)
        a, b = torch.randn(4, 5), torch.randn(4, 5)
        print(json.dumps((f(a, b) - ((a * b).tanh() + a)).abs().max().item()))
    """)
    assert result < 1e-6


def test_a_write_into_an_input_is_kept_as_eager_keeps_it():
    result, log = run("""
        def f(a):
            a.add_(1)
            return a.sin()
        a = torch.ones(2, 3)
        out = torch.compile(f, backend="opal")(a)
        print(json.dumps([a.tolist(), (out - torch.full((2, 3), 2.0).sin()).abs().max().item()]))
    """)
    mutated, error = result
    assert mutated == [[2.0] * 3] * 2
    assert error < 1e-6
    assert any("into torchgraph::" in line for line in log), log


def test_cat_and_stack_compile_as_writes_into_their_result():
    result, log = run("""
        def f(a, b, c, e):
            return (torch.cat([a.sin(), b, c.to(torch.float64)], 1) * 2,
                    torch.stack([a, a + 1], 0).sum(0), torch.cat([a, e], 0),
                    torch.stack([b, b], -1))
        args = torch.randn(2, 3), torch.randn(2, 1), torch.arange(4).reshape(2, 2), torch.empty(0)
        got, want = torch.compile(f, backend="opal")(*args), f(*args)
        print(json.dumps([[(g - w).abs().max().item(), str(g.dtype) == str(w.dtype),
                           g.shape == w.shape] for g, w in zip(got, want)]))
    """)
    assert all(error < 1e-6 and same_dtype and same_shape
               for error, same_dtype, same_shape in result), result
    assert not any("runs in PyTorch" in line for line in log), log


def test_indexing_by_integer_tensors_compiles_in_the_graph():
    # index.Tensor (a list of optional tensors) as index_select along its
    # dim: one index (any shape, negative values, int32, sizes known per
    # call) or several on adjacent dims, each checked against its own dim.
    result, log = run("""
        cases = [lambda a, i: a.sin()[i] * 2, lambda a, i: a[:, i.view(2, 2) % 5],
                 lambda a, i: a[-i - 1], lambda a, i: a[:, i.to(torch.int32)],
                 lambda a, i: a[i, i + 1] + 1]
        a, i = torch.randn(4, 5, 3), torch.tensor([2, 0, -1, 1])
        errors = [(torch.compile(f, backend="opal")(a, i) - f(a, i)).abs().max().item()
                  for f in cases]
        dynamic = torch.compile(lambda a, i: a[:, i] * 2, backend="opal")
        for n in (3, 5, 7):
            a, i = torch.randn(2, n + 1), torch.randint(-n, n, (n,))
            errors.append((dynamic(a, i) - a[:, i] * 2).abs().max().item())
        words = []
        for f in (lambda a, i: a[i] + 1, lambda a, i: a[i, i] + 1):
            try:
                torch.compile(f, backend="opal")(torch.randn(4, 4), torch.tensor([0, 4]))
            except Exception as error:
                words.append(str(error))
        print(json.dumps([max(errors), words]))
    """)
    error, words = result
    assert error < 1e-6
    assert words == ["index out of range in self"] * 2
    assert not any("runs in PyTorch" in line for line in log), log


def test_writes_by_index_tensors_compile_in_the_graph():
    # index_put (x[i] = v, x[i] += v, x[mask] = 0.5, functionalized) as a
    # scatter along the first indexed dim, or a where for a mask and one
    # value; values broadcast, negative indices, several index tensors.
    result, log = run("""
        def put(a, i, v):
            b = a.sin()
            b[i] = v
            return b * 2
        def add(a, i, v):
            b = a.clone()
            b.index_put_((i,), v, accumulate=True)
            return b
        def two(a, i, v):
            b = a.clone()
            b[i, i.flip(0)] = v[:, 0, :]
            return b
        def masked(a, i, v):
            b = a.clone()
            b[:, a[0] > 0] = 0.5
            return b + 1
        a, i, v = torch.randn(4, 3, 2), torch.tensor([2, 0, -1]), torch.randn(3, 3, 2)
        errors = [(torch.compile(f, backend="opal")(a, i, v) - f(a, i, v)).abs().max().item()
                  for f in (put, add, two, masked)]
        dup = torch.tensor([1, 1, 3])
        errors.append((torch.compile(add, backend="opal")(a, dup, v) - add(a, dup, v)).abs()
                      .max().item())
        print(json.dumps(errors))
    """)
    assert max(result) < 1e-6, result
    assert not any("in PyTorch" in line for line in log), log


def test_an_op_taking_a_list_of_tensors_splits_the_graph_around_it():
    result, log = run("""
        def f(a, i, j):
            return a.sin()[i, :, j] * 2
        a, i, j = torch.randn(4, 3, 5), torch.tensor([2, 0]), torch.tensor([1, 4])
        got = torch.compile(f, backend="opal")(a, i, j)
        print(json.dumps((got - f(a, i, j)).abs().max().item()))
    """)
    assert result < 1e-6
    assert any("aten.index.Tensor with index tensors apart (None between them): it runs in "
               "PyTorch" in line for line in log), log
    assert any("compiled by opal" in line for line in log), log


def test_gradients_through_the_backend_match_eager():
    result, log = run("""
        m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
        x = torch.randn(5, 8)
        torch.compile(m, backend="opal")(x).sum().backward()
        compiled = [p.grad.clone() for p in m.parameters()]
        for p in m.parameters():
            p.grad = None
        m(x).sum().backward()
        print(json.dumps(max((c - p.grad).abs().max().item()
                             for c, p in zip(compiled, m.parameters()))))
    """)
    assert result < 1e-5
    # The forward graph and the backward one (whose gradient for x, which
    # needs none, is None) both compile.
    assert sum("into torchgraph::" in line for line in log) == 2, log
    assert not any("runs in PyTorch" in line or "in PyTorch:" in line for line in log), log


def test_symbolic_sizes_compile_once_for_every_shape():
    """Dynamo's dynamic shapes reach opal as sizes known per call: a GPT-style
    block called on 12 (batch, length) shapes compiles one kernel per graph
    Dynamo traces: one with dynamic=True; three by default (its static first
    graph, then one dynamic in the length, then in both), of which the last
    is the same graph as dynamic=True's: the same op (graph ops are named by
    what they compute), whose kernel is already compiled."""
    result, log = run("""
        import opal.jit

        class Block(torch.nn.Module):
            def __init__(self, d=32, heads=4):
                super().__init__()
                self.heads = heads
                self.norm1 = torch.nn.LayerNorm(d)
                self.qkv = torch.nn.Linear(d, 3 * d)
                self.proj = torch.nn.Linear(d, d)
                self.norm2 = torch.nn.LayerNorm(d)
                self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                                               torch.nn.Linear(4 * d, d))

            def forward(self, x):
                b, t, d = x.shape
                q, k, v = self.qkv(self.norm1(x)).split(d, dim=2)
                q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                           for y in (q, k, v))
                att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
                att = att.softmax(-1)
                y = (att @ v).transpose(1, 2).reshape(b, t, d)
                x = x + self.proj(y)
                return x + self.mlp(self.norm2(x))

        m = Block().eval()
        shapes = [(b, t) for b in (2, 3, 4) for t in (5, 7, 9, 16)]
        counts = []
        for dynamic in (True, None):
            torch._dynamo.reset()
            f = torch.compile(m, backend="opal", dynamic=dynamic)
            errors = []
            before = opal.jit.stats()
            with torch.no_grad():
                for b, t in shapes:
                    x = torch.randn(b, t, 32)
                    errors.append((f(x) - m(x)).abs().max().item())
            after = opal.jit.stats()
            counts.append([max(errors), after["torch_traces"] - before["torch_traces"],
                           after["compiles"] + after["disk_hits"] - before["compiles"] -
                           before["disk_hits"]])
        print(json.dumps(counts))
    """)
    (dynamic_error, dynamic_traces, dynamic_compiles), (error, traces, compiles) = result
    assert error < 1e-4 and dynamic_error < 1e-4
    assert dynamic_traces == 1 and dynamic_compiles == 1, (dynamic_traces, dynamic_compiles, log)
    assert traces == 3 and compiles == 2, (traces, compiles, log)
    ops = [line.split("into ")[1].split(" ")[0] for line in log if "into torchgraph" in line]
    assert len(ops) == 4 and ops[3] == ops[0] and len(set(ops)) == 3, ops
    assert not any("in PyTorch" in line for line in log), log


def test_the_example_compiles_a_small_cnn_and_resnet18_whole():
    """examples/torch_compile_backend.py: each model one opal op, no piece
    left to PyTorch (batch norm in eval mode, in-place ReLU and `+=`)."""
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                           "torch_compile_backend.py")
    done = subprocess.run([sys.executable, example], capture_output=True, text=True,
                          timeout=900, env=dict(os.environ, OPAL_LOG="torch"))
    assert done.returncode == 0, done.stderr[-4000:]
    assert "small CNN: max |opal - eager|" in done.stdout and "DIFFERS" not in done.stdout
    assert "resnet18: max |opal - eager|" in done.stdout
    assert "graphs compiled by opal's backend: 2" in done.stdout
    assert "runs in PyTorch" not in done.stderr, done.stderr


REGISTERED = """
import opal.torch
opal.library.define("mylib::sq", "(Tensor x) -> Tensor")
@opal.library.register_decomposition("mylib::sq")
def sq(x):
    return x * x
opal.torch.register("mylib")
"""


def test_a_registered_op_on_fake_tensors_runs_its_fake_kernel_not_its_kernel():
    # Its compiled kernel once ran on a fake tensor's memory: a segfault.
    result, _ = run(REGISTERED + textwrap.dedent("""
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.proxy_tensor import make_fx
        with FakeTensorMode():
            y = torch.ops.mylib.sq(torch.empty(3, 4))
        graph = make_fx(lambda a: torch.ops.mylib.sq(a) + 1, tracing_mode="fake")(torch.ones(2))
        meta = torch.ops.mylib.sq(torch.empty(2, 5, device="meta"))
        print(json.dumps([type(y).__name__, list(y.shape), str(y.dtype),
                          "torch.ops.mylib.sq.default" in graph.code,
                          [list(meta.shape), meta.device.type]]))
    """))
    assert result == ["FakeTensor", [3, 4], "torch.float32", True, [[2, 5], "meta"]]


def test_a_registered_op_fuses_into_a_compiled_graph():
    result, log = run(REGISTERED + textwrap.dedent("""
        f = torch.compile(lambda a: torch.ops.mylib.sq(a).sin(), backend="opal")
        x = torch.randn(5)
        print(json.dumps((f(x) - (x * x).sin()).abs().max().item()))
    """))
    assert result < 1e-6
    assert any("into torchgraph::" in line and "(2 aten calls)" in line for line in log), log
    assert not any("runs in PyTorch" in line for line in log), log


def test_a_registered_op_exports_with_torch_export():
    # Its fake kernel answers export's tracing; the exported program calls
    # the op, which runs opal's kernel.
    result, _ = run(REGISTERED + textwrap.dedent("""
        class M(torch.nn.Module):
            def forward(self, x):
                return torch.ops.mylib.sq(x).sin() + 1
        x = torch.randn(3, 4)
        program = torch.export.export(M(), (x,))
        error = (program.module()(x) - ((x * x).sin() + 1)).abs().max().item()
        print(json.dumps(["torch.ops.mylib.sq.default" in str(program.graph), error]))
    """))
    assert result[0] is True and result[1] < 1e-6


def test_train_and_eval_after_compiling_switch_as_in_eager():
    result, _ = run("""
        m = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
        c = torch.compile(m, backend="opal")
        x = torch.ones(64, 4)
        m.eval()
        eval_error = (c(x) - m(x)).abs().max().item()
        m.train()
        dropped = (c(x) == 0).float().mean().item()  # dropout on again
        m.eval()
        again = (c(x) - m(x)).abs().max().item()
        print(json.dumps([eval_error, dropped, again]))
    """)
    eval_error, dropped, again = result
    assert eval_error < 1e-6 and again < 1e-6
    assert 0.3 < dropped < 0.7


def test_a_graph_run_op_by_op_reads_linear_weights_in_place():
    # A graph with batch norm in eval mode runs op by op; AOTAutograd spells
    # a Linear layer as addmm (or mm) of the weight's transpose, which opal
    # runs as linear, reading the weight in place instead of copying its
    # transpose at every call (OPAL_LOG=jit: the kernels it gets). A
    # product of a matrix that is no transpose stays mm. Results as eager's.
    result, stderr = run_logged("""
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3)
                self.bn = torch.nn.BatchNorm2d(8)
                self.fc = torch.nn.Linear(8 * 6 * 6, 10)
                self.head = torch.nn.Linear(10, 5, bias=False)
                self.mix = torch.nn.Parameter(torch.randn(5, 3))
            def forward(self, x):
                y = self.bn(self.conv(x)).flatten(1)
                return self.head(self.fc(y)) @ self.mix
        m = Net().eval()
        x = torch.randn(2, 3, 8, 8)
        with torch.no_grad():
            got, want = torch.compile(m, backend="opal")(x), m(x)
        print(json.dumps((got - want).abs().max().item()))
    """)
    assert result < 1e-5
    # (Compiled now, or loaded from a kernel cache that has them.)
    compiled = [line.split(" for CPU")[0] for line in stderr.splitlines()
                if line.startswith(("[opal:jit] compiled aten::", "[opal:jit] loaded aten::"))]
    assert any("op by op" in line for line in stderr.splitlines()), stderr[-2000:]
    assert sum("aten::linear(" in line for line in compiled) == 2, compiled
    assert not any("aten::addmm(" in line for line in compiled), compiled
    assert sum("aten::mm(" in line for line in compiled) == 1, compiled


def test_an_op_by_op_graph_pools_without_indices_and_sees_its_parameters_change():
    # An eval CNN (batch norm: run op by op) pools with max_pool2d where no
    # node reads the indices (OPAL_LOG=jit: no max_pool2d_with_indices
    # kernel). Its parameters are converted once and kept while they stay
    # the same tensors: a weight changed in place, a weight given new memory
    # (`.data =`) and a buffer changed are all seen at the next call; an
    # output that is a view of the input stays one, as in eager.
    errors, stderr = run_logged("""
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.bn = torch.nn.BatchNorm2d(8)
                self.pool = torch.nn.MaxPool2d(3, 2, 1)
            def forward(self, x):
                return self.pool(torch.relu(self.bn(self.conv(x)))), x.view(-1)
        m = Net().eval()
        x = torch.randn(2, 3, 9, 9)
        c = torch.compile(m, backend="opal")
        errors = []
        def check():
            with torch.no_grad():
                got, want = c(x), m(x)
            errors.append((got[0] - want[0]).abs().max().item())
            errors.append(got[1].data_ptr() == x.data_ptr() and
                          bool(torch.equal(got[1], want[1])))
        check(); check()
        with torch.no_grad():
            m.conv.weight.mul_(2)
        check()
        m.conv.weight.data = torch.randn(8, 3, 3, 3)
        check()
        m.bn.running_var.fill_(4.0)
        check()
        print(json.dumps(errors))
    """)
    assert all(e < 1e-5 for e in errors[0::2]), errors
    assert all(e is True for e in errors[1::2]), errors
    kernels = [line for line in stderr.splitlines()
               if line.startswith(("[opal:jit] compiled aten::", "[opal:jit] loaded aten::"))]
    assert any("aten::max_pool2d(" in line for line in kernels), kernels
    assert not any("aten::max_pool2d_with_indices(" in line for line in kernels), kernels


def test_an_op_by_op_graph_runs_on_inference_tensors():
    # Under torch.inference_mode the input has no version counter: it is
    # converted at every call (the parameters are still kept); results as
    # eager's, call after call.
    result, _ = run("""
        m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                                torch.nn.ReLU()).eval()
        c = torch.compile(m, backend="opal")
        errors = []
        with torch.inference_mode():
            for _ in range(3):
                x = torch.randn(1, 3, 8, 8)
                errors.append((c(x) - m(x)).abs().max().item())
            x.mul_(2)  # (changed in place: no version to tell)
            errors.append((c(x) - m(x)).abs().max().item())
        print(json.dumps(errors))
    """)
    assert all(e < 1e-5 for e in result), result


def test_an_op_by_op_graph_is_one_straight_line_function():
    # A graph run op by op becomes the source of one Python function: its
    # inputs as parameters, a statement a node (getitem as indexing, an op
    # with its packet to fall back on), values dropped after their last
    # use; it computes what eager does.
    result, _ = run("""
        from torch.fx.experimental.proxy_tensor import make_fx
        import opal.torch as ot
        bn = torch.nn.BatchNorm1d(4).eval()
        bn.running_mean.uniform_(); bn.running_var.uniform_(1, 2)
        def f(x, w, b, mean, var):
            y = torch.nn.functional.batch_norm(x * 2, mean, var, w, b, False)
            return torch.relu(y).sum(1), y.max(1).values
        args = (torch.randn(3, 4), bn.weight.detach(), bn.bias.detach(), bn.running_mean,
                bn.running_var)
        graph = make_fx(f, tracing_mode="fake")(*args)
        body, layout, constants, passed = ot._GraphCompiler("t")._to_opal_op(graph)
        source = body._opal_source
        got = body(*[ot.from_torch(a) for a in args])
        want = f(*args)
        print(json.dumps([source.splitlines()[0], "del " in source,
                          "except TypeError:" in source, "for " in source,
                          max((ot.to_torch(g) - w).abs().max().item()
                              for g, w in zip(got, want))]))
    """)
    assert result[0] == "def body(a0, a1, a2, a3, a4):", result
    assert result[1:4] == [True, True, False], result
    assert result[4] < 1e-6, result


def test_batch_norm_buffers_move_as_in_eager():
    result, _ = run("""
        bn, ref = torch.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
        c = torch.compile(bn, backend="opal")
        x = torch.randn(5, 3)
        out, want = c(x), ref(x)
        print(json.dumps([bn.num_batches_tracked.item(),
                          (bn.running_mean - ref.running_mean).abs().max().item(),
                          (bn.running_var - ref.running_var).abs().max().item(),
                          (out - want).abs().max().item()]))
    """)
    tracked, mean_error, var_error, error = result
    assert tracked == 1
    assert max(mean_error, var_error, error) < 1e-6


def test_batch_norm_in_training_compiles_in_the_graph_with_its_statistics():
    # AOTAutograd's functional batch norm (running statistics as results,
    # copied into the buffers) and the one without running statistics are
    # computed in the graph's kernel: no piece is left to PyTorch.
    result, log = run("""
        import copy
        m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                                torch.nn.ReLU(), torch.nn.BatchNorm2d(4, momentum=0.3),
                                torch.nn.BatchNorm2d(4, track_running_stats=False))
        ref = copy.deepcopy(m)
        c = torch.compile(m, backend="opal")
        errors = []
        for step in range(3):
            x = torch.randn(2, 3, 6, 6)
            out, want = c(x), ref(x)
            errors.append(max((out - want).abs().max().item(),
                              *[(a - b).abs().max().item() for a, b in
                                zip(m.state_dict().values(), ref.state_dict().values())]))
        print(json.dumps([max(errors), m[1].num_batches_tracked.item(),
                          m[3].num_batches_tracked.item()]))
    """)
    error, tracked, tracked_other = result
    assert error < 1e-5
    assert tracked == 3 and tracked_other == 3
    assert any("into torchgraph::" in line for line in log), log
    assert not any("runs in PyTorch" in line or "split into" in line for line in log), log


def test_a_warm_start_loads_no_compiler(tmp_path):
    # In a second process with the kernels on disk: a CNN in eval mode,
    # which runs op by op (batch norm's native kernel), and an MLP with an
    # attention-like softmax, one fused kernel (its graph op named by what
    # it computes, pinned in the warm-start index by its traced text):
    # nothing compiles and opal's compiler library is never loaded.
    code = """
        cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                                  torch.nn.ReLU(inplace=True), torch.nn.AdaptiveAvgPool2d(1),
                                  torch.nn.Flatten(), torch.nn.Linear(4, 2)).eval()
        mlp = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                  torch.nn.Linear(16, 8), torch.nn.Softmax(-1)).eval()
        errors = []
        with torch.no_grad():
            for m, x in ((cnn, torch.randn(2, 3, 8, 8)), (mlp, torch.randn(5, 8))):
                errors.append((torch.compile(m, backend="opal")(x) - m(x)).abs().max().item())
        stats = opal.jit.stats()
        with open("/proc/self/maps") as maps:
            loaded = "libopal_compiler" in maps.read()
        print(json.dumps([max(errors), stats["compiles"], stats["disk_hits"], loaded]))
    """
    cache = {"OPAL_CACHE_DIR": str(tmp_path)}
    (cold_error, cold_compiles, _, _), cold_log = run(code, cache)
    (error, compiles, disk_hits, loaded), log = run(code, cache)
    assert cold_error < 1e-5 and error < 1e-5
    assert cold_compiles > 0
    assert compiles == 0 and disk_hits == cold_compiles and not loaded
    assert any("op by op in opal" in line for line in log), log
    fused = [line for line in log if "into torchgraph::g" in line]
    assert len(fused) == 1 and fused == [line for line in cold_log if "into torchgraph" in line]


def test_recurrent_attention_and_encoder_modules_compile():
    # The recurrent layers (Dynamo traces them with allow_rnn) as their
    # steps' products and gates; the fused fast paths of
    # nn.MultiheadAttention and nn.TransformerEncoderLayer (eval, no grad),
    # which PyTorch has no decomposition of, by opal's; and
    # scaled_dot_product_attention, causal or masked. Every graph in opal.
    result, log = run("""
        torch._dynamo.config.allow_rnn = True
        F = torch.nn.functional
        x, tokens, heads = torch.randn(3, 5, 8), torch.randn(2, 5, 16), torch.randn(2, 4, 5, 8)
        mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)
        mask = torch.ones(5, 5, dtype=torch.bool).tril()
        cases = [
            (torch.nn.LSTM(8, 16, num_layers=2, batch_first=True), (x,)),
            (torch.nn.GRU(8, 16, batch_first=True, bidirectional=True), (x,)),
            (torch.nn.RNN(8, 16, nonlinearity="relu"), (x,)),
            (lambda a: mha(a, a, a, need_weights=False)[0], (tokens,)),
            (torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), (tokens,)),
            (torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, norm_first=True,
                                              activation="gelu"), (tokens,)),
            (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
             (heads, heads * 2, heads)),
            (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
             (heads, heads, heads * 3)),
        ]
        errors = []
        for m, args in cases:
            if isinstance(m, torch.nn.Module):
                m.eval()
            with torch.no_grad():
                want = torch.utils._pytree.tree_leaves(m(*args))
                got = torch.utils._pytree.tree_leaves(torch.compile(m, backend="opal")(*args))
            errors.append(max((g - w).abs().max().item() for g, w in zip(got, want)))
        print(json.dumps(errors))
    """)
    assert max(result) < 1e-5, result
    assert sum("into torchgraph::" in line for line in log) == 8, log
    assert not any("in PyTorch" in line for line in log), log


def test_returned_inputs_and_views_alias_as_in_eager():
    result, _ = run("""
        def f(a):
            v = a.view(-1)
            return a, v, v, a * 2
        a = torch.randn(2, 2)
        r = torch.compile(f, backend="opal")(a)
        print(json.dumps([r[0] is a, r[1]._base is a, r[1] is r[2],
                          r[1].data_ptr() == a.data_ptr(), (r[3] - a * 2).abs().max().item()]))
    """)
    assert result == [True, True, True, True, 0.0]


def test_a_training_forward_saves_its_inputs_without_copying_them():
    # AOTAutograd's forward returns the inputs its backward reads (a
    # layer's input, a convolution's weight) as outputs: they come back as
    # the inputs themselves, not copies the kernel wrote (resnet18's
    # forward copied its 45 MB of weights per step).
    result, log = run("""
        m = torch.nn.Linear(8, 4)
        x = torch.randn(3, 8)
        out = torch.compile(m, backend="opal")(x)
        saved = out.grad_fn.saved_tensors
        print(json.dumps([len(saved), saved[0].data_ptr() == x.data_ptr(),
                          (out - m(x)).abs().max().item()]))
    """)
    assert result[:2] == [1, True] and result[2] < 1e-6, result
    assert any("into torchgraph::" in line for line in log), log


def test_products_added_to_a_tensor_accumulate_in_it_as_eager_adds():
    # A product added to another tensor starts from it
    # (opal-accumulate-products): written in place into an input (x.add_),
    # added to a product of the tensor itself, summed over steps as a
    # recurrent layer's weight gradient is; each as eager computes it.
    result, log = run("""
        def into_input(x, a, b):
            x.add_(a @ b)
            return x.sum()
        def of_itself(x, y):
            return x + x @ y
        def over_steps(ws, hs):
            total = ws[0].t() @ hs[0]
            for w, h in zip(ws[1:], hs[1:]):
                total = total + w.t() @ h
            return total
        x, a, b = torch.randn(64, 48), torch.randn(64, 32), torch.randn(32, 48)
        eager = x.clone(); into_input(eager, a, b)
        compiled = x.clone(); torch.compile(into_input, backend="opal")(compiled, a, b)
        y = torch.randn(48, 48)
        square = torch.randn(48, 48)
        ws = list(torch.randn(8, 16, 40).unbind(0))
        hs = list(torch.randn(8, 16, 24).unbind(0))
        errors = [(compiled - eager).abs().max().item(),
                  (torch.compile(of_itself, backend="opal")(square, y) - of_itself(square, y))
                  .abs().max().item(),
                  (torch.compile(over_steps, backend="opal")(ws, hs) - over_steps(ws, hs))
                  .abs().max().item()]
        print(json.dumps(errors))
    """)
    assert max(result) < 1e-4, result
    assert sum("into torchgraph::" in line for line in log) == 3, log


def test_a_graph_calling_a_native_kernel_runs_op_by_op_and_reorders_run_in_pytorch():
    # empty has a native kernel in opal (no MLIR definition): the compiler
    # would run a kernel calling it op by op, so the graph runs op by op in
    # opal, each call through opal's dispatcher. An as_strided that
    # reorders elements runs in PyTorch between opal's pieces.
    result, log = run("""
        def f(a):
            return torch.empty(4).fill_(2.0) * a.sin()
        def g(a):
            return torch.as_strided(a.sin(), (2, 2), (1, 2)).exp() + 1
        a = torch.randn(4)
        print(json.dumps([(torch.compile(h, backend="opal")(a) - h(a)).abs().max().item()
                          for h in (f, g)]))
    """)
    assert max(result) < 1e-6
    assert any("running torch.compile graph 0 op by op in opal (4 aten calls): it calls "
               "aten::empty.memory_format, whose CPU kernel is not defined in MLIR" in line
               for line in log), log
    assert any("aten.as_strided.default that reorders elements: it runs in PyTorch" in line
               for line in log), log
    assert any("split into 3 pieces, 2 compiled by opal" in line for line in log), log


def test_batch_norms_in_evaluation_fold_into_the_convolutions_before_them():
    # A CNN in eval mode runs op by op (batch norm's native kernel); each
    # batch norm that only reads a convolution folds into its weight and
    # bias (with and without a conv bias, with and without an affine
    # transform), computed again when a parameter changes in place. A
    # convolution whose result another op also reads keeps its batch norm.
    result, log = run("""
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
                self.na = torch.nn.BatchNorm2d(8)
                self.b = torch.nn.Conv2d(8, 8, 3, padding=1, groups=4)
                self.nb = torch.nn.BatchNorm2d(8, affine=False)
                self.c = torch.nn.Conv2d(8, 6, 1)
                self.nc = torch.nn.BatchNorm2d(6)
            def forward(self, x):
                y = torch.relu(self.na(self.a(x)))
                y = torch.relu(self.nb(self.b(y)))
                z = self.c(y)
                return self.nc(z) + z.mean()
        m = Net().eval()
        with torch.no_grad():
            for norm in (m.na, m.nb, m.nc):
                norm.running_mean.uniform_(-1, 1)
                norm.running_var.uniform_(0.5, 2)
            for norm in (m.na, m.nc):
                norm.weight.uniform_(0.5, 2)
                norm.bias.uniform_(-1, 1)
        x = torch.randn(2, 3, 10, 10)
        f = torch.compile(m, backend="opal")
        errors = []
        with torch.no_grad():
            for _ in range(3):
                errors.append((f(x) - m(x)).abs().max().item())
            m.na.running_var.mul_(3)
            m.b.weight.mul_(-1)
            errors.append((f(x) - m(x)).abs().max().item())
        print(json.dumps(errors))
    """)
    assert max(result) < 1e-5, result
    assert any("op by op in opal" in line and "(2 folded into the convolutions before them)"
               in line for line in log), log


def test_a_constant_tensor_of_the_graph_is_an_input_of_its_kernel():
    # A tensor made in forward (GPT-2's and Llama's masks are such) is a
    # constant of Dynamo's graph: one more input of the opal op.
    result, log = run("""
        def f(x):
            return x * torch.tensor([1.0, 2.0, 3.0]) + torch.tensor([0.5, 0.25, 0.125])
        x = torch.randn(4, 3)
        print(json.dumps((torch.compile(f, backend="opal")(x) - f(x)).abs().max().item()))
    """)
    assert result < 1e-6
    assert any("into torchgraph::" in line for line in log), log
    assert not any("in PyTorch" in line for line in log), log


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_an_input_opal_cannot_take_runs_the_graph_in_pytorch(dtype):
    result, log = run(f"""
        f = torch.compile(lambda a: a * 2 + 1, backend="opal")
        a = torch.ones(3, dtype=torch.{dtype})
        print(json.dumps([(f(a) - (a * 2 + 1)).abs().max().item(), str(f(a).dtype)]))
    """)
    assert result == [0.0, f"torch.{dtype}"]
    assert any(f"an input of torch.{dtype} on cpu, which opal's kernels do not take" in line
               for line in log), log


def test_an_integer_division_compiles_without_a_trial_run():
    # The backend once ran each graph on zeros when torch.compile called
    # it: an integer division raised there and refused the graph.
    result, log = run("""
        f = torch.compile(lambda a, b: a // b + 1, backend="opal")
        print(json.dumps(f(torch.tensor([7, 9]), torch.tensor([2, 3])).tolist()))
    """)
    assert result == [4, 4]
    assert any("into torchgraph::" in line for line in log), log


def test_arange_compiles_inside_the_graph_bit_for_bit():
    """arange (a native kernel in opal, its length the values of its
    arguments) is computed in the graph as prims.iota, of the length the
    graph recorded or, for sizes known per call, end - start."""
    result, log = run("""
        def f(x):
            n = x.shape[0]
            return (x + torch.arange(n, dtype=x.dtype), torch.arange(1.5, 7.2, 0.7) * 2,
                    torch.arange(3, 20, 4) + 1, torch.arange(2, 9, dtype=torch.float16) / 3)
        c = torch.compile(f, backend="opal")
        same = []
        for n in (5, 7, 9):
            x = torch.randn(n)
            same += [a.dtype == b.dtype and torch.equal(a, b) for a, b in zip(c(x), f(x))]
        print(json.dumps(same))
    """)
    assert all(result) and len(result) == 12
    assert not any("in PyTorch" in line for line in log), log


ZOO = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "torch_zoo.py")


@pytest.mark.parametrize("zoo,models", [
    ("timm", ["convnext_atto", "vit_tiny_patch16_224"]),
    ("transformers", ["gpt2", "bert", "llama"]),
])
def test_model_zoo_sample_matches_eager(zoo, models):
    """A fast sample of scripts/torch_zoo.py's table (the whole zoo's last
    run is in docs/pytorch.md): each model matches eager through the
    backend, as one opal op."""
    pytest.importorskip(zoo, reason=f"{zoo} is not installed (scripts/requirements-test.txt)")
    done = subprocess.run([sys.executable, ZOO, "--zoo", zoo, "--models", *models],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith(f"| {zoo} |")]
    assert len(rows) == len(models), done.stdout
    for row in rows:
        assert "| matches | one opal op |" in row, row


def test_repeated_layers_compile_one_copy_of_each_nest(tmp_path):
    # A model of 4 and of 8 equal blocks (layer norm, linear, gelu, a
    # residual add): its graph is one kernel, whose nests of equal blocks
    # are merged (opal-outline-nests), so the kernel's LLVM holds as many
    # functions for 8 blocks as for 4 (the first and last blocks differ from
    # the others: what they read or write), and computes what eager does.
    counts = []
    for blocks in (4, 8):
        dump = tmp_path / f"dump{blocks}"
        result, _ = run(f"""
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = torch.nn.LayerNorm(24)
                    self.linear = torch.nn.Linear(24, 24)
                def forward(self, x):
                    return x + torch.nn.functional.gelu(self.linear(self.norm(x)))
            m = torch.nn.Sequential(*[Block() for _ in range({blocks})]).eval()
            x = torch.randn(5, 24)
            with torch.no_grad():
                got, want = torch.compile(m, backend="opal")(x), m(x)
            print(json.dumps((got - want).abs().max().item()))
        """, {"OPAL_DUMP_DIR": str(dump), "OPAL_CACHE_DIR": str(tmp_path / f"cache{blocks}")})
        assert result < 1e-5
        texts = [path.read_text() for path in dump.glob("*/3-llvm.mlir")]
        assert texts, list(dump.rglob("*"))
        llvm = max(texts, key=len)
        counts.append(llvm.count("llvm.func internal @opal_kernel_part")
                      + llvm.count("llvm.func private @opal_kernel_part")
                      + llvm.count("llvm.func @opal_kernel_part"))
    assert counts[0] >= 2 and counts[0] == counts[1], counts


def test_a_graph_of_static_shapes_compiles_for_them_alone():
    # Dynamo's first graph has static sizes, and its op's name says them
    # (graph ops are named by what they compute, shapes included): its
    # kernel is compiled for those sizes at once, with no kernel for every
    # size tried first (OPAL_LOG=jit: the sizes in the compiled line, no
    # "compiles for static shapes only" after a failed attempt).
    result, stderr = run_logged("""
        m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                torch.nn.Linear(16, 4)).eval()
        x = torch.randn(3, 8)
        with torch.no_grad():
            got, want = torch.compile(m, backend="opal")(x), m(x)
        print(json.dumps((got - want).abs().max().item()))
    """)
    assert result < 1e-5
    compiled = [line for line in stderr.splitlines()
                if line.startswith("[opal:jit] compiled torchgraph::")]
    assert len(compiled) == 1, stderr[-4000:]
    signature = compiled[0].split(" for CPU")[0]
    assert "float32[3,8]" in signature and "?" not in signature, compiled[0]
    assert "static shapes only" not in stderr
