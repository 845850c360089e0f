//===- CacheDirectory.h - A private directory for the kernel cache -*- C++ -*-===//
//
// The disk cache's files, reached only through a descriptor of its root
// that was checked when it was opened:
//
//   - the root is created 0700 (with any missing parents) and must be a
//     directory, not a symbolic link, owned by the process's user and not
//     writable by group or others; otherwise it is refused with a message
//     that says how to fix it (as ssh and ccache do), and the process runs
//     without a disk cache;
//   - every path below it is walked one component at a time with
//     O_NOFOLLOW: no symbolic link inside the cache is followed, for
//     reading, writing or removing;
//   - files are written under a temporary name, fsynced and renamed into
//     place; a directory of files (a cache entry) is written whole under a
//     temporary name and renamed, so a reader never sees half of either.
//
// Paths are relative to the root and use '/' ("v2/ab/<key>/manifest.txt").
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_CACHEDIRECTORY_H
#define OPAL_JIT_CACHEDIRECTORY_H

#include "opal/Support/Expected.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opal::jit {

class CacheDirectory {
public:
  /// Opens `root` (creating it 0700 when missing) and checks it; the error
  /// says what is wrong and how to fix it.
  static Expected<std::shared_ptr<CacheDirectory>> open(const std::string &root);
  ~CacheDirectory();
  CacheDirectory(const CacheDirectory &) = delete;
  CacheDirectory &operator=(const CacheDirectory &) = delete;

  const std::string &root() const { return root_; }

  /// The bytes of a regular file of at most `maxBytes`; nothing with
  /// `problem` set ("" when the file is simply absent).
  std::optional<std::string> read(const std::string &path, uint64_t maxBytes,
                                  std::string &problem) const;
  /// Writes a file atomically (temporary, fsync, rename), creating its
  /// directories 0700; false with `error` set on failure.
  bool write(const std::string &path, const std::string &bytes, std::string &error) const;
  /// Creates the file only where none exists yet (the generated key): true
  /// when this call wrote it or another already exists.
  bool writeOnce(const std::string &path, const std::string &bytes, std::string &error) const;
  /// Writes directory `path` holding `files` atomically: false with an empty
  /// `error` when the directory already exists (another writer won).
  bool writeDirectory(const std::string &path,
                      const std::vector<std::pair<std::string, std::string>> &files,
                      std::string &error) const;
  /// Removes a file, a symbolic link, or a directory and what is in it,
  /// following no link.
  void remove(const std::string &path) const;
  /// Sets a file's modification time to now (the LRU order of entries).
  void touch(const std::string &path) const;
  /// A file's modification time (seconds since the epoch), if it exists.
  std::optional<int64_t> modified(const std::string &path) const;

  struct Listing {
    std::string name;
    bool directory;
    uint64_t bytes;    ///< a file's size; a directory's: the sum of its files
    int64_t modified;  ///< seconds since the epoch (a directory's: its newest file)
  };
  /// The entries of directory `path` (no "." or ".."); empty when absent.
  std::vector<Listing> list(const std::string &path) const;

private:
  CacheDirectory(std::string root, int fd) : root_(std::move(root)), fd_(fd) {}
  /// A descriptor of directory `path`, walked with
  /// O_NOFOLLOW, created 0700 where missing if `create`; -1 on failure.
  int openDirectory(const std::string &path, bool create) const;
  /// openDirectory of `path`'s parent; its last component in `leaf`, and
  /// errno's text in `error` (if given) on failure.
  int openParent(const std::string &path, bool create, std::string &leaf,
                 std::string *error = nullptr) const;
  /// Writes a file through a temporary: renamed over `path` if `replace`,
  /// else linked only where none exists.
  bool publish(const std::string &path, const std::string &bytes, bool replace,
               std::string &error) const;
  std::string root_;
  int fd_;
};

} // namespace opal::jit

#endif // OPAL_JIT_CACHEDIRECTORY_H
