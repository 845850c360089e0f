//===- ResolutionTest.cpp - Which kernel each table entry gets ------------===//
//
// The expected tables are PyTorch 1.13's (dispatch-semantics.md, section 5,
// checked against `torch._C._dispatch_dump_table`), except where docs/
// dispatch.md says opal differs (the AutogradMeta fallthrough, and no stale
// entries).
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

using namespace opal;
using namespace opal::test;
using K = DispatchKey;

namespace {


TEST(Resolution, CpuKernelAndMathKernel) {
  TestOp op;
  op.at(K::CPU);
  op.at(K::CompositeImplicitAutograd);
  EXPECT_EQ(op.prov("CPU"), "kernel");
  EXPECT_EQ(op.prov("CUDA"), "math kernel");
  EXPECT_EQ(op.prov("Meta"), "math kernel");
  EXPECT_EQ(op.prov("AutogradCPU"), "fallthrough backend fallback");
  EXPECT_EQ(op.prov("AutogradCUDA"), "math kernel");
  EXPECT_EQ(op.prov("AutogradOther"), "math kernel");
  EXPECT_EQ(op.prov("Undefined"), "math kernel");
  EXPECT_EQ(op.prov("NestedTensorCPU"), "math kernel");
  EXPECT_EQ(op.prov("Python"), "missing");
  EXPECT_EQ(op.prov("BackendSelect"), "fallthrough backend fallback");
}

TEST(Resolution, MathBeatsAutogradWithoutBackendKernel) {
  TestOp op;
  op.at(K::CompositeImplicitAutograd);
  op.at(K::Autograd);
  EXPECT_EQ(op.prov("AutogradCPU"), "math kernel");
  EXPECT_EQ(op.prov("AutogradOther"), "math kernel");
}

TEST(Resolution, AutogradKernelWithBackendKernel) {
  TestOp op;
  op.at(K::CPU);
  op.at(K::Autograd);
  op.at(K::CompositeImplicitAutograd);
  EXPECT_EQ(op.prov("AutogradCPU"), "autograd kernel");
  EXPECT_EQ(op.prov("AutogradCUDA"), "math kernel");
}

TEST(Resolution, ExplicitAutogradCoversBackends) {
  TestOp op;
  op.at(K::CompositeExplicitAutograd);
  EXPECT_EQ(op.prov("CPU"), "default backend kernel");
  EXPECT_EQ(op.prov("PrivateUse3"), "default backend kernel");
  EXPECT_EQ(op.prov("FPGA"), "default backend kernel");
  EXPECT_EQ(op.prov("QuantizedCPU"), "default backend kernel");
  EXPECT_EQ(op.prov("SparseCsrCUDA"), "default backend kernel");
  EXPECT_EQ(op.prov("Undefined"), "default backend kernel");
  EXPECT_EQ(op.prov("NestedTensorCPU"), "missing");
  EXPECT_EQ(op.prov("AutogradCPU"), "fallthrough backend fallback");
  EXPECT_EQ(op.prov("AutogradNestedTensor"), "missing");
  EXPECT_EQ(op.prov("AutogradPrivateUse1"), "fallthrough backend fallback");
  EXPECT_EQ(op.prov("AutogradPrivateUse2"), "missing");
}

TEST(Resolution, ExplicitSuppressesMathEverywhere) {
  TestOp op;
  op.at(K::CompositeImplicitAutograd);
  op.at(K::CompositeExplicitAutograd);
  EXPECT_EQ(op.prov("CPU"), "default backend kernel");
  EXPECT_EQ(op.prov("AutogradCPU"), "fallthrough backend fallback");
  EXPECT_EQ(op.prov("AutogradPrivateUse2"), "missing");
  // has_backend_kernel is true everywhere once CEA exists, so CIA serves
  // nothing, not even NestedTensor, which CEA does not cover.
  EXPECT_EQ(op.prov("NestedTensorCPU"), "missing");
}

TEST(Resolution, NoStaleEntryWhenExplicitFollowsImplicit) {
  // PyTorch 1.13 leaves AutogradCPU pointing at the CIA kernel here; opal
  // recomputes every entry.
  TestOp op;
  op.at(K::CompositeImplicitAutograd, 1);
  op.at(K::CompositeExplicitAutograd, 2);
  EXPECT_EQ(op.prov("AutogradCPU"), "fallthrough backend fallback");
  auto handle = op.handle();
  EXPECT_TRUE(handle.checkInvariants().empty());
  EXPECT_EQ(callTag(op.name, cpuTensor()), 2);
}

TEST(Resolution, MetaKernelWithMath) {
  TestOp op;
  op.at(K::CompositeImplicitAutograd, 1);
  op.at(K::Meta, 2);
  // PyTorch 1.13 has no AutogradMeta fallback, so this entry is missing
  // there; opal registers a fallthrough so a Meta kernel is reachable.
  EXPECT_EQ(op.prov("AutogradMeta"), "fallthrough backend fallback");
  EXPECT_EQ(op.prov("Meta"), "kernel");
  EXPECT_EQ(callTag(op.name, metaTensor()), 2);
}

TEST(Resolution, AmbiguousAutogradOther) {
  TestOp op;
  op.at(K::CompositeImplicitAutograd);
  op.at(K::QuantizedCPU);
  EXPECT_EQ(op.prov("AutogradOther"), "ambiguous autogradother");
  EXPECT_EQ(computedTable(op.name)["AutogradOther"],
            "ambiguous_autogradother [ambiguous autogradother]");
}

TEST(Resolution, AmbiguityComesBeforeExplicitAutograd) {
  TestOp op;
  op.at(K::CompositeImplicitAutograd);
  op.at(K::CompositeExplicitAutograd);
  op.at(K::FPGA);
  EXPECT_EQ(op.prov("AutogradOther"), "ambiguous autogradother");
  EXPECT_EQ(op.prov("FPGA"), "kernel");
}

TEST(Resolution, NonFunctionalExcludesSparseXlaLazy) {
  TestOp op;
  op.at(K::CompositeExplicitAutogradNonFunctional);
  EXPECT_EQ(op.prov("CPU"), "default backend kernel");
  EXPECT_EQ(op.prov("XLA"), "missing");
  EXPECT_EQ(op.prov("Lazy"), "missing");
  EXPECT_EQ(op.prov("QuantizedXLA"), "missing");
  EXPECT_EQ(op.prov("SparseCPU"), "missing");
  EXPECT_EQ(op.prov("FPGA"), "default backend kernel");
  EXPECT_EQ(op.prov("SparseCsrCPU"), "default backend kernel");
  EXPECT_EQ(op.prov("Undefined"), "default backend kernel");
}

TEST(Resolution, NonFunctionalBeatsExplicit) {
  TestOp op;
  op.at(K::CompositeExplicitAutograd, 1);
  op.at(K::CompositeExplicitAutogradNonFunctional, 2);
  EXPECT_EQ(callTag(op.name, cpuTensor()), 2);
  EXPECT_EQ(op.prov("XLA"), "default backend kernel");
}

TEST(Resolution, NestedTensorComposite) {
  TestOp op;
  op.at(K::CompositeImplicitAutogradNestedTensor);
  EXPECT_EQ(op.prov("NestedTensorCPU"), "nested kernel");
  EXPECT_EQ(op.prov("AutogradNestedTensor"), "nested kernel");
  EXPECT_EQ(op.prov("CPU"), "missing");
  EXPECT_EQ(op.prov("Undefined"), "missing");
}

TEST(Resolution, AutogradAliasCoversEveryAutogradKey) {
  TestOp op;
  op.at(K::Autograd);
  EXPECT_EQ(op.prov("AutogradCPU"), "autograd kernel");
  EXPECT_EQ(op.prov("AutogradHIP"), "autograd kernel");
  EXPECT_EQ(op.prov("AutogradOther"), "autograd kernel");
  EXPECT_EQ(op.prov("AutogradNestedTensor"), "autograd kernel");
  EXPECT_EQ(op.prov("CPU"), "missing");
}

TEST(Resolution, CatchAllIsMath) {
  TestOp op;
  op.impls.impl("foo", tagKernel(1)); // no key
  EXPECT_EQ(op.prov("CPU"), "math kernel");
  auto handle = op.handle();
  EXPECT_NE(handle.dumpState().find("CompositeImplicitAutograd[alias]: registered at test.cpp:1"),
            std::string::npos);
  EXPECT_TRUE(handle.hasKernelForDispatchKey(K::CompositeImplicitAutograd));
  EXPECT_FALSE(handle.hasKernelForDispatchKey(K::CPU));
}

TEST(Resolution, DirectFallthroughBeatsAliases) {
  TestOp op;
  op.at(K::CompositeExplicitAutograd);
  op.impls.impl("foo", K::CPU, CppFunction::makeFallthrough());
  EXPECT_EQ(op.prov("CPU"), "fallthrough kernel");
}

TEST(Resolution, DumpTableMatchesPyTorchText) {
  TestOp op;
  op.at(K::CPU);
  op.at(K::CompositeImplicitAutograd);
  std::string table = op.handle().dumpComputedTable();
  // PyTorch 2's first lines for this registration, word for word.
  EXPECT_EQ(table.substr(0, table.find("FPGA")),
            "Undefined: registered at test.cpp:1 [math kernel]\n"
            "CPU: registered at test.cpp:1 [kernel]\n"
            "CUDA: registered at test.cpp:1 [math kernel]\n"
            "HIP: registered at test.cpp:1 [math kernel]\n"
            "XLA: registered at test.cpp:1 [math kernel]\n"
            "MPS: registered at test.cpp:1 [math kernel]\n"
            "IPU: registered at test.cpp:1 [math kernel]\n"
            "XPU: registered at test.cpp:1 [math kernel]\n"
            "HPU: registered at test.cpp:1 [math kernel]\n"
            "VE: registered at test.cpp:1 [math kernel]\n"
            "Lazy: registered at test.cpp:1 [math kernel]\n"
            "MTIA: registered at test.cpp:1 [math kernel]\n"
            "MAIA: registered at test.cpp:1 [math kernel]\n"
            "PrivateUse1: registered at test.cpp:1 [math kernel]\n"
            "PrivateUse2: registered at test.cpp:1 [math kernel]\n"
            "PrivateUse3: registered at test.cpp:1 [math kernel]\n"
            "Meta: registered at test.cpp:1 [math kernel]\n");
  EXPECT_NE(table.find("\nADInplaceOrView: fallthrough registered at opal (framework "
                       "fallback) [backend fallback]\n"
                       "AutogradOther: registered at test.cpp:1 [math kernel]\n"
                       "AutogradCPU: fallthrough registered at opal (framework "
                       "fallback) [backend fallback]\n"
                       "AutogradCUDA: registered at test.cpp:1 [math kernel]\n"),
            std::string::npos)
      << table;
}

TEST(Resolution, BackendFallbackFillsMissingEntries) {
  TestOp op;
  op.at(K::CPU);
  EXPECT_EQ(op.prov("PrivateUse2"), "missing");
  {
    Library global = makeLibrary(Library::IMPL, "_", K::PrivateUse2);
    global.fallback([](const Tensor &) { return Tensor::empty({7}); });
    EXPECT_EQ(op.prov("PrivateUse2"), "backend fallback");
    std::string error = errorOf([&] {
      Library again = makeLibrary(Library::IMPL, "_", K::PrivateUse2);
      again.fallback(CppFunction::makeFallthrough());
    });
    EXPECT_EQ(error.rfind("Tried to register multiple backend fallbacks for the "
                          "same dispatch key PrivateUse2; previous registration "
                          "registered at test.cpp:1, new registration registered at test.cpp:1", 0),
              0u) << error;
  }
  EXPECT_EQ(op.prov("PrivateUse2"), "missing");
}

TEST(Resolution, InvariantsHoldAfterManyChanges) {
  TestOp op;
  std::vector<Library> libraries;
  for (K key : {K::CPU, K::CompositeImplicitAutograd, K::Autograd, K::Meta,
                K::CompositeExplicitAutograd, K::QuantizedCPU, K::AutogradCPU}) {
    libraries.push_back(makeLibrary(Library::FRAGMENT, op.ns));
    libraries.back().impl("foo", key, tagKernel(1));
    auto handle = op.handle();
    EXPECT_TRUE(handle.checkInvariants().empty()) << toString(key);
  }
  while (!libraries.empty()) {
    libraries.pop_back();
    auto handle = op.handle();
    EXPECT_TRUE(handle.checkInvariants().empty());
  }
}

} // namespace
