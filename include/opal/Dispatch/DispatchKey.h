//===- DispatchKey.h - PyTorch 2's dispatch keys ----------------*- C++ -*-===//
//
// Dispatch keys name what a kernel is registered for and what a call dispatches
// to. The names, order and structure are PyTorch 2.15's (c10's DispatchKey):
//
//  - 16 backend components (CPU ... PrivateUse3, then Meta);
//  - 46 functionality keys in priority order (a later key wins);
//  - six functionalities that are customizable per backend (Dense, Quantized,
//    Sparse, SparseCsr, NestedTensor, AutogradFunctionality), each expanding
//    to one runtime key per backend (CPU, QuantizedCPU, SparseCPU,
//    SparseCsrCPU, NestedTensorCPU, AutogradCPU, ...);
//  - six alias keys that stand for sets of runtime keys at registration.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_DISPATCHKEY_H
#define OPAL_DISPATCH_DISPATCHKEY_H

#include "opal/Support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opal {

// The backend components, lowest first: _(prefix, Name).
#define OPAL_FORALL_BACKEND_COMPONENTS(_, prefix)                              \
  _(prefix, CPU)                                                               \
  _(prefix, CUDA)                                                              \
  _(prefix, HIP)                                                               \
  _(prefix, XLA)                                                               \
  _(prefix, MPS)                                                               \
  _(prefix, IPU)                                                               \
  _(prefix, XPU)                                                               \
  _(prefix, HPU)                                                               \
  _(prefix, VE)                                                                \
  _(prefix, Lazy)                                                              \
  _(prefix, MTIA)                                                              \
  _(prefix, MAIA)                                                              \
  _(prefix, PrivateUse1)                                                       \
  _(prefix, PrivateUse2)                                                       \
  _(prefix, PrivateUse3)                                                       \
  _(prefix, Meta)

// The functionality keys, lowest priority first.
#define OPAL_FORALL_FUNCTIONALITY_KEYS(_)                                      \
  _(Dense)                                                                     \
  _(FPGA)                                                                      \
  _(Vulkan)                                                                    \
  _(Metal)                                                                     \
  _(Quantized)                                                                 \
  _(CustomRNGKeyId)                                                            \
  _(MkldnnCPU)                                                                 \
  _(Sparse)                                                                    \
  _(SparseCsr)                                                                 \
  _(NestedTensor)                                                              \
  _(BackendSelect)                                                             \
  _(Fake)                                                                      \
  _(Python)                                                                    \
  _(FuncTorchDynamicLayerBackMode)                                             \
  _(Functionalize)                                                             \
  _(Conjugate)                                                                 \
  _(Negative)                                                                  \
  _(ZeroTensor)                                                                \
  _(ADInplaceOrView)                                                           \
  _(AutogradOther)                                                             \
  _(AutogradFunctionality)                                                     \
  _(AutogradNestedTensor)                                                      \
  _(Tracer)                                                                    \
  _(AutocastCPU)                                                               \
  _(AutocastMTIA)                                                              \
  _(AutocastMAIA)                                                              \
  _(AutocastXPU)                                                               \
  _(AutocastIPU)                                                               \
  _(AutocastHPU)                                                               \
  _(AutocastXLA)                                                               \
  _(AutocastMPS)                                                               \
  _(AutocastCUDA)                                                              \
  _(AutocastPrivateUse1)                                                       \
  _(FuncTorchBatched)                                                          \
  _(BatchedNestedTensor)                                                       \
  _(FuncTorchVmapMode)                                                         \
  _(Batched)                                                                   \
  _(VmapMode)                                                                  \
  _(FuncTorchGradWrapper)                                                      \
  _(DeferredInit)                                                              \
  _(PythonTLSSnapshot)                                                         \
  _(FuncTorchDynamicLayerFrontMode)                                            \
  _(TESTING_ONLY_GenericWrapper)                                               \
  _(TESTING_ONLY_GenericMode)                                                  \
  _(PreDispatch)                                                               \
  _(PythonDispatcher)

#define OPAL_BACKEND_BIT_ENUMERATOR(prefix, name) name##Bit,
enum class BackendComponent : uint8_t {
  InvalidBit = 0,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_BIT_ENUMERATOR, )
  EndOfBackendKeys = MetaBit,
};
#undef OPAL_BACKEND_BIT_ENUMERATOR

constexpr uint8_t kNumBackends = static_cast<uint8_t>(BackendComponent::EndOfBackendKeys);

