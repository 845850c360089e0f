//===- DispatchKeySet.h - Sets of dispatch keys -----------------*- C++ -*-===//
//
// A set of dispatch keys in 64 bits, laid out as PyTorch's: the low 16 bits
// are backend components, bit 16 + f - 1 is functionality f. A per-backend runtime key sets two bits
// (CPU = Dense bit + CPU bit), so sets behave as cross products:
// {CPU} ∪ {AutogradCUDA} contains CPU, CUDA, AutogradCPU and AutogradCUDA.
// Removing a key clears only its functionality bit.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_DISPATCHKEYSET_H
#define OPAL_DISPATCH_DISPATCHKEYSET_H

#include "opal/Dispatch/DispatchKey.h"

#include <array>
#include <initializer_list>
#include <string>

namespace opal {

class DispatchKeySet {
public:
  enum Raw { RAW };
  enum FullAfter { FULL_AFTER };
  enum Full { FULL };

  static constexpr uint64_t kFullBackendMask = (1ULL << kNumBackends) - 1;

  constexpr DispatchKeySet() = default;
  constexpr DispatchKeySet(Raw, uint64_t bits) : repr_(bits) {}
  /// Every functionality and every backend.
  constexpr explicit DispatchKeySet(Full)
      : repr_((1ULL << (kNumBackends + kNumFunctionalityKeys - 1)) - 1) {}
  /// Every functionality strictly below `k`'s (and every backend), plus
  /// PythonDispatcher: the keys to redispatch to after `k`.
  explicit DispatchKeySet(FullAfter, DispatchKey k);
  constexpr explicit DispatchKeySet(BackendComponent b)
      : repr_(b == BackendComponent::InvalidBit
                  ? 0
                  : 1ULL << (static_cast<uint8_t>(b) - 1)) {}
  /// The bits of one key: none for Undefined and alias keys, one
  /// functionality bit for a functionality key, functionality + backend for a
  /// per-backend runtime key.
  constexpr explicit DispatchKeySet(DispatchKey k) : repr_(bitsOf(k)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys)
      repr_ |= bitsOf(k);
  }

  constexpr uint64_t raw() const { return repr_; }
  bool empty() const { return repr_ == 0; }
  /// True if every bit of `k` is present (so `has(CPU)` needs Dense and CPU).
  bool has(DispatchKey k) const;
  bool hasBackend(BackendComponent b) const {
    return (repr_ & DispatchKeySet(b).repr_) != 0;
  }
  bool hasAll(DispatchKeySet other) const {
    return (repr_ & other.repr_) == other.repr_;
  }
  bool hasAny(DispatchKeySet other) const {
    return (repr_ & other.repr_) != 0;
  }
  bool isSupersetOf(DispatchKeySet other) const { return hasAll(other); }

  constexpr DispatchKeySet operator|(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ | other.repr_);
  }
  DispatchKeySet operator&(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ & other.repr_);
  }
  /// Removes the functionality bits of `other`; backend bits survive.
  constexpr DispatchKeySet operator-(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ & (kFullBackendMask | ~other.repr_));
  }
  constexpr DispatchKeySet operator^(DispatchKeySet other) const {
    return DispatchKeySet(RAW, repr_ ^ other.repr_);
  }
  bool operator==(DispatchKeySet other) const { return repr_ == other.repr_; }
  bool operator!=(DispatchKeySet other) const { return repr_ != other.repr_; }

  DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  /// Removes `k`'s functionality (for every backend).
  DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  DispatchKeySet removeBackend(BackendComponent b) const {
    return DispatchKeySet(RAW, repr_ & ~DispatchKeySet(b).repr_);
  }

  /// The highest set functionality (Undefined if none), not combined with a
  /// backend.
  DispatchKey highestFunctionalityKey() const;
  /// The highest backend bit, InvalidBit if none.
  BackendComponent highestBackendKey() const;
  /// The key a call with this set dispatches to: the highest functionality,
  /// combined with the highest backend if it is per-backend.
  DispatchKey highestPriorityTypeId() const;
  /// 0 for CPU, ..., 15 for Meta; 0 when no backend bit is set.
  uint8_t backendIndex() const;

  /// The runtime keys in the set, lowest first, per-backend functionalities
  /// expanded over the backends present.
  std::vector<DispatchKey> keys() const;
  /// PyTorch's text: `DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)`.
  std::string str() const;

