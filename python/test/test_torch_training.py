"""Training through torch.compile(model, backend="opal"): AOTAutograd's
forward and backward graphs run as opal's kernels, optimizer steps compiled
through the backend, dropout from opal's generator seeded by PyTorch's, and
what a training loop can do wrong. Each case runs in its own process
(Dynamo's caches and opal's registrations start empty), with OPAL_LOG=torch
to see which graphs opal compiled."""

import re

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not hasattr(torch, "compile"):
    pytest.skip("PyTorch 1.x has no torch.compile", allow_module_level=True)

from test_torch_compile_backend import run  # noqa: E402

MODELS = """
import copy
torch._dynamo.config.allow_rnn = True

class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, padding=1, stride=2),
            torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
            torch.nn.Flatten(), torch.nn.Dropout(0.0), torch.nn.Linear(8, 4))
    def forward(self, x): return self.body(x)

class Gpt(torch.nn.Module):
    def __init__(self, d=32, heads=4, vocab=50):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.layer = torch.nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True,
                                                      norm_first=True)
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab)
    def forward(self, t):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(t.shape[1])
        return self.head(self.norm(self.layer(self.emb(t), src_mask=mask, is_causal=True)))

class Rnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 16, batch_first=True)
        self.head = torch.nn.Linear(16, 3)
    def forward(self, x): return self.head(self.lstm(x)[0][:, -1])

def data(name, step):
    g = torch.Generator().manual_seed(step)
    if name == "cnn": return torch.randn(8, 3, 8, 8, generator=g), torch.randint(0, 4, (8,), generator=g)
    if name == "gpt":
        t = torch.randint(0, 50, (4, 9), generator=g); return t[:, :-1], t[:, 1:]
    return torch.randn(8, 5, 6, generator=g), torch.randint(0, 3, (8,), generator=g)

def loss_of(name, out, y):
    if name == "gpt": return torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    return torch.nn.functional.cross_entropy(out, y)
"""


def test_three_models_train_50_steps_through_the_backend_as_in_eager():
    # A CNN with batch norm (running statistics) and max pooling, a causal
    # transformer layer (attention as its math, so that its backward is
    # that math's) and an LSTM: 50 steps of SGD with momentum each, the
    # model and the optimizer's step compiled by opal. The gradients of
    # every parameter at step 1 and the loss curve as eager's. (The flash
    # attention kernel's backward once received the attention
    # probabilities where it takes their logsumexp: wrong gradients.)
    result, log = run(MODELS + """
result = {}
for name, cls in (("cnn", Cnn), ("gpt", Gpt), ("rnn", Rnn)):
    torch.manual_seed(1)
    model = cls(); ref = copy.deepcopy(model)
    compiled = torch.compile(model, backend="opal")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    step_of = {"opal": torch.compile(opt.step, backend="opal"), "eager": ref_opt.step}
    losses, grad_error = [], None
    for step in range(50):
        x, y = data(name, step % 4)  # four batches, learnt by heart
        for m, o, tag in ((compiled, opt, "opal"), (ref, ref_opt, "eager")):
            o.zero_grad()
            loss = loss_of(name, m(x), y)
            loss.backward()
            if tag == "opal": lo = loss.item()
            else: le = loss.item()
        if step == 0:
            scale = max(q.grad.abs().max().item() for q in ref.parameters())
            grad_error = max((p.grad - q.grad).abs().max().item()
                             for p, q in zip(model.parameters(), ref.parameters())) / scale
        step_of["opal"](); step_of["eager"]()
        losses.append((lo, le))
    buffers = max(((a - b).abs().max().item() for a, b in zip(model.buffers(), ref.buffers())
                   if a.is_floating_point()), default=0.0)
    result[name] = {"grad": grad_error, "loss": max(abs(a - b) / abs(b) for a, b in losses),
                    "first": sum(b for _, b in losses[:4]), "last": sum(b for _, b in losses[-4:]),
                    "buffers": buffers}
print(json.dumps(result))
""")
    for name, row in result.items():
        assert row["grad"] < 1e-4, (name, row)
        assert row["loss"] < 1e-3, (name, row)
        assert row["buffers"] < 1e-3, (name, row)  # batch norm's running statistics
        assert row["last"] < 0.9 * row["first"], (name, row)  # it learns
    assert not any("in PyTorch" in line for line in log), log
    # The transformer's and the LSTM's backward graphs fuse (layer norm's
    # and the embedding's backward ops are opal's formulas); only the
    # CNN's, which calls the native convolution_backward, runs op by op.
    op_by_op = [line for line in log if "op by op" in line]
    assert op_by_op and all("aten::convolution_backward" in line for line in op_by_op), log


