//===- LocalDispatchKeySet.h - Thread-local include/exclude sets -*- C++ -*-===//
//
// Every thread has an included and an excluded key set; a call's keyset is
// (keys of its tensors ∪ included) − excluded. Zero-initialised storage means
// PyTorch's defaults: included = {BackendSelect, ADInplaceOrView}, excluded =
// the ten Autocast keys. Guards add only keys not already
// present and remove exactly those, so nested guards compose.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_LOCALDISPATCHKEYSET_H
#define OPAL_DISPATCH_LOCALDISPATCHKEYSET_H

#include "opal/Dispatch/DispatchKeySet.h"

namespace opal {

/// The keys included by default: BackendSelect and ADInplaceOrView.
inline constexpr DispatchKeySet kDefaultIncludedSet{DispatchKey::BackendSelect,
                                                    DispatchKey::ADInplaceOrView};
/// The keys excluded by default: the Autocast keys.
inline constexpr DispatchKeySet kDefaultExcludedSet{
    DispatchKey::AutocastCPU,  DispatchKey::AutocastMTIA, DispatchKey::AutocastMAIA,
    DispatchKey::AutocastXPU,  DispatchKey::AutocastIPU,  DispatchKey::AutocastHPU,
    DispatchKey::AutocastXLA,  DispatchKey::AutocastMPS,  DispatchKey::AutocastCUDA,
    DispatchKey::AutocastPrivateUse1};

/// The thread's TLS state, stored XOR-ed with the defaults.
struct PODLocalDispatchKeySet {
  uint64_t includedXorDefault = 0;
  uint64_t excludedXorDefault = 0;

  DispatchKeySet included() const {
    return DispatchKeySet(DispatchKeySet::RAW, includedXorDefault) ^
           kDefaultIncludedSet;
  }
  DispatchKeySet excluded() const {
    return DispatchKeySet(DispatchKeySet::RAW, excludedXorDefault) ^
           kDefaultExcludedSet;
  }
  void setIncluded(DispatchKeySet keys) {
    includedXorDefault = (keys ^ kDefaultIncludedSet).raw();
  }
  void setExcluded(DispatchKeySet keys) {
    excludedXorDefault = (keys ^ kDefaultExcludedSet).raw();
  }
};

/// The calling thread's state (one thread_local read).
PODLocalDispatchKeySet &tlsLocalDispatchKeySet();

bool tlsIsDispatchKeyIncluded(DispatchKey k);
bool tlsIsDispatchKeyExcluded(DispatchKey k);
void tlsSetDispatchKeyIncluded(DispatchKey k, bool included);
void tlsSetDispatchKeyExcluded(DispatchKey k, bool excluded);

/// Adds `keys` to the included set for the guard's lifetime.
class IncludeDispatchKeyGuard {
public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys);
  explicit IncludeDispatchKeyGuard(DispatchKey k)
      : IncludeDispatchKeyGuard(DispatchKeySet(k)) {}
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard &) = delete;
  IncludeDispatchKeyGuard &operator=(const IncludeDispatchKeyGuard &) = delete;
  ~IncludeDispatchKeyGuard();

private:
  DispatchKeySet added_; // only the keys this guard added
};

/// Adds `keys` to the excluded set for the guard's lifetime.
class ExcludeDispatchKeyGuard {
public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys);
  explicit ExcludeDispatchKeyGuard(DispatchKey k)
      : ExcludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard &) = delete;
  ExcludeDispatchKeyGuard &operator=(const ExcludeDispatchKeyGuard &) = delete;
  ~ExcludeDispatchKeyGuard();

private:
  DispatchKeySet added_;
};

/// Sets both sets for the guard's lifetime and restores them afterwards.
class ForceDispatchKeyGuard {
public:
  ForceDispatchKeyGuard(DispatchKeySet included, DispatchKeySet excluded);
  ForceDispatchKeyGuard(const ForceDispatchKeyGuard &) = delete;
  ForceDispatchKeyGuard &operator=(const ForceDispatchKeyGuard &) = delete;
  ~ForceDispatchKeyGuard();

private:
  PODLocalDispatchKeySet saved_;
};

/// Excludes the autograd keys: calls go below Autograd (PyTorch's
/// AutoDispatchBelowAutograd).
class AutoDispatchBelowAutograd {
public:
  AutoDispatchBelowAutograd() : guard_(kAutogradDispatchKeySet) {}

private:
  ExcludeDispatchKeyGuard guard_;
};

} // namespace opal

#endif // OPAL_DISPATCH_LOCALDISPATCHKEYSET_H
