//===- MinMaxReductions.cpp - NaN-keeping max and min reductions ----------===//

#include "opal/Compiler/MinMaxReductions.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace opal::ir;

namespace {

/// The NaN-ignoring form of a NaN-keeping min or max, or not_intrinsic.
llvm::Intrinsic::ID ignoringNan(llvm::Intrinsic::ID id) {
  switch (id) {
  case llvm::Intrinsic::maximum:
    return llvm::Intrinsic::maxnum;
  case llvm::Intrinsic::minimum:
    return llvm::Intrinsic::minnum;
  default:
    return llvm::Intrinsic::not_intrinsic;
  }
}

/// Rewrites the reduction of `phi` (see the header) if it is one.
bool rewrite(llvm::Loop &loop, llvm::PHINode &phi) {
  llvm::BasicBlock *latch = loop.getLoopLatch();
  if (!latch || !phi.getType()->isFloatingPointTy() || !phi.hasOneUse())
    return false;
  auto *update = llvm::dyn_cast<llvm::IntrinsicInst>(phi.getIncomingValueForBlock(latch));
  if (!update || !loop.contains(update) || *phi.user_begin() != update)
    return false;
  llvm::Intrinsic::ID plainId = ignoringNan(update->getIntrinsicID());
  if (plainId == llvm::Intrinsic::not_intrinsic)
    return false;
  llvm::Value *element = update->getArgOperand(0) == &phi ? update->getArgOperand(1)
                                                          : update->getArgOperand(0);
  if (element == &phi)
    return false;
  // Inside the loop only the accumulator reads the update.
  for (llvm::User *user : update->users())
    if (user != &phi && loop.contains(llvm::cast<llvm::Instruction>(user)))
      return false;

  llvm::Type *boolType = llvm::Type::getInt1Ty(phi.getContext());
  llvm::IRBuilder<> b(update);
  llvm::FastMathFlags noNans;
  noNans.setNoNaNs();
  noNans.setNoSignedZeros(); // (maxnum orders -0 and +0 either way already)
  llvm::Value *isNan = b.CreateFCmpUNO(element, element, "is_nan");
  llvm::Value *plain = b.CreateBinaryIntrinsic(plainId, &phi, element, noNans, "plain");
  // The flag: whether the start or any element was NaN.
  auto *flag = llvm::PHINode::Create(boolType, phi.getNumIncomingValues(), "nan_seen",
                                     loop.getHeader()->begin());
  b.SetInsertPoint(update);
  llvm::Value *seen = b.CreateOr(flag, isNan, "nan_seen_next");
  for (unsigned i = 0; i < phi.getNumIncomingValues(); ++i) {
    llvm::BasicBlock *from = phi.getIncomingBlock(i);
    if (from == latch) {
      flag->addIncoming(seen, from);
      continue;
    }
    llvm::IRBuilder<> before(from->getTerminator());
    llvm::Value *start = phi.getIncomingValue(i);
    flag->addIncoming(before.CreateFCmpUNO(start, start, "start_is_nan"), from);
  }
  phi.setIncomingValueForBlock(latch, plain);
  // Each use after the loop reads NaN where the flag says so.
  llvm::Constant *nan = llvm::ConstantFP::getNaN(phi.getType());
  for (llvm::Use &use : llvm::make_early_inc_range(update->uses())) {
    auto *user = llvm::cast<llvm::Instruction>(use.getUser());
    if (user == &phi)
      continue;
    auto *merge = llvm::dyn_cast<llvm::PHINode>(user);
    if (!merge) {
      llvm::IRBuilder<> at(user);
      use.set(at.CreateSelect(seen, nan, plain, "with_nan"));
      continue;
    }
    // A phi after the loop (LCSSA's): the value and the flag each get a
    // phi of their own, and the select follows them.
    llvm::BasicBlock *block = merge->getParent();
    llvm::IRBuilder<> at(block, block->getFirstInsertionPt());
    auto *values = llvm::PHINode::Create(phi.getType(), merge->getNumIncomingValues(),
                                         "value", merge->getIterator());
    auto *flags = llvm::PHINode::Create(boolType, merge->getNumIncomingValues(), "flag",
                                        merge->getIterator());
    for (unsigned i = 0; i < merge->getNumIncomingValues(); ++i) {
      llvm::Value *incoming = merge->getIncomingValue(i);
      bool fromUpdate = incoming == update;
      values->addIncoming(fromUpdate ? plain : incoming, merge->getIncomingBlock(i));
      flags->addIncoming(fromUpdate ? seen : llvm::ConstantInt::getFalse(boolType),
                         merge->getIncomingBlock(i));
    }
    llvm::Value *select = at.CreateSelect(flags, nan, values, "with_nan");
    merge->replaceAllUsesWith(select);
    merge->eraseFromParent();
  }
  update->eraseFromParent();
  return true;
}

} // namespace

llvm::PreservedAnalyses FlagNanInMinMaxReductions::run(llvm::Function &function,
                                                       llvm::FunctionAnalysisManager &analyses) {
  llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
  bool changed = false;
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost())
      continue;
    llvm::SmallVector<llvm::PHINode *> phis;
    for (llvm::PHINode &phi : loop->getHeader()->phis())
      phis.push_back(&phi);
    for (llvm::PHINode *phi : phis)
      changed |= rewrite(*loop, *phi);
  }
  if (!changed)
    return llvm::PreservedAnalyses::all();
  // (New instructions and phis; the blocks and loops are as they were.)
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}
