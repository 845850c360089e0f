//===- ExpandShapesAsCasts.cpp - The opal-expand-shapes-as-casts pass -----===//
//
// MLIR 22's expand-strided-metadata crashes on a memref.expand_shape that
// expands one dim into several of dynamic size (the padded planes of a
// convolution's rows). An expand_shape of a buffer in the identity layout
// is a memref.reinterpret_cast of it: the output sizes, and strides that
// are the products of the sizes after each dim.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALEXPANDSHAPESASCASTS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalExpandShapesAsCasts
    : public opal::ir::impl::OpalExpandShapesAsCastsBase<OpalExpandShapesAsCasts> {
  using OpalExpandShapesAsCastsBase::OpalExpandShapesAsCastsBase;

  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation()->walk([&](memref::ExpandShapeOp op) {
      if (op.getSrcType().getLayout().isIdentity() &&
          op.getResultType().getLayout().isIdentity())
        expands.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (memref::ExpandShapeOp op : expands) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = rewriter.getIndexAttr(1);
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        strides[d] = stride;
        std::optional<int64_t> known = getConstantIntValue(stride);
        std::optional<int64_t> size = getConstantIntValue(sizes[d]);
        if (known && size) {
          stride = rewriter.getIndexAttr(*known * *size);
          continue;
        }
        stride = arith::MulIOp::create(
                     rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, stride),
                     getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]))
                     .getResult();
      }
      rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
          op, op.getResultType(), op.getSrc(), rewriter.getIndexAttr(0), sizes, strides);
    }
  }
};

} // namespace
