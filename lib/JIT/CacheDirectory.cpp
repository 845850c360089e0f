//===- CacheDirectory.cpp - A private directory for the kernel cache ------===//

#include "opal/JIT/CacheDirectory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

using namespace opal;
using namespace opal::jit;

namespace {

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

/// Splits "a/b/c" into its parent "a/b" and leaf "c".
std::pair<std::string, std::string> splitLeaf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {"", path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

std::string temporaryName(const std::string &leaf) {
  static std::atomic<uint64_t> counter{0};
  return ".tmp-" + leaf.substr(0, 16) + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter++);
}

/// Calls `io` (::read or ::write) until `size` bytes have moved, the end of
/// the file or an error; the bytes moved.
template <typename Io, typename Bytes> size_t moveAll(Io io, int fd, Bytes *data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t moved = io(fd, data + done, size - done);
    if (moved < 0 && errno == EINTR)
      continue;
    if (moved <= 0)
      break;
    done += static_cast<size_t>(moved);
  }
  return done;
}

bool writeAll(int fd, const std::string &bytes) {
  return moveAll(::write, fd, bytes.data(), bytes.size()) == bytes.size();
}

/// Writes a new file `name` in `dir` (0600, not following a link), fsynced.
bool createFile(int dir, const std::string &name, const std::string &bytes) {
  int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
  if (fd < 0)
    return false;
  bool ok = writeAll(fd, bytes) && ::fsync(fd) == 0;
  int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

/// Removes `name` in `dir`: a directory with what is in it, anything else
/// unlinked (a link is removed, never followed).
void removeAt(int dir, const std::string &name, int depth = 0) {
  if (::unlinkat(dir, name.c_str(), 0) == 0 || errno == ENOENT)
    return;
  if (depth > 4)
    return;
  int sub = ::openat(dir, name.c_str(), kDirectoryFlags);
  if (sub < 0)
    return;
  if (DIR *d = ::fdopendir(sub)) {
    std::vector<std::string> names;
    while (dirent *e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
        names.push_back(e->d_name);
    for (const std::string &inner : names)
      removeAt(::dirfd(d), inner, depth + 1);
    ::closedir(d); // closes sub
  } else {
    ::close(sub);
  }
  ::unlinkat(dir, name.c_str(), AT_REMOVEDIR);
}

std::string modeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

} // namespace

Expected<std::shared_ptr<CacheDirectory>> CacheDirectory::open(const std::string &root) {
  auto refuse = [&](const std::string &why) {
    return makeUnexpected(Error("the kernel cache " + root + " " + why +
                                "; opal neither reads nor writes it (the disk cache is off "
                                "for this process)"));
  };
  if (root.empty() || root[0] != '/')
    return refuse("is not an absolute path: set OPAL_CACHE_DIR to one");
  for (size_t at = 1; at <= root.size(); ++at)
    if (at == root.size() || root[at] == '/')
      if (::mkdir(root.substr(0, at).c_str(), 0700) != 0 && errno != EEXIST)
        return refuse(std::string("cannot be created: ") + std::strerror(errno));
  struct stat link;
  if (::lstat(root.c_str(), &link) != 0)
    return refuse(std::string("cannot be read: ") + std::strerror(errno));
  if (S_ISLNK(link.st_mode))
    return refuse("is a symbolic link: point OPAL_CACHE_DIR at the directory itself");
  int fd = ::open(root.c_str(), kDirectoryFlags);
  if (fd < 0)
    return refuse(std::string("cannot be opened: ") + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISDIR(info.st_mode)) {
    ::close(fd);
    return refuse("is not a directory");
  }
  if (info.st_uid != ::geteuid()) {
    ::close(fd);
    return refuse("is owned by uid " + std::to_string(info.st_uid) + ", not by you (uid " +
                  std::to_string(::geteuid()) + "): use a directory of your own (set "
                  "OPAL_CACHE_DIR) or remove that one");
  }
  if (info.st_mode & (S_IWGRP | S_IWOTH)) {
    ::close(fd);
    return refuse("is writable by " +
                  std::string((info.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " +
                  modeText(info.st_mode) + "): make it private with `chmod 700 " + root + "`");
  }
  return std::shared_ptr<CacheDirectory>(new CacheDirectory(root, fd));
}

CacheDirectory::~CacheDirectory() { ::close(fd_); }

int CacheDirectory::openDirectory(const std::string &path, bool create) const {
  int current = ::dup(fd_);
  size_t start = 0;
  while (current >= 0 && start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos)
      slash = path.size();
    std::string part = path.substr(start, slash - start);
    start = slash + 1;
    if (part.empty())
      continue;
    if (part == "." || part == "..") {
      ::close(current);
      return -1;
    }
    int next = ::openat(current, part.c_str(), kDirectoryFlags);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(current, part.c_str(), 0700) != 0 && errno != EEXIST) {
        ::close(current);
        return -1;
      }
      next = ::openat(current, part.c_str(), kDirectoryFlags);
    }
    int saved = errno;
    ::close(current);
    errno = saved;
    current = next;
  }
  return current;
}

int CacheDirectory::openParent(const std::string &path, bool create, std::string &leaf,
                               std::string *error) const {
  auto [parent, name] = splitLeaf(path);
  leaf = name;
  int dir = openDirectory(parent, create);
  if (dir < 0 && error)
    *error = std::strerror(errno);
  return dir;
}

