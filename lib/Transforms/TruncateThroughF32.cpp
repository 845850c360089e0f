//===- TruncateThroughF32.cpp - The opal-truncate-through-f32 pass --------===//
//
// f64 -> f16/bf16 rounds through f32, as PyTorch's Half and BFloat16 do.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALTRUNCATETHROUGHF32
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct TruncateThroughF32
    : public opal::ir::impl::OpalTruncateThroughF32Base<TruncateThroughF32> {
  void runOnOperation() override {
    SmallVector<arith::TruncFOp> found;
    getOperation()->walk([&](arith::TruncFOp op) {
      Type from = getElementTypeOrSelf(op.getIn().getType());
      Type to = getElementTypeOrSelf(op.getType());
      if (from.isF64() && (to.isF16() || to.isBF16()))
        found.push_back(op);
    });
    for (arith::TruncFOp op : found) {
      OpBuilder b(op);
      Type f32 = b.getF32Type();
      Type middle = f32;
      if (auto shaped = dyn_cast<ShapedType>(op.getType()))
        middle = shaped.clone(f32);
      Value single = arith::TruncFOp::create(b, op.getLoc(), middle, op.getIn());
      op.getInMutable().assign(single);
    }
  }
};

} // namespace
