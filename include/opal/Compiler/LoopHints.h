//===- LoopHints.h - What opal tells LLVM's loop vectorizer -----*- C++ -*-===//
//
// An LLVM pass the CPU JIT runs right before LLVM's loop vectorizer
// (ObjectCode.cpp). Each innermost loop with little work per element and
// no reduction (a copy, an add) gets `llvm.loop.vectorize.predicate.enable`,
// so that its last partial vector runs masked in the vector loop (where
// the target has masked loads and stores) instead of in a scalar copy of
// the loop. A loop with much work per element (a math polynomial, with or
// without a sum) gets `llvm.loop.interleave.count` 1: unmasked vectors, a
// scalar remainder of fewer than one vector. Loops with a reduction and
// little else (a sum, a max) are left to LLVM: it gives them a scalar
// remainder and interleaves them. docs/jit.md says why, with the
// measurements.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_LOOPHINTS_H
#define OPAL_COMPILER_LOOPHINTS_H

#include "llvm/IR/PassManager.h"

namespace opal::ir {

/// Instructions per iteration (besides control, addressing, memory and
/// casts) from which a loop counts as busy: unmasked, not interleaved.
constexpr unsigned kBusyLoopWork = 12;

/// Gives the innermost loops of a function their hints (see the file
/// comment). Masking keeps the math polynomials out of scalar remainder
/// loops (a fifth of LLVM's time), but a mask per vector and its masked
/// load and store cost compute-bound loops 15-20% on a Xeon and a third
/// on a Zen 4 (exp on 1M floats 0.32 vs 0.22 ms): busy loops run
/// unmasked. They are not interleaved: the remainder stays under one
/// vector (softmax over rows of 100 took 2.3x as long with LLVM's four
/// vectors a step), and a busy loop's one chain of additions waits on
/// nothing. A reduction that is not interleaved is one chain of dependent
/// vector operations: half the speed of four independent chains on data
/// in the cache, when the loop does little else; so light reductions are
/// left to LLVM. (A process-wide setting, prefer-predicate-over-epilogue,
/// masked every loop before; it overrides the loops' own hints.)
struct PredicateLoops : llvm::PassInfoMixin<PredicateLoops> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);
};

} // namespace opal::ir

#endif // OPAL_COMPILER_LOOPHINTS_H
