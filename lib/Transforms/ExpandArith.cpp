//===- ExpandArith.cpp - The opal-expand-arith pass ------------------------===//
//
// arith-expand without its min/max expansions (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALEXPANDARITH
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalExpandArith : public opal::ir::impl::OpalExpandArithBase<OpalExpandArith> {
  using OpalExpandArithBase::OpalExpandArithBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
