//===- LowerToLinalg.cpp - The opal-lower-to-linalg pass ------------------===//
//
// A thin pass over the patterns of ElementwiseToLinalg.cpp (more categories
// join as prims are added). Prims left over are reported with the reason.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALLOWERTOLINALG
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalLowerToLinalg
    : public opal::ir::impl::OpalLowerToLinalgBase<OpalLowerToLinalg> {
  using OpalLowerToLinalgBase::OpalLowerToLinalgBase;

  void runOnOperation() override {
    if (shiftedConvolutions)
      getOperation()->walk([&](Operation *op) {
        if (op->getName().getStringRef() == "prims.conv")
          op->setAttr(opal::ir::detail::kShiftedConvolutionAttr, UnitAttr::get(&getContext()));
      });
    opal::ir::detail::markSharedTransposes(getOperation());
    opal::ir::detail::markConvolutionBiases(getOperation());
    RewritePatternSet patterns(&getContext());
    opal::ir::populateElementwiseToLinalgPatterns(patterns);
    opal::ir::populateStructuredToLinalgPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    bool leftOver = false;
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() != "prims")
        return;
      std::string problem = opal::ir::isStructuredPrim(op)
                                ? opal::ir::structuredLoweringProblem(op)
                                : opal::ir::elementwiseLoweringProblem(op);
      op->emitOpError() << "cannot be lowered to linalg: it " << problem;
      leftOver = true;
    });
    if (leftOver)
      signalPassFailure();
  }
};

} // namespace
