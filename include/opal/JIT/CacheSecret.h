//===- CacheSecret.h - The key that authenticates cache entries -*- C++ -*-===//
//
// Every entry of the kernel caches (an object's manifest, a warm-start
// index; local or remote) carries an HMAC-SHA256 tag under a secret key,
// checked before any byte of the entry is used. The key is
//
//   OPAL_CACHE_KEY        the key itself (at least 16 bytes), else
//   OPAL_CACHE_KEY_FILE   a file holding it: a regular file owned by the
//                         user and readable by nobody else (0600 or 0400),
//                         else
//   <cache dir>/key       32 random bytes generated on first use (0600):
//                         entries are then bound to this cache directory
//                         and its user, and a remote cache is refused.
//
// A key the user gives (either knob) is what a fleet shares to trust each
// other's entries in a remote cache; a remote cache without one is refused.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_CACHESECRET_H
#define OPAL_JIT_CACHESECRET_H

#include "opal/JIT/CacheDirectory.h"
#include "opal/Support/Expected.h"

#include <optional>
#include <string>

namespace opal::jit {

struct CacheSecret {
  std::string key;
  /// Where it came from, for messages: "OPAL_CACHE_KEY",
  /// "OPAL_CACHE_KEY_FILE <path>" or "<dir>/key".
  std::string source;
  /// Given by the user (and so may authenticate a remote cache).
  bool userGiven = false;
};

/// The key the user gives; nothing when neither knob is set; an error
/// naming the knob when the one set is unusable.
Expected<std::optional<CacheSecret>> userCacheSecret();

/// The local cache's own key, read from `dir`'s file "key" or generated
/// there on first use.
Expected<CacheSecret> generatedCacheSecret(const CacheDirectory &dir);

} // namespace opal::jit

#endif // OPAL_JIT_CACHESECRET_H