std::optional<std::string> CacheDirectory::read(const std::string &path, uint64_t maxBytes,
                                                std::string &problem) const {
  problem.clear();
  auto [parent, leaf] = splitLeaf(path);
  int dir = openDirectory(parent, /*create=*/false);
  if (dir < 0) {
    if (errno != ENOENT)
      problem = std::string("cannot open its directory: ") + std::strerror(errno);
    return std::nullopt;
  }
  int fd = ::openat(dir, leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  int saved = errno;
  ::close(dir);
  if (fd < 0) {
    if (saved == ELOOP)
      problem = leaf + " is a symbolic link";
    else if (saved != ENOENT)
      problem = "cannot open " + leaf + ": " + std::strerror(saved);
    return std::nullopt;
  }
  struct stat info;
  std::string bytes;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    problem = leaf + " is not a regular file";
  else if (static_cast<uint64_t>(info.st_size) > maxBytes)
    problem = leaf + " has " + std::to_string(info.st_size) + " bytes, more than the " +
              std::to_string(maxBytes) + " allowed";
  else {
    bytes.resize(static_cast<size_t>(info.st_size));
    if (moveAll(::read, fd, bytes.data(), bytes.size()) != bytes.size())
      problem = leaf + " changed while it was read";
  }
  ::close(fd);
  if (!problem.empty())
    return std::nullopt;
  return bytes;
}

bool CacheDirectory::publish(const std::string &path, const std::string &bytes, bool replace,
                             std::string &error) const {
  std::string leaf;
  int dir = openParent(path, /*create=*/true, leaf, &error);
  if (dir < 0)
    return false;
  std::string temporary = temporaryName(leaf);
  bool ok = createFile(dir, temporary, bytes);
  if (ok)
    // rename replaces; linkat does not, so the first writer's file stays.
    ok = replace ? ::renameat(dir, temporary.c_str(), dir, leaf.c_str()) == 0
                 : ::linkat(dir, temporary.c_str(), dir, leaf.c_str(), 0) == 0 || errno == EEXIST;
  if (!ok)
    error = std::strerror(errno);
  if (!ok || !replace)
    ::unlinkat(dir, temporary.c_str(), 0);
  ::close(dir);
  return ok;
}

bool CacheDirectory::write(const std::string &path, const std::string &bytes,
                           std::string &error) const {
  return publish(path, bytes, /*replace=*/true, error);
}

bool CacheDirectory::writeOnce(const std::string &path, const std::string &bytes,
                               std::string &error) const {
  return publish(path, bytes, /*replace=*/false, error);
}

bool CacheDirectory::writeDirectory(
    const std::string &path, const std::vector<std::pair<std::string, std::string>> &files,
    std::string &error) const {
  std::string leaf;
  int dir = openParent(path, /*create=*/true, leaf, &error);
  if (dir < 0)
    return false;
  std::string temporary = temporaryName(leaf);
  bool ok = ::mkdirat(dir, temporary.c_str(), 0700) == 0;
  int inner = ok ? ::openat(dir, temporary.c_str(), kDirectoryFlags) : -1;
  ok = inner >= 0;
  for (const auto &[name, bytes] : files)
    ok = ok && createFile(inner, name, bytes);
  if (!ok)
    error = std::strerror(errno);
  if (inner >= 0)
    ::close(inner);
  if (ok && ::renameat(dir, temporary.c_str(), dir, leaf.c_str()) != 0) {
    ok = false; // another writer stored it first (ENOTEMPTY/EEXIST): keep theirs
    if (errno != ENOTEMPTY && errno != EEXIST)
      error = std::strerror(errno);
  }
  if (!ok)
    removeAt(dir, temporary);
  else
    ::fsync(dir);
  ::close(dir);
  return ok;
}

void CacheDirectory::remove(const std::string &path) const {
  std::string leaf;
  int dir = openParent(path, /*create=*/false, leaf);
  if (dir < 0)
    return;
  removeAt(dir, leaf);
  ::close(dir);
}

void CacheDirectory::touch(const std::string &path) const {
  std::string leaf;
  int dir = openParent(path, /*create=*/false, leaf);
  if (dir < 0)
    return;
  ::utimensat(dir, leaf.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  ::close(dir);
}

std::optional<int64_t> CacheDirectory::modified(const std::string &path) const {
  std::string leaf;
  int dir = openParent(path, /*create=*/false, leaf);
  if (dir < 0)
    return std::nullopt;
  struct stat info;
  bool found = ::fstatat(dir, leaf.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0;
  ::close(dir);
  if (!found)
    return std::nullopt;
  return static_cast<int64_t>(info.st_mtime);
}

std::vector<CacheDirectory::Listing> CacheDirectory::list(const std::string &path) const {
  std::vector<Listing> found;
  int dir = openDirectory(path, /*create=*/false);
  if (dir < 0)
    return found;
  DIR *d = ::fdopendir(dir);
  if (!d) {
    ::close(dir);
    return found;
  }
  while (dirent *e = ::readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, ".."))
      continue;
    struct stat info;
    if (::fstatat(::dirfd(d), e->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    Listing item{e->d_name, S_ISDIR(info.st_mode), static_cast<uint64_t>(info.st_size),
                 static_cast<int64_t>(info.st_mtime)};
    if (item.directory) {
      item.bytes = 0;
      item.modified = 0;
      int sub = ::openat(::dirfd(d), e->d_name, kDirectoryFlags);
      if (DIR *inner = sub >= 0 ? ::fdopendir(sub) : nullptr) {
        while (dirent *f = ::readdir(inner)) {
          struct stat file;
          if (::fstatat(::dirfd(inner), f->d_name, &file, AT_SYMLINK_NOFOLLOW) == 0 &&
              S_ISREG(file.st_mode)) {
            item.bytes += static_cast<uint64_t>(file.st_size);
            item.modified = std::max<int64_t>(item.modified, file.st_mtime);
          }
        }
        ::closedir(inner);
      } else if (sub >= 0) {
        ::close(sub);
      }
    }
    found.push_back(std::move(item));
  }
  ::closedir(d);
  return found;
}