#define OPAL_KEY_ENUMERATOR(name) name,
#define OPAL_BACKEND_KEY_ENUMERATOR(prefix, name) prefix##name,
enum class DispatchKey : uint16_t {
  Undefined = 0,
  CatchAll = Undefined,

  OPAL_FORALL_FUNCTIONALITY_KEYS(OPAL_KEY_ENUMERATOR)
  EndOfFunctionalityKeys,

  StartOfDenseBackends,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_KEY_ENUMERATOR, )
  EndOfDenseBackends = Meta,

  StartOfQuantizedBackends,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_KEY_ENUMERATOR, Quantized)
  EndOfQuantizedBackends = QuantizedMeta,

  StartOfSparseBackends,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_KEY_ENUMERATOR, Sparse)
  EndOfSparseBackends = SparseMeta,

  StartOfSparseCsrBackends,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_KEY_ENUMERATOR, SparseCsr)
  EndOfSparseCsrBackends = SparseCsrMeta,

  StartOfNestedTensorBackends,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_KEY_ENUMERATOR, NestedTensor)
  EndOfNestedTensorBackends = NestedTensorMeta,

  StartOfAutogradFunctionalityBackends,
  OPAL_FORALL_BACKEND_COMPONENTS(OPAL_BACKEND_KEY_ENUMERATOR, Autograd)
  EndOfAutogradFunctionalityBackends = AutogradMeta,

  EndOfRuntimeBackendKeys = EndOfAutogradFunctionalityBackends,

  // Alias keys: registration targets that stand for sets of runtime keys.
  Autograd,
  CompositeImplicitAutograd,
  FuncTorchBatchedDecomposition,
  CompositeImplicitAutogradNestedTensor,
  CompositeExplicitAutograd,
  CompositeExplicitAutogradNonFunctional,
  StartOfAliasKeys = Autograd,
  EndOfAliasKeys = CompositeExplicitAutogradNonFunctional,

  // Backwards-compatible names, as in PyTorch.
  DefaultBackend = CompositeExplicitAutograd,
  Autocast = AutocastCUDA,
  PrivateUse1_PreAutograd = AutogradPrivateUse1,
};
#undef OPAL_KEY_ENUMERATOR
#undef OPAL_BACKEND_KEY_ENUMERATOR

constexpr uint8_t kNumFunctionalityKeys =
    static_cast<uint8_t>(DispatchKey::EndOfFunctionalityKeys); // with Undefined
constexpr uint8_t kNumPerBackendFunctionalities = 6;
/// Slots in an operator's dispatch table: one per functionality, 16 for each
/// per-backend functionality.
constexpr uint16_t kNumRuntimeEntries =
    kNumFunctionalityKeys + kNumPerBackendFunctionalities * (kNumBackends - 1);

/// Dense, Quantized, Sparse, SparseCsr, NestedTensor and
/// AutogradFunctionality.
constexpr bool isPerBackendFunctionalityKey(DispatchKey k) {
  return k == DispatchKey::Dense || k == DispatchKey::Quantized ||
         k == DispatchKey::Sparse || k == DispatchKey::SparseCsr ||
         k == DispatchKey::NestedTensor || k == DispatchKey::AutogradFunctionality;
}

constexpr bool isAliasDispatchKey(DispatchKey k) {
  return k >= DispatchKey::StartOfAliasKeys && k <= DispatchKey::EndOfAliasKeys;
}

/// True for the keys that occupy a slot in the dispatch table, Undefined
/// included.
constexpr bool isRuntimeDispatchKey(DispatchKey k) {
  return k <= DispatchKey::EndOfRuntimeBackendKeys &&
         k != DispatchKey::EndOfFunctionalityKeys &&
         k != DispatchKey::StartOfDenseBackends &&
         k != DispatchKey::StartOfQuantizedBackends &&
         k != DispatchKey::StartOfSparseBackends &&
         k != DispatchKey::StartOfSparseCsrBackends &&
         k != DispatchKey::StartOfNestedTensorBackends &&
         k != DispatchKey::StartOfAutogradFunctionalityBackends &&
         !isPerBackendFunctionalityKey(k);
}

