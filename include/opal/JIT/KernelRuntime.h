//===- KernelRuntime.h - The functions compiled kernels call ----*- C++ -*-===//
//
// A kernel's object code calls a few functions outside itself besides libc
// and libm: opal's thread budget (Runtime/Parallel.h), the packing of a
// transposed B for matrix products (Runtime/Packing.h), the OpenMP runtime
// that runs its parallel nests (LLVM's libomp: its __kmpc_* entry points), and the
// CUDA launch helpers (CUDA/Launch.h). Python loads opal's extension with
// RTLD_LOCAL, so none of them is visible to dlsym(RTLD_DEFAULT); the object
// loader binds them through this table instead, for kernels compiled now
// and kernels found on disk alike.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_KERNELRUNTIME_H
#define OPAL_JIT_KERNELRUNTIME_H

#include <cstdint>
#include <string>

namespace opal::jit {

/// The address of runtime function `name` a kernel may call, or null when
/// `name` is not one of them.
void *kernelRuntimeSymbol(const std::string &name);

} // namespace opal::jit

extern "C" {
/// In a kernel's parallel region: the calling thread's number among the
/// threads that run the nest's parts (0 for the thread that forked) and
/// their count. The team opal_omp_fork_call forks may hold more threads
/// (forkedTeam): those run no part and never call these. In a region an
/// ahead-of-time library forked on libomp directly: libomp's thread number
/// and team size, by its __kmpc_bound_* names (GCC's libgomp, which
/// PyTorch loads, defines omp_get_thread_num too).
int64_t opal_parallel_thread();
int64_t opal_parallel_team();
}

#endif // OPAL_JIT_KERNELRUNTIME_H
