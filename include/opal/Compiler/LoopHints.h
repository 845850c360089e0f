//===- LoopHints.h - What opal tells LLVM's loop vectorizer -----*- C++ -*-===//
//
// An LLVM pass the CPU JIT runs right before LLVM's loop vectorizer
// (ObjectCode.cpp). Each innermost loop but a light reduction (a copy, an
// add, a math polynomial, with or without a sum) gets
// `llvm.loop.interleave.count` 1: unmasked vectors of the target's width,
// one a step, and a scalar remainder of fewer than one vector. Loops with
// a reduction and little else (a sum, a max) are left to LLVM: it
// interleaves them (independent accumulators) with a scalar remainder. No
// loop runs masked: docs/jit.md says why, with the measurements.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_LOOPHINTS_H
#define OPAL_COMPILER_LOOPHINTS_H

#include "llvm/IR/PassManager.h"

namespace opal::ir {

/// Instructions per iteration (besides control, addressing, memory and
/// casts) from which a loop with a reduction counts as busy: one vector a
/// step, not interleaved.
constexpr unsigned kBusyLoopWork = 12;

/// Gives the innermost loops of a function their hints (see the file
/// comment). Not interleaved, a loop leaves a remainder of under one vector
/// (softmax over rows of 100 took 2.3x as long with LLVM's four vectors a
/// step). Not masked: a mask per vector and its masked load and store cost
/// compute-bound loops 15-20% on a Xeon and a third on a Zen 4 (exp on 1M
/// floats 0.32 vs 0.22 ms), and on a Zen 5 loops storing masked ran at
/// half the speed of memory, as if each masked store read its line before
/// writing it (relu of 16M floats 7.6 ms, unmasked 3.5: a copy's time). A
/// reduction that is not interleaved is one chain of dependent vector
/// operations: half the speed of four independent chains on data in the
/// cache, when the loop does little else; so light reductions are left to
/// LLVM, and a busy loop's one chain waits on nothing next to its
/// polynomial.
struct HintLoops : llvm::PassInfoMixin<HintLoops> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);
};

} // namespace opal::ir

#endif // OPAL_COMPILER_LOOPHINTS_H
