//===- LoopHintsTest.cpp - The hints opal gives LLVM's loop vectorizer ----===//

#include "opal/Compiler/LoopHints.h"

#include "LlvmPassTest.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

#include <optional>
#include <string>

namespace {

// %e = exp(%x) as opal's polynomial computes it: 12 instructions of work.
constexpr const char *kExpOfX = R"(  %t = fmul float %x, 0x3FF7154760000000
  %k = call float @llvm.floor.f32(float %t)
  %r = call float @llvm.fma.f32(float %k, float 0xBFE62E4300000000, float %x)
  %p0 = call float @llvm.fma.f32(float %r, float 0x3F2A01A020000000, float 0x3F56C16C20000000)
  %p1 = call float @llvm.fma.f32(float %p0, float %r, float 0x3F81111120000000)
  %p2 = call float @llvm.fma.f32(float %p1, float %r, float 0x3FA5555560000000)
  %p3 = call float @llvm.fma.f32(float %p2, float %r, float 0x3FC5555560000000)
  %p4 = call float @llvm.fma.f32(float %p3, float %r, float 5.000000e-01)
  %r2 = fmul float %r, %r
  %p5 = call float @llvm.fma.f32(float %p4, float %r2, float %r)
  %p6 = fadd float %p5, 1.000000e+00
  %ki = fptosi float %k to i32
  %e = call float @llvm.ldexp.f32.i32(float %p6, i32 %ki)
)";

// Loops of the shape LoopVectorize reads (simplified, rotated): a copy, a
// float sum (fast-math, as opal's reductions are), an integer max, an exp
// stored, and an exp whose results are stored and summed.
const std::string kLoops = std::string() + R"(
define void @copy(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %from
  %to = getelementptr float, ptr %out, i64 %i
  store float %v, ptr %to
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define float @sum(ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %added, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %from
  %added = fadd reassoc float %acc, %v
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %added
}

define i64 @largest(ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %kept, %loop ]
  %from = getelementptr i64, ptr %in, i64 %i
  %v = load i64, ptr %from
  %kept = call i64 @llvm.smax.i64(i64 %acc, i64 %v)
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %kept
}

; exp(x) stored: an elementwise loop with much work per element (opal's
; polynomial).
define void @exp(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %from
)" + kExpOfX + R"(  %to = getelementptr float, ptr %out, i64 %i
  store float %e, ptr %to
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; exp(x) stored and summed (softmax's row, merged by opal-fuse-rows): a
; reduction among much other work, as in opal's polynomial.
define float @exp_and_sum(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %added, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %from
)" + kExpOfX + R"(  %to = getelementptr float, ptr %out, i64 %i
  store float %e, ptr %to
  %added = fadd reassoc float %acc, %e
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %added
}

; A float sum behind a guard on its trip count, as opal's loops over a
; row's dims reach the vectorizer: the entry block branches to the loop or
; past it, so the loop has no preheader of its own (not in simplified
; form) and LLVM's reduction analysis cannot be asked yet.
define float @guarded_sum(ptr noalias %in, i64 %n, float %start) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ %start, %entry ], [ %added, %loop ]
  %from = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %from
  %added = fadd reassoc float %acc, %v
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  %result = phi float [ %start, %entry ], [ %added, %loop ]
  ret float %result
}

declare i64 @llvm.smax.i64(i64, i64)
declare float @llvm.floor.f32(float)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.ldexp.f32.i32(float, i32)
)";

/// Whether the loop of `function` (its one loop) carries the hint after
/// the pass.
class LoopHintsTest : public LlvmPassTest {
protected:
  void SetUp() override { runOn(kLoops.c_str(), opal::ir::HintLoops()); }

  llvm::Loop *loopOf(const char *name) {
    llvm::Function *function = module->getFunction(name);
    llvm::LoopInfo &info = functions.getResult<llvm::LoopAnalysis>(*function);
    EXPECT_EQ(info.getTopLevelLoops().size(), 1u);
    return info.getTopLevelLoops().front();
  }
  std::optional<bool> predicated(const char *name) {
    return llvm::getOptionalBoolLoopAttribute(loopOf(name),
                                              "llvm.loop.vectorize.predicate.enable");
  }
  /// The interleave count the loop asks for (none: LLVM's choice).
  std::optional<int> interleaved(const char *name) {
    return llvm::getOptionalIntLoopAttribute(loopOf(name), "llvm.loop.interleave.count");
  }
};

TEST_F(LoopHintsTest, ALoopWithoutAReductionRunsUnmaskedOneVectorAtATime) {
  // (Masked, relu of 16M floats took twice a copy's time on a Zen 5.)
  EXPECT_EQ(predicated("copy"), std::nullopt);
  EXPECT_EQ(interleaved("copy"), std::optional<int>(1));
}

TEST_F(LoopHintsTest, ALoopWithMuchWorkRunsUnmaskedOneVectorAtATime) {
  // (Masked, exp on 1M floats took 1.5x as long on a Zen 4; interleaved,
  // rows of 100 left up to 63 elements to the scalar remainder.)
  EXPECT_EQ(predicated("exp"), std::nullopt);
  EXPECT_EQ(interleaved("exp"), std::optional<int>(1));
}

TEST_F(LoopHintsTest, AFloatSumIsLeftToLlvmToInterleave) {
  EXPECT_EQ(predicated("sum"), std::nullopt);
  EXPECT_EQ(interleaved("sum"), std::nullopt);
}

TEST_F(LoopHintsTest, AFloatSumNotInSimplifiedFormYetIsLeftToLlvmToInterleave) {
  // (Masked, batch norm's sums over a channel ran one dependent chain of
  // vector additions with a mask computed per iteration: 1.6x slower; not
  // interleaved, it would still be one chain.)
  EXPECT_EQ(predicated("guarded_sum"), std::nullopt);
  EXPECT_EQ(interleaved("guarded_sum"), std::nullopt);
}

TEST_F(LoopHintsTest, AnIntegerMaxIsLeftToLlvmToInterleave) {
  EXPECT_EQ(predicated("largest"), std::nullopt);
  EXPECT_EQ(interleaved("largest"), std::nullopt);
}

TEST_F(LoopHintsTest, AReductionAmongMuchOtherWorkRunsUnmaskedOneVectorAtATime) {
  // (Its one chain of additions waits on nothing: the polynomial is the
  // work.)
  EXPECT_EQ(predicated("exp_and_sum"), std::nullopt);
  EXPECT_EQ(interleaved("exp_and_sum"), std::optional<int>(1));
}

} // namespace
