"""opal.library: registration from Python, as torch.library behaves."""

import gc
import itertools

import pytest

import opal
from opal.library import Library, fallthrough_kernel

_counter = itertools.count()


def fresh_ns():
    return f"pylib{next(_counter)}"


def table(name):
    lines = opal._C._dispatch_dump_table(name).splitlines()
    return {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in lines}


def provenance(name, key):
    entry = table(name).get(key)
    return None if entry is None else entry[entry.rindex("[") + 1:-1]


def test_define_returns_the_base_name():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    assert lib.define("foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)") == "foo"
    assert lib.define("bar(Tensor x) -> Tensor") == "bar"
    assert hasattr(getattr(opal.ops, ns), "bar")


def test_kinds_and_namespaces():
    with pytest.raises(ValueError, match="Unsupported kind"):
        Library(fresh_ns(), "BOGUS")
    with pytest.raises(ValueError, match="is a reserved namespace"):
        Library("prim", "DEF")
    ns = fresh_ns()
    first = Library(ns, "DEF")
    with pytest.raises(RuntimeError, match=f"Only a single OPAL_LIBRARY can be used to register the namespace {ns}"):
        Library(ns, "DEF")
    fragment = Library(ns, "FRAGMENT")
    fragment.define("frag(Tensor x) -> Tensor")
    impl = Library(ns, "IMPL", "CPU")
    with pytest.raises(RuntimeError, match="Cannot define an operator inside of a OPAL_LIBRARY_IMPL block"):
        impl.define("nope(Tensor x) -> Tensor")
    del first
    gc.collect()
    Library(ns, "DEF")  # the namespace is free again


def test_define_twice_is_an_error():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match=r"Tried to register an operator \(" + ns +
                       r"::foo\(Tensor x\) -> Tensor\) with the same name and overload name multiple times"):
        lib.define("foo(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="Invalid alias_analysis type PURE_FUNCTION"):
        lib.define("bar(Tensor x) -> Tensor", alias_analysis="PURE_FUNCTION")
    with pytest.raises(RuntimeError, match=r"unknown type 'Tensr'; did you mean 'Tensor'\? \(column 5\)"):
        lib.define("baz(Tensr x) -> Tensor")


def test_impl_errors():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    with pytest.raises(TypeError, match="Input function is required to be a callable but found type <class 'list'>"):
        lib.impl("foo", [], "CPU")
    with pytest.raises(RuntimeError, match="could not parse dispatch key: Bogus"):
        lib.impl("foo", lambda x: x, "Bogus")
    with pytest.raises(RuntimeError, match="impl should be passed either a name or an OpOverload"):
        lib.impl(42, lambda x: x, "CPU")
    lib.impl("foo", lambda x: x, "CPU")
    other = Library(ns, "IMPL", "CPU")
    with pytest.raises(RuntimeError, match=(
            "This is not allowed since there's already a kernel registered from python "
            f"overriding foo's behavior for CPU dispatch key and {ns} namespace.")):
        other.impl("foo", lambda x: x)


def test_meta_kernel_on_a_composite_is_refused():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "CompositeImplicitAutograd")
    with pytest.raises(RuntimeError, match="We should not register a meta kernel directly to the operator 'foo'"):
        lib.impl("foo", lambda x: x, "Meta")


def test_tables_follow_pytorch_resolution():
    ns = fresh_ns()
    name = f"{ns}::foo"
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "CPU")
    lib.impl("foo", lambda x: x, "CompositeImplicitAutograd")
    assert provenance(name, "CPU") == "kernel"
    assert provenance(name, "CUDA") == "math kernel"
    assert provenance(name, "AutogradCPU") == "backend fallback"
    assert table(name)["AutogradCPU"].startswith("fallthrough ")
    assert provenance(name, "AutogradCUDA") == "math kernel"
    assert provenance(name, "Undefined") == "math kernel"
    dump = opal._C._dispatch_dump(name)
    assert dump.startswith(f"name: {name}\nschema: {name}(Tensor x) -> Tensor\n")
    assert "CompositeImplicitAutograd[alias]: registered at" in dump
    assert opal._C._dispatch_has_kernel_for_dispatch_key(name, "CPU")
    assert not opal._C._dispatch_has_kernel_for_dispatch_key(name, "Meta")
    opal._C._dispatch_check_invariants(name)


