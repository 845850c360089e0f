//===- DiskCache.cpp - Compiled kernels on disk ---------------------------===//

#include "opal/JIT/DiskCache.h"

#include "opal/Support/Environment.h"
#include "opal/Support/Sha256.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace opal;
using namespace opal::jit;

namespace {

std::optional<std::string> readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return std::nullopt;
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

bool writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream file(path, std::ios::binary);
  file << bytes;
  file.close();
  return static_cast<bool>(file);
}

/// Removes a directory and the files in it.
void removeEntry(const std::string &dir) {
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
        ::unlink((dir + "/" + e->d_name).c_str());
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

bool makeDirs(const std::string &path) {
  for (size_t at = 1; at <= path.size(); ++at)
    if (at == path.size() || path[at] == '/')
      if (::mkdir(path.substr(0, at).c_str(), 0755) != 0 && errno != EEXIST)
        return false;
  return true;
}

std::string defaultRoot() {
  if (auto dir = readKnob("OPAL_CACHE_DIR"); dir && !dir->empty())
    return *dir;
  if (auto xdg = readKnob("XDG_CACHE_HOME"); xdg && !xdg->empty())
    return *xdg + "/opal";
  if (auto home = readKnob("HOME"); home && !home->empty())
    return *home + "/.cache/opal";
  return "/tmp/opal-cache-" + std::to_string(::getuid());
}

} // namespace

std::string jit::fieldOf(const std::string &text, const std::string &name) {
  std::string prefix = "\n" + name + ": ";
  size_t at = ("\n" + text).find(prefix);
  if (at == std::string::npos)
    return "";
  size_t start = at + prefix.size() - 1;
  return text.substr(start, text.find('\n', start) - start);
}

DiskCache::DiskCache(std::string root, bool enabled) : root_(std::move(root)), enabled_(enabled) {}

std::string DiskCache::entryDir(const std::string &key) const {
  return root_ + "/v1/" + key.substr(0, 2) + "/" + key;
}

std::string DiskCache::indexPath(const std::string &key) const {
  return root_ + "/warm-v1/" + key.substr(0, 2) + "/" + key;
}

std::optional<std::string> DiskCache::loadIndex(const std::string &key) const {
  if (!enabled_)
    return std::nullopt;
  return readFile(indexPath(key));
}

void DiskCache::storeIndex(const std::string &key, const std::string &text) const {
  if (!enabled_)
    return;
  std::string path = indexPath(key);
  static std::atomic<uint64_t> counter{0};
  std::string temporary = path + ".tmp-" + std::to_string(::getpid()) + "-" +
                          std::to_string(counter++);
  if (!makeDirs(path.substr(0, path.rfind('/'))) || !writeFile(temporary, text) ||
      ::rename(temporary.c_str(), path.c_str()) != 0) {
    logLine(LogTopic::Cache, "cannot store the warm-start index " + path + ": " +
                                 std::strerror(errno));
    ::unlink(temporary.c_str());
  }
}

void DiskCache::removeIndex(const std::string &key) const { ::unlink(indexPath(key).c_str()); }

std::optional<std::string> DiskCache::load(const std::string &key,
                                           std::string *manifestText) const {
  if (!enabled_)
    return std::nullopt;
  std::string dir = entryDir(key);
  std::optional<std::string> manifest = readFile(dir + "/manifest.txt");
  if (!manifest) {
    if (logEnabled(LogTopic::Cache))
      logLine(LogTopic::Cache, "disk miss " + key.substr(0, 16) + ": no entry in " + root_);
    return std::nullopt;
  }
  std::optional<std::string> object = readFile(dir + "/kernel.o");
  std::string problem;
  if (!object)
    problem = "kernel.o is missing";
  else if (fieldOf(*manifest, "object-bytes") != std::to_string(object->size()))
    problem = "kernel.o has " + std::to_string(object->size()) + " bytes, the manifest says " +
              fieldOf(*manifest, "object-bytes");
  else if (fieldOf(*manifest, "object-sha256") != sha256Hex(*object))
    problem = "kernel.o does not match its checksum";
  if (!problem.empty()) {
    logLine(LogTopic::Cache, "corrupt entry " + dir + ": " + problem + "; removing it and "
                             "recompiling");
    removeEntry(dir);
    return std::nullopt;
  }
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, "disk hit " + key.substr(0, 16));
  if (manifestText)
    *manifestText = std::move(*manifest);
  return object;
}

void DiskCache::store(const std::string &key, const std::string &object,
                      const std::string &manifest) const {
  if (!enabled_)
    return;
  std::string dir = entryDir(key);
  std::string parent = dir.substr(0, dir.rfind('/'));
  static std::atomic<uint64_t> counter{0};
  std::string temporary = parent + "/.tmp-" + key.substr(0, 16) + "-" +
                          std::to_string(::getpid()) + "-" + std::to_string(counter++);
  auto give_up = [&](const std::string &why) {
    logLine(LogTopic::Cache, "cannot store " + dir + ": " + why);
    removeEntry(temporary);
  };
  if (!makeDirs(parent) || ::mkdir(temporary.c_str(), 0755) != 0)
    return give_up(std::strerror(errno));
  std::string full = manifest + "object-bytes: " + std::to_string(object.size()) + "\n" +
                     "object-sha256: " + sha256Hex(object) + "\n";
  if (!writeFile(temporary + "/kernel.o", object) ||
      !writeFile(temporary + "/manifest.txt", full))
    return give_up("write failed");
  if (::rename(temporary.c_str(), dir.c_str()) != 0) {
    // Another process stored it first (ENOTEMPTY/EEXIST): keep theirs.
    removeEntry(temporary);
    return;
  }
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, "stored " + dir);
}

const DiskCache &opal::jit::diskCache() {
  static const DiskCache cache = [] {
    std::optional<std::string> disable = readKnob("OPAL_CACHE_DISABLE");
    bool enabled = !disable || disable->empty() || *disable == "0";
    return DiskCache(defaultRoot(), enabled);
  }();
  return cache;
}
