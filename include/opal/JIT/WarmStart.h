//===- WarmStart.h - Kernels from disk without the compiler -----*- C++ -*-===//
//
// A disk cache entry is named by a hash of the kernel's decomposed IR
// (Compiler/CacheKey.h), which only the compiler (MLIR and LLVM, some 60 ms
// to load) can compute. The warm-start index maps what the runtime knows of
// a call to that entry:
//
//   sha256(opal-warm-start 1, the build ids of libopal and of
//          libopal_compiler (read from its file), the CPU's identification
//          (cpuid), the knobs that affect the cache, the op, the dispatch
//          key, the call's specialization key words)
//     → warm-v1/<aa>/<key>: the entry's key, the op and specialization in
//       words, and the kernel's description (outputs, rows, reached ops)
//
// On a miss in memory, a CPU call looks its index up first; when it names an
// entry whose object checks out, the object is linked by opal's own loader
// (ObjectLoader.h) and the call runs without loading the compiler. A kernel
// is indexed only when every op its compilation reached still has opal's
// built-in kernel (isBuiltinCpuKernelCurrent), and an index entry is used
// only while that still holds: a user's registration on any of them sends
// the call to the compiler, as it would in the process that compiled it.
// Calls of user ops (their definitions live in op-library texts or Python)
// always go through the compiler. OPAL_DUMP_DIR turns the index off (the
// dumps come from the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_WARMSTART_H
#define OPAL_JIT_WARMSTART_H

#include "opal/Dispatch/Dispatcher.h"
#include "opal/JIT/CompiledKernel.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace opal::jit {

/// The kernel of a call from the warm-start index, loaded without the
/// compiler; null when the index has none or it no longer applies (the
/// reason goes to OPAL_LOG=cache).
std::shared_ptr<const CompiledKernel> warmStart(const OperatorHandle &op, DispatchKey key,
                                                const IValue *args, bool staticShapes,
                                                const std::vector<uint64_t> &words);

/// Indexes a kernel the compiler produced (or loaded) for a call, when it
/// qualifies (see the file comment).
void recordWarmStart(const OperatorHandle &op, DispatchKey key, const IValue *args,
                     bool staticShapes, const std::vector<uint64_t> &words,
                     const CompiledKernel &kernel);

/// The CPU's identification for the index: its cpuid leaves (vendor,
/// family, model, feature bits) and enabled register state; "" where it
/// cannot be read (the index is then not used).
std::string cpuSignature();

} // namespace opal::jit

#endif // OPAL_JIT_WARMSTART_H
