//===- LoopHints.cpp - What opal tells LLVM's loop vectorizer -------------===//

#include "opal/Compiler/LoopHints.h"

#include "llvm/Analysis/IVDescriptors.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace opal::ir;

namespace {

/// Whether each iteration of `loop` does enough work that one chain of
/// dependent vector additions (a reduction's, not interleaved) costs
/// nothing: the instructions other than the loop's control, addressing and
/// memory accesses (softmax's exp and its sum: some thirty; a sum: one).
bool busy(const llvm::Loop &loop) {
  unsigned work = 0;
  for (llvm::BasicBlock *block : loop.blocks())
    for (llvm::Instruction &instruction : *block)
      if (!llvm::isa<llvm::PHINode, llvm::BranchInst, llvm::GetElementPtrInst, llvm::LoadInst,
               llvm::StoreInst, llvm::CastInst, llvm::ICmpInst>(instruction) &&
          !instruction.getType()->isIntegerTy(64))
        ++work;
  return work >= kBusyLoopWork;
}

} // namespace

llvm::PreservedAnalyses HintLoops::run(llvm::Function &function,
                                       llvm::FunctionAnalysisManager &analyses) {
  llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost())
      continue;
    // (LoopVectorize puts loops in simplified form before it reads them; a
    // loop not in that form yet, which the reduction analysis needs (a
    // preheader and a latch), reduces where it carries a floating-point
    // value from one iteration to the next: control and addressing are
    // integers. A channel's sum over [N, HxW] is such a loop: guarded by
    // its trip count, it has no preheader of its own yet.)
    bool reduces = llvm::any_of(loop->getHeader()->phis(), [&](llvm::PHINode &phi) {
      if (!loop->isLoopSimplifyForm())
        return phi.getType()->isFloatingPointTy();
      llvm::RecurrenceDescriptor reduction;
      return llvm::RecurrenceDescriptor::isReductionPHI(&phi, loop, reduction);
    });
    if (!reduces || busy(*loop))
      llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 1);
  }
  // (Metadata only: every analysis still holds.)
  return llvm::PreservedAnalyses::all();
}