def test_gradients_pass_gradcheck_in_float64_through_compiled_graphs():
    # torch.autograd.gradcheck: the compiled graphs' analytic gradients
    # (opal's backward kernels) against finite differences of opal's
    # forward kernels, in float64, through a convolution with batch norm,
    # a linear layer with layer norm and gelu, a softmax and an LSTM cell.
    result, log = run("""
        F = torch.nn.functional
        def f(x, w, b, gamma, beta, lw, u, h):
            y = F.conv2d(x, w, b, padding=1)
            y = F.batch_norm(y, None, None, gamma, beta, training=True)
            y = F.relu(y).mean((2, 3))
            z = F.gelu(F.layer_norm(y @ lw, [lw.shape[1]]))
            i, g, o = (z @ u + h).chunk(3, -1)  # an LSTM cell's gates
            c = torch.sigmoid(i) * torch.tanh(g) + h[:, :2]
            return (z[:, :2].softmax(-1) * torch.sigmoid(o) * torch.tanh(c)).sum(-1)
        double = dict(dtype=torch.float64, requires_grad=True)
        args = (torch.randn(2, 3, 5, 5, **double), torch.randn(4, 3, 3, 3, **double),
                torch.randn(4, **double), torch.rand(4, **double) + 0.5, torch.randn(4, **double),
                torch.randn(4, 6, **double), torch.randn(6, 6, **double), torch.randn(2, 6, **double))
        compiled = torch.compile(f, backend="opal")
        ok = torch.autograd.gradcheck(compiled, args, eps=1e-6, atol=1e-5, rtol=1e-4)
        got = torch.autograd.grad(compiled(*args).sum(), args)
        want = torch.autograd.grad(f(*args).sum(), args)
        print(json.dumps([ok, max((a - b).abs().max().item() for a, b in zip(got, want))]))
    """)
    ok, error = result
    assert ok
    assert error < 1e-10
    assert any("into torchgraph::" in line for line in log), log
    assert not any("in PyTorch" in line for line in log), log


@pytest.mark.parametrize("optimizer", [
    "torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-4, nesterov=True)",
    "torch.optim.AdamW(params, lr=1e-2, weight_decay=0.01)",
    "torch.optim.Adam(params, lr=1e-2, foreach=False)",
])
def test_optimizer_steps_compile_into_one_kernel_over_all_parameters(optimizer):
    # torch.compile(opt.step, backend="opal"): PyTorch's own optimizer
    # (foreach or for-loop form) captured by Dynamo; the update of every
    # parameter and its state is one opal kernel per step (the first
    # step, which creates the state, is a graph of its own). After 10
    # steps the parameters are those of the same captured graph run by
    # PyTorch (backend="aot_eager") within rounding, and eager's within
    # 1e-4: compiled, Adam's bias corrections are float32 tensors where
    # eager computes them as Python floats (1 - 0.999 is off by 1.3e-5 in
    # float32), which PyTorch's compiled steps share.
    result, log = run(f"""
        import copy
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32),
                                    torch.nn.LayerNorm(32), torch.nn.Linear(32, 4))
        copies = [model, copy.deepcopy(model), copy.deepcopy(model)]
        def make(params): return {optimizer}
        optimizers = [make(m.parameters()) for m in copies]
        steps = [torch.compile(optimizers[0].step, backend="opal"),
                 torch.compile(optimizers[1].step, backend="aot_eager"), optimizers[2].step]
        x = torch.randn(8, 16)
        def error(a, b):
            return max(((p - q).abs().max() / q.abs().max()).item()
                       for p, q in zip(a.parameters(), b.parameters()))
        memory = [p.data_ptr() for p in copies[0].parameters()]
        versions = []
        for i in range(10):
            for m, o, s in zip(copies, optimizers, steps):
                o.zero_grad(); m(x).square().mean().backward(); s()
            versions.append([p._version for p in copies[0].parameters()])
        moved = memory != [p.data_ptr() for p in copies[0].parameters()]
        counted = all(b > a for a, b in zip(versions[-2], versions[-1]))
        print(json.dumps([error(copies[0], copies[1]), error(copies[0], copies[2]), moved,
                          counted]))
    """)
    captured, eager, moved, counted = result
    assert captured < 1e-6, result
    assert eager < 1e-4, result
    # The kernel writes each parameter's and each state's new value into
    # its memory (no copy after it), and the version counters move as a
    # copy_ moves them.
    assert not moved and counted, result
    writes = [line for line in log if "of its inputs" in line]
    assert writes and all(re.search(r"writes (\d+) of its inputs, \1 of them in place", line)
                          for line in writes[-1:]), log
    compiled = [line for line in log if "into torchgraph::" in line]
    assert 1 <= len(compiled) <= 2, log
    assert not any("in PyTorch" in line or "op by op" in line for line in log), log


