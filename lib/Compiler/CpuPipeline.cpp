//===- CpuPipeline.cpp - From schema ops to LLVM for the host CPU ---------===//

#include "opal/Compiler/CpuPipeline.h"
#include "opal/Compiler/ObjectCode.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Pass/PassRegistry.h"

#include <mutex>
#include <string>

using namespace mlir;

namespace {
/// From bufferized loops to the LLVM dialect.
constexpr const char *kLoopsToLLVM =
    // Each function's own (a whole model's kernel: 300 nest functions
    // after opal-outline-nests) nested in func.func, where the context's
    // threads lower several functions at once; the passes that add
    // declarations or functions to the module (libm's, the vector and
    // memref lowerings' helpers) run on the module.
    "func.func("
    // A structured op whose loops may be empty (a dim of size 0) runs none
    // of them: not 2^62 empty iterations of an outer one.
    "opal-guard-empty-loops,"
    "convert-linalg-to-loops,"
    // softmax's exp(x - max) stored in its output row, scaled in place.
    "opal-rows-in-outputs,"
    "lower-affine,"
    "convert-scf-to-cf),"
    // Register-tiled matrix products (opal-tile-matmul).
    "convert-vector-to-llvm,"
    // libm has no rsqrt; half-precision math computes in f32.
    "func.func(math-expand-ops{ops=rsqrt}),"
    // Integer powers become loops in helper functions.
    "convert-math-to-funcs,"
    "func.func(math-extend-to-supported-types),"
    "convert-math-to-libm,"
    "convert-math-to-llvm,"
    // (MLIR 22's expand-strided-metadata crashes on some expand_shapes.)
    "func.func(opal-expand-shapes-as-casts,"
    "expand-strided-metadata,"
    "lower-affine),"
    "finalize-memref-to-llvm{use-aligned-alloc},"
    // bfloat16 arithmetic in f32, rounded per op as PyTorch does, and its
    // conversions as integer arithmetic (LLVM would call compiler-rt's
    // __truncsfbf2, which this system's libgcc lacks); ceil/floor divisions
    // expanded, min and max kept for LLVM to vectorize.
    "func.func(opal-truncate-through-f32,"
    "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
    "opal-expand-arith),"
    "convert-arith-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-func-to-llvm,"
    "reconcile-unrealized-casts";
} // namespace

const char *opal::ir::cpuLoweringPipelineText() {
  static const std::string text = std::string(
                                      // An op's own checks become the
                                      // function's opal.shape_checks.
                                      "func.func(opal-derive-shape-checks),"
                                      // Trees of elementwise ops in one step,
                                      // then what is left pair by pair.
                                      "func.func(opal-fuse-elementwise-trees),"
                                      "linalg-fuse-elementwise-ops,"
                                              "one-shot-bufferize{bufferize-function-boundaries},") +
                                  kLoopsToLLVM;
  return text.c_str();
}

const char *opal::ir::bufferizationPipelineText(bool recomputeElementwise) {
  auto text = [](const char *lowering, const char *beforeFusion, const char *fusion) {
    return std::string(lowering) +
           // What the kernel assumes of its inputs' sizes, checked per call.
           "func.func(opal-derive-shape-checks),"
           "canonicalize,cse," + beforeFusion +
           // Trees of elementwise ops in one step (linear in their size),
           // then what is left pair by pair.
           "func.func(opal-fuse-elementwise-trees),"
           "linalg-fuse-elementwise-ops," +
           fusion +
           // The shapes entry keeps only the size computations.
           "resolve-ranked-shaped-type-result-dims,canonicalize,cse,"
           // A cat's or stack's zeros, which its parts overwrite, are not
           // written.
           "func.func(opal-drop-overwritten-fills),"
           // Results are computed in the output buffers the runtime
           // allocates (each its own: destinations CSE merged are copied
           // apart first); temporaries are freed.
           "func.func(opal-unshare-destinations),"
           "eliminate-empty-tensors,"
           "one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "buffer-deallocation-pipeline,canonicalize";
  };
  // CPU kernels: convolutions as products over shifted rows (strided ones
  // over the padded input's phases).
  // An elementwise result that only a reduction reads (batch norm's
  // squared differences) is computed as the reduction reads it, instead of
  // into a buffer the size of the input (linalg-fuse-elementwise-ops does
  // not fuse into linalg.reduce).
  static const std::string plain =
      text("func.func(opal-lower-unsigned),opal-lower-to-linalg{shifted-convolutions},",
           // A product added to another tensor starts from it: a sum of
           // products (a recurrent layer's weight gradient) accumulates in
           // one buffer.
           "func.func(opal-accumulate-products),",
           "func.func(opal-recompute-elementwise{single-use=true}),canonicalize,cse,"
           // A per-column division (batch norm's mean in its variance) once
           // per column, not per element.
           "func.func(opal-hoist-broadcast-work),canonicalize,");
  static const std::string recomputing =
      text("func.func(opal-lower-unsigned),opal-lower-to-linalg,", "",
           "func.func(opal-recompute-elementwise),canonicalize,cse,");
  return (recomputeElementwise ? recomputing : plain).c_str();
}

