//===- DispatchKeySet.cpp - Sets of dispatch keys -------------------------===//

#include "opal/Dispatch/DispatchKeySet.h"

#include <array>

using namespace opal;

static constexpr uint64_t backendBits(DispatchKeySet set) {
  return set.raw() & DispatchKeySet::kFullBackendMask;
}

static int highestBit(uint64_t bits) { return 63 - __builtin_clzll(bits); }

DispatchKeySet::DispatchKeySet(FullAfter, DispatchKey k)
    : repr_((1ULL << (kNumBackends +
                      static_cast<uint16_t>(toFunctionalityKey(k)) - 1)) -
            1) {
  *this = add(DispatchKey::PythonDispatcher);
}

bool DispatchKeySet::has(DispatchKey k) const {
  DispatchKeySet bits(k);
  return !bits.empty() && hasAll(bits);
}

DispatchKey DispatchKeySet::highestFunctionalityKey() const {
  uint64_t functionalities = repr_ >> kNumBackends;
  if (functionalities == 0)
    return DispatchKey::Undefined;
  return static_cast<DispatchKey>(highestBit(functionalities) + 1);
}

BackendComponent DispatchKeySet::highestBackendKey() const {
  uint64_t backends = backendBits(*this);
  if (backends == 0)
    return BackendComponent::InvalidBit;
  return static_cast<BackendComponent>(highestBit(backends) + 1);
}

uint8_t DispatchKeySet::backendIndex() const {
  uint64_t backends = backendBits(*this);
  return backends == 0 ? 0 : static_cast<uint8_t>(highestBit(backends));
}

DispatchKey DispatchKeySet::highestPriorityTypeId() const {
  DispatchKey functionality = highestFunctionalityKey();
  if (!isPerBackendFunctionalityKey(functionality))
    return functionality;
  BackendComponent backend = highestBackendKey();
  if (backend == BackendComponent::InvalidBit)
    return functionality;
  return toRuntimePerBackendFunctionalityKey(functionality, backend);
}

std::vector<DispatchKey> DispatchKeySet::keys() const {
  std::vector<DispatchKey> result;
  for (uint16_t f = 1; f < kNumFunctionalityKeys; ++f) {
    auto functionality = static_cast<DispatchKey>(f);
    if (!has(functionality))
      continue;
    if (!isPerBackendFunctionalityKey(functionality)) {
      result.push_back(functionality);
      continue;
    }
    for (uint8_t b = 1; b <= kNumBackends; ++b) {
      auto backend = static_cast<BackendComponent>(b);
      if (hasBackend(backend))
        result.push_back(toRuntimePerBackendFunctionalityKey(functionality, backend));
    }
  }
  return result;
}

std::string DispatchKeySet::str() const {
  std::string out = "DispatchKeySet(";
  bool first = true;
  for (DispatchKey k : keys()) {
    out += (first ? "" : ", ") + std::string(toString(k));
    first = false;
  }
  return out + ")";
}

//===----------------------------------------------------------------------===//
// Alias keys
//===----------------------------------------------------------------------===//

static constexpr DispatchKeySet kAllBackends(DispatchKeySet::RAW,
                                             DispatchKeySet::kFullBackendMask);

// CompositeExplicitAutograd: Dense and the AutogradOther backends, everywhere.
static constexpr DispatchKeySet kBackendDispatchKeySet =
    kAutogradOtherBackends | kAllBackends | DispatchKeySet{DispatchKey::Dense};

// CompositeExplicitAutogradNonFunctional: as above without Sparse, XLA, Lazy.
static constexpr DispatchKeySet kNonFunctionalBackendDispatchKeySet =
    DispatchKeySet(DispatchKeySet::RAW,
                   (kBackendDispatchKeySet - DispatchKeySet{DispatchKey::Sparse})
                           .raw() &
                       ~(DispatchKeySet(BackendComponent::XLABit).raw() |
                         DispatchKeySet(BackendComponent::LazyBit).raw()));

// CompositeImplicitAutograd: the backend keys, NestedTensor and Autograd.
static constexpr DispatchKeySet kMathDispatchKeySet =
    kBackendDispatchKeySet | kAutogradDispatchKeySet |
    DispatchKeySet{DispatchKey::NestedTensor};

