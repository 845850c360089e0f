//===- UnshareDestinations.cpp - One init tensor per destination use ------===//
//
// CSE merges the identical `tensor.empty` and `linalg.fill` ops that two
// structured ops take as their destinations (two sums of the same shape
// start from one zero-filled tensor). eliminate-empty-tensors then gives
// that one tensor the buffer of an output, and one-shot bufferization
// writes both results into it: the kernel returned the first sum twice.
// This pass gives every use of such a destination its own copy of the ops
// that make it, so each result gets its own buffer again.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALUNSHAREDESTINATIONS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// Whether `value` is made only to be written over: a tensor.empty, or a
/// linalg.fill of one.
bool isFreshDestination(Value value) {
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<tensor::EmptyOp>(op))
    return true;
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.getOutputs().size() == 1 &&
         isa_and_nonnull<tensor::EmptyOp>(fill.getOutputs()[0].getDefiningOp());
}

struct OpalUnshareDestinations
    : public opal::ir::impl::OpalUnshareDestinationsBase<OpalUnshareDestinations> {
  void runOnOperation() override {
    SmallVector<Value> shared;
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (isa<RankedTensorType>(result.getType()) && isFreshDestination(result) &&
            !result.hasOneUse() && !result.use_empty())
          shared.push_back(result);
    });
    for (Value value : shared) {
      Operation *producer = value.getDefiningOp();
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : value.getUses())
        uses.push_back(&use);
      // In program order where the uses share a block.
      llvm::stable_sort(uses, [](OpOperand *a, OpOperand *b) {
        Operation *x = a->getOwner(), *y = b->getOwner();
        return x != y && x->getBlock() == y->getBlock() && x->isBeforeInBlock(y);
      });
      // The first use keeps the original; each other gets a copy made
      // right before it.
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder b(use->getOwner());
        IRMapping mapping;
        if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
          Operation *empty = fill.getOutputs()[0].getDefiningOp();
          mapping.map(empty->getResult(0), b.clone(*empty)->getResult(0));
        }
        Operation *copy = b.clone(*producer, mapping);
        use->set(copy->getResult(cast<OpResult>(value).getResultNumber()));
      }
    }
  }
};

} // namespace
