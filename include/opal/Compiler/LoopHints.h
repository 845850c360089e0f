//===- LoopHints.h - What opal tells LLVM's loop vectorizer -----*- C++ -*-===//
//
// An LLVM pass the CPU JIT runs right before LLVM's loop vectorizer
// (ObjectCode.cpp): each innermost loop gets
// `llvm.loop.vectorize.predicate.enable`, so that its last partial vector
// runs masked in the vector loop (where the target has masked loads and
// stores) instead of in a scalar copy of the loop, but for loops with a
// reduction and little else (a sum, a max), which are left to LLVM: it
// gives them a scalar remainder and interleaves them. docs/jit.md says
// why, with the measurements.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_LOOPHINTS_H
#define OPAL_COMPILER_LOOPHINTS_H

#include "llvm/IR/PassManager.h"

namespace opal::ir {

/// Instructions per iteration (besides control, addressing, memory and
/// casts) from which a loop with a reduction is masked too.
constexpr unsigned kBusyLoopWork = 12;

/// Marks the innermost loops of a function for a masked remainder (see the
/// file comment). The scalar copies of the math polynomials a remainder
/// loop would hold were a fifth of LLVM's time; the mask per iteration
/// costs compute-bound elementwise loops 15-20%. A masked loop is not
/// interleaved, though, and a reduction that is not interleaved is one
/// chain of dependent vector operations: half the speed of four
/// independent chains on data in the cache, when the loop does little
/// else. A loop that does more per element (softmax's exp with its sum,
/// merged by opal-fuse-rows) hides that chain and is masked: its scalar
/// remainder would run the polynomial one element at a time. (A
/// process-wide setting, prefer-predicate-over-epilogue, masked every loop
/// before; it overrides the loops' own hints.)
struct PredicateLoops : llvm::PassInfoMixin<PredicateLoops> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);
};

} // namespace opal::ir

#endif // OPAL_COMPILER_LOOPHINTS_H