// CompositeImplicitAutogradNestedTensor.
static constexpr DispatchKeySet kNestedDispatchKeySet =
    DispatchKeySet{DispatchKey::AutogradNestedTensor, DispatchKey::NestedTensor} |
    kAllBackends;

DispatchKeySet opal::getRuntimeDispatchKeySet(DispatchKey k) {
  switch (k) {
  case DispatchKey::Autograd:
    return kAutogradDispatchKeySet | kAllBackends;
  case DispatchKey::CompositeImplicitAutograd:
    return kMathDispatchKeySet;
  case DispatchKey::FuncTorchBatchedDecomposition:
    return DispatchKeySet(DispatchKey::FuncTorchBatched);
  case DispatchKey::CompositeImplicitAutogradNestedTensor:
    return kNestedDispatchKeySet;
  case DispatchKey::CompositeExplicitAutograd:
    return kBackendDispatchKeySet;
  case DispatchKey::CompositeExplicitAutogradNonFunctional:
    return kNonFunctionalBackendDispatchKeySet;
  default:
    return DispatchKeySet(k);
  }
}

bool opal::runtimeDispatchKeySetHas(DispatchKey alias, DispatchKey k) {
  return getRuntimeDispatchKeySet(alias).has(k);
}

bool opal::isIncludedInAlias(DispatchKey k, DispatchKey alias) {
  return k != DispatchKey::Undefined && runtimeDispatchKeySetHas(alias, k);
}

DispatchKeySet opal::getBackendKeySetFromAutograd(DispatchKey k) {
  switch (k) {
  case DispatchKey::AutogradCPU: return DispatchKeySet(DispatchKey::CPU);
  case DispatchKey::AutogradCUDA: return DispatchKeySet(DispatchKey::CUDA);
  case DispatchKey::AutogradXLA: return DispatchKeySet(DispatchKey::XLA);
  case DispatchKey::AutogradLazy: return DispatchKeySet(DispatchKey::Lazy);
  case DispatchKey::AutogradMeta: return DispatchKeySet(DispatchKey::Meta);
  case DispatchKey::AutogradMPS: return DispatchKeySet(DispatchKey::MPS);
  case DispatchKey::AutogradHPU: return DispatchKeySet(DispatchKey::HPU);
  case DispatchKey::AutogradIPU: return DispatchKeySet(DispatchKey::IPU);
  case DispatchKey::AutogradXPU: return DispatchKeySet(DispatchKey::XPU);
  case DispatchKey::AutogradMTIA: return DispatchKeySet(DispatchKey::MTIA);
  case DispatchKey::AutogradMAIA: return DispatchKeySet(DispatchKey::MAIA);
  case DispatchKey::AutogradPrivateUse1: return DispatchKeySet(DispatchKey::PrivateUse1);
  case DispatchKey::AutogradPrivateUse2: return DispatchKeySet(DispatchKey::PrivateUse2);
  case DispatchKey::AutogradPrivateUse3: return DispatchKeySet(DispatchKey::PrivateUse3);
  case DispatchKey::AutogradNestedTensor:
    return DispatchKeySet{DispatchKey::NestedTensor} | kAllBackends;
  case DispatchKey::AutogradOther:
    return kAutogradOtherBackends;
  default:
    return DispatchKeySet();
  }
}

//===----------------------------------------------------------------------===//
// Dispatch table layout
//===----------------------------------------------------------------------===//

namespace {
/// The runtime key of every table slot, in PyTorch's dump order.
struct TableKeys {
  std::array<DispatchKey, kNumRuntimeEntries> keys{};
  TableKeys() {
    keys[0] = DispatchKey::Undefined;
    for (uint16_t f = 1; f < kNumFunctionalityKeys; ++f) {
      auto functionality = static_cast<DispatchKey>(f);
      uint16_t offset = detail::kFunctionalityOffsets[f];
      if (!isPerBackendFunctionalityKey(functionality)) {
        keys[offset] = functionality;
        continue;
      }
      for (uint8_t b = 1; b <= kNumBackends; ++b)
        keys[offset + b - 1] = toRuntimePerBackendFunctionalityKey(
            functionality, static_cast<BackendComponent>(b));
    }
  }
};
} // namespace

DispatchKey opal::getDispatchKeyForDispatchTableIndex(uint16_t index) {
  static const TableKeys table;
  return table.keys[index];
}