def test_kernel_lifetime_follows_its_library():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> int")
    op = getattr(opal.ops, ns).foo.default
    first = Library(ns, "IMPL", "CPU")
    first.impl("foo", lambda x: 1)
    assert op(opal.ones(1)) == 1
    second = Library(ns, "IMPL", "CPU")
    with pytest.raises(RuntimeError, match="already a kernel registered from python"):
        second.impl("foo", lambda x: 2)
    first._destroy()
    with pytest.raises(NotImplementedError, match=f"Could not run '{ns}::foo' with arguments from the 'CPU' backend"):
        op(opal.ones(1))
    second.impl("foo", lambda x: 2)  # the Python-side entry went with `first`
    assert op(opal.ones(1)) == 2
    del second
    gc.collect()
    with pytest.raises(NotImplementedError):
        op(opal.ones(1))


def test_destroying_the_def_library_removes_the_op():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    assert hasattr(getattr(opal.ops, ns), "foo")
    lib._destroy()
    assert not hasattr(getattr(opal.ops, ns), "foo")


def test_fallthrough_kernel_and_fallback():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> int")
    lib.impl("foo", lambda x: 1, "CPU")
    lib.impl("foo", lambda x: 2, "Autograd")
    op = getattr(opal.ops, ns).foo.default
    assert op(opal.ones(1)) == 2
    lib.impl("foo", fallthrough_kernel, "AutogradCPU")
    assert op(opal.ones(1)) == 1
    assert table(f"{ns}::foo")["AutogradCPU"].startswith("fallthrough registered at")
    bad = Library(ns, "IMPL", "PrivateUse1")
    with pytest.raises(RuntimeError, match=f"Fallback functions which apply to only a single namespace \\(you specified {ns}\\) are not supported"):
        bad.fallback(fallthrough_kernel)
    glob = Library("_", "IMPL", "PrivateUse1")
    glob.fallback(lambda *args: 5)
    assert provenance(f"{ns}::foo", "PrivateUse1") == "backend fallback"
    glob._destroy()
    assert provenance(f"{ns}::foo", "PrivateUse1") is None


def test_module_level_define_and_impl_decorators():
    ns = fresh_ns()
    opal.library.define(f"{ns}::twice", "(Tensor x) -> Tensor")

    @opal.library.impl(f"{ns}::twice", "cpu")
    def twice(x):
        return opal.from_numpy(x.numpy() * 2)

    @opal.library.impl_abstract(f"{ns}::twice")
    def twice_abstract(x):
        return opal.empty(*x.shape, dtype=x.dtype, device="meta")

    op = getattr(opal.ops, ns).twice
    assert op(opal.ones(2)).tolist() == [2.0, 2.0]
    meta = op(opal.empty(4, device="meta"))
    assert meta.is_meta and meta.shape == (4,)
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        opal.library.impl(f"{ns}::twice", "tpu", lambda x: x)


def test_impl_with_keyset_redispatches():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> int")
    lib.impl("foo", lambda x: 1, "CPU")
    seen = []

    def autograd(keys, x):
        seen.append(str(keys))
        with opal._C._ExcludeDispatchKeyGuard(opal._C.DispatchKeySet(opal.DispatchKey.AutogradFunctionality)):
            return getattr(opal.ops, ns).foo(x) + 10

    lib.impl("foo", autograd, "AutogradCPU", with_keyset=True)
    assert getattr(opal.ops, ns).foo(opal.ones(1)) == 11
    assert seen == ["DispatchKeySet(CPU, AutogradCPU)"]
