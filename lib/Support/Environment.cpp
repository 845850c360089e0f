//===- Environment.cpp - Every environment variable opal reads ------------===//

#include "opal/Support/Environment.h"

#include "opal/Support/Decimal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <unistd.h>

using namespace opal;

namespace {

constexpr const char *kTopicNames[] = {"dispatch", "jit", "cache", "torch"};
constexpr const char *kTopicHelp[] = {
    "one line per call: the op, its dispatch key set and the kernel that runs",
    "one line per compile: the op, specialization, time by stage and reached ops; or the "
    "op-by-op plan and the opaque op that caused it",
    "why a call missed (not compiled in this process, an op it reached was registered "
    "again), disk and remote hits, refused entries and why, stores, pruning",
    "opal.torch.compile: each graph compiled, and each that runs in PyTorch and why"};

bool zeroOrOne(const std::string &value) { return value.empty() || value == "0" || value == "1"; }

bool byteCount(const std::string &value) { return parseByteCount(value).has_value(); }

bool milliseconds(const std::string &value) {
  uint64_t number = 0;
  return readDecimal(value, 5, number) && number >= 1 && number <= 60000;
}

bool cudaFormat(const std::string &value) { return value == "bin" || value == "isa"; }

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

const std::vector<EnvironmentKnob> &opal::environmentKnobs() {
  static const std::vector<EnvironmentKnob> knobs = {
      {"OPAL_LOG", false,
       "comma-separated log channels: dispatch, jit, cache, torch; all for every one; help lists "
       "them and every variable"},
      {"OPAL_CACHE_DIR", false,
       "where compiled kernels are kept (default $XDG_CACHE_HOME/opal, else ~/.cache/opal)"},
      {"OPAL_CACHE_DISABLE", false,
       "1: neither read nor write the disk and remote caches (the in-memory cache stays)",
       "0 or 1", zeroOrOne},
      {"OPAL_CACHE_MAX_BYTES", false,
       "the disk cache's size bound: bytes with an optional K, M or G (default 1G; 0: no "
       "bound); least recently used entries go first",
       "a byte count with an optional K, M or G (1G by default)", byteCount},
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
       "after a failure the server is skipped for 30 s",
       "a number of milliseconds from 1 to 60000 (50 by default)", milliseconds},
      {"OPAL_PERF_MAP", false,
       "1: append each loaded kernel function to /tmp/perf-<pid>.map, so perf report names "
       "kernels",
       "0 or 1", zeroOrOne},
      {"OPAL_DUMP_DIR", false,
       "a directory where the JIT writes each kernel's IR after every stage"},
      {"OPAL_NUM_THREADS", false,
       "the threads compiled CPU kernels may use, a positive integer (default: the cores in "
       "the process's affinity mask); opal.set_num_threads() changes it"},
      {"OMP_WAIT_POLICY", false,
       "the OpenMP runtime's own, read by opal: PASSIVE (any case) puts idle workers to sleep "
       "at once, so that each fork of a parallel nest wakes them (tens of microseconds); opal "
       "then forks only nests of 16 times the work it forks otherwise"},
      {"KMP_BLOCKTIME", false,
       "LLVM's OpenMP runtime's own, read by opal: the milliseconds an idle worker spins "
       "before it sleeps (opal sets 1 unless it or OMP_WAIT_POLICY is set, so that its workers "
       "leave the cores to other thread pools soon after a kernel); 0 counts as "
       "OMP_WAIT_POLICY=PASSIVE"},
      {"OPAL_LIBCUDA", false,
       "the CUDA driver library to open (default libcuda.so.1, found by the dynamic loader)"},
      {"CUDA_HOME", true,
       "the CUDA toolkit the CUDA compiler uses: libdevice and ptxas (default /usr/local/cuda)"},
      {"OPAL_CUDA_FORMAT", true,
       "what the JIT compiles CUDA kernels to: bin (a cubin through ptxas, the default where "
       "the toolkit has ptxas) or isa (PTX, which the driver compiles when it loads it)",
       "bin or isa", cudaFormat},
      {"OPAL_COMPILE_PROGRESS_MS", false,
       "after how many milliseconds a compile still running prints one progress line when "
       "stderr is a terminal and OPAL_LOG is off (default 1000; 0: never)",
       "a number of milliseconds from 0 to 600000", [](const std::string &value) {
         uint64_t number = 0;
         return readDecimal(value, 6, number) && number <= 600000;
       }},
      {"OPAL_COMPILE_THREADS", false,
       "how many kernels a torch.compile graph run op by op compiles at once before its first "
       "call (default: the cores in the process's affinity mask, at most 16)",
       "a number from 1 to 64", [](const std::string &value) {
         uint64_t number = 0;
         return readDecimal(value, 2, number) && number >= 1 && number <= 64;
       }},
      // Read by opal's own scripts and tests, not by the library.
      {"OPAL_BUILD_DIR", false, "the build tree opal's tests and benchmarks use (default build)",
       nullptr, nullptr, true},
      {"OPAL_FUZZ_SECONDS", false, "make test: run each fuzzer this long instead of a fixed run",
       nullptr, nullptr, true},
      {"OPAL_FUZZ_BIN_DIR", false, "make test: where the fuzzers are (default build/fuzz/bin)",
       nullptr, nullptr, true},
      {"OPAL_FUZZ_SEED", false, "make test: the seed of the differential tests' cases",
       nullptr, nullptr, true},
      {"OPAL_TEST_DEVICE", false, "make test: run the aten suite's inputs on this device (cuda)",
       nullptr, nullptr, true},
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
  if (!value)
    return false;
  std::string list = "," + *value + ",";
  return list.find(",all,") != std::string::npos ||
         list.find("," + std::string(kTopicNames[index]) + ",") != std::string::npos;
}
} // namespace

