//===- MinMaxReductions.h - NaN-keeping max and min reductions --*- C++ -*-===//
//
// An LLVM pass the CPU JIT runs right before LLVM's loop vectorizer
// (ObjectCode.cpp). opal's max and min keep NaN, as PyTorch's do: MLIR's
// maximumf becomes LLVM's `llvm.maximum`, which x86 has no instruction for
// (some seven per vector on AVX-512: a blend by sign for -0 < +0, a NaN
// test, a max, moves), and a row's `amax` or softmax's row maximum runs at
// that speed. In a reduction loop the NaN test can stand apart: the
// accumulator is `llvm.maxnum` with no-NaNs (one `vmaxps`), a second
// accumulator ORs whether any element (or the starting value) was NaN,
// and the loop's result is NaN where it was. Both are reductions LLVM
// vectorizes and interleaves.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_MINMAXREDUCTIONS_H
#define OPAL_COMPILER_MINMAXREDUCTIONS_H

#include "llvm/IR/PassManager.h"

namespace opal::ir {

/// Rewrites each `llvm.maximum`/`llvm.minimum` reduction of an innermost
/// loop (a header phi whose only use is the call, whose latch value it is)
/// into `llvm.maxnum`/`llvm.minnum` with no-NaNs and a NaN flag: a no-NaNs
/// call that meets a NaN gives poison, which only ever flows into the
/// select that the flag turns to NaN. (Where the accumulator's other uses
/// are inside the loop, the loop is left as it is.)
struct FlagNanInMinMaxReductions : llvm::PassInfoMixin<FlagNanInMinMaxReductions> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);
};

} // namespace opal::ir

#endif // OPAL_COMPILER_MINMAXREDUCTIONS_H
