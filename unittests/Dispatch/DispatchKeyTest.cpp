//===- DispatchKeyTest.cpp - Keys, keysets and TLS ------------------------===//

#include "opal/Dispatch/LocalDispatchKeySet.h"

#include <gtest/gtest.h>

#include <thread>

using namespace opal;
using K = DispatchKey;

namespace {

DispatchKeySet set(std::initializer_list<DispatchKey> keys) {
  return DispatchKeySet(keys);
}

TEST(DispatchKey, NamesAndCounts) {
  EXPECT_EQ(kNumBackends, 16);
  EXPECT_EQ(kNumFunctionalityKeys, 47);
  EXPECT_EQ(kNumRuntimeEntries, 137);
  EXPECT_STREQ(toString(K::CPU), "CPU");
  EXPECT_STREQ(toString(K::AutogradCUDA), "AutogradCUDA");
  EXPECT_STREQ(toString(K::QuantizedHIP), "QuantizedHIP");
  EXPECT_STREQ(toString(K::NestedTensorMeta), "NestedTensorMeta");
  EXPECT_STREQ(toString(K::CompositeImplicitAutograd), "CompositeImplicitAutograd");
  EXPECT_STREQ(toString(K::PythonDispatcher), "PythonDispatcher");
  EXPECT_STREQ(toString(BackendComponent::MetaBit), "MetaBit");
  EXPECT_EQ(K::DefaultBackend, K::CompositeExplicitAutograd);
  EXPECT_EQ(K::CatchAll, K::Undefined);
}

TEST(DispatchKey, StructureHelpers) {
  EXPECT_EQ(toFunctionalityKey(K::CPU), K::Dense);
  EXPECT_EQ(toFunctionalityKey(K::AutogradMeta), K::AutogradFunctionality);
  EXPECT_EQ(toFunctionalityKey(K::SparseCUDA), K::Sparse);
  EXPECT_EQ(toFunctionalityKey(K::FPGA), K::FPGA);
  EXPECT_EQ(toBackendComponent(K::CUDA), BackendComponent::CUDABit);
  EXPECT_EQ(toBackendComponent(K::QuantizedPrivateUse3), BackendComponent::PrivateUse3Bit);
  EXPECT_EQ(toBackendComponent(K::FPGA), BackendComponent::InvalidBit);
  EXPECT_EQ(toRuntimePerBackendFunctionalityKey(K::Dense, BackendComponent::MetaBit), K::Meta);
  EXPECT_EQ(toRuntimePerBackendFunctionalityKey(K::AutogradFunctionality, BackendComponent::CPUBit), K::AutogradCPU);
  EXPECT_TRUE(isPerBackendFunctionalityKey(K::NestedTensor));
  EXPECT_TRUE(isPerBackendFunctionalityKey(K::SparseCsr));
  EXPECT_FALSE(isPerBackendFunctionalityKey(K::SparseCsrCPU));
  EXPECT_EQ(toFunctionalityKey(K::SparseCsrMeta), K::SparseCsr);
  EXPECT_EQ(toBackendComponent(K::AutogradMTIA), BackendComponent::MTIABit);
  EXPECT_TRUE(isAliasDispatchKey(K::Autograd));
  EXPECT_FALSE(isAliasDispatchKey(K::AutogradCPU));
  EXPECT_EQ(getAutogradKeyFromBackend(BackendComponent::CPUBit), K::AutogradCPU);
  EXPECT_EQ(getAutogradKeyFromBackend(BackendComponent::HIPBit), K::AutogradOther);
  EXPECT_EQ(getAutogradKeyFromBackend(BackendComponent::InvalidBit), K::AutogradOther);
  EXPECT_TRUE(isBackendDispatchKey(K::CPU));
  EXPECT_TRUE(isBackendDispatchKey(K::FPGA));
  EXPECT_TRUE(isBackendDispatchKey(K::QuantizedCPU));
  EXPECT_FALSE(isBackendDispatchKey(K::NestedTensorCPU));
  EXPECT_FALSE(isBackendDispatchKey(K::AutogradCPU));
  EXPECT_FALSE(isBackendDispatchKey(K::CompositeExplicitAutograd));
}

TEST(DispatchKey, ParseAcceptsPyTorchNamesOnly) {
  EXPECT_EQ(*parseDispatchKey("CPU"), K::CPU);
  EXPECT_EQ(*parseDispatchKey("AutogradPrivateUse1"), K::AutogradPrivateUse1);
  EXPECT_EQ(*parseDispatchKey("CompositeExplicitAutogradNonFunctional"),
            K::CompositeExplicitAutogradNonFunctional);
  EXPECT_EQ(*parseDispatchKey("Undefined"), K::Undefined);
  EXPECT_EQ(*parseDispatchKey("SparseCsrMeta"), K::SparseCsrMeta);
  EXPECT_EQ(parsableDispatchKeyNames().size(), 107u);
  for (const char *rejected : {"AutogradHIP", "AutogradVE", "AutogradMTIA", "QuantizedMeta",
                               "Math", "Named", "ORT", "CatchAll", "cpu", "",
                               "StartOfDenseBackends"}) {
    SCOPED_TRACE(rejected);
    auto result = parseDispatchKey(rejected);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().message(), std::string("could not parse dispatch key: ") + rejected);
  }
}

