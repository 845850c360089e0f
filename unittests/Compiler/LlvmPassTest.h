//===- LlvmPassTest.h - A fixture that runs an LLVM pass on IR text -------===//
//
// The JIT's own LLVM passes (LoopHints.h, MinMaxReductions.h) are tested on
// small functions written in LLVM IR: the fixture parses them, runs the
// pass on each function with the analyses LLVM's pass builder registers,
// and checks that the module still verifies.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_UNITTESTS_COMPILER_LLVMPASSTEST_H
#define OPAL_UNITTESTS_COMPILER_LLVMPASSTEST_H

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

class LlvmPassTest : public ::testing::Test {
protected:
  /// Parses `ir` into `module` and runs `pass` on each of its functions.
  template <typename Pass>
  void runOn(const char *ir, Pass pass) {
    llvm::SMDiagnostic error;
    module = llvm::parseAssemblyString(ir, error, context);
    ASSERT_TRUE(module) << error.getMessage().str();
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::FunctionPassManager passes;
    passes.addPass(std::move(pass));
    for (llvm::Function &function : *module)
      if (!function.isDeclaration())
        passes.run(function, functions);
    std::string problems;
    llvm::raw_string_ostream stream(problems);
    ASSERT_FALSE(llvm::verifyModule(*module, &stream)) << problems;
  }

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  llvm::PassBuilder builder;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
};

#endif // OPAL_UNITTESTS_COMPILER_LLVMPASSTEST_H
