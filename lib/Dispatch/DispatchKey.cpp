//===- DispatchKey.cpp - PyTorch 2's dispatch keys ------------------------===//

#include "opal/Dispatch/DispatchKey.h"

#include "opal/Dispatch/DispatchKeySet.h"

#include <array>

using namespace opal;

namespace {

constexpr size_t kNumKeys =
    static_cast<size_t>(DispatchKey::EndOfAliasKeys) + 1;

/// The name of every DispatchKey value, indexed by the value.
const std::array<const char *, kNumKeys> &keyNames() {
  static const std::array<const char *, kNumKeys> names = [] {
    std::array<const char *, kNumKeys> result{};
    auto set = [&](DispatchKey k, const char *name) {
      result[static_cast<size_t>(k)] = name;
    };
    set(DispatchKey::Undefined, "Undefined");
#define OPAL_NAME_KEY(name) set(DispatchKey::name, #name);
    OPAL_FORALL_FUNCTIONALITY_KEYS(OPAL_NAME_KEY)
#undef OPAL_NAME_KEY
    set(DispatchKey::EndOfFunctionalityKeys, "EndOfFunctionalityKeys");
    set(DispatchKey::StartOfDenseBackends, "StartOfDenseBackends");
    set(DispatchKey::StartOfQuantizedBackends, "StartOfQuantizedBackends");
    set(DispatchKey::StartOfSparseBackends, "StartOfSparseBackends");
    set(DispatchKey::StartOfSparseCsrBackends, "StartOfSparseCsrBackends");
    set(DispatchKey::StartOfNestedTensorBackends, "StartOfNestedTensorBackends");
    set(DispatchKey::StartOfAutogradFunctionalityBackends,
        "StartOfAutogradFunctionalityBackends");
#define OPAL_NAME_BACKEND_KEY(prefix, name)                                    \
  set(DispatchKey::prefix##name, #prefix #name);
    OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BACKEND_KEY, )
    OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BACKEND_KEY, Quantized)
    OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BACKEND_KEY, Sparse)
    OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BACKEND_KEY, SparseCsr)
    OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BACKEND_KEY, NestedTensor)
    OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BACKEND_KEY, Autograd)
#undef OPAL_NAME_BACKEND_KEY
    set(DispatchKey::Autograd, "Autograd");
    set(DispatchKey::CompositeImplicitAutograd, "CompositeImplicitAutograd");
    set(DispatchKey::FuncTorchBatchedDecomposition, "FuncTorchBatchedDecomposition");
    set(DispatchKey::CompositeImplicitAutogradNestedTensor,
        "CompositeImplicitAutogradNestedTensor");
    set(DispatchKey::CompositeExplicitAutograd, "CompositeExplicitAutograd");
    set(DispatchKey::CompositeExplicitAutogradNonFunctional,
        "CompositeExplicitAutogradNonFunctional");
    return result;
  }();
  return names;
}

} // namespace

const char *opal::toString(DispatchKey k) {
  auto index = static_cast<size_t>(k);
  return index < kNumKeys ? keyNames()[index] : "UNKNOWN_DISPATCH_KEY";
}

const char *opal::toString(BackendComponent b) {
  static constexpr const char *names[] = {
      "InvalidBit",
#define OPAL_NAME_BIT(prefix, name) #name "Bit",
      OPAL_FORALL_BACKEND_COMPONENTS(OPAL_NAME_BIT, )
#undef OPAL_NAME_BIT
  };
  auto index = static_cast<size_t>(b);
  return index <= kNumBackends ? names[index] : "UNKNOWN_BACKEND_BIT";
}

DispatchKey opal::getAutogradKeyFromBackend(BackendComponent backend) {
  switch (backend) {
  case BackendComponent::CPUBit: return DispatchKey::AutogradCPU;
  case BackendComponent::CUDABit: return DispatchKey::AutogradCUDA;
  case BackendComponent::XLABit: return DispatchKey::AutogradXLA;
  case BackendComponent::LazyBit: return DispatchKey::AutogradLazy;
  case BackendComponent::MetaBit: return DispatchKey::AutogradMeta;
  case BackendComponent::MPSBit: return DispatchKey::AutogradMPS;
  case BackendComponent::HPUBit: return DispatchKey::AutogradHPU;
  case BackendComponent::IPUBit: return DispatchKey::AutogradIPU;
  case BackendComponent::XPUBit: return DispatchKey::AutogradXPU;
  case BackendComponent::MTIABit: return DispatchKey::AutogradMTIA;
  case BackendComponent::MAIABit: return DispatchKey::AutogradMAIA;
  case BackendComponent::PrivateUse1Bit: return DispatchKey::AutogradPrivateUse1;
  case BackendComponent::PrivateUse2Bit: return DispatchKey::AutogradPrivateUse2;
  case BackendComponent::PrivateUse3Bit: return DispatchKey::AutogradPrivateUse3;
  default: // HIP and VE have no Autograd key of their own in PyTorch
    return DispatchKey::AutogradOther;
  }
}

