//===- Pipelines.cpp - opal's named pass pipelines -----------------------===//
//
// opal-to-linalg: from schema ops (composites and prims) to linalg on tensors,
// the front half of every JIT compile and of `opal-opt` users' pipelines.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void opal::ir::buildOpalToLinalgPipeline(OpPassManager &pm,
                                         const OpalToLinalgPipelineOptions &options) {
  OpalDecomposeOptions decompose;
  decompose.legalOps.assign(options.legalOps.begin(), options.legalOps.end());
  pm.addPass(createOpalDecompose(decompose));
  pm.addNestedPass<func::FuncOp>(createOpalLowerUnsigned());
  pm.addPass(createOpalLowerToLinalg());
  // Decomposition bodies repeat constants and lists per use; fold them.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void opal::ir::registerOpalPipelines() {
  PassPipelineRegistration<OpalToLinalgPipelineOptions>(
      "opal-to-linalg",
      "Decomposes composite schema ops to prims (keeping legal-ops) and lowers the prims to "
      "linalg on tensors, then canonicalizes",
      buildOpalToLinalgPipeline);
}
