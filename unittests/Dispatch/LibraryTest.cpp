//===- LibraryTest.cpp - Library kinds, lifetime and registration errors --===//

#include "TestHelpers.h"

using namespace opal;
using namespace opal::test;
using K = DispatchKey;

// A static library, registered when this test binary loads.
OPAL_LIBRARY(statictest, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("plus(int a, int b) -> int", [](int64_t a, int64_t b) { return a + b; });
}
OPAL_LIBRARY_IMPL(statictest, CPU, m) {
  m.impl("twice", [](const Tensor &x) { return Tensor::empty({2 * x.size(0)}); });
}
OPAL_LIBRARY_FRAGMENT(statictest2, m) { m.def("a(Tensor x) -> Tensor"); }
OPAL_LIBRARY_FRAGMENT(statictest2, m) { m.def("b(Tensor x) -> Tensor"); }

namespace {

bool defined(const std::string &name, const std::string &overload = "") {
  return Dispatcher::singleton().findSchema({name, overload}).has_value();
}

TEST(Library, StaticRegistration) {
  auto twice = Dispatcher::singleton().findSchemaOrThrow("statictest::twice", "");
  EXPECT_EQ(twice.typed<Tensor(const Tensor &)>().call(cpuTensor()).size(0), 4);
  auto plus = Dispatcher::singleton().findSchemaOrThrow("statictest::plus", "");
  EXPECT_EQ(plus.typed<int64_t(int64_t, int64_t)>().call(2, 3), 5);
  EXPECT_TRUE(defined("statictest2::a"));
  EXPECT_TRUE(defined("statictest2::b"));
  std::string message = errorOf([] { makeLibrary(Library::DEF, "statictest"); });
  EXPECT_EQ(message.rfind("Only a single OPAL_LIBRARY can be used to register the "
                          "namespace statictest; please put all of your definitions "
                          "in a single OPAL_LIBRARY block.", 0),
            0u) << message;
}

TEST(Library, DestroyingTheLibraryRemovesItsOps) {
  std::string ns = freshNamespace();
  {
    Library lib = makeLibrary(Library::DEF, ns);
    lib.def("foo(Tensor x) -> Tensor");
    lib.def("foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
    EXPECT_TRUE(defined(ns + "::foo"));
    EXPECT_TRUE(defined(ns + "::foo", "out"));
  }
  EXPECT_FALSE(defined(ns + "::foo"));
  EXPECT_FALSE(defined(ns + "::foo", "out"));
  // The namespace is free again.
  Library again = makeLibrary(Library::DEF, ns);
  again.def("foo(Tensor x) -> Tensor");
  EXPECT_TRUE(defined(ns + "::foo"));
}

TEST(Library, OneDefLibraryPerNamespace) {
  std::string ns = freshNamespace();
  Library first(Library::DEF, ns, std::nullopt, "first.cpp", 10);
  std::string message = errorOf([&] { Library(Library::DEF, ns, std::nullopt, "second.cpp", 20); });
  EXPECT_EQ(message,
            "Only a single OPAL_LIBRARY can be used to register the namespace " + ns +
                "; please put all of your definitions in a single OPAL_LIBRARY block.  "
                "If you were trying to specify implementations, consider using "
                "OPAL_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                "define operators for a single namespace in a distributed way, you can use "
                "OPAL_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration "
                "of OPAL_LIBRARY was registered at first.cpp:10; latest registration was "
                "registered at second.cpp:20");
  Library fragment = makeLibrary(Library::FRAGMENT, ns);
  Library fragment2 = makeLibrary(Library::FRAGMENT, ns);
  fragment.def("x(Tensor a) -> Tensor");
  fragment2.def("y(Tensor a) -> Tensor");
  EXPECT_TRUE(defined(ns + "::x"));
}

TEST(Library, DuplicateDef) {
  std::string ns = freshNamespace();
  Library lib(Library::DEF, ns, std::nullopt, "a.cpp", 1);
  lib.def("foo(Tensor x) -> Tensor");
  Library other(Library::FRAGMENT, ns, std::nullopt, "b.cpp", 2);
  std::string message = errorOf([&] { other.def("foo(Tensor y) -> Tensor"); });
  EXPECT_EQ(message, "Tried to register an operator (" + ns +
                         "::foo(Tensor y) -> Tensor) with the same name and overload name "
                         "multiple times. Each overload's schema should only be registered "
                         "with a single call to def(). Duplicate registration: registered "
                         "at b.cpp:2. Original registration: registered at a.cpp:1");
  // The failed def left nothing behind.
  EXPECT_EQ(Dispatcher::singleton().findSchemaOrThrow(ns + "::foo", "").schema().str(),
            ns + "::foo(Tensor x) -> Tensor");
}

TEST(Library, KindRules) {
  std::string ns = freshNamespace();
  Library impl = makeLibrary(Library::IMPL, ns, K::CPU);
  EXPECT_EQ(errorOf([&] { impl.def("foo(Tensor x) -> Tensor"); }),
            "Cannot define an operator inside of a OPAL_LIBRARY_IMPL block.  All def()s "
            "should be placed in the (unique) OPAL_LIBRARY block for their namespace.");
  EXPECT_EQ(errorOf([&] { impl.impl("other::foo", tagKernel(1)); }),
            "impl(\"other::foo\", ...): Explicitly provided namespace (other) in operator "
            "name does not match namespace of enclosing OPAL_LIBRARY_IMPL block (" + ns + ").");
  EXPECT_EQ(errorOf([&] { impl.impl("foo", K::Conjugate, tagKernel(1)); }),
            "Explicitly provided dispatch key (Conjugate) is inconsistent with the dispatch "
            "key of the enclosing OPAL_LIBRARY_IMPL block (CPU).  Please declare a separate "
            "OPAL_LIBRARY_IMPL block for this dispatch key and move your impl() there.");
  EXPECT_EQ(errorOf([&] { impl.fallback(CppFunction::makeFallthrough()); }).rfind(
                "Fallback functions which apply to only a single namespace (you specified " +
                    ns + ") are not supported.", 0),
            0u);
  EXPECT_EQ(errorOf([&] { makeLibrary(Library::DEF, "_"); }),
            "OPAL_LIBRARY cannot use namespace _: it is reserved for backend fallbacks "
            "(OPAL_LIBRARY_IMPL(_, Key, m))");
  EXPECT_EQ(errorOf([&] { makeLibrary(Library::FRAGMENT, ns, K::CPU); }),
            "OPAL_LIBRARY_FRAGMENT cannot take a dispatch key (got CPU); use "
            "OPAL_LIBRARY_IMPL for the kernels of one key");
  EXPECT_EQ(errorOf([&] { makeLibrary(Library::DEF, "not valid"); }),
            "invalid namespace 'not valid' for OPAL_LIBRARY: a namespace is an identifier");
  Library def = makeLibrary(Library::DEF, ns);
  EXPECT_EQ(errorOf([&] { def.def("other::foo(Tensor x) -> Tensor"); }),
            "Explicitly provided namespace (other) in schema string does not match "
            "namespace of enclosing OPAL_LIBRARY block (" + ns + ").");
  EXPECT_EQ(errorOf([&] { def.fallback(CppFunction::makeFallthrough()); }),
            "Cannot register a fallback in a OPAL_LIBRARY block; use "
            "OPAL_LIBRARY_IMPL(_, Key, m) { m.fallback(...); }");
  EXPECT_EQ(errorOf([&] { def.impl("foo", K::Dense, tagKernel(1)); }),
            "cannot register a kernel for dispatch key Dense: it is a functionality shared "
            "by all backends, not a key a call can reach; use a backend key such as CPU "
            "or an alias key");
  EXPECT_EQ(errorOf([&] { def.def("foo(Tensr x) -> Tensor"); }),
            "unknown type 'Tensr'; did you mean 'Tensor'? (column 5)\n"
            "  foo(Tensr x) -> Tensor\n"
            "      ^~~~~");
}

TEST(Library, KernelSignatureMustMatchSchema) {
  std::string ns = freshNamespace();
  Library lib = makeLibrary(Library::DEF, ns);
  lib.def("foo(Tensor x) -> Tensor");
  std::string message = errorOf([&] {
    lib.impl("foo", K::CPU, [](const Tensor &x, double) { return x; });
  });
  EXPECT_EQ(message, "Inferred operator schema for a C++ kernel function doesn't match "
                     "the expected function schema.\n"
                     "  operator: " + ns + "::foo\n"
                     "  expected schema: " + ns + "::foo(Tensor x) -> Tensor\n"
                     "    registered at test.cpp:1\n"
                     "  inferred schema: (Tensor _0, float _1) -> Tensor _0\n"
                     "    registered at test.cpp:1\n"
                     "  reason: The number of arguments is different. 2 vs 1.");
  EXPECT_EQ(computedTable(ns + "::foo").count("CPU"), 0u); // nothing registered
  EXPECT_NE(errorOf([&] { lib.impl("foo", K::CPU, [](const Tensor &x) { return int64_t(1); }); })
                .find("reason: Type mismatch in return 1: int vs Tensor"),
            std::string::npos);
  // Alias annotations, list sizes and SymInt do not matter to C++ kernels.
  lib.def("bar(Tensor(a!) x, SymInt[2] size, ScalarType dtype) -> Tensor(a!)");
  lib.impl("bar", K::CPU, [](const Tensor &x, const std::vector<int64_t> &, ScalarType) {
    return x;
  });
}

TEST(Library, ImplBeforeDefIsCheckedAtDef) {
  std::string ns = freshNamespace();
  Library impls = makeLibrary(Library::IMPL, ns, K::CPU);
  impls.impl("foo", [](const Tensor &x) { return x; });
  EXPECT_FALSE(defined(ns + "::foo"));
  auto dangling = Dispatcher::singleton().findDanglingImpls();
  EXPECT_NE(std::find(dangling.begin(), dangling.end(),
                      ns + "::foo: CPU kernel registered at test.cpp:1"),
            dangling.end());
  Library def = makeLibrary(Library::DEF, ns);
  std::string message = errorOf([&] { def.def("foo(Tensor x, int n) -> Tensor"); });
  EXPECT_NE(message.find("reason: The number of arguments is different. 1 vs 2."),
            std::string::npos) << message;
  EXPECT_FALSE(defined(ns + "::foo"));
  def.def("foo(Tensor x) -> Tensor");
  EXPECT_EQ(callTag(ns + "::foo", cpuTensor()), 2);
}

TEST(Library, NewestKernelWinsAndOlderComesBack) {
  std::string ns = freshNamespace();
  Library def = makeLibrary(Library::DEF, ns);
  def.def("foo(Tensor x) -> Tensor");
  def.impl("foo", K::CPU, tagKernel(1));
  WarningCapture warnings;
  {
    Library newer(Library::IMPL, ns, K::CPU, "newer.cpp", 7);
    newer.impl("foo", tagKernel(2));
    ASSERT_EQ(warnings.messages.size(), 1u);
    EXPECT_EQ(warnings.messages[0],
              "Overriding a previously registered kernel for the same operator and the "
              "same dispatch key\n  operator: " + ns + "::foo(Tensor x) -> Tensor\n"
              "    registered at test.cpp:1\n  dispatch key: CPU\n"
              "  previous kernel: registered at test.cpp:1\n"
              "       new kernel: registered at newer.cpp:7");
    EXPECT_EQ(callTag(ns + "::foo", cpuTensor()), 2);
    std::string dump = Dispatcher::singleton().findSchemaOrThrow(ns + "::foo", "").dumpState();
    EXPECT_EQ(dump, "name: " + ns + "::foo\n"
                    "schema: " + ns + "::foo(Tensor x) -> Tensor\n"
                    "debug: registered at test.cpp:1\n"
                    "alias analysis kind: FROM_SCHEMA (default)\n"
                    "CPU: registered at newer.cpp:7 :: (Tensor _0) -> Tensor _0 [ boxed unboxed ]\n"
                    "CPU (inactive): registered at test.cpp:1 :: (Tensor _0) -> Tensor _0 [ boxed unboxed ]\n");
  }
  EXPECT_EQ(callTag(ns + "::foo", cpuTensor()), 1);
}

TEST(Library, DefWithKernelInfersTheSchema) {
  std::string ns = freshNamespace();
  Library lib = makeLibrary(Library::DEF, ns);
  lib.def("scale", [](const Tensor &x, double) { return x; });
  auto op = Dispatcher::singleton().findSchemaOrThrow(ns + "::scale", "");
  EXPECT_EQ(op.schema().str(), ns + "::scale(Tensor _0, float _1) -> Tensor _0");
  EXPECT_NE(op.dumpState().find("alias analysis kind: CONSERVATIVE\n"), std::string::npos);
  EXPECT_EQ(provenance(ns + "::scale", "CPU"), "math kernel");
  EXPECT_NE(errorOf([&] { lib.def("bare"); }).find("only the operator name was given"),
            std::string::npos);
}

TEST(Library, UnboxedKernelsShareOneSignature) {
  std::string ns = freshNamespace();
  Library lib = makeLibrary(Library::DEF, ns);
  lib.def("foo(Tensor x, int n) -> Tensor");
  lib.impl("foo", K::CPU, [](const Tensor &x, int64_t) { return x; });
  std::string message = errorOf([&] {
    lib.impl("foo", K::Meta, [](Tensor x, int64_t) { return x; });
  });
  EXPECT_EQ(message.rfind("Mismatch in kernel C++ signatures\n  operator: " + ns + "::foo", 0), 0u)
      << message;
}

TEST(Library, ScalarsKeepTheirKind) {
  std::string ns = freshNamespace();
  Library lib = makeLibrary(Library::DEF, ns);
  lib.def("kind(Scalar s) -> int");
  lib.impl("kind", K::CompositeImplicitAutograd,
           [](Scalar s) { return static_cast<int64_t>(s.kind()); });
  auto typed = Dispatcher::singleton().findSchemaOrThrow(ns + "::kind", "").typed<int64_t(Scalar)>();
  EXPECT_EQ(typed.call(Scalar(int64_t(1))), static_cast<int64_t>(Scalar::Kind::Int));
  EXPECT_EQ(typed.call(Scalar(1.0)), static_cast<int64_t>(Scalar::Kind::Double));
}

TEST(Library, OverloadsAreSeparateOps) {
  std::string ns = freshNamespace();
  Library lib = makeLibrary(Library::DEF, ns);
  lib.def("add.Tensor(Tensor self, Tensor other) -> Tensor");
  lib.def("add.Scalar(Tensor self, Scalar other) -> Tensor");
  auto names = Dispatcher::singleton().allOpNames();
  int found = 0;
  for (const auto &name : names)
    found += name.name == ns + "::add";
  EXPECT_EQ(found, 2);
  EXPECT_EQ(errorOf([&] { Dispatcher::singleton().findSchemaOrThrow(ns + "::add", ""); }),
            "Could not find schema for " + ns + "::add");
}

} // namespace
