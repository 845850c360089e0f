//===- Parallel.cpp - The thread count and budget of compiled kernels -----===//

#include "opal/Runtime/Parallel.h"

#include "opal/Support/Environment.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <sched.h>

using namespace opal;

int64_t opal::availableCores() {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    int count = CPU_COUNT(&mask);
    if (count > 0)
      return count;
  }
  return 1;
}

Expected<int64_t> opal::parseNumThreads(const std::optional<std::string> &value) {
  if (!value)
    return availableCores();
  const std::string &text = *value;
  auto refuse = [&] {
    return makeUnexpected(Error("OPAL_NUM_THREADS must be a positive integer (the threads "
                                "compiled kernels use), got '" + text + "'"));
  };
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return refuse();
  int64_t threads = std::strtoll(text.c_str(), nullptr, 10);
  if (threads < 1)
    return refuse();
  return threads;
}

namespace {

struct Setting {
  std::atomic<int64_t> threads;
  std::optional<std::string> error;
  Setting() {
    Expected<int64_t> parsed = parseNumThreads(readKnob("OPAL_NUM_THREADS"));
    if (parsed) {
      threads = parsed.value();
    } else {
      threads = availableCores();
      error = parsed.error().message();
    }
  }
};

Setting &setting() {
  static Setting *value = new Setting(); // read by kernels until the process ends
  return *value;
}

/// LLVM's OpenMP runtime keeps an idle worker spinning for 200 ms after each
/// parallel nest (KMP_BLOCKTIME's default). In a process that runs other
/// thread pools (PyTorch's OpenMP, ONNX Runtime's), that spinning takes the
/// cores their next parallel region needs: at 2 threads on 2 cores, eager
/// PyTorch ran a model 1.2-2x slower after an opal call. Unless the user
/// chose (KMP_BLOCKTIME or OMP_WAIT_POLICY set), opal sets the block time
/// to kOpenMpBlockTime before libomp reads its environment (its first
/// parallel nest, after libopal is loaded): workers stay awake between the
/// nests of one kernel, which follow each other within microseconds, and
/// sleep soon after the kernel returns.
constexpr const char *kOpenMpBlockTime = "1";
[[maybe_unused]] const bool shortBlockTime = [] {
  if (!std::getenv("KMP_BLOCKTIME") && !std::getenv("OMP_WAIT_POLICY"))
    ::setenv("KMP_BLOCKTIME", kOpenMpBlockTime, /*overwrite=*/0);
  return true;
}();

/// Threads taken by the nests running now beyond their callers' own, and
/// the number of those nests.
std::atomic<int64_t> busyThreads{0};
std::atomic<int64_t> runningNests{0};

} // namespace

std::optional<std::string> opal::numThreadsKnobError() { return setting().error; }

int64_t opal::getNumThreads() { return setting().threads.load(std::memory_order_relaxed); }

Expected<bool> opal::setNumThreads(int64_t threads) {
  if (threads < 1)
    return makeUnexpected(
        Error("set_num_threads: expected a positive number of threads, got " +
              std::to_string(threads)));
  setting().threads.store(threads, std::memory_order_relaxed);
  return true;
}

bool opal::workersSleepAtOnce(const std::optional<std::string> &waitPolicy,
                              const std::optional<std::string> &blockTime) {
  if (waitPolicy) {
    std::string lower;
    for (char c : *waitPolicy)
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "passive")
      return true;
  }
  return blockTime && *blockTime == "0";
}

int64_t opal::minimumForkedWork() {
  static const int64_t least =
      2 * kParallelGrain *
      (workersSleepAtOnce(readKnob("OMP_WAIT_POLICY"), readKnob("KMP_BLOCKTIME"))
           ? kPassiveFactor
           : 1);
  return least;
}

int64_t opal::forkedTeam(int64_t threads, int64_t stable) {
  if (runningNests.load(std::memory_order_relaxed) > 1)
    return threads; // (concurrent callers: each keeps to its share)
  return std::max(threads, stable);
}

int64_t opal_parallel_begin(int64_t work) {
  if (work < minimumForkedWork())
    return 1; // small: not a nest that competes for threads
  int64_t limit = getNumThreads();
  int64_t wanted = std::min(limit, work / kParallelGrain);
  // Every large nest counts while it runs, even on one thread, so that the
  // others leave it its share next time.
  int64_t nests = runningNests.fetch_add(1, std::memory_order_relaxed) + 1;
  int64_t share = std::max<int64_t>(limit / nests, 1);
  int64_t extra = std::min(wanted, share) - 1;
  if (extra < 1)
    return 1;
  // Never more than the threads nobody uses: the limit less one for each
  // running nest's caller and the extra threads they hold.
  int64_t busy = busyThreads.fetch_add(extra, std::memory_order_relaxed);
  int64_t free = std::max<int64_t>(limit - nests - busy, 0);
  if (extra > free) {
    busyThreads.fetch_sub(extra - free, std::memory_order_relaxed);
    extra = free;
  }
  return extra + 1;
}

void opal_parallel_end(int64_t work, int64_t threads) {
  if (work < minimumForkedWork())
    return;
  if (threads > 1)
    busyThreads.fetch_sub(threads - 1, std::memory_order_relaxed);
  runningNests.fetch_sub(1, std::memory_order_relaxed);
}
