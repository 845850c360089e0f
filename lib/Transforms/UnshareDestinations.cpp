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
// A slice taken out of the destination and a tensor.insert_slice back into
// it at the same place (a convolution's rows computed in part of a larger
// buffer) are one use: given copies apart, the slice was computed in a
// buffer of its own and copied into the other.
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

/// Whether `use` inserts into its tensor at the place the extract_slice
/// `extract` takes from it.
bool insertsBack(OpOperand *use, Operation *extract) {
  auto insert = dyn_cast<tensor::InsertSliceOp>(use->getOwner());
  auto slice = dyn_cast<tensor::ExtractSliceOp>(extract);
  return insert && slice && use->get() == insert.getDest() &&
         slice.getSource() == insert.getDest() &&
         insert.getMixedOffsets() == slice.getMixedOffsets() &&
         insert.getMixedSizes() == slice.getMixedSizes() &&
         insert.getMixedStrides() == slice.getMixedStrides();
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
      // Uses that write one buffer together: an insert_slice back where
      // an earlier extract_slice took from.
      SmallVector<SmallVector<OpOperand *, 2>> groups;
      for (OpOperand *use : uses) {
        auto pair = llvm::find_if(groups, [&](ArrayRef<OpOperand *> group) {
          return group.size() == 1 && insertsBack(use, group.front()->getOwner());
        });
        if (pair != groups.end())
          pair->push_back(use);
        else
          groups.push_back({use});
      }
      // The first group keeps the original; each other gets a copy made
      // right before its first use.
      for (ArrayRef<OpOperand *> group : llvm::drop_begin(groups)) {
        OpBuilder b(group.front()->getOwner());
        IRMapping mapping;
        if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
          Operation *empty = fill.getOutputs()[0].getDefiningOp();
          mapping.map(empty->getResult(0), b.clone(*empty)->getResult(0));
        }
        Operation *copy = b.clone(*producer, mapping);
        for (OpOperand *use : group)
          use->set(copy->getResult(cast<OpResult>(value).getResultNumber()));
      }
    }
  }
};

} // namespace
