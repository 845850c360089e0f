//===- Parallel.h - How many threads a compiled kernel may use --*- C++ -*-===//
//
// Compiled CPU kernels run their parallel loops on the OpenMP runtime (LLVM's
// libomp): the compiler outlines each loop nest that may split (opal-parallelize)
// and asks this file, per call and per nest, how many threads to use. The
// answer follows three rules:
//   - the process-wide setting: OPAL_NUM_THREADS, else the cores in the
//     process's affinity mask; opal.set_num_threads() changes it;
//   - the grain: a nest gets one thread per kParallelGrain units of work (the
//     product of its loop sizes), so small calls stay on the caller's thread
//     and fork nothing; when the OpenMP runtime's idle workers sleep at once
//     (OMP_WAIT_POLICY=PASSIVE, KMP_BLOCKTIME=0), a fork wakes them, and
//     only nests of kPassiveFactor times more work fork;
//   - a budget shared by concurrent callers: threads in use by every nest
//     running at once never exceed the setting (each caller keeps its own
//     thread), and a caller that arrives while others run gets its fair share
//     of the free threads.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_PARALLEL_H
#define OPAL_RUNTIME_PARALLEL_H

#include "opal/Support/Expected.h"

#include <cstdint>
#include <optional>
#include <string>

namespace opal {

/// Units of work (loop iterations of a nest, counted over all its loops)
/// per thread: below twice this a nest runs on the caller's thread.
constexpr int64_t kParallelGrain = 32768;

/// How much more work a nest needs before it forks when the OpenMP
/// runtime's idle workers sleep at once: a fork and join then took 45-56 us
/// on the 2-core development VM, against 1-2 us with spinning workers
/// (benchmarks/omp_fork.c).
constexpr int64_t kPassiveFactor = 16;

/// Whether OMP_WAIT_POLICY or KMP_BLOCKTIME (the OpenMP runtime's own
/// settings, which opal reads) put idle workers to sleep at once:
/// "passive" in any case, or a block time of 0.
bool workersSleepAtOnce(const std::optional<std::string> &waitPolicy,
                        const std::optional<std::string> &blockTime);

/// The least work of a nest that forks: 2 * kParallelGrain, times
/// kPassiveFactor when the process's idle workers sleep at once.
int64_t minimumForkedWork();

/// The cores this process may run on (its affinity mask), at least 1.
int64_t availableCores();

/// OPAL_NUM_THREADS's value read as a thread count: a positive integer, or
/// an error naming the knob. No value: availableCores().
Expected<int64_t> parseNumThreads(const std::optional<std::string> &value);

/// The error OPAL_NUM_THREADS's value gave, if it is not a positive integer
/// (the setting is then availableCores()); Python raises it at import.
std::optional<std::string> numThreadsKnobError();

/// The team a nest granted `threads` by opal_parallel_begin forks: while it
/// is the only nest running, at least `stable` threads (the team size the
/// process's OpenMP runtime keeps: the setting, or PyTorch's), of which the
/// first `threads` run the nest's parts and the others return at once;
/// else `threads`. OpenMP runtimes keep a team's threads between regions of
/// one size, but a smaller team releases them (libgomp ends the surplus
/// threads and creates new ones when the team grows again): forking as
/// many threads as each nest's work deserves created two threads per
/// kernel call at 4 threads.
int64_t forkedTeam(int64_t threads, int64_t stable);

/// The threads compiled kernels may use (>= 1).
int64_t getNumThreads();
/// Sets it; an error for counts below 1.
Expected<bool> setNumThreads(int64_t threads);

} // namespace opal

extern "C" {
/// Called by a compiled kernel before a parallel nest of `work` units: the
/// threads it runs on (1: run it on the caller's thread). Every call is
/// paired with opal_parallel_end(work, threads) when the nest is done.
int64_t opal_parallel_begin(int64_t work);
/// Gives back the threads opal_parallel_begin(work) granted.
void opal_parallel_end(int64_t work, int64_t threads);
}

#endif // OPAL_RUNTIME_PARALLEL_H