TEST(DispatchKeySet, Representation) {
  EXPECT_TRUE(DispatchKeySet(K::Undefined).empty());
  EXPECT_TRUE(DispatchKeySet(K::CompositeImplicitAutograd).empty());
  DispatchKeySet cpu(K::CPU);
  EXPECT_TRUE(cpu.has(K::CPU));
  EXPECT_TRUE(cpu.has(K::Dense));
  EXPECT_TRUE(cpu.hasBackend(BackendComponent::CPUBit));
  EXPECT_FALSE(cpu.has(K::CUDA));
  // Cross product: {CPU} ∪ {AutogradCUDA} has all four combinations.
  DispatchKeySet cross = cpu | DispatchKeySet(K::AutogradCUDA);
  EXPECT_TRUE(cross.has(K::CUDA));
  EXPECT_TRUE(cross.has(K::AutogradCPU));
  EXPECT_EQ(cross.str(), "DispatchKeySet(CPU, CUDA, AutogradCPU, AutogradCUDA)");
}

TEST(DispatchKeySet, RemoveKeepsBackendBits) {
  DispatchKeySet ks = set({K::CPU, K::AutogradCPU});
  DispatchKeySet removed = ks.remove(K::AutogradCPU);
  EXPECT_FALSE(removed.has(K::AutogradCPU));
  EXPECT_TRUE(removed.has(K::CPU));
  // Removing AutogradCPU removes autograd for every backend.
  DispatchKeySet two = set({K::CPU, K::CUDA, K::AutogradCPU, K::AutogradCUDA});
  EXPECT_FALSE((two - DispatchKeySet(K::AutogradCPU)).has(K::AutogradCUDA));
  EXPECT_TRUE(two.removeBackend(BackendComponent::CUDABit).has(K::CPU));
  EXPECT_FALSE(two.removeBackend(BackendComponent::CUDABit).has(K::CUDA));
}

TEST(DispatchKeySet, HighestPriority) {
  EXPECT_EQ(set({K::CPU, K::AutogradCPU}).highestPriorityTypeId(), K::AutogradCPU);
  EXPECT_EQ(set({K::CPU, K::CUDA}).highestPriorityTypeId(), K::CUDA);
  EXPECT_EQ(set({K::CPU, K::Meta}).highestPriorityTypeId(), K::Meta);
  EXPECT_EQ(set({K::CPU, K::QuantizedCPU}).highestPriorityTypeId(), K::QuantizedCPU);
  EXPECT_EQ(set({K::AutogradCPU, K::Python, K::CPU}).highestPriorityTypeId(), K::AutogradCPU);
  EXPECT_EQ(set({K::CPU, K::AutogradCPU, K::PythonTLSSnapshot}).highestPriorityTypeId(),
            K::PythonTLSSnapshot);
  EXPECT_EQ(DispatchKeySet().highestPriorityTypeId(), K::Undefined);
  EXPECT_EQ(set({K::FPGA}).highestPriorityTypeId(), K::FPGA);
}

TEST(DispatchKeySet, FullAfter) {
  DispatchKeySet afterAutograd(DispatchKeySet::FULL_AFTER, K::AutogradCPU);
  EXPECT_TRUE(afterAutograd.has(K::CPU));
  EXPECT_TRUE(afterAutograd.has(K::CUDA));
  EXPECT_TRUE(afterAutograd.has(K::AutogradOther));
  EXPECT_TRUE(afterAutograd.has(K::ADInplaceOrView));
  EXPECT_FALSE(afterAutograd.has(K::AutogradCPU));
  EXPECT_FALSE(afterAutograd.has(K::AutogradNestedTensor));
  EXPECT_TRUE(afterAutograd.has(K::PythonDispatcher));
  DispatchKeySet afterCpu(DispatchKeySet::FULL_AFTER, K::CPU);
  EXPECT_EQ(afterCpu.str(), "DispatchKeySet(PythonDispatcher)");
}