def test_writes_into_inputs_go_in_place_only_where_no_read_comes_after():
    # A compiled function that updates its inputs under no_grad: AOTAutograd
    # leaves the writes in the graph (keep_inference_input_mutations), and
    # opal's kernel writes a value into its input's memory only where every
    # read of the input is a pointwise op on the way to that value. Here p's
    # old value is also returned (read after the write): p is copied; m
    # (whose new value reads p's new one) is written in place; two inputs
    # sharing memory are both copied. Each result as eager's.
    result, log = run("""
        def update(p, m, g):
            old = p * 1.0
            p.mul_(0.5).add_(g)
            m.mul_(0.9).add_(p)
            return old + p
        step = torch.compile(update, backend="opal")
        gen = torch.Generator().manual_seed(0)
        ins = [torch.randn(64, 3, 3, generator=gen) for _ in range(3)]
        mine, theirs = [t.clone() for t in ins], [t.clone() for t in ins]
        where = mine[1].data_ptr()
        with torch.no_grad():
            for _ in range(3):
                got, want = step(*mine), update(*theirs)
        same = all(torch.equal(a, b) for a, b in zip(mine + [got], theirs + [want]))
        base = torch.randn(2, 64, 3, 3, generator=gen)
        shared, expected = base.clone(), base.clone()
        with torch.no_grad():
            got = step(shared[0], shared[1], ins[2]); want = update(expected[0], expected[1], ins[2])
        print(json.dumps([same, where == mine[1].data_ptr(),
                          torch.equal(shared, expected) and torch.equal(got, want)]))
    """)
    same, kept, aliased = result
    assert same and kept and aliased, result
    assert any(re.search(r"writes 2 of its inputs, 1 of them in place", line) for line in log), log


def test_dropout_masks_are_opal_s_and_reproducible_by_torch_manual_seed():
    # Dropout in a compiled graph draws from opal's Philox generator, seeded
    # per call from PyTorch's generator: torch.manual_seed repeats a run's
    # masks; each call draws new ones; the kept values are scaled by
    # 1/(1-p), and the backward uses the forward's mask. opal's own
    # generator is left as it was.
    result, log = run("""
        import opal.random
        d = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Dropout(0.25))
        cd = torch.compile(d, backend="opal")
        z = torch.randn(32, 64, requires_grad=True)
        opal.random.manual_seed(5)
        before = opal.random.get_rng_state().tolist()
        torch.manual_seed(3); a = cd(z)
        torch.manual_seed(3); b = cd(z)
        c = cd(z)
        a.sum().backward()
        kept = a != 0
        with torch.no_grad():
            full = d[0](z)
            scaled = ((a[kept] - full[kept] / 0.75).abs().max().item())
            want = (kept.float() / 0.75) @ d[0].weight
        print(json.dumps({"zero": 1 - kept.float().mean().item(), "same": torch.equal(a, b),
                          "new": not torch.equal(a, c), "scaled": scaled,
                          "grad": (z.grad - want).abs().max().item(),
                          "opal_state": opal.random.get_rng_state().tolist() == before}))
    """)
    assert abs(result["zero"] - 0.25) < 0.02, result
    assert result["same"] and result["new"], result
    assert result["scaled"] < 1e-5 and result["grad"] < 1e-4, result
    assert result["opal_state"], result
    assert any("into torchgraph::" in line for line in log), log


