//===- RecomputeElementwise.cpp - The opal-recompute-elementwise pass -----===//
//
// Fuses small all-parallel producers into every linalg.generic consumer,
// whatever their number of uses (Passes.td says why); with `single-use`,
// producers of one use only, into reductions too.
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
    bool once = singleUse;
    auto recomputable = [limit, once](Operation *op) {
      auto producer = dyn_cast_or_null<linalg::GenericOp>(op);
      if (!producer || producer->getNumResults() != 1 || !producer.hasPureTensorSemantics() ||
          producer.getNumParallelLoops() != producer.getNumLoops())
        return false;
      // With one use, nothing is computed again; else the payload, without
      // its yield, is what each consumer computes again.
      if (once)
        return producer->getResult(0).hasOneUse();
      return producer.getRegion().front().getOperations().size() <= limit + 1;
    };
    // Reductions (linalg.reduce: a row's sum) fuse as generics.
    SmallVector<linalg::ReduceOp> reductions;
    getOperation().walk([&](linalg::ReduceOp reduce) {
      if (llvm::any_of(reduce.getInputs(),
                       [&](Value input) { return recomputable(input.getDefiningOp()); }))
        reductions.push_back(reduce);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::ReduceOp reduce : reductions) {
      rewriter.setInsertionPoint(reduce);
      if (failed(linalg::generalizeNamedOp(rewriter, reduce)))
        return signalPassFailure();
    }
    // Each consumer that can fuse it gets a copy of its own: then every
    // fusion is of a producer with one use, which leaves no result of the
    // producer behind in the fused op.
    SmallVector<OpOperand *> uses;
    getOperation().walk([&](linalg::GenericOp producer) {
      if (!recomputable(producer) || producer->getResult(0).hasOneUse())
        return;
      for (OpOperand &use : producer->getResult(0).getUses())
        if (isa<linalg::GenericOp>(use.getOwner()) && linalg::areElementwiseOpsFusable(&use))
          uses.push_back(&use);
    });
    for (OpOperand *use : uses) {
      rewriter.setInsertionPoint(use->getOwner());
      use->set(rewriter.clone(*use->get().getDefiningOp())->getResult(0));
    }
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      return fused->get().getDefiningOp() && fused->get().hasOneUse();
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
