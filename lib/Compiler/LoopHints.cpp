//===- LoopHints.cpp - What opal tells LLVM's loop vectorizer -------------===//

#include "opal/Compiler/LoopHints.h"

#include "llvm/Analysis/IVDescriptors.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace opal::ir;

llvm::PreservedAnalyses
PredicateLoopsWithoutReductions::run(llvm::Function &function,
                                     llvm::FunctionAnalysisManager &analyses) {
  llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost())
      continue;
    // (LoopVectorize puts loops in simplified form before it reads them; a
    // loop not in that form yet is not asked about its reductions, which
    // needs a preheader and a latch, and is marked.)
    bool reduces = loop->isLoopSimplifyForm() &&
                   llvm::any_of(loop->getHeader()->phis(), [&](llvm::PHINode &phi) {
                     llvm::RecurrenceDescriptor reduction;
                     return llvm::RecurrenceDescriptor::isReductionPHI(&phi, loop, reduction);
                   });
    if (!reduces)
      llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.predicate.enable", 1);
  }
  // (Metadata only: every analysis still holds.)
  return llvm::PreservedAnalyses::all();
}