bool opal::isBackendDispatchKey(DispatchKey k) {
  return k != DispatchKey::Undefined && !isAliasDispatchKey(k) &&
         k != DispatchKey::NestedTensor &&
         getRuntimeDispatchKeySet(DispatchKey::CompositeExplicitAutograd).has(k);
}

const std::vector<std::string_view> &opal::parsableDispatchKeyNames() {
  // Exactly the names PyTorch 2.15's c10::parseDispatchKey accepts (checked
  // against torch 2.15.0), in its key order: the per-backend functionalities,
  // every other functionality key and every dense backend, the Quantized,
  // Sparse, SparseCsr, NestedTensor and Autograd keys it names, and the
  // alias keys.
  static const std::vector<std::string_view> names = {
      "Undefined", "Dense", "Quantized", "Sparse", "SparseCsr", "NestedTensor",
      "AutogradFunctionality", "CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE",
      "Lazy", "MTIA", "MAIA", "PrivateUse1", "PrivateUse2", "PrivateUse3", "Meta", "FPGA",
      "Vulkan", "Metal", "QuantizedCPU", "QuantizedCUDA", "QuantizedXPU",
      "QuantizedPrivateUse1", "CustomRNGKeyId", "MkldnnCPU", "SparseCPU", "SparseCUDA",
      "SparseHIP", "SparseMPS", "SparseXPU", "SparseVE", "SparsePrivateUse1", "SparseMeta",
      "SparseCsrCPU", "SparseCsrCUDA", "SparseCsrHIP", "SparseCsrMPS", "SparseCsrXPU",
      "SparseCsrVE", "SparseCsrPrivateUse1", "SparseCsrMeta", "NestedTensorCPU",
      "NestedTensorCUDA", "NestedTensorXPU", "NestedTensorHPU", "NestedTensorPrivateUse1",
      "NestedTensorMeta", "BackendSelect", "Fake", "Python", "FuncTorchDynamicLayerBackMode",
      "Functionalize", "Conjugate", "Negative", "ZeroTensor", "ADInplaceOrView",
      "AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradXLA", "AutogradMPS",
      "AutogradIPU", "AutogradXPU", "AutogradHPU", "AutogradLazy", "AutogradPrivateUse1",
      "AutogradPrivateUse2", "AutogradPrivateUse3", "AutogradMeta", "AutogradNestedTensor",
      "Tracer", "AutocastCPU", "AutocastMTIA", "AutocastMAIA", "AutocastXPU", "AutocastIPU",
      "AutocastHPU", "AutocastXLA", "AutocastMPS", "AutocastCUDA", "AutocastPrivateUse1",
      "FuncTorchBatched", "BatchedNestedTensor", "FuncTorchVmapMode", "Batched", "VmapMode",
      "FuncTorchGradWrapper", "DeferredInit", "PythonTLSSnapshot",
      "FuncTorchDynamicLayerFrontMode", "TESTING_ONLY_GenericWrapper",
      "TESTING_ONLY_GenericMode", "PreDispatch", "PythonDispatcher", "Autograd",
      "CompositeImplicitAutograd", "FuncTorchBatchedDecomposition",
      "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd",
      "CompositeExplicitAutogradNonFunctional"};
  return names;
}

Expected<DispatchKey> opal::parseDispatchKey(std::string_view name) {
  bool parsable = false;
  for (std::string_view candidate : parsableDispatchKeyNames())
    parsable |= candidate == name;
  if (parsable)
    for (size_t i = 0; i < kNumKeys; ++i)
      if (keyNames()[i] && name == keyNames()[i])
        return static_cast<DispatchKey>(i);
  return makeUnexpected(Error("could not parse dispatch key: " + std::string(name)));
}