const char *opal::ir::jitCpuReusablePipelineText(bool scalef) {
  auto text = [](bool scalef) {
    return std::string(bufferizationPipelineText()) +
           ","
           // Temporaries freed at their last use, not at the kernel's end.
           "func.func(opal-free-at-last-use),"
           // exp/log/tanh/erf in f32 as SIMD-friendly polynomials (exp's
           // 2^n by vscalefps on AVX-512).
           + (scalef ? "opal-approximate-math{scalef=true}," : "opal-approximate-math,") +
           // Transposes (a convolution's layouts) in tiles transposed in
           // vector registers.
           "func.func(opal-vectorize-transposes),"
           // Matrix products: loop order and L2 tiles; register tiles of 6
           // rows by 4 vectors (24 accumulators, each broadcast of A feeding
           // four FMAs): 5-15% faster than 8 by 2 on mm, linear and the
           // convolutions' products (docs/performance.md).
           // A product of at most 128 rows reads B in place, unpacked
           // (16-row products of a recurrent layer: 16% faster, 1-6 rows
           // up to 2.5x; 256 rows of a 1024-wide B: 3% slower).
           "opal-tile-matmul{tile-m=6 tile-vectors=4 direct-rows=128},"
           // Results computed in another shape than returned (group_norm's
           // groups), written in place rather than copied.
           "func.func(opal-reshape-outputs-in-place),"
           // Depthwise convolutions: register tiles of 4 rows by 2 vectors
           // of outputs, summed over the channel and kernel positions.
           "func.func(opal-tile-depthwise),"
           // Row-wise runs with a reduction (softmax, norms) one row at a
           // time.
           "func.func(opal-fuse-rows),canonicalize,"
           // Elementwise nests over dense buffers as one long loop (an
           // optimizer step over a [64, 64, 3, 3] weight: not an innermost
           // loop of 3).
           "func.func(opal-collapse-elementwise),"
           // Nests large enough for threads run on OpenMP's.
           "opal-parallelize,"
           // Each nest in a function of its own, equal ones merged: a
           // transformer's layers share one copy of each, and one parallel
           // region per part (ViT-tiny's kernel: 148 parallel parts and
           // ~460 nests left inline become 40-70 functions; its compile
           // 8.7 -> 1.1 s).
           "opal-outline-nests,"
           // The temporaries of a kernel's body in one buffer, memory
           // shared between those not live at once (ConvNeXt-tiny at batch
           // 16: 270 temporaries, 1.5 GiB of blocks -> one of N MiB).
           "func.func(opal-plan-buffers)";
  };
  static const std::string plain = text(false), scaling = text(true);
  return (scalef ? scaling : plain).c_str();
}

const char *opal::ir::jitCpuPipelineText(bool scalef) {
  auto text = [](bool scalef) {
    return std::string(jitCpuReusablePipelineText(scalef)) + "," + kLoopsToLLVM;
  };
  static const std::string plain = text(false), scaling = text(true);
  return (scalef ? scaling : plain).c_str();
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
  // The sizes of reshapes (tensor.dim of a collapse or expand_shape) in
  // terms of their sources: the sizes entry then keeps no computation.
  tensor::registerInferTypeOpInterfaceExternalModels(registry);
  // The passes are registered once per process, however often this runs.
  static std::once_flag once;
  std::call_once(once, [] {
    registerConversionPasses();
    registerLinalgPasses();
    bufferization::registerBufferizationPasses();
    bufferization::registerBufferizationPipelines();
    memref::registerMemRefPasses();
    math::registerMathPasses();
    arith::registerArithPasses();
    PassPipelineRegistration<OpalToLinalgPipelineOptions>(
        "opal-to-llvm",
        "opal-to-linalg, then elementwise fusion, one-shot bufferization, loops and the "
        "lowering to the LLVM dialect (math through libm) for the host CPU",
        [](OpPassManager &pm, const OpalToLinalgPipelineOptions &options) {
          if (failed(buildCpuPipeline(pm, options)))
            llvm::report_fatal_error("opal-to-llvm: an upstream pass is not registered");
        });
    PassPipelineRegistration<>(
        "opal-jit-cpu",
        "the passes the JIT and opal-aot run on a kernel after opal-decompose and the split "
        "into entry points (OPAL_DUMP_DIR's 2-entry-points.mlir): to the LLVM dialect, for "
        "the host CPU",
        [](OpPassManager &pm) {
          if (failed(parsePassPipeline(jitCpuPipelineText(scalesExponents()), pm)))
            llvm::report_fatal_error("opal-jit-cpu: an upstream pass is not registered");
        });
  });
}
