"""PyTorch's small behaviours, each checked against PyTorch 1.13 where it is
installed: alias-analysis kinds, dumps of ops that are gone, argument-count
errors, a user's AutogradMeta fallthrough, Argument.type without its alias
annotation, and dir() of opal.ops namespaces."""

import gc
import uuid

import pytest

import opal

try:
    import torch
except ImportError:  # the references are optional; opal's side always runs
    torch = None


def fresh(prefix="beh"):
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def both(fn):
    """fn(module) for opal, and for torch when installed."""
    results = [fn(opal)]
    if torch is not None:
        results.append(fn(torch))
    return results


def test_alias_analysis_kinds_as_pytorch():
    def run(mod):
        ns = fresh()
        lib = mod.library.Library(ns, "DEF")
        out = []
        lib.define("a(Tensor x) -> Tensor", alias_analysis="CONSERVATIVE")
        lib.define("b(Tensor x) -> Tensor", alias_analysis="FROM_SCHEMA")
        # Library.define refuses PURE_FUNCTION (PyTorch does, on purpose)...
        with pytest.raises(RuntimeError) as error:
            lib.define("c(Tensor x) -> Tensor", alias_analysis="PURE_FUNCTION")
        out.append(str(error.value))
        # ... the library object below it takes every C++ kind.
        lib.m.define("d(Tensor x) -> Tensor", "PURE_FUNCTION")
        dump = mod._C._dispatch_dump(f"{ns}::d")
        out.append([line for line in dump.splitlines() if line.startswith("alias analysis")])
        with pytest.raises(RuntimeError) as error:
            lib.m.define("e(Tensor x) -> Tensor", "BOGUS")
        out.append(str(error.value).splitlines()[0])
        return out

    results = both(run)
    assert results[0] == ["Invalid alias_analysis type PURE_FUNCTION",
                          ["alias analysis kind: PURE_FUNCTION"], "could not parse BOGUS"]
    assert all(r == results[0] for r in results)


def test_dumps_of_an_op_that_is_gone_are_empty():
    def run(mod):
        ns = fresh()
        lib = mod.library.Library(ns, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        before = mod._C._dispatch_dump(f"{ns}::f")
        del lib
        gc.collect()
        return (before != "", mod._C._dispatch_dump(f"{ns}::f"),
                mod._C._dispatch_dump_table(f"{ns}::f"),
                mod._C._dispatch_dump(f"{ns}::never_defined"))

    results = both(run)
    assert results[0] == (True, "", "", "")
    assert all(r == results[0] for r in results)


def test_too_many_arguments_is_pytorchs_runtime_error():
    def run(mod):
        ns = fresh()
        lib = mod.library.Library(ns, "DEF")
        lib.define("f(Tensor x, int n=1) -> Tensor")
        lib.impl("f", lambda x, n=1: x, "CPU")
        op = getattr(getattr(mod.ops, ns), "f")
        messages = []
        for call in (lambda: op.default(mod.ones(1), 2, 3), lambda: op(mod.ones(1), 2, 3)):
            with pytest.raises(RuntimeError) as error:
                call()
            messages.append(str(error.value).replace(ns, "NS"))
        return messages, lib

    results = both(run)
    expected = ("NS::f() expected at most 2 argument(s) but received 3 argument(s). "
                "Declaration: NS::f(Tensor x, int n=1) -> Tensor")
    assert results[0][0] == [expected, expected]
    if torch is not None:
        assert results[1][0] == results[0][0]
    # opal's argument errors are also TypeErrors (opal's eager spellings and
    # its earlier releases raise TypeError).
    with pytest.raises(TypeError, match="must be Tensor, not str"):
        opal.ops.aten.neg("x")
    assert issubclass(opal._C.ArgumentError, RuntimeError)


def test_autograd_meta_has_a_fallback_a_user_cannot_register_twice():
    """PyTorch 2 registers AutogradMeta's fallback itself (opal's is a
    fallthrough, so that an op with only a Meta kernel runs on meta
    tensors): a user's is a second one, refused by both."""
    def run(mod):
        lib = mod.library.Library("_", "IMPL", "AutogradMeta")
        with pytest.raises(RuntimeError, match="Tried to register multiple backend fallbacks for "
                                               "the same dispatch key AutogradMeta"):
            lib.fallback(mod.library.fallthrough_kernel) if mod is opal \
                else lib.m.fallback_fallthrough()
        del lib
        gc.collect()
        return True

    assert all(both(run))
    lib = opal.library.Library("metaonly", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x, "Meta")
    table = opal._C._dispatch_dump_table("metaonly::f")
    assert "AutogradMeta: fallthrough registered at opal (framework fallback)" in table
    meta = opal.empty([2, 3], device="meta")
    assert list(opal.ops.metaonly.f(meta).shape) == [2, 3]
    # aten's ops have autograd kernels at every Autograd key, Meta's too.
    assert "AutogradMeta: registered at" in opal._C._dispatch_dump_table("aten::neg")
    assert list(opal.ops.aten.neg(meta).shape) == [2, 3]


def test_argument_type_has_no_alias_annotation():
    schema = "f(Tensor(a!) x, Tensor(b)? y, Tensor(c)[] z) -> Tensor(a!)"
    s = opal._C.parse_schema(schema)
    assert [a.type for a in s.arguments] == ["Tensor", "Tensor?", "Tensor[]"]
    assert str(s.arguments[0].alias_info) == "(a!)" and s.arguments[0].alias_info.is_write
    assert s.returns[0].type == "Tensor" and s.returns[0].alias_info.before_set == ["a"]
    if torch is not None:
        t = torch._C.parse_schema(schema)
        assert str(t.arguments[0].type) == "Tensor" and t.arguments[0].alias_info.is_write
        assert str(t.returns[0].type) == "Tensor"


def test_dir_lists_the_ops_of_a_namespace():
    names = dir(opal.ops.aten)
    assert {"add", "gelu", "softmax", "mm", "conv2d"} <= set(names)
    assert all("." not in n and "::" not in n for n in names)
    assert {"aten", "prims", "load_library"} <= set(dir(opal.ops))
    ns = fresh()
    lib = opal.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("f.two(Tensor x, int y) -> Tensor")
    lib.define("g(Tensor x) -> Tensor")
    assert [n for n in dir(getattr(opal.ops, ns)) if not n.startswith("_")] == ["f", "g", "name"]
    assert ns in dir(opal.ops)
    # Tab completion (rlcompleter, as the REPL's) offers them.
    import rlcompleter
    completer = rlcompleter.Completer({"opal": opal})
    assert completer.complete("opal.ops.aten.gel", 0) == "opal.ops.aten.gelu("
