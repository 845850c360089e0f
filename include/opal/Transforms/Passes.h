//===- Passes.h - opal's passes ---------------------------------*- C++ -*-===//

#ifndef OPAL_TRANSFORMS_PASSES_H
#define OPAL_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassOptions.h"
#include "opal/Schema/FunctionSchema.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace opal::ir {

#define GEN_PASS_DECL
#include "opal/Transforms/Passes.h.inc"

/// A function argument attribute: the buffer's data starts at a multiple of
/// this many bytes (an integer). The JIT sets it on the CUDA kernels' buffers
/// that are 16-byte aligned; opal-map-to-gpu then uses 128-bit accesses.
inline constexpr const char *kAlignAttrName = "opal.align";
/// The function attribute where opal-derive-shape-checks records the size
/// checks a function's body assumes (a string: jit::describeShapeChecks).
inline constexpr const char *kShapeChecksAttrName = "opal.shape_checks";
/// The function attribute where opal-derive-data-checks records the checks
/// its last results carry (a string: jit::describeDataChecks).
inline constexpr const char *kDataChecksAttrName = "opal.data_checks";
/// The function attribute where opal-bind-random-streams records how many
/// random streams a function draws from (an i64); its last two non-output
/// arguments are then the seed and the first offset.
inline constexpr const char *kRandomStreamsAttrName = "opal.random_streams";
/// The unit attribute of the loop over rows that opal-fuse-rows makes:
/// opal-map-to-gpu runs it as one kernel with a block per row.
inline constexpr const char *kRowsAttrName = "opal.rows";
/// The unit attribute of an scf.for whose iterations are independent
/// (opal-fuse-rows' rows, opal-tile-matmul's register tiles):
/// opal-parallelize splits it over threads.
inline constexpr const char *kParallelAttrName = "opal.parallel";
/// A positive integer attribute a loop marked `opal.parallel` may carry: the
/// elements one iteration moves or computes, when the loop's nest knows it
/// better than opal-parallelize's estimate (the iterations times the inner
/// loops' trips, or the largest buffer the nest touches): the packing of
/// one block of a matrix product, which reads a small part of a large B.
inline constexpr const char *kParallelWorkAttrName = "opal.parallel_work";
/// The unit attribute of a function opal-parallelize outlined (a nest's
/// part run by one thread).
inline constexpr const char *kParallelPartAttrName = "opal.parallel_part";

/// Patterns that lower elementwise prims to linalg.generic (the body of
/// opal-lower-to-linalg, reusable by the JIT's pipelines).
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Why `op` (an elementwise prim) cannot be lowered, or "" if it can.
std::string elementwiseLoweringProblem(mlir::Operation *op);

/// Patterns for the structured prims: broadcast_in_dim, transpose,
/// reductions and matrix products, the index prims (argmax, argmin, gather,
/// take), convolutions and pooling (one file of patterns per category).
void populateStructuredToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// True for the prims populateStructuredToLinalgPatterns handles.
bool isStructuredPrim(mlir::Operation *op);
/// Why such a prim cannot be lowered, or "" if it can.
std::string structuredLoweringProblem(mlir::Operation *op);

/// The result types of a prim whose tensor operands have concrete types
/// (used when a decomposition body is instantiated). On failure, `problem`
/// says why.
mlir::FailureOr<llvm::SmallVector<mlir::Type>> inferPrimResultTypes(mlir::Operation *op,
                                                                    std::string &problem);

/// The MLIR element type of a dtype code (PyTorch's ScalarType numbering:
/// 6 is float32), or null if MLIR has none opal lowers.
mlir::Type elementTypeForDtype(int64_t dtype, mlir::MLIRContext *context);
/// The dtype code of an element type, if it has one.
std::optional<int64_t> dtypeForElementType(mlir::Type element);

/// The op library `<ns>_backward` holding the derived backward of
/// `forward` (opal-derive-backward), as op-library text, from the
/// decomposition of `forward` found in `libraries`. On failure `problem`
/// says why (an op without a formula, a branch).
mlir::FailureOr<std::string> deriveBackward(llvm::ArrayRef<mlir::ModuleOp> libraries,
                                            const FunctionSchema &forward, std::string &problem);

/// Makes the text of an op-library file available to opal-decompose (which
/// parses it in its own context). opal-opt adds every --op-library file.
void addOpLibraryText(std::string name, std::string text);
/// Forgets every text added with addOpLibraryText (the JIT adds back those
/// still registered after one was taken back).
void clearOpLibraryTexts();
/// The texts added with addOpLibraryText, in order: (name, text).
std::vector<std::pair<std::string, std::string>> addedOpLibraryTexts();

/// What an op-library text declares, found without parsing it: the
/// namespaces of its `opal.library "ns"` ops, and the MLIR names of the ops
/// whose decompositions it holds ("aten.add.Tensor": each
/// `opal.decomposition "op"` in the custom form, named in the namespace of
/// the library before it, or its own `ns::op`). opal-decompose parses a
/// built-in library only when a module needs one of those decompositions;
/// a test checks that they are the ones parsing finds.
struct ScannedOpLibrary {
  std::vector<std::string> namespaces;
  std::vector<std::string> decompositions;
};
ScannedOpLibrary scanOpLibraryText(std::string_view text);

/// The MLIR names of the ops the last opal-decompose run on this thread
/// expanded (with repeats). The JIT records them as the ops a kernel
/// reached.
const std::vector<std::string> &lastDecomposedOps();

/// An `opal.check` that refused a use in the last opal-decompose run on
/// this thread: its error (the op's own message, as PyTorch raises it, not
/// a compiler failure) and, where its values are constants or sizes of the
/// function's arguments, the refusal as a check no call passes (the text of
/// `opal.shape_checks`), for the JIT to raise with the call's sizes.
struct Refusal {
  std::string message;
  std::string check;
};
const std::optional<Refusal> &lastRefusal();

/// Options of the opal-to-linalg pipeline.
struct OpalToLinalgPipelineOptions
    : public mlir::PassPipelineOptions<OpalToLinalgPipelineOptions> {
  ListOption<std::string> legalOps{
      *this, "legal-ops",
      llvm::cl::desc("ops to keep, by MLIR name (passed to opal-decompose)")};
};

/// opal-decompose, opal-lower-to-linalg, canonicalize and cse: schema ops to
/// linalg on tensors. The JIT builds its pipelines on this one.
void buildOpalToLinalgPipeline(mlir::OpPassManager &pm,
                               const OpalToLinalgPipelineOptions &options);

/// Registers the named pipelines (opal-to-linalg) with MLIR's pass registry.
void registerOpalPipelines();

#define GEN_PASS_REGISTRATION
#include "opal/Transforms/Passes.h.inc"

} // namespace opal::ir

#endif // OPAL_TRANSFORMS_PASSES_H
