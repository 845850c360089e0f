//===- LoopHintsTest.cpp - The hints opal gives LLVM's loop vectorizer ----===//

#include "opal/Compiler/LoopHints.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

// Three loops of the shape LoopVectorize reads (simplified, rotated): a copy,
// a float sum (fast-math, as opal's reductions are) and an integer max.
constexpr const char *kLoops = R"(
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

declare i64 @llvm.smax.i64(i64, i64)
)";

/// Whether the loop of `function` (its one loop) carries the hint after
/// the pass.
class LoopHintsTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SMDiagnostic error;
    module = llvm::parseAssemblyString(kLoops, error, context);
    ASSERT_TRUE(module) << error.getMessage().str();
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::FunctionPassManager passes;
    passes.addPass(opal::ir::PredicateLoopsWithoutReductions());
    for (llvm::Function &function : *module)
      if (!function.isDeclaration())
        passes.run(function, functions);
  }

  std::optional<bool> predicated(const char *name) {
    llvm::Function *function = module->getFunction(name);
    llvm::LoopInfo &info = functions.getResult<llvm::LoopAnalysis>(*function);
    EXPECT_EQ(info.getTopLevelLoops().size(), 1u);
    return llvm::getOptionalBoolLoopAttribute(info.getTopLevelLoops().front(),
                                              "llvm.loop.vectorize.predicate.enable");
  }

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  llvm::PassBuilder builder;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
};

TEST_F(LoopHintsTest, ALoopWithoutAReductionRunsItsRemainderMasked) {
  EXPECT_EQ(predicated("copy"), std::optional<bool>(true));
}

TEST_F(LoopHintsTest, AFloatSumIsLeftToLlvmToInterleave) {
  EXPECT_EQ(predicated("sum"), std::nullopt);
}

TEST_F(LoopHintsTest, AnIntegerMaxIsLeftToLlvmToInterleave) {
  EXPECT_EQ(predicated("largest"), std::nullopt);
}

} // namespace