private:
  static constexpr uint64_t functionalityBit(DispatchKey functionality) {
    return 1ULL << (kNumBackends + static_cast<uint16_t>(functionality) - 1);
  }
  static constexpr uint64_t bitsOf(DispatchKey k) {
    if (k == DispatchKey::Undefined || k > DispatchKey::EndOfRuntimeBackendKeys ||
        k == DispatchKey::EndOfFunctionalityKeys)
      return 0;
    if (k < DispatchKey::EndOfFunctionalityKeys)
      return functionalityBit(k);
    BackendComponent backend = toBackendComponent(k);
    if (backend == BackendComponent::InvalidBit)
      return 0; // a StartOf*Backends marker
    return functionalityBit(toFunctionalityKey(k)) |
           DispatchKeySet(backend).repr_;
  }

  uint64_t repr_ = 0;
};

/// {AutogradFunctionality, AutogradOther, AutogradNestedTensor}, no backends.
inline constexpr DispatchKeySet kAutogradDispatchKeySet{
    DispatchKey::AutogradFunctionality, DispatchKey::AutogradOther,
    DispatchKey::AutogradNestedTensor};
/// The keys whose Autograd key is AutogradOther (FPGA, Vulkan, Metal,
/// CustomRNGKeyId, MkldnnCPU) plus Sparse, SparseCsr and Quantized, over
/// every backend.
inline constexpr DispatchKeySet kAutogradOtherBackends =
    DispatchKeySet{DispatchKey::FPGA,           DispatchKey::Vulkan,
                   DispatchKey::Metal,          DispatchKey::CustomRNGKeyId,
                   DispatchKey::MkldnnCPU,      DispatchKey::Sparse,
                   DispatchKey::SparseCsr,      DispatchKey::Quantized} |
    DispatchKeySet(DispatchKeySet::RAW, DispatchKeySet::kFullBackendMask);

/// The runtime keys an alias key stands for (or the key itself).
DispatchKeySet getRuntimeDispatchKeySet(DispatchKey k);
/// True if runtime key `k` is in the runtime set of `alias`.
bool runtimeDispatchKeySetHas(DispatchKey alias, DispatchKey k);
/// True if `k` is a runtime key covered by `alias` (never for Undefined).
bool isIncludedInAlias(DispatchKey k, DispatchKey alias);
/// The backend keys behind an autograd key: AutogradCPU → {CPU},
/// AutogradOther → kAutogradOtherBackends, AutogradNestedTensor →
/// NestedTensor on every backend, anything else → {}.
DispatchKeySet getBackendKeySetFromAutograd(DispatchKey k);

namespace detail {
/// The first table slot of each functionality; per-backend ones span 16.
constexpr std::array<uint16_t, kNumFunctionalityKeys> computeFunctionalityOffsets() {
  std::array<uint16_t, kNumFunctionalityKeys> offsets{};
  uint16_t next = 1; // slot 0 is Undefined
  for (uint16_t f = 1; f < kNumFunctionalityKeys; ++f) {
    offsets[f] = next;
    next += isPerBackendFunctionalityKey(static_cast<DispatchKey>(f)) ? kNumBackends : 1;
  }
  return offsets;
}
inline constexpr auto kFunctionalityOffsets = computeFunctionalityOffsets();
} // namespace detail

/// The slot of a runtime key in a dispatch table, 0 .. kNumRuntimeEntries-1.
/// Inline: every call computes it.
inline uint16_t getDispatchTableIndexForDispatchKey(DispatchKey k) {
  DispatchKey functionality = toFunctionalityKey(k);
  uint16_t offset = detail::kFunctionalityOffsets[static_cast<uint16_t>(functionality)];
  BackendComponent backend = toBackendComponent(k);
  if (backend == BackendComponent::InvalidBit)
    return offset;
  return offset + static_cast<uint8_t>(backend) - 1;
}
/// The runtime key at a dispatch-table slot.
DispatchKey getDispatchKeyForDispatchTableIndex(uint16_t index);

} // namespace opal

#endif // OPAL_DISPATCH_DISPATCHKEYSET_H
