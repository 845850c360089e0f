//===- WarmStart.h - Kernels from disk without the compiler -----*- C++ -*-===//
//
// A disk cache entry is named by a hash of the kernel's decomposed IR
// (Compiler/CacheKey.h), which only the compiler (MLIR and LLVM, some 60 ms
// to load) can compute. The warm-start index maps what the runtime knows of
// a call to that entry:
//
//   sha256(opal-warm-start 2, the build ids of libopal and of
//          libopal_compiler (read from its file), the CPU's identification
//          (cpuid), the knobs that affect the cache, the op, the dispatch
//          key, the call's specialization key words)
//     → warm-v2/<aa>/<key>: the entry's key, the op and specialization in
//       words, a hash of what the process part of the key held (so that
//       `opal.cache verify` knows the files of its own build), and the
//       kernel's description (outputs, rows, reached ops)
//
// On a miss in memory, a CPU call looks its index up first; when it names an
// entry whose object checks out, the object is linked by opal's own loader
// (ObjectLoader.h) and the call runs without loading the compiler. Every op
// the kernel reached is opal's built-in one (its built-in kernel and no
// added decomposition) or defined by an added op-library text (a user's op,
// or a built-in one redefined; MLIR on the CPU), which the index pins by a
// hash of its schema and text; an index entry is used only while that still
// holds (built-in ops still built-in, pinned ops defined by the same text):
// a user's registration on any of them sends the call to the compiler, as it
// would in the process that compiled it. A call whose op compiles for static
// shapes only (its dynamic form does not lower) indexes its dynamic key as
// such, so that the next process goes to the static key at once.
// OPAL_DUMP_DIR turns the index off (the dumps come from the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_WARMSTART_H
#define OPAL_JIT_WARMSTART_H

#include "opal/Dispatch/Dispatcher.h"
#include "opal/JIT/CompiledKernel.h"
#include "opal/JIT/DiskCache.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace opal::jit {

/// The kernel of a call from the warm-start index, loaded without the
/// compiler; null when the index has none or it no longer applies (the
/// reason goes to OPAL_LOG=cache), or when it says the op compiles for
/// static shapes only (recordStaticShapesOnly): then `*staticShapesOnly`
/// is set.
std::shared_ptr<const CompiledKernel> warmStart(const OperatorHandle &op, DispatchKey key,
                                                const IValue *args, bool staticShapes,
                                                const std::vector<uint64_t> &words,
                                                bool *staticShapesOnly = nullptr);

/// Indexes a kernel the compiler produced (or loaded) for a call, when it
/// qualifies (see the file comment).
void recordWarmStart(const OperatorHandle &op, DispatchKey key, const IValue *args,
                     bool staticShapes, const std::vector<uint64_t> &words,
                     const CompiledKernel &kernel);

/// Records that the call of `op` with dynamic dims (`dynamicWords`) does not
/// lower and compiled for static shapes (`kernel`, reaching what its
/// definitions reach), when the index would take that kernel.
void recordStaticShapesOnly(const OperatorHandle &op, DispatchKey key, const IValue *args,
                            const std::vector<uint64_t> &dynamicWords,
                            const CompiledKernel &kernel);

/// What `opal.cache verify` found of one index file.
struct IndexCheck {
  std::string name;    ///< the file's name (its key)
  std::string label;   ///< "op(specialization)", when it could be read
  std::string problem; ///< "" if it names the entry the call compiles to
  bool checked = true; ///< false: not this build's, or not checkable here
};

/// Checks every index file of `cache` written by this build on this CPU
/// with these knobs: its HMAC, and that the entry it names is the one
/// opal's definitions in this process compile its call to (the compiler
/// decomposes the call again). An index that names another entry (written
/// by a process whose registrations changed what the call compiles to)
/// would make warm starts run that kernel.
std::vector<IndexCheck> checkWarmStartIndex(const DiskCache &cache);

/// The CPU's identification for the index: its cpuid leaves (vendor,
/// family, model, feature bits) and enabled register state; "" where it
/// cannot be read (the index is then not used).
std::string cpuSignature();

} // namespace opal::jit

#endif // OPAL_JIT_WARMSTART_H
