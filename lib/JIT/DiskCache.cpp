//===- DiskCache.cpp - Compiled kernels on disk (and in Redis) ------------===//

#include "opal/JIT/DiskCache.h"

#include "opal/JIT/CacheSecret.h"
#include "opal/JIT/RemoteCache.h"
#include "opal/Support/Decimal.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Hmac.h"
#include "opal/Support/Sha256.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>

using namespace opal;
using namespace opal::jit;

namespace {

constexpr const char *kEntryDomain = "opal-cache-entry 2";
constexpr const char *kIndexDomain = "opal-cache-index 2";
constexpr const char *kRemoteEntryFormat = "opal-remote-entry 2";
constexpr uint64_t kMaxManifestBytes = 1u << 20;
constexpr uint64_t kMaxObjectBytes = 1ull << 30;
/// Processes skip the size check at their first store when another checked
/// this recently (seconds).
constexpr int64_t kPruneInterval = 600;

void logCache(const std::string &line) {
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, line);
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

bool isHexKey(const std::string &key) {
  return key.size() == 64 && key.find_first_not_of("0123456789abcdef") == std::string::npos;
}

/// The HMAC of an entry's text: it covers the domain, the entry's name and
/// the text, so an entry cannot pass for another one.
std::string tagOf(const std::string &secret, const char *domain, const std::string &name,
                  const std::string &text) {
  return hmacSha256Hex(secret, std::string(domain) + "\n" + name + "\n" + text);
}

/// `text` followed by its HMAC line.
std::string seal(const std::string &secret, const char *domain, const std::string &name,
                 const std::string &text) {
  return text + "hmac: " + tagOf(secret, domain, name, text) + "\n";
}

/// The text of a sealed file whose HMAC checks out; nothing with `problem`.
std::optional<std::string> unseal(const std::string &secret, const char *domain,
                                  const std::string &name, const std::string &sealed,
                                  std::string &problem) {
  size_t line = sealed.rfind("hmac: ");
  if (line == std::string::npos || (line != 0 && sealed[line - 1] != '\n') ||
      sealed.size() != line + 6 + 64 + 1 || sealed.back() != '\n') {
    problem = "it has no HMAC line (written by an older opal, or damaged)";
    return std::nullopt;
  }
  std::string text = sealed.substr(0, line);
  if (!equalInConstantTime(tagOf(secret, domain, name, text),
                           std::string_view(sealed).substr(line + 6, 64))) {
    problem = "its HMAC does not match (tampered with, damaged, or written under another "
              "cache key)";
    return std::nullopt;
  }
  return text;
}

/// Checks an object against its (unsealed) manifest.
std::string objectProblem(const std::string &manifest, const std::string &object) {
  if (fieldOf(manifest, "object-bytes") != std::to_string(object.size()))
    return "kernel.o has " + std::to_string(object.size()) + " bytes, the manifest says " +
           fieldOf(manifest, "object-bytes");
  if (fieldOf(manifest, "object-sha256") != sha256Hex(object))
    return "kernel.o does not match its checksum";
  return "";
}

std::optional<uint64_t> objectBytesOf(const std::string &manifest) {
  uint64_t bytes = 0;
  if (!readDecimal(fieldOf(manifest, "object-bytes"), 12, bytes) || bytes > kMaxObjectBytes)
    return std::nullopt;
  return bytes;
}

std::string remoteKey(const char *kind, const std::string &key) {
  return std::string("opal:v2:") + kind + ":" + key;
}

/// One remote value: the format line, the sealed manifest's length, the
/// sealed manifest, the object.
std::string packRemoteEntry(const std::string &sealedManifest, const std::string &object) {
  return std::string(kRemoteEntryFormat) + "\n" + std::to_string(sealedManifest.size()) + "\n" +
         sealedManifest + object;
}

bool unpackRemoteEntry(const std::string &value, std::string &sealedManifest,
                       std::string &object) {
  std::string head = std::string(kRemoteEntryFormat) + "\n";
  if (value.rfind(head, 0) != 0)
    return false;
  size_t newline = value.find('\n', head.size());
  uint64_t length = 0;
  if (newline == std::string::npos ||
      !readDecimal(std::string_view(value).substr(head.size(), newline - head.size()), 8,
                   length) ||
      length > value.size() - newline - 1)
    return false;
  sealedManifest = value.substr(newline + 1, length);
  object = value.substr(newline + 1 + length);
  return true;
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

DiskCache::DiskCache(std::string root, bool enabled, RemoteCache *remote, uint64_t maxBytes)
    : root_(std::move(root)), enabled_(enabled), maxBytes_(maxBytes) {
  if (!enabled_)
    return;
  auto off = [&](const std::string &why) {
    enabled_ = false;
    problem_ = why;
    dir_.reset();
  };
  auto dir = CacheDirectory::open(root_);
  if (!dir) {
    off(dir.error().message());
    return;
  }
  dir_ = std::move(*dir);
  auto user = userCacheSecret();
  if (!user) {
    off(user.error().message() + "; the disk cache is off for this process");
    return;
  }
  if (*user) {
    secret_ = (*user)->key;
  } else {
    auto generated = generatedCacheSecret(*dir_);
    if (!generated) {
      off(generated.error().message() + "; the disk cache is off for this process");
      return;
    }
    secret_ = generated->key;
  }
  if (remote && !*user) {
    std::fprintf(stderr, "opal: OPAL_REMOTE_CACHE is set but no cache key is: remote "
                         "entries are trusted only under a key the fleet shares (set "
                         "OPAL_CACHE_KEY or OPAL_CACHE_KEY_FILE); the remote cache is off\n");
    remote = nullptr;
  }
  remote_ = remote;
}

std::string DiskCache::entryPath(const std::string &key) const {
  return "v2/" + key.substr(0, 2) + "/" + key;
}

std::string DiskCache::indexPath(const std::string &key) const {
  return "warm-v2/" + key.substr(0, 2) + "/" + key;
}

std::optional<std::string> DiskCache::loadIndex(const std::string &key) const {
  if (!enabled_ || !isHexKey(key))
    return std::nullopt;
  std::string problem;
  std::optional<std::string> sealed = dir_->read(indexPath(key), kMaxManifestBytes, problem);
  if (sealed) {
    if (auto text = unseal(secret_, kIndexDomain, key, *sealed, problem))
      return text;
    logCache("refused the warm-start index " + key.substr(0, 16) + ": " + problem +
             "; removing it");
    dir_->remove(indexPath(key));
  } else if (!problem.empty()) {
    logCache("refused the warm-start index " + key.substr(0, 16) + ": " + problem);
    dir_->remove(indexPath(key));
  }
  if (!remote_)
    return std::nullopt;
  std::optional<std::string> value = remote_->get(remoteKey("index", key));
  if (!value)
    return std::nullopt;
  std::optional<std::string> text = unseal(secret_, kIndexDomain, key, *value, problem);
  if (!text) {
    logCache("refused the remote warm-start index " + key.substr(0, 16) + ": " + problem);
    return std::nullopt;
  }
  std::string error;
  if (!dir_->write(indexPath(key), *value, error))
    logCache("cannot install the remote warm-start index " + key.substr(0, 16) + ": " + error);
  logCache("remote hit: warm-start index " + key.substr(0, 16));
  return text;
}

void DiskCache::storeIndex(const std::string &key, const std::string &text) const {
  if (!enabled_ || !isHexKey(key))
    return;
  std::string sealed = seal(secret_, kIndexDomain, key, text);
  std::string error;
  if (!dir_->write(indexPath(key), sealed, error))
    logCache("cannot store the warm-start index " + key.substr(0, 16) + ": " + error);
  if (remote_)
    remote_->put(remoteKey("index", key), sealed);
}

void DiskCache::removeIndex(const std::string &key) const {
  if (enabled_ && isHexKey(key))
    dir_->remove(indexPath(key));
}

std::optional<std::string> DiskCache::readEntry(const std::string &key, std::string &manifest,
                                                std::string &problem) const {
  std::string path = entryPath(key);
  std::optional<std::string> sealed =
      dir_->read(path + "/manifest.txt", kMaxManifestBytes, problem);
  if (!sealed)
    return std::nullopt; // absent when `problem` is empty
  std::optional<std::string> text = unseal(secret_, kEntryDomain, key, *sealed, problem);
  if (!text)
    return std::nullopt;
  manifest = std::move(*text);
  std::optional<uint64_t> bytes = objectBytesOf(manifest);
  if (!bytes) {
    problem = "its manifest has no object size";
    return std::nullopt;
  }
  std::optional<std::string> object = dir_->read(path + "/kernel.o", *bytes, problem);
  if (!object) {
    if (problem.empty())
      problem = "kernel.o is missing";
    return std::nullopt;
  }
  problem = objectProblem(manifest, *object);
  if (!problem.empty())
    return std::nullopt;
  return object;
}

std::optional<std::string> DiskCache::loadLocal(const std::string &key,
                                                std::string *manifestText) const {
  std::string path = entryPath(key), manifest, problem;
  if (std::optional<std::string> object = readEntry(key, manifest, problem)) {
    dir_->touch(path + "/manifest.txt");
    if (logEnabled(LogTopic::Cache))
      logLine(LogTopic::Cache, "disk hit " + key.substr(0, 16));
    if (manifestText)
      *manifestText = std::move(manifest);
    return object;
  }
  if (!problem.empty()) {
    logLine(LogTopic::Cache, "refused entry " + root_ + "/" + path + ": " + problem +
                                 "; removing it and recompiling");
    dir_->remove(path);
  } else if (logEnabled(LogTopic::Cache)) {
    logLine(LogTopic::Cache, "disk miss " + key.substr(0, 16) + ": no entry in " + root_);
  }
  return std::nullopt;
}

std::optional<std::string> DiskCache::load(const std::string &key,
                                           std::string *manifestText) const {
  if (!enabled_ || !isHexKey(key))
    return std::nullopt;
  if (auto object = loadLocal(key, manifestText))
    return object;
  if (!remote_)
    return std::nullopt;
  std::optional<std::string> value = remote_->get(remoteKey("entry", key));
  if (!value)
    return std::nullopt;
  std::string sealedManifest, object, problem;
  std::optional<std::string> manifest;
  if (!unpackRemoteEntry(*value, sealedManifest, object))
    problem = "it is not an opal entry";
  else if ((manifest = unseal(secret_, kEntryDomain, key, sealedManifest, problem)))
    problem = objectProblem(*manifest, object);
  if (!problem.empty()) {
    logLine(LogTopic::Cache, "refused the remote entry " + key.substr(0, 16) + " from " +
                                 remote_->url() + ": " + problem + "; recompiling");
    return std::nullopt;
  }
  install(key, sealedManifest, object);
  logCache("remote hit " + key.substr(0, 16));
  if (manifestText)
    *manifestText = std::move(*manifest);
  return object;
}

void DiskCache::install(const std::string &key, const std::string &sealedManifest,
                        const std::string &object) const {
  std::string path = entryPath(key), error;
  if (!dir_->writeDirectory(path, {{"kernel.o", object}, {"manifest.txt", sealedManifest}},
                            error)) {
    if (!error.empty())
      logLine(LogTopic::Cache, "cannot store " + root_ + "/" + path + ": " + error);
    return;
  }
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, "stored " + root_ + "/" + path);
  // The bound is checked (a scan of the whole cache) after every tenth of
  // it this process writes, and at its first store unless any process
  // checked within kPruneInterval (the mtime of the file "pruned").
  static std::atomic<uint64_t> unchecked{0};
  static std::atomic<bool> first{true};
  uint64_t bytes = object.size() + sealedManifest.size();
  uint64_t written = unchecked.fetch_add(bytes) + bytes;
  bool due = maxBytes_ && written > maxBytes_ / 10;
  if (maxBytes_ && first.exchange(false) && !due) {
    std::optional<int64_t> checked = dir_->modified("pruned");
    due = !checked || *checked < static_cast<int64_t>(std::time(nullptr)) - kPruneInterval;
  }
  if (due) {
    unchecked = 0;
    prune(maxBytes_);
  }
}

void DiskCache::store(const std::string &key, const std::string &object,
                      const std::string &manifest) const {
  if (!enabled_ || !isHexKey(key))
    return;
  std::string full = manifest + "object-bytes: " + std::to_string(object.size()) + "\n" +
                     "object-sha256: " + sha256Hex(object) + "\n";
  std::string sealed = seal(secret_, kEntryDomain, key, full);
  install(key, sealed, object);
  if (remote_)
    remote_->put(remoteKey("entry", key), packRemoteEntry(sealed, object));
}

std::vector<DiskCache::Entry> DiskCache::entries(bool check) const {
  std::vector<Entry> found;
  if (!dir_)
    return found;
  for (const CacheDirectory::Listing &prefix : dir_->list("v2")) {
    if (!prefix.directory)
      continue;
    for (const CacheDirectory::Listing &item : dir_->list("v2/" + prefix.name)) {
      if (!item.directory || !isHexKey(item.name))
        continue;
      Entry entry{item.name, "", item.bytes, item.modified, ""};
      std::string path = entryPath(item.name), problem;
      std::optional<std::string> sealed =
          dir_->read(path + "/manifest.txt", kMaxManifestBytes, problem);
      if (!sealed)
        continue; // not whole yet, or not an entry
      entry.manifest = *sealed;
      if (check) {
        std::string manifest;
        readEntry(item.name, manifest, entry.problem);
        if (!manifest.empty())
          entry.manifest = std::move(manifest); // without its HMAC line
      }
      found.push_back(std::move(entry));
    }
  }
  std::sort(found.begin(), found.end(),
            [](const Entry &a, const Entry &b) { return a.key < b.key; });
  return found;
}

std::vector<std::string> DiskCache::indexKeys() const {
  std::vector<std::string> keys;
  if (!dir_)
    return keys;
  for (const CacheDirectory::Listing &prefix : dir_->list("warm-v2"))
    if (prefix.directory)
      for (const CacheDirectory::Listing &item : dir_->list("warm-v2/" + prefix.name))
        if (!item.directory && isHexKey(item.name))
          keys.push_back(item.name);
  std::sort(keys.begin(), keys.end());
  return keys;
}

size_t DiskCache::indexCount() const {
  size_t count = 0;
  if (!dir_)
    return count;
  for (const CacheDirectory::Listing &prefix : dir_->list("warm-v2"))
    if (prefix.directory)
      for (const CacheDirectory::Listing &item : dir_->list("warm-v2/" + prefix.name))
        count += !item.directory && isHexKey(item.name);
  return count;
}

size_t DiskCache::clear() const {
  if (!dir_)
    return 0;
  size_t removed = entries(/*check=*/false).size();
  dir_->remove("v2");
  dir_->remove("warm-v2");
  return removed;
}

DiskCache::Pruned DiskCache::prune(uint64_t bound) const {
  Pruned result;
  if (!dir_)
    return result;
  struct Item {
    std::string path;
    uint64_t bytes;
    int64_t lastUsed;
    bool index;
  };
  std::vector<Item> items;
  int64_t hourAgo = static_cast<int64_t>(std::time(nullptr)) - 3600;
  for (const char *top : {"v2", "warm-v2"}) {
    bool index = std::string(top) == "warm-v2";
    for (const CacheDirectory::Listing &prefix : dir_->list(top)) {
      if (!prefix.directory)
        continue;
      std::string base = std::string(top) + "/" + prefix.name + "/";
      for (const CacheDirectory::Listing &item : dir_->list(base)) {
        if (item.name.rfind(".tmp-", 0) == 0) {
          if (item.modified < hourAgo)
            dir_->remove(base + item.name);
          continue;
        }
        items.push_back({base + item.name, item.bytes, item.modified, index});
        result.bytesBefore += item.bytes;
      }
    }
  }
  result.bytesAfter = result.bytesBefore;
  std::string error;
  dir_->write("pruned", std::to_string(result.bytesBefore) + "\n", error);
  if (result.bytesBefore <= bound)
    return result;
  std::sort(items.begin(), items.end(),
            [](const Item &a, const Item &b) { return a.lastUsed < b.lastUsed; });
  uint64_t target = bound / 10 * 9;
  for (const Item &item : items) {
    if (result.bytesAfter <= target)
      break;
    dir_->remove(item.path);
    result.bytesAfter -= item.bytes;
    ++(item.index ? result.indexes : result.entries);
  }
  logCache("pruned " + std::to_string(result.entries) + " entries and " +
           std::to_string(result.indexes) + " index files: " +
           std::to_string(result.bytesBefore) + " -> " + std::to_string(result.bytesAfter) +
           " bytes (bound " + std::to_string(bound) + ")");
  return result;
}

const DiskCache &opal::jit::diskCache() {
  static const DiskCache cache = [] {
    // A value these knobs do not take was warned of when libopal loaded
    // (Support/Environment.h) and is ignored.
    std::optional<std::string> disable = readKnob("OPAL_CACHE_DISABLE");
    bool enabled = !(disable && *disable == "1");
    uint64_t maxBytes = DiskCache::kDefaultMaxBytes;
    if (auto text = readKnob("OPAL_CACHE_MAX_BYTES"); text && !text->empty())
      if (auto parsed = parseByteCount(*text))
        maxBytes = *parsed;
    DiskCache made(defaultRoot(), enabled, enabled ? remoteCache() : nullptr, maxBytes);
    if (!made.problem().empty())
      std::fprintf(stderr, "opal: %s\n", made.problem().c_str());
    return made;
  }();
  return cache;
}
