//===- MinMaxReductionsTest.cpp - NaN-keeping max and min reductions ------===//

#include "opal/Compiler/MinMaxReductions.h"

#include "LlvmPassTest.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

#include <utility>

namespace {

// A row's max (NaN-keeping, as MLIR's maximumf lowers), its result used
// after the loop; a min whose loop starts from a value computed before it
// (an outer loop's accumulator); a max whose accumulator the loop also
// stores, which stays as it is.
constexpr const char *kLoops = R"(
define float @row_max(ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0xFFF0000000000000, %entry ], [ %kept, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %from
  %kept = call float @llvm.maximum.f32(float %acc, float %v)
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  %result = phi float [ %kept, %loop ]
  ret float %result
}

define double @min_from(ptr noalias %in, i64 %n, double %start) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi double [ %start, %entry ], [ %kept, %loop ]
  %from = getelementptr double, ptr %in, i64 %i
  %v = load double, ptr %from
  %kept = call double @llvm.minimum.f64(double %v, double %acc)
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  %twice = fmul double %kept, 2.0
  ret double %twice
}

define float @running_max(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0xFFF0000000000000, %entry ], [ %kept, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %from
  %kept = call float @llvm.maximum.f32(float %acc, float %v)
  %to = getelementptr float, ptr %out, i64 %i
  store float %kept, ptr %to
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %kept
}

declare float @llvm.maximum.f32(float, float)
declare double @llvm.minimum.f64(double, double)
)";

class MinMaxReductionsTest : public LlvmPassTest {
protected:
  void SetUp() override { runOn(kLoops, opal::ir::FlagNanInMinMaxReductions()); }

  /// The calls of `function` to `id`, and whether all have no-NaNs.
  std::pair<int, bool> calls(const char *function, llvm::Intrinsic::ID id) {
    int count = 0;
    bool noNans = true;
    for (llvm::Instruction &instruction : llvm::instructions(*module->getFunction(function)))
      if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction);
          call && call->getIntrinsicID() == id) {
        ++count;
        noNans &= call->hasNoNaNs();
      }
    return {count, noNans};
  }

  /// The selects of `function` that give NaN.
  int nanSelects(const char *function) {
    int count = 0;
    for (llvm::Instruction &instruction : llvm::instructions(*module->getFunction(function)))
      if (auto *select = llvm::dyn_cast<llvm::SelectInst>(&instruction))
        if (auto *value = llvm::dyn_cast<llvm::ConstantFP>(select->getTrueValue()))
          count += value->isNaN();
    return count;
  }

};

TEST_F(MinMaxReductionsTest, AMaxBecomesMaxnumWithANanFlag) {
  EXPECT_EQ(calls("row_max", llvm::Intrinsic::maximum).first, 0);
  EXPECT_EQ(calls("row_max", llvm::Intrinsic::maxnum), std::make_pair(1, true));
  EXPECT_EQ(nanSelects("row_max"), 1);
}

TEST_F(MinMaxReductionsTest, AMinFromAStartValueFlagsTheStartToo) {
  EXPECT_EQ(calls("min_from", llvm::Intrinsic::minimum).first, 0);
  EXPECT_EQ(calls("min_from", llvm::Intrinsic::minnum), std::make_pair(1, true));
  EXPECT_EQ(nanSelects("min_from"), 1);
  // The flag's start: whether %start is NaN.
  int startTests = 0;
  for (llvm::Instruction &instruction : llvm::instructions(*module->getFunction("min_from")))
    if (auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction))
      startTests += compare->getPredicate() == llvm::FCmpInst::FCMP_UNO &&
                    compare->getOperand(0) == module->getFunction("min_from")->getArg(2);
  EXPECT_EQ(startTests, 1);
}

TEST_F(MinMaxReductionsTest, AnAccumulatorTheLoopAlsoReadsIsLeftAsItIs) {
  EXPECT_EQ(calls("running_max", llvm::Intrinsic::maximum).first, 1);
  EXPECT_EQ(calls("running_max", llvm::Intrinsic::maxnum).first, 0);
}

} // namespace
