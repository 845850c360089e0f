//===- RecomputeElementwise.cpp - The opal-recompute-elementwise pass -----===//
//
// Fuses small all-parallel producers into every linalg.generic consumer,
// whatever their number of uses (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALRECOMPUTEELEMENTWISE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalRecomputeElementwise
    : public opal::ir::impl::OpalRecomputeElementwiseBase<OpalRecomputeElementwise> {
  using OpalRecomputeElementwiseBase::OpalRecomputeElementwiseBase;

  void runOnOperation() override {
    unsigned limit = maxOps;
    auto recomputable = [limit](Value value) {
      auto producer = value.getDefiningOp<linalg::GenericOp>();
      // The payload, without its yield, is what each consumer computes again.
      return producer && producer.hasPureTensorSemantics() &&
             producer.getNumParallelLoops() == producer.getNumLoops() &&
             producer.getRegion().front().getOperations().size() <= limit + 1;
    };
    // Reductions (linalg.reduce: a row's sum) fuse as generics.
    SmallVector<linalg::ReduceOp> reductions;
    getOperation().walk([&](linalg::ReduceOp reduce) {
      if (llvm::any_of(reduce.getInputs(), recomputable))
        reductions.push_back(reduce);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::ReduceOp reduce : reductions) {
      rewriter.setInsertionPoint(reduce);
      if (failed(linalg::generalizeNamedOp(rewriter, reduce)))
        return signalPassFailure();
    }
    linalg::ControlFusionFn control = [recomputable](OpOperand *fused) {
      return recomputable(fused->get());
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
