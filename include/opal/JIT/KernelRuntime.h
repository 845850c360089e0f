//===- KernelRuntime.h - The functions compiled kernels call ----*- C++ -*-===//
//
// A kernel's object code calls a few functions outside itself besides libc
// and libm: opal's thread budget (Runtime/Parallel.h), the OpenMP runtime
// that runs its parallel nests (LLVM's libomp: its __kmpc_* entry points), and the
// CUDA launch helpers (CUDA/Launch.h). Python loads opal's extension with
// RTLD_LOCAL, so none of them is visible to dlsym(RTLD_DEFAULT); the object
// loader binds them through this table instead, for kernels compiled now
// and kernels found on disk alike.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_KERNELRUNTIME_H
#define OPAL_JIT_KERNELRUNTIME_H

#include <string>

namespace opal::jit {

/// The address of runtime function `name` a kernel may call, or null when
/// `name` is not one of them.
void *kernelRuntimeSymbol(const std::string &name);

} // namespace opal::jit

#endif // OPAL_JIT_KERNELRUNTIME_H
