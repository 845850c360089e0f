//===- CacheBindings.cpp - opal._C: the kernel caches ---------------------===//
//
// What opal.cache (python -m opal.cache) shows and does: the disk cache's
// entries read, checked and pruned by the C++ side, the only reader of its
// format (JIT/DiskCache.h), and the remote cache's counters.

#include "Bindings.h"

#include "opal/JIT/DiskCache.h"
#include "opal/JIT/RemoteCache.h"
#include "opal/JIT/WarmStart.h"
#include "opal/Support/Decimal.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace opal;
using namespace opal::jit;

namespace {

/// The process's cache, or one opened at `root` with the same key rules.
std::shared_ptr<const DiskCache> cacheAt(const std::optional<std::string> &root) {
  if (!root || *root == diskCache().root())
    return std::shared_ptr<const DiskCache>(&diskCache(), [](const DiskCache *) {});
  return std::make_shared<const DiskCache>(*root, true);
}

py::dict fields(const std::string &text) {
  py::dict out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(start, end - start);
    if (size_t colon = line.find(": "); colon != std::string::npos)
      out[py::str(line.substr(0, colon))] = line.substr(colon + 2);
    start = end + 1;
  }
  return out;
}

} // namespace

void opal::python::bindCache(py::module_ &m) {
  m.def("_cache_info", [](std::optional<std::string> root) {
    auto cache = cacheAt(root);
    py::dict out;
    out["root"] = cache->root();
    out["enabled"] = cache->enabled();
    out["problem"] = cache->problem();
    out["max_bytes"] = cache->maxBytes();
    out["remote"] = cache->remote() ? py::object(py::str(cache->remote()->url())) : py::none();
    return out;
  }, py::arg("root") = py::none());
  m.def("_cache_entries", [](std::optional<std::string> root, bool check) {
    py::list out;
    for (const DiskCache::Entry &entry : cacheAt(root)->entries(check)) {
      py::dict item;
      item["key"] = entry.key;
      item["manifest"] = entry.manifest;
      item["fields"] = fields(entry.manifest);
      item["bytes"] = entry.bytes;
      item["last_used"] = entry.lastUsed;
      item["problem"] = entry.problem;
      out.append(item);
    }
    return out;
  }, py::arg("root") = py::none(), py::arg("check") = false);
  m.def("_cache_check_index", [](std::optional<std::string> root) {
    py::list out;
    for (const jit::IndexCheck &check : jit::checkWarmStartIndex(*cacheAt(root))) {
      py::dict item;
      item["name"] = check.name;
      item["call"] = check.label;
      item["problem"] = check.problem;
      item["checked"] = check.checked;
      out.append(item);
    }
    return out;
  }, py::arg("root") = py::none());
  m.def("_cache_index_count", [](std::optional<std::string> root) {
    return cacheAt(root)->indexCount();
  }, py::arg("root") = py::none());
  m.def("_cache_clear", [](std::optional<std::string> root) {
    return cacheAt(root)->clear();
  }, py::arg("root") = py::none());
  m.def("_cache_prune", [](std::optional<std::string> root, std::optional<uint64_t> bound) {
    auto cache = cacheAt(root);
    DiskCache::Pruned pruned = cache->prune(bound ? *bound : cache->maxBytes());
    py::dict out;
    out["entries"] = pruned.entries;
    out["indexes"] = pruned.indexes;
    out["bytes_before"] = pruned.bytesBefore;
    out["bytes_after"] = pruned.bytesAfter;
    return out;
  }, py::arg("root") = py::none(), py::arg("max_bytes") = py::none());
  m.def("_cache_parse_bytes", [](const std::string &text) { return parseByteCount(text); });
  m.def("_cache_remote_stats", []() -> py::object {
    RemoteCache *remote = diskCache().remote();
    if (!remote)
      return py::none();
    RemoteCache::Stats stats = remote->stats();
    py::dict out;
    out["url"] = remote->url();
    out["hits"] = stats.hits;
    out["misses"] = stats.misses;
    out["stores"] = stats.stores;
    out["failures"] = stats.failures;
    out["skipped"] = stats.skipped;
    return out;
  });
}
