//===- CpuPipeline.cpp - From schema ops to LLVM for the host CPU ---------===//

#include "opal/Compiler/CpuPipeline.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

const char *opal::ir::cpuLoweringPipelineText() {
  return "linalg-fuse-elementwise-ops,"
         "one-shot-bufferize{bufferize-function-boundaries},"
         "convert-linalg-to-loops,"
         "convert-scf-to-cf,"
         // libm has no rsqrt; half-precision math computes in f32.
         "math-expand-ops{ops=rsqrt},"
         "math-extend-to-supported-types,"
         "convert-math-to-libm,"
         "convert-math-to-llvm,"
         "expand-strided-metadata,"
         "finalize-memref-to-llvm,"
         "convert-arith-to-llvm,"
         "convert-cf-to-llvm,"
         "convert-func-to-llvm,"
         "reconcile-unrealized-casts";
}

LogicalResult opal::ir::buildCpuPipeline(OpPassManager &pm,
                                         const OpalToLinalgPipelineOptions &options) {
  buildOpalToLinalgPipeline(pm, options);
  return parsePassPipeline(cpuLoweringPipelineText(), pm);
}

void opal::ir::registerCpuPipeline(DialectRegistry &registry) {
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerConversionPasses();
  registerLinalgPasses();
  bufferization::registerBufferizationPasses();
  memref::registerMemRefPasses();
  math::registerMathPasses();
  PassPipelineRegistration<OpalToLinalgPipelineOptions>(
      "opal-to-llvm",
      "opal-to-linalg, then elementwise fusion, one-shot bufferization, loops and the "
      "lowering to the LLVM dialect (math through libm) for the host CPU",
      [](OpPassManager &pm, const OpalToLinalgPipelineOptions &options) {
        if (failed(buildCpuPipeline(pm, options)))
          llvm::report_fatal_error("opal-to-llvm: an upstream pass is not registered");
      });
}
