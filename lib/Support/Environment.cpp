//===- Environment.cpp - Every environment variable opal reads ------------===//

#include "opal/Support/Environment.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

using namespace opal;

const std::vector<EnvironmentKnob> &opal::environmentKnobs() {
  static const std::vector<EnvironmentKnob> knobs = {
      {"OPAL_LOG", false,
       "comma-separated log topics: dispatch (one line per call), jit, cache; "
       "or all"},
      {"OPAL_CACHE_DIR", false,
       "where compiled kernels are kept (default $XDG_CACHE_HOME/opal, else ~/.cache/opal)"},
      {"OPAL_CACHE_DISABLE", false,
       "1: neither read nor write the disk cache (the in-memory cache stays)"},
      {"OPAL_CACHE_MAX_BYTES", false,
       "the disk cache's size bound: bytes with an optional K, M or G (default 1G; 0: no "
       "bound); least recently used entries go first"},
      {"OPAL_CACHE_KEY", false,
       "the secret (16 bytes or more) whose HMAC authenticates every cache entry; share it "
       "across a fleet to trust each other's entries (default: a key generated in the cache "
       "directory)"},
      {"OPAL_CACHE_KEY_FILE", false,
       "a file holding OPAL_CACHE_KEY, owned by the user and private (0600)"},
      {"OPAL_REMOTE_CACHE", false,
       "a Redis server shared by a fleet: redis://[:password@]host[:port][/db] or "
       "unix:///path/to/socket[?db=N]; needs OPAL_CACHE_KEY or OPAL_CACHE_KEY_FILE"},
      {"OPAL_REMOTE_CACHE_TIMEOUT_MS", false,
       "the most a remote cache connect or command may take, in milliseconds (default 50); "
       "after a failure the server is skipped for 30 s"},
      {"OPAL_PERF_MAP", false,
       "1: append each loaded kernel function to /tmp/perf-<pid>.map, so perf report names "
       "kernels"},
      {"OPAL_DUMP_DIR", false,
       "a directory where the JIT writes each kernel's IR after every stage"},
      {"OPAL_NUM_THREADS", false,
       "the threads compiled CPU kernels may use, a positive integer (default: the cores in "
       "the process's affinity mask); opal.set_num_threads() changes it"},
      {"OPAL_LIBCUDA", false,
       "the CUDA driver library to open (default libcuda.so.1, found by the dynamic loader)"},
      {"CUDA_HOME", true,
       "the CUDA toolkit the CUDA compiler uses: libdevice and ptxas (default /usr/local/cuda)"},
      {"OPAL_CUDA_FORMAT", true,
       "what the JIT compiles CUDA kernels to: bin (a cubin through ptxas, the default where "
       "the toolkit has ptxas) or isa (PTX, which the driver compiles when it loads it)"},
      {"XDG_CACHE_HOME", false, "the base of the default OPAL_CACHE_DIR"},
      {"HOME", false, "the base of the default OPAL_CACHE_DIR without XDG_CACHE_HOME"},
  };
  return knobs;
}

std::optional<std::string> opal::readKnob(const char *name) {
  bool known = false;
  for (const EnvironmentKnob &knob : environmentKnobs())
    known |= std::strcmp(knob.name, name) == 0;
  if (!known) {
    std::fprintf(stderr, "opal: internal error: environment variable %s is not "
                         "in the knob table (Support/Environment.cpp)\n", name);
    std::abort();
  }
  const char *value = std::getenv(name);
  if (!value)
    return std::nullopt;
  return std::string(value);
}

namespace {
bool parseTopics(int index) {
  static const std::optional<std::string> value = readKnob("OPAL_LOG");
  static const char *names[] = {"dispatch", "jit", "cache"};
  if (!value)
    return false;
  std::string list = "," + *value + ",";
  return list.find(",all,") != std::string::npos ||
         list.find("," + std::string(names[index]) + ",") != std::string::npos;
}
} // namespace

bool opal::detail::logTopics[3] = {parseTopics(0), parseTopics(1), parseTopics(2)};

void opal::setLogEnabled(LogTopic topic, bool enabled) {
  detail::logTopics[static_cast<int>(topic)] = enabled;
}

void opal::logLine(LogTopic topic, const std::string &message) {
  static const char *names[] = {"dispatch", "jit", "cache"};
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::cerr << "[opal:" << names[static_cast<int>(topic)] << "] " << message << std::endl;
}