std::string opal::environmentHelp() {
  std::string text = "opal: OPAL_LOG takes a comma-separated list of channels:\n";
  for (size_t i = 0; i < std::size(kTopicNames); ++i)
    text += std::string("  ") + kTopicNames[i] + std::string(10 - std::strlen(kTopicNames[i]), ' ') +
            kTopicHelp[i] + "\n";
  text += "  all       every channel\n  help      this list\n"
          "opal reads these environment variables (docs/jit.md):\n";
  for (const EnvironmentKnob &knob : environmentKnobs())
    if (!knob.readByScripts)
      text += std::string("  ") + knob.name + ": " + knob.description + "\n";
  return text;
}

std::vector<std::string> opal::checkEnvironment(char **environment) {
  std::vector<std::string> warnings;
  auto warn = [&](const std::string &line) { warnings.push_back("opal: " + line); };
  for (char **entry = environment; entry && *entry; ++entry) {
    std::string pair = *entry;
    size_t equals = pair.find('=');
    std::string name = pair.substr(0, equals), value = pair.substr(equals + 1);
    if (name.rfind("OPAL_", 0) != 0)
      continue;
    const EnvironmentKnob *found = nullptr, *closest = nullptr;
    size_t best = 4;
    for (const EnvironmentKnob &knob : environmentKnobs()) {
      if (name == knob.name)
        found = &knob;
      else if (size_t distance = editDistance(name, knob.name); distance < best)
        best = distance, closest = &knob;
    }
    if (!found) {
      warn(name + " is not one of opal's environment variables" +
           (closest ? std::string(" (did you mean ") + closest->name + "?)" : std::string()) +
           "; OPAL_LOG=help lists them");
      continue;
    }
    if (found->valid && !found->valid(value))
      warn("ignoring " + name + "=" + value + ": it takes " + found->accepted);
    if (name == "OPAL_LOG")
      for (const std::string &channel : splitList(value)) {
        bool known = channel == "all" || channel == "help" || channel.empty();
        for (const char *topic : kTopicNames)
          known |= channel == topic;
        if (!known)
          warn("OPAL_LOG names an unknown channel '" + channel +
               "'; the channels are dispatch, jit, cache and torch, or all (OPAL_LOG=help lists "
               "them)");
      }
  }
  return warnings;
}

namespace {
/// The check runs once, when libopal is loaded.
const bool environmentChecked = [] {

  for (const std::string &line : checkEnvironment(::environ))
    std::fprintf(stderr, "%s\n", line.c_str());
  if (std::optional<std::string> log = readKnob("OPAL_LOG"))
    for (const std::string &channel : splitList(*log))
      if (channel == "help")
        std::fputs(environmentHelp().c_str(), stderr);
  return true;
}();
} // namespace

bool opal::detail::logTopics[4] = {parseTopics(0), parseTopics(1), parseTopics(2),
                                   parseTopics(3)};

void opal::setLogEnabled(LogTopic topic, bool enabled) {
  detail::logTopics[static_cast<int>(topic)] = enabled;
}

void opal::logLine(LogTopic topic, const std::string &message) {
  static const char *const *names = kTopicNames;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::cerr << "[opal:" << names[static_cast<int>(topic)] << "] " << message << std::endl;
}
