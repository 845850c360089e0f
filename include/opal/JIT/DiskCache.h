//===- DiskCache.h - Compiled kernels on disk -------------------*- C++ -*-===//
//
// Each entry is a directory named by the sha256 of everything that decides
// the object code (compiler identity, pass pipeline, target, the kernel's
// decomposed IR, which holds the specialization):
//
//   $OPAL_CACHE_DIR/v1/<first two hex digits>/<sha256>/
//     kernel.o       the object code
//     manifest.txt   the key parts in the clear, the object's size and
//                    sha256 (written last)
//
// Entries are written in a temporary directory and renamed into place, so a
// reader never sees half an entry and processes compiling the same kernel
// at once leave one whole entry. A manifest whose checksum does not match
// its object (a torn or corrupted entry) is reported, removed and the
// kernel recompiled. OPAL_CACHE_DIR defaults to $XDG_CACHE_HOME/opal, else
// ~/.cache/opal; OPAL_CACHE_DISABLE=1 turns the cache off.
//
// The cache lives in libopal (no LLVM): the compiler stores and loads its
// entries, and a process whose kernels are all on disk loads them without
// the compiler (WarmStart.h).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_DISKCACHE_H
#define OPAL_JIT_DISKCACHE_H

#include <optional>
#include <string>
#include <vector>

namespace opal::jit {

class DiskCache {
public:
  DiskCache(std::string root, bool enabled);

  bool enabled() const { return enabled_; }
  const std::string &root() const { return root_; }
  /// The object of entry `key`, or nothing (absent, disabled or corrupt);
  /// with its manifest's text in `manifest` if given.
  std::optional<std::string> load(const std::string &key,
                                  std::string *manifest = nullptr) const;
  /// Stores an entry; failures (read-only disk, races) only log.
  void store(const std::string &key, const std::string &object,
             const std::string &manifest) const;

  /// The warm-start index (WarmStart.h): small text files under
  /// warm-v1/<aa>/<key> that name the entry of a call's kernel, written
  /// atomically (a temporary file renamed into place).
  std::optional<std::string> loadIndex(const std::string &key) const;
  void storeIndex(const std::string &key, const std::string &text) const;
  void removeIndex(const std::string &key) const;

private:
  std::string entryDir(const std::string &key) const;
  std::string indexPath(const std::string &key) const;
  std::string root_;
  bool enabled_;
};

/// The value of line "name: value" of a manifest or index file; "" if it
/// has no such line.
std::string fieldOf(const std::string &text, const std::string &name);

/// The process's cache, configured from the environment.
const DiskCache &diskCache();

} // namespace opal::jit

#endif // OPAL_JIT_DISKCACHE_H