def test_a_graph_opal_cannot_run_falls_back_to_pytorch_for_that_piece():
    # lgamma and its derivative digamma are not opal's: their pieces of
    # the forward and backward graphs run in PyTorch (and say so), the
    # rest in opal, and the gradients are eager's.
    result, log = run("""
        m = torch.nn.Linear(6, 6)
        def f(x): return torch.tanh(m(x)).exp().lgamma().sum()
        x = torch.randn(4, 6, requires_grad=True)
        torch.compile(f, backend="opal")(x).backward()
        got = [x.grad.clone(), m.weight.grad.clone()]
        x.grad = None; m.weight.grad = None
        f(x).backward()
        print(json.dumps(max((a - b).abs().max().item() for a, b in zip(got, [x.grad, m.weight.grad]))))
    """)
    assert result < 1e-5
    assert any("opal has no aten.lgamma.default: it runs in PyTorch" in line for line in log), log
    assert any("opal has no aten.digamma.default: it runs in PyTorch" in line for line in log), log


def test_double_backward_raises_a_clear_error():
    # create_graph=True through a compiled graph: the first gradient is
    # computed (and requires grad), its backward raises PyTorch's error.
    result, _ = run("""
        m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        x = torch.randn(4, 8, requires_grad=True)
        g, = torch.autograd.grad(torch.compile(m, backend="opal")(x).sum(), x, create_graph=True)
        try:
            g.sum().backward()
            print(json.dumps("no error"))
        except RuntimeError as error:
            print(json.dumps(str(error)))
    """)
    assert "does not currently support double backward" in result


def test_replaced_parameters_are_read_or_refused_never_stale():
    # A parameter replaced between steps (a new Parameter of the same
    # shape) is what the next call reads; one of another dtype recompiles
    # and raises as eager raises (mixed dtypes in a product).
    result, log = run("""
        import copy
        m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        c = torch.compile(m, backend="opal")
        x = torch.randn(4, 8)
        c(x).sum().backward()
        m[0].weight = torch.nn.Parameter(torch.randn(8, 8))
        m[0].bias.data = torch.randn(8)
        ref = copy.deepcopy(m)
        got = c(x); got.sum().backward(); ref(x).sum().backward()
        error = max((got - ref(x)).abs().max().item(), (m[0].weight.grad - ref[0].weight.grad).abs().max().item())
        m[0].weight = torch.nn.Parameter(torch.randn(8, 8, dtype=torch.float64))
        try:
            c(x); message = None
        except RuntimeError as e:
            message = str(e)
        print(json.dumps([error, message]))
    """)
    error, message = result
    assert error < 1e-6
    assert message is not None and "dtype" in message, message


def test_no_grad_parts_and_in_place_updates_train_as_in_eager():
    # A forward with a torch.no_grad() part (a statistic that gets no
    # gradient), in-place updates of intermediates and of a buffer:
    # gradients and the buffer as eager's.
    result, log = run("""
        import copy
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(8, 8)
                self.register_buffer("seen", torch.zeros(8))
            def forward(self, x):
                y = self.lin(x)
                with torch.no_grad():
                    scale = y.abs().mean() + 1
                    self.seen.add_(y.mean(0))
                y.mul_(2).relu_()
                return (y / scale).sum()
        m = M(); ref = copy.deepcopy(m)
        x = torch.randn(5, 8)
        c = torch.compile(m, backend="opal")
        for _ in range(3):
            c(x).backward(); ref(x).backward()
        print(json.dumps([(m.lin.weight.grad - ref.lin.weight.grad).abs().max().item(),
                          (m.seen - ref.seen).abs().max().item()]))
    """)
    grad, buffer = result
    assert grad < 1e-5 and buffer < 1e-5, result
    assert not any("in PyTorch" in line for line in log), log


