//===- CpuPipeline.h - From schema ops to LLVM for the host CPU -*- C++ -*-===//
//
// The CPU compile path's passes: opal-to-linalg, elementwise fusion, one-shot
// bufferization (function boundaries included), loops, and the lowering to
// the LLVM dialect with math through libm (so log1p/expm1 keep their
// precision). The JIT (issue 6) runs it before the ExecutionEngine; opal-opt
// exposes it as --opal-to-llvm so lit tests can run kernels with mlir-runner.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_CPUPIPELINE_H
#define OPAL_COMPILER_CPUPIPELINE_H

#include "opal/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

namespace opal::ir {

/// The text of the passes after opal-to-linalg (an MLIR pass pipeline).
const char *cpuLoweringPipelineText();

/// The front half of the JIT's passes after opal-decompose, shared by the
/// CPU and CUDA pipelines: lowering to linalg, fusion, size reification,
/// bufferization into the output arguments, deallocation of temporaries.
/// `recomputeElementwise` (the GPU's) fuses small elementwise producers
/// into all their consumers instead of keeping their results in buffers.
const char *bufferizationPipelineText(bool recomputeElementwise = false);

/// The JIT's passes after opal-decompose, for a module split into entry
/// points (KernelBuilder.h): lowering to linalg, fusion, size reification,
/// bufferization into the output arguments, deallocation of temporaries,
/// and the lowering to the LLVM dialect. `scalef`: f32 exp scales with
/// llvm.intr.ldexp (for AVX-512 targets: scalesExponents, ObjectCode.h).
const char *jitCpuPipelineText(bool scalef = false);

/// The prefix of jitCpuPipelineText (up to the lowering to LLVM) whose
/// passes keep no state from one run to the next: the JIT runs it with one
/// pass manager kept across compiles (parsed, and its pattern sets built,
/// once). Some conversion passes after it cache what they generated for
/// the previous module, so they get a fresh pass manager per compile.
const char *jitCpuReusablePipelineText(bool scalef = false);

/// opal-to-linalg, then the CPU lowering to the LLVM dialect. Fails if the
/// upstream passes were not registered (registerCpuPipeline).
mlir::LogicalResult buildCpuPipeline(mlir::OpPassManager &pm,
                                     const OpalToLinalgPipelineOptions &options);

/// Adds what the pipeline needs to `registry` (bufferization models of the
/// dialects it bufferizes), registers its upstream passes by name and the
/// --opal-to-llvm pipeline.
void registerCpuPipeline(mlir::DialectRegistry &registry);

} // namespace opal::ir

#endif // OPAL_COMPILER_CPUPIPELINE_H