/// The functionality of a key: CPU → Dense, AutogradCUDA →
/// AutogradFunctionality, FPGA → FPGA; Undefined for alias keys.
constexpr DispatchKey toFunctionalityKey(DispatchKey k) {
  if (k <= DispatchKey::EndOfFunctionalityKeys)
    return k;
  if (k <= DispatchKey::EndOfDenseBackends)
    return DispatchKey::Dense;
  if (k <= DispatchKey::EndOfQuantizedBackends)
    return DispatchKey::Quantized;
  if (k <= DispatchKey::EndOfSparseBackends)
    return DispatchKey::Sparse;
  if (k <= DispatchKey::EndOfSparseCsrBackends)
    return DispatchKey::SparseCsr;
  if (k <= DispatchKey::EndOfNestedTensorBackends)
    return DispatchKey::NestedTensor;
  if (k <= DispatchKey::EndOfAutogradFunctionalityBackends)
    return DispatchKey::AutogradFunctionality;
  return DispatchKey::Undefined;
}

/// The backend of a per-backend runtime key (CPU → CPUBit, AutogradMeta →
/// MetaBit), InvalidBit for every other key.
constexpr BackendComponent toBackendComponent(DispatchKey k) {
  auto offset = [k](DispatchKey start) {
    return static_cast<BackendComponent>(static_cast<uint16_t>(k) -
                                         static_cast<uint16_t>(start));
  };
  if (k > DispatchKey::StartOfDenseBackends && k <= DispatchKey::EndOfDenseBackends)
    return offset(DispatchKey::StartOfDenseBackends);
  if (k > DispatchKey::StartOfQuantizedBackends && k <= DispatchKey::EndOfQuantizedBackends)
    return offset(DispatchKey::StartOfQuantizedBackends);
  if (k > DispatchKey::StartOfSparseBackends && k <= DispatchKey::EndOfSparseBackends)
    return offset(DispatchKey::StartOfSparseBackends);
  if (k > DispatchKey::StartOfSparseCsrBackends && k <= DispatchKey::EndOfSparseCsrBackends)
    return offset(DispatchKey::StartOfSparseCsrBackends);
  if (k > DispatchKey::StartOfNestedTensorBackends && k <= DispatchKey::EndOfNestedTensorBackends)
    return offset(DispatchKey::StartOfNestedTensorBackends);
  if (k > DispatchKey::StartOfAutogradFunctionalityBackends &&
      k <= DispatchKey::EndOfAutogradFunctionalityBackends)
    return offset(DispatchKey::StartOfAutogradFunctionalityBackends);
  return BackendComponent::InvalidBit;
}

/// The runtime key of a per-backend functionality on a backend:
/// (Dense, CUDABit) → CUDA, (AutogradFunctionality, CPUBit) → AutogradCPU.
constexpr DispatchKey toRuntimePerBackendFunctionalityKey(DispatchKey functionality,
                                                          BackendComponent backend) {
  DispatchKey start = DispatchKey::Undefined;
  switch (functionality) {
  case DispatchKey::Dense: start = DispatchKey::StartOfDenseBackends; break;
  case DispatchKey::Quantized: start = DispatchKey::StartOfQuantizedBackends; break;
  case DispatchKey::Sparse: start = DispatchKey::StartOfSparseBackends; break;
  case DispatchKey::SparseCsr: start = DispatchKey::StartOfSparseCsrBackends; break;
  case DispatchKey::NestedTensor: start = DispatchKey::StartOfNestedTensorBackends; break;
  case DispatchKey::AutogradFunctionality:
    start = DispatchKey::StartOfAutogradFunctionalityBackends;
    break;
  default:
    return DispatchKey::Undefined;
  }
  return static_cast<DispatchKey>(static_cast<uint16_t>(start) +
                                  static_cast<uint8_t>(backend));
}

/// The Autograd key of a backend: CPUBit → AutogradCPU; HIP, VE and
/// InvalidBit → AutogradOther.
DispatchKey getAutogradKeyFromBackend(BackendComponent backend);

/// PyTorch's isBackendDispatchKey: the non-alias keys that
/// CompositeExplicitAutograd covers, except NestedTensor ones.
bool isBackendDispatchKey(DispatchKey k);

/// The key's name, as PyTorch prints it ("CPU", "AutogradCPU", ...).
const char *toString(DispatchKey k);
const char *toString(BackendComponent b);

/// The key called `name`. The accepted names are exactly those of PyTorch
/// 2.15's parseDispatchKey; anything else is an error.
Expected<DispatchKey> parseDispatchKey(std::string_view name);
/// Every name parseDispatchKey accepts, in key order.
const std::vector<std::string_view> &parsableDispatchKeyNames();

} // namespace opal

#endif // OPAL_DISPATCH_DISPATCHKEY_H
