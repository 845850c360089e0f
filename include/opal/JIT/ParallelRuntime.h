//===- ParallelRuntime.h - Whose threads run a kernel's nests ---*- C++ -*-===//
//
// A compiled kernel forks its parallel nests through three OpenMP entry
// points (__kmpc_global_thread_num, __kmpc_push_num_threads,
// __kmpc_fork_call, as LLVM's OpenMP lowering emits them) and splits each
// nest by opal_parallel_thread()/opal_parallel_team(). The object loader
// binds those entry points to the functions here, which run the nest on one
// of two OpenMP runtimes:
//   - LLVM's libomp, which libopal links;
//   - GNU's libgomp loaded in the process (PyTorch's, or an OpenMP BLAS's):
//     opal's nests then run on the threads the other library's parallel
//     regions use. Two runtimes' pools in one process each keep idle workers
//     spinning after a region, taking the cores the other's next region
//     needs; one pool shares them.
// Each fork keeps the team at one size (forkedTeam, Runtime/Parallel.h):
// the nest's parts run on its first threads.
// Unless one was chosen, the first fork of the process chooses: libgomp if
// it is loaded by then, else libomp. Importing opal.torch chooses libgomp
// (PyTorch may have been imported after opal's first kernel).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_PARALLELRUNTIME_H
#define OPAL_JIT_PARALLELRUNTIME_H

#include "opal/Support/Expected.h"

#include <cstdint>
#include <string>

namespace opal::jit {

enum class ParallelRuntime : uint8_t {
  LLVM, ///< libomp, linked by libopal
  GNU,  ///< libgomp, found among the process's libraries
};

/// Runs compiled kernels' parallel nests on `runtime` from now on. Choosing
/// GNU fails, with the reason, when no libgomp is loaded in the process.
/// The runtime the process runs them on (chosen now if no fork chose yet).
Expected<bool> setParallelRuntime(ParallelRuntime runtime);
ParallelRuntime parallelRuntime();
/// "llvm" or "gnu".
std::string parallelRuntimeName();

} // namespace opal::jit

extern "C" {
/// A nest's outlined function: the thread's ids, then its captured values.
using OpalMicrotask = void (*)(int32_t *, int32_t *, ...);
/// What kernels call for __kmpc_global_thread_num, __kmpc_push_num_threads
/// and __kmpc_fork_call (same arguments).
int32_t opal_omp_global_thread_num(void *ident);
void opal_omp_push_num_threads(void *ident, int32_t gtid, int32_t threads);
void opal_omp_fork_call(void *ident, int32_t argc, OpalMicrotask microtask, ...);
/// In a nest's part: the thread's number and the nest's parts (the threads
/// of the team that run one); 0 for both elsewhere.
int64_t opal_part_thread();
int64_t opal_part_count();
}

#endif // OPAL_JIT_PARALLELRUNTIME_H
