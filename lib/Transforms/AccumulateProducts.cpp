//===- AccumulateProducts.cpp - The opal-accumulate-products pass ---------===//
//
// A sum of matrix products, each computed into a zero-filled tensor of its
// own and then added to the others (a recurrent layer's weight gradient:
// one [512, 16] x [16, 128] product per time step, 32 of them summed),
// writes every product's result to memory for the additions to read again:
// after elementwise fusion, one generic reading 32 buffers of 256 KB. A
// product whose only use is an elementwise addition to another tensor of
// its type starts from that tensor instead (`linalg.matmul ins(A, B)
// outs(acc)` computes acc + A x B) and the addition goes, so that a chain
// of additions becomes products accumulating in one buffer, in place after
// bufferization. The sums are the same but for the order of their terms.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALACCUMULATEPRODUCTS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// Whether `op` adds its two inputs elementwise: identity maps, parallel
/// loops, a body of one arith.addf of the two.
bool isAddition(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = op.getRegion().front();
  auto add = dyn_cast<arith::AddFOp>(body.front());
  if (!add || body.getOperations().size() != 2 ||
      body.getTerminator()->getOperand(0) != add.getResult())
    return false;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1);
  return (add.getLhs() == in0 && add.getRhs() == in1) ||
         (add.getLhs() == in1 && add.getRhs() == in0);
}

/// The product `value` is the only result of, if it may start from another
/// tensor: a matmul or batch_matmul of f32 or f64 on tensors into a fill of
/// zero, read only once.
linalg::LinalgOp zeroStartedProduct(Value value) {
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  if (!op || !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
      !op.hasPureTensorSemantics() || !value.hasOneUse())
    return {};
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.getElementType().isF32() && !type.getElementType().isF64())
    return {};
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return op;
}

struct OpalAccumulateProducts
    : public opal::ir::impl::OpalAccumulateProductsBase<OpalAccumulateProducts> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> additions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isAddition(op))
        additions.push_back(op);
    });
    // In order: an addition's product may be the sum an earlier addition
    // became.
    for (linalg::GenericOp op : additions) {
      Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
      // (Of two products, the later one starts from the earlier.)
      linalg::LinalgOp product = zeroStartedProduct(rhs);
      Value start = lhs;
      if (!product) {
        product = zeroStartedProduct(lhs);
        start = rhs;
      }
      if (!product || start.getType() != product->getResult(0).getType() ||
          op.getResult(0).getType() != start.getType())
        continue;
      OpBuilder b(op);
      IRMapping mapping;
      mapping.map(product.getDpsInits()[0], start);
      Operation *accumulating = b.clone(*product.getOperation(), mapping);
      op.getResult(0).replaceAllUsesWith(accumulating->getResult(0));
      op.erase();
      product->erase();
    }
  }
};

} // namespace