def test_backward_ops_in_opal_s_formulas_fuse_with_eager_s_gradients():
    # Group norm's, max pooling's, layer norm's and an embedding's (with a
    # padding index) backward ops in one backward graph: written in opal's
    # derivative formulas, the graph is one fused kernel, and the
    # gradients of the input and every parameter are eager's.
    result, log = run("""
        import copy
        F = torch.nn.functional
        gn, ln, emb = torch.nn.GroupNorm(2, 8), torch.nn.LayerNorm(6), torch.nn.Embedding(20, 6, padding_idx=0)
        modules = torch.nn.ModuleList([gn, ln, emb])
        ref = copy.deepcopy(modules)
        x = torch.randn(4, 8, 6, 6, requires_grad=True)
        t = torch.randint(0, 20, (4, 5))
        t[0, 0] = 0
        def f(x, m):
            y = F.max_pool2d(torch.relu(m[0](x)), 2).sum((2, 3))
            return (y[:, :6] * m[1](m[2](t)).mean(1)).square().sum()
        torch.compile(f, backend="opal")(x, modules).backward()
        got = [x.grad.clone()] + [p.grad.clone() for p in modules.parameters()]
        x.grad = None
        f(x, ref).backward()
        want = [x.grad] + [p.grad for p in ref.parameters()]
        print(json.dumps(max(((a - b).abs().max() / b.abs().max()).item() for a, b in zip(got, want))))
    """)
    assert result < 1e-5
    assert sum("into torchgraph::" in line for line in log) == 2, log  # forward, backward
    assert not any("op by op" in line or "in PyTorch" in line for line in log), log


def test_training_with_sizes_known_per_call_runs_both_graphs_in_opal():
    # dynamic=True: the forward graph returns the sizes its backward reads
    # (the batch and length, their product); opal computes them from the
    # call's inputs, so the forward and backward graphs both compile, once
    # for every shape, with eager's gradients.
    result, log = run("""
        import copy
        m = torch.nn.Sequential(torch.nn.Embedding(30, 8), torch.nn.LayerNorm(8), torch.nn.Linear(8, 30))
        ref = copy.deepcopy(m)
        c = torch.compile(m, backend="opal", dynamic=True)
        for n in (5, 7, 9):
            t = torch.randint(0, 30, (2, n))
            c(t).square().mean().backward(); ref(t).square().mean().backward()
        print(json.dumps(max(((p.grad - q.grad).abs().max() / q.grad.abs().max()).item()
                             for p, q in zip(m.parameters(), ref.parameters()))))
    """)
    assert result < 1e-5
    assert sum("into torchgraph::" in line for line in log) == 2, log
    assert not any("in PyTorch" in line or "op by op" in line for line in log), log


def test_small_saved_tensors_cross_to_the_backward_packed():
    # An LSTM's forward saves a few small tensors per step (gates, cells):
    # they travel to the backward as one stacked tensor per dtype and
    # shape, so PyTorch's autograd keeps a handful of tensors instead of
    # one per step and gate (counted with saved_tensors_hooks), with
    # eager's gradients. A large activation (64 KiB) travels alone. A
    # second batch size recompiles with the batch known per call only:
    # the sizes are not known when the graph compiles, nothing is packed,
    # and the gradients are eager's.
    result, log = run("""
        import copy
        torch._dynamo.config.allow_rnn = True
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = torch.nn.LSTM(4, 8, batch_first=True)
                self.wide = torch.nn.Linear(8, 4096)
                self.head = torch.nn.Linear(4096, 3)
            def forward(self, x):
                h = self.lstm(x)[0][:, -1]
                return self.head(torch.relu(self.wide(h)))
        m = M()
        ref = copy.deepcopy(m)
        c = torch.compile(m, backend="opal")
        counts, errors = [], []
        for batch in (4, 6):
            x = torch.randn(batch, 12, 4)
            saved = []
            def keep(t):
                saved.append((t.dtype, tuple(t.shape)))
                return t
            with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
                loss = c(x).square().mean()
            loss.backward()
            ref(x).square().mean().backward()
            counts.append(saved)
            errors.append(max(((p.grad - q.grad).abs().max() / q.grad.abs().max()).item()
                              for p, q in zip(m.parameters(), ref.parameters())))
            for p in (*m.parameters(), *ref.parameters()):
                p.grad = None
        print(json.dumps([errors, [[str(d), s] for d, s in counts[0]], len(counts[1])]))
    """)
    errors, saved, second = result
    assert max(errors) < 1e-5, errors
    # (12 steps of an LSTM save 80-odd tensors unpacked, as the second
    # compile's graph does.) The stacks lead the saved tensors: 12 steps'
    # [1, 4, 8] tensors of each of six kinds in one, their [4, 8] in another.
    assert len(saved) < 12 < second, (saved, second)
    assert saved[:2] == [["torch.float32", [72, 1, 4, 8]], ["torch.float32", [12, 4, 8]]], saved
    assert ["torch.float32", [4, 4096]] in saved, saved  # the wide activation, alone
    assert any("small tensors for the backward packed" in line for line in log), log
