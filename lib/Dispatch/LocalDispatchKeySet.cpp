//===- LocalDispatchKeySet.cpp - Thread-local include/exclude sets --------===//

#include "opal/Dispatch/LocalDispatchKeySet.h"

using namespace opal;

// initial-exec: libopal.so reads its own TLS without a __tls_get_addr call.
static thread_local PODLocalDispatchKeySet tlsState
    __attribute__((tls_model("initial-exec")));

PODLocalDispatchKeySet &opal::tlsLocalDispatchKeySet() { return tlsState; }

bool opal::tlsIsDispatchKeyIncluded(DispatchKey k) {
  return tlsState.included().has(k);
}

bool opal::tlsIsDispatchKeyExcluded(DispatchKey k) {
  return tlsState.excluded().has(k);
}

/// `set` without `k`: its functionality bit and, for a per-backend key, its
/// backend bit too (PyTorch's remove() leaves the backend bit behind, so
/// excluding Meta after including it would leave calls on Meta).
static DispatchKeySet withoutKey(DispatchKeySet set, DispatchKey k) {
  return set.remove(k).removeBackend(toBackendComponent(k));
}

void opal::tlsSetDispatchKeyIncluded(DispatchKey k, bool included) {
  DispatchKeySet current = tlsState.included();
  tlsState.setIncluded(included ? current.add(k) : withoutKey(current, k));
}

void opal::tlsSetDispatchKeyExcluded(DispatchKey k, bool excluded) {
  DispatchKeySet current = tlsState.excluded();
  tlsState.setExcluded(excluded ? current.add(k) : withoutKey(current, k));
}

/// The bits of `keys` that `present` lacks: what a guard adds, and so what
/// it removes again (functionality and backend bits alike).
static DispatchKeySet missingFrom(DispatchKeySet present, DispatchKeySet keys) {
  return DispatchKeySet(DispatchKeySet::RAW, keys.raw() & ~present.raw());
}

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKeySet keys) {
  DispatchKeySet current = tlsState.included();
  added_ = missingFrom(current, keys);
  tlsState.setIncluded(current | added_);
}

IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() {
  tlsState.setIncluded(DispatchKeySet(
      DispatchKeySet::RAW, tlsState.included().raw() & ~added_.raw()));
}

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKeySet keys) {
  DispatchKeySet current = tlsState.excluded();
  added_ = missingFrom(current, keys);
  tlsState.setExcluded(current | added_);
}

ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() {
  tlsState.setExcluded(DispatchKeySet(
      DispatchKeySet::RAW, tlsState.excluded().raw() & ~added_.raw()));
}

ForceDispatchKeyGuard::ForceDispatchKeyGuard(DispatchKeySet included,
                                             DispatchKeySet excluded)
    : saved_(tlsState) {
  tlsState.setIncluded(included);
  tlsState.setExcluded(excluded);
}

ForceDispatchKeyGuard::~ForceDispatchKeyGuard() { tlsState = saved_; }
