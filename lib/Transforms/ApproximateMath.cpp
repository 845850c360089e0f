//===- ApproximateMath.cpp - The opal-approximate-math pass ---------------===//
//
// f32 transcendental math ops become MLIR's polynomial approximations, which
// LLVM's vectorizers turn into SIMD code; libm calls are scalar.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALAPPROXIMATEMATH
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The approximations use math.fma; libm's fmaf would be one call per
/// element, so fused multiply-adds go straight to the LLVM intrinsic.
struct FmaToIntrinsic : public OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(), op.getC());
    return success();
  }
};

struct OpalApproximateMath
    : public opal::ir::impl::OpalApproximateMathBase<OpalApproximateMath> {
  using OpalApproximateMathBase::OpalApproximateMathBase;

  void runOnOperation() override {
    llvm::StringSet<> names;
    if (ops.empty())
      for (const char *name : {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"})
        names.insert(std::string("math.") + name);
    for (const std::string &name : ops)
      names.insert("math." + name);
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) { return names.contains(name); });
    patterns.add<FmaToIntrinsic>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
