//===- DiskCache.h - Compiled kernels on disk (and in Redis) ----*- C++ -*-===//
//
// Each entry is a directory named by the sha256 of everything that decides
// the object code (compiler identity, pass pipeline, target, the kernel's
// decomposed IR, which holds the specialization):
//
//   $OPAL_CACHE_DIR/v2/<first two hex digits>/<sha256>/
//     kernel.o       the object code
//     manifest.txt   the key parts in the clear, the object's size and
//                    sha256, and last an HMAC-SHA256 of all that and the
//                    entry's name under the cache key (CacheSecret.h)
//   $OPAL_CACHE_DIR/warm-v2/<aa>/<sha256>   warm-start index files
//                    (WarmStart.h), each ending in its own HMAC line
//   $OPAL_CACHE_DIR/key                     the generated key, when the
//                    user gives none
//
// This file is the one reader and writer of that format. Nothing of an
// entry is used before its HMAC checks out; an entry that fails (torn,
// corrupted, written under another key, renamed) is reported under
// OPAL_LOG=cache, removed and recompiled. The directory is private and
// walked without following links (CacheDirectory.h); entries are written
// whole under a temporary name, fsynced and renamed into place, so readers
// never see half an entry and concurrent compiles of one kernel leave one.
// The cache is bounded (OPAL_CACHE_MAX_BYTES, default 1 GiB): after every
// tenth of the bound a process writes, and at its first store unless a
// process checked in the last 10 minutes (the file "pruned"), the least
// recently used entries and index files go until it holds 90% of the bound.
//
// With OPAL_REMOTE_CACHE (RemoteCache.h) and a key the user gives, a local
// miss asks the remote cache, whose values are the same sealed entries; a
// remote hit that checks out is installed locally, and every store is
// written remotely too.
//
// OPAL_CACHE_DIR defaults to $XDG_CACHE_HOME/opal, else ~/.cache/opal;
// OPAL_CACHE_DISABLE=1 turns the disk and remote caches off.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_DISKCACHE_H
#define OPAL_JIT_DISKCACHE_H

#include "opal/JIT/CacheDirectory.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opal::jit {

class RemoteCache;

class DiskCache {
public:
  /// Opens the cache at `root` with the key of the environment; a cache
  /// that cannot be used safely is off, and problem() says why.
  DiskCache(std::string root, bool enabled, RemoteCache *remote = nullptr,
            uint64_t maxBytes = kDefaultMaxBytes);

  static constexpr uint64_t kDefaultMaxBytes = 1ull << 30;

  bool enabled() const { return enabled_; }
  const std::string &root() const { return root_; }
  /// Why the cache is off although it was wanted ("" otherwise).
  const std::string &problem() const { return problem_; }
  /// The remote cache this one asks (null when none).
  RemoteCache *remote() const { return remote_; }
  uint64_t maxBytes() const { return maxBytes_; }

  /// The object of entry `key`, or nothing (absent, disabled or refused);
  /// with its manifest's text in `manifest` if given.
  std::optional<std::string> load(const std::string &key,
                                  std::string *manifest = nullptr) const;
  /// Stores an entry; failures (read-only disk, races) only log.
  void store(const std::string &key, const std::string &object,
             const std::string &manifest) const;

  /// The warm-start index (WarmStart.h): the text of index `key` without
  /// its HMAC line, checked; stored with one.
  std::optional<std::string> loadIndex(const std::string &key) const;
  void storeIndex(const std::string &key, const std::string &text) const;
  void removeIndex(const std::string &key) const;

  struct Entry {
    std::string key;
    std::string manifest; ///< its text (without the HMAC line when it checks out)
    uint64_t bytes = 0;
    int64_t lastUsed = 0; ///< seconds since the epoch
    std::string problem;  ///< why it would be refused ("" when it checks out)
  };
  /// Every entry, sorted by key; `check` verifies each (HMAC and object).
  std::vector<Entry> entries(bool check) const;
  /// The names (keys) of the warm-start index files.
  std::vector<std::string> indexKeys() const;
  /// How many warm-start index files there are.
  size_t indexCount() const;
  /// Removes every entry and index file; how many entries it removed.
  size_t clear() const;
  struct Pruned {
    size_t entries = 0, indexes = 0;
    uint64_t bytesBefore = 0, bytesAfter = 0;
  };
  /// Removes the least recently used entries and index files until the
  /// cache holds at most 90% of `bound` (nothing when it holds less than
  /// `bound`), and temporaries an hour old.
  Pruned prune(uint64_t bound) const;

private:
  /// Entry `key`'s object when its manifest's HMAC and the object check
  /// out, with the manifest's text (without its HMAC line) in `manifest`;
  /// nothing with `problem` saying why ("" when there is no entry).
  std::optional<std::string> readEntry(const std::string &key, std::string &manifest,
                                       std::string &problem) const;
  std::optional<std::string> loadLocal(const std::string &key, std::string *manifest) const;
  void install(const std::string &key, const std::string &sealedManifest,
               const std::string &object) const;
  std::string entryPath(const std::string &key) const;
  std::string indexPath(const std::string &key) const;
  std::string root_;
  bool enabled_;
  std::string problem_;
  std::shared_ptr<CacheDirectory> dir_;
  std::string secret_;
  RemoteCache *remote_ = nullptr;
  uint64_t maxBytes_;
};

/// The value of line "name: value" of a manifest or index file; "" if it
/// has no such line.
std::string fieldOf(const std::string &text, const std::string &name);

/// The process's cache, configured from the environment.
const DiskCache &diskCache();

} // namespace opal::jit

#endif // OPAL_JIT_DISKCACHE_H