TEST(DispatchKeySet, PrintingSkipsPerBackendWithoutBackend) {
  // The inference-mode exclude set prints without AutogradFunctionality.
  DispatchKeySet ks = kAutogradDispatchKeySet | DispatchKeySet(K::ADInplaceOrView);
  EXPECT_EQ(ks.str(), "DispatchKeySet(ADInplaceOrView, AutogradOther, AutogradNestedTensor)");
  EXPECT_EQ(set({K::CPU, K::ADInplaceOrView, K::AutogradCPU, K::AutocastCPU}).str(),
            "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)");
}

TEST(DispatchKeySet, AliasRuntimeSets) {
  auto in = [](K alias, K k) { return isIncludedInAlias(k, alias); };
  EXPECT_TRUE(in(K::Autograd, K::AutogradCPU));
  EXPECT_TRUE(in(K::Autograd, K::AutogradOther));
  EXPECT_TRUE(in(K::Autograd, K::AutogradNestedTensor));
  EXPECT_TRUE(in(K::Autograd, K::AutogradHIP));
  EXPECT_FALSE(in(K::Autograd, K::CPU));
  EXPECT_TRUE(in(K::CompositeExplicitAutograd, K::CPU));
  EXPECT_TRUE(in(K::CompositeExplicitAutograd, K::PrivateUse3));
  EXPECT_TRUE(in(K::CompositeExplicitAutograd, K::FPGA));
  EXPECT_TRUE(in(K::CompositeExplicitAutograd, K::QuantizedCPU));
  EXPECT_TRUE(in(K::CompositeExplicitAutograd, K::SparseCUDA));
  EXPECT_FALSE(in(K::CompositeExplicitAutograd, K::NestedTensorCPU));
  EXPECT_FALSE(in(K::CompositeExplicitAutograd, K::AutogradCPU));
  EXPECT_TRUE(in(K::CompositeExplicitAutogradNonFunctional, K::CPU));
  EXPECT_FALSE(in(K::CompositeExplicitAutogradNonFunctional, K::XLA));
  EXPECT_FALSE(in(K::CompositeExplicitAutogradNonFunctional, K::QuantizedXLA));
  EXPECT_FALSE(in(K::CompositeExplicitAutogradNonFunctional, K::SparseCPU));
  EXPECT_TRUE(in(K::CompositeExplicitAutogradNonFunctional, K::FPGA));
  EXPECT_TRUE(in(K::CompositeExplicitAutogradNonFunctional, K::SparseCsrCPU));
  EXPECT_TRUE(in(K::CompositeImplicitAutograd, K::NestedTensorCPU));
  EXPECT_TRUE(in(K::CompositeImplicitAutograd, K::AutogradCPU));
  EXPECT_TRUE(in(K::CompositeImplicitAutograd, K::CPU));
  EXPECT_FALSE(in(K::CompositeImplicitAutograd, K::Python));
  EXPECT_TRUE(in(K::CompositeImplicitAutogradNestedTensor, K::NestedTensorCUDA));
  EXPECT_TRUE(in(K::CompositeImplicitAutogradNestedTensor, K::AutogradNestedTensor));
  EXPECT_FALSE(in(K::CompositeImplicitAutogradNestedTensor, K::CPU));
  EXPECT_FALSE(in(K::CompositeImplicitAutograd, K::Undefined));
}

TEST(DispatchKeySet, BackendKeySetFromAutograd) {
  EXPECT_EQ(getBackendKeySetFromAutograd(K::AutogradCPU), DispatchKeySet(K::CPU));
  EXPECT_EQ(getBackendKeySetFromAutograd(K::AutogradMeta), DispatchKeySet(K::Meta));
  EXPECT_TRUE(getBackendKeySetFromAutograd(K::AutogradOther).has(K::QuantizedCPU));
  EXPECT_TRUE(getBackendKeySetFromAutograd(K::AutogradOther).has(K::FPGA));
  EXPECT_FALSE(getBackendKeySetFromAutograd(K::AutogradOther).has(K::CPU));
  EXPECT_TRUE(getBackendKeySetFromAutograd(K::AutogradNestedTensor).has(K::NestedTensorCUDA));
  EXPECT_TRUE(getBackendKeySetFromAutograd(K::AutogradHIP).empty());
  EXPECT_TRUE(getBackendKeySetFromAutograd(K::AutogradVE).empty());
}

