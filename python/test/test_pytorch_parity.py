"""The same registrations in PyTorch 2 and in opal give the same tables.

For each registration sequence, both libraries register kernels at the same
keys; every key that appears in both dumps must have the same provenance
("kernel", "math kernel", "default backend kernel", ...). Keys where opal
differs on purpose (docs/dispatch.md) are compared to opal's documented
result instead.
"""

import itertools

import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch is the behavioural reference")

_counter = itertools.count()

SEQUENCES = [
    ["CPU", "CompositeImplicitAutograd"],
    ["CompositeImplicitAutograd", "Autograd"],
    ["CPU", "Autograd", "CompositeImplicitAutograd"],
    ["CompositeExplicitAutograd"],
    ["CompositeExplicitAutograd", "CompositeImplicitAutograd"],
    ["Meta", "CompositeImplicitAutograd"],
    ["CompositeImplicitAutograd", "QuantizedCPU"],
    ["CompositeImplicitAutograd", "FPGA", "CompositeExplicitAutograd"],
    ["CompositeExplicitAutogradNonFunctional"],
    ["CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd"],
    ["CompositeImplicitAutogradNestedTensor", "CompositeImplicitAutograd"],
    ["Autograd"],
    ["CPU", "Meta", "AutogradCPU"],
    ["SparseCPU", "CompositeImplicitAutograd"],
    [""],  # a catch-all
]

# Fallbacks PyTorch has and opal does not: features opal does not have
# (Python modes, functorch, functionalization, tracing, ...), and Meta,
# whose fallback in PyTorch raises for an op without a Meta kernel where
# opal's dispatcher raises its missing-kernel error.
PYTORCH_ONLY_FALLBACKS = {
    "Python", "FuncTorchDynamicLayerBackMode", "Functionalize", "Conjugate",
    "Negative", "ZeroTensor", "Tracer", "FuncTorchBatched", "BatchedNestedTensor", "Batched",
    "FuncTorchGradWrapper", "PythonTLSSnapshot", "FuncTorchDynamicLayerFrontMode",
    "PreDispatch", "PythonDispatcher", "Meta",
}


def parse(dump):
    table = {}
    for line in dump.splitlines():
        key, entry = line.split(": ", 1)
        table[key] = entry[entry.rindex("[") + 1:-1]
    return table


def torch_table(keys):
    ns = f"parity{next(_counter)}"
    lib = torch.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    for key in keys:
        lib.impl("f", lambda x: x, key)
    return parse(torch._C._dispatch_dump_table(f"{ns}::f")), lib


def opal_table(keys):
    ns = f"parity{next(_counter)}"
    lib = opal.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    for key in keys:
        lib.impl("f", lambda x: x, key)
    return parse(opal._C._dispatch_dump_table(f"{ns}::f")), lib


@pytest.mark.parametrize("keys", SEQUENCES, ids=lambda keys: "+".join(k or "catchall" for k in keys))
def test_tables_match_pytorch(keys):
    theirs, keep_torch = torch_table(keys)
    ours, keep_opal = opal_table(keys)
    mismatches = []
    for key in sorted(set(theirs) | set(ours)):
        if key in PYTORCH_ONLY_FALLBACKS and theirs.get(key) == "backend fallback":
            assert key not in ours or ours[key] != "backend fallback" or key == "Python"
            continue
        if theirs.get(key) != ours.get(key):
            mismatches.append((key, theirs.get(key), ours.get(key)))
    assert mismatches == []
    del keep_torch, keep_opal