TEST(DispatchKeySet, TableLayoutIsPyTorchsDumpOrder) {
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::Undefined), 0);
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::CPU), 1);
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::PrivateUse3), 15);
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::Meta), 16);
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::FPGA), 17);
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::QuantizedCPU), 20);
  EXPECT_EQ(getDispatchTableIndexForDispatchKey(K::PythonDispatcher), kNumRuntimeEntries - 1);
  for (uint16_t i = 0; i < kNumRuntimeEntries; ++i)
    EXPECT_EQ(getDispatchTableIndexForDispatchKey(getDispatchKeyForDispatchTableIndex(i)), i);
  std::string order;
  for (uint16_t i = 15; i < 22; ++i)
    order += std::string(toString(getDispatchKeyForDispatchTableIndex(i))) + " ";
  EXPECT_EQ(order, "PrivateUse3 Meta FPGA Vulkan Metal QuantizedCPU QuantizedCUDA ");
}

TEST(LocalDispatchKeySet, Defaults) {
  PODLocalDispatchKeySet fresh;
  EXPECT_EQ(fresh.included().str(), "DispatchKeySet(BackendSelect, ADInplaceOrView)");
  EXPECT_EQ(fresh.excluded().str(),
            "DispatchKeySet(AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastIPU, "
            "AutocastHPU, AutocastXLA, AutocastMPS, AutocastCUDA, AutocastPrivateUse1)");
}

TEST(LocalDispatchKeySet, GuardsNestAndRestore) {
  PODLocalDispatchKeySet before = tlsLocalDispatchKeySet();
  {
    ExcludeDispatchKeyGuard outer(K::Python);
    EXPECT_TRUE(tlsIsDispatchKeyExcluded(K::Python));
    {
      ExcludeDispatchKeyGuard inner(set({K::Python, K::Conjugate}));
      EXPECT_TRUE(tlsIsDispatchKeyExcluded(K::Conjugate));
    }
    // The inner guard removed only what it added.
    EXPECT_TRUE(tlsIsDispatchKeyExcluded(K::Python));
    EXPECT_FALSE(tlsIsDispatchKeyExcluded(K::Conjugate));
    IncludeDispatchKeyGuard include(K::Meta);
    EXPECT_TRUE(tlsIsDispatchKeyIncluded(K::Meta));
  }
  EXPECT_EQ(tlsLocalDispatchKeySet().included(), before.included());
  EXPECT_EQ(tlsLocalDispatchKeySet().excluded(), before.excluded());
  {
    AutoDispatchBelowAutograd below;
    EXPECT_TRUE(tlsIsDispatchKeyExcluded(K::AutogradOther));
    EXPECT_TRUE(tlsLocalDispatchKeySet().excluded().has(K::AutogradFunctionality));
  }
  EXPECT_FALSE(tlsIsDispatchKeyExcluded(K::AutogradOther));
  {
    ForceDispatchKeyGuard force(DispatchKeySet(), DispatchKeySet(K::Python));
    EXPECT_FALSE(tlsIsDispatchKeyIncluded(K::BackendSelect));
    tlsSetDispatchKeyIncluded(K::Conjugate, true);
    EXPECT_TRUE(tlsIsDispatchKeyIncluded(K::Conjugate));
  }
  EXPECT_FALSE(tlsIsDispatchKeyIncluded(K::Conjugate));
  EXPECT_TRUE(tlsIsDispatchKeyIncluded(K::BackendSelect));
  tlsSetDispatchKeyExcluded(K::AutocastCPU, false);
  EXPECT_FALSE(tlsIsDispatchKeyExcluded(K::AutocastCPU));
  tlsSetDispatchKeyExcluded(K::AutocastCPU, true);
}

TEST(LocalDispatchKeySet, IsPerThread) {
  ExcludeDispatchKeyGuard guard(K::Python);
  bool seenInOtherThread = true;
  std::thread([&] { seenInOtherThread = tlsIsDispatchKeyExcluded(K::Python); }).join();
  EXPECT_FALSE(seenInOtherThread);
}

} // namespace
