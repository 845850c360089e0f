//===- DropOverwrittenFills.cpp - The opal-drop-overwritten-fills pass ----===//
//
// A cat or stack is a tensor of zeros with each part written into its slice
// (prims.slice_scatter, lowered to tensor.insert_slice): every element of
// the fill is overwritten before anything reads it, yet the fill writes the
// whole tensor once more (an LSTM's saved gates, stacked for the backward,
// 1.5 MB). Where the slices of a chain of insert_slices into a fill tile it
// exactly, the chain starts from the fill's destination instead (and the
// fill goes once no chain reads it).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALDROPOVERWRITTENFILLS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// Pairwise comparisons of slices are quadratic: longer chains stay.
constexpr size_t kMaxSlices = 4096;

/// A slice's box: its offsets and sizes, all known.
struct Box {
  SmallVector<int64_t> offsets, sizes;
};

/// The box `op` writes, if its offsets and sizes are constants and its
/// strides 1.
std::optional<Box> boxOf(tensor::InsertSliceOp op) {
  if (!llvm::all_of(op.getStaticStrides(), [](int64_t stride) { return stride == 1; }) ||
      ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes()))
    return std::nullopt;
  return Box{SmallVector<int64_t>(op.getStaticOffsets()),
             SmallVector<int64_t>(op.getStaticSizes())};
}

bool overlap(const Box &a, const Box &b) {
  for (size_t d = 0; d < a.offsets.size(); ++d)
    if (a.offsets[d] + a.sizes[d] <= b.offsets[d] || b.offsets[d] + b.sizes[d] <= a.offsets[d])
      return false;
  return true;
}

/// Whether the chain of insert_slices that starts with `first` (into a
/// tensor of `type`), each the only use of the one before, writes every
/// element: their boxes are disjoint and their volumes add up to the
/// tensor's.
bool overwrites(tensor::InsertSliceOp first, RankedTensorType type) {
  SmallVector<Box> boxes;
  int64_t volume = 0;
  tensor::InsertSliceOp insert = first;
  while (insert && volume < type.getNumElements()) {
    std::optional<Box> box = boxOf(insert);
    if (!box || boxes.size() == kMaxSlices)
      return false;
    int64_t count = 1;
    for (int64_t size : box->sizes)
      count *= size;
    for (const Box &earlier : boxes)
      if (count > 0 && overlap(earlier, *box))
        return false;
    volume += count;
    boxes.push_back(std::move(*box));
    Value result = insert.getResult();
    insert = result.hasOneUse() ? dyn_cast<tensor::InsertSliceOp>(*result.getUsers().begin())
                                : tensor::InsertSliceOp();
    if (insert && insert.getDest() != result)
      insert = {};
  }
  return volume == type.getNumElements();
}

struct OpalDropOverwrittenFills
    : public opal::ir::impl::OpalDropOverwrittenFillsBase<OpalDropOverwrittenFills> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) { fills.push_back(fill); });
    for (linalg::FillOp fill : fills) {
      if (!fill.hasPureTensorSemantics() || fill->getNumResults() != 1)
        continue;
      auto type = dyn_cast<RankedTensorType>(fill->getResult(0).getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
        continue;
      // (One fill may start several chains: CSE merges equal fills, as of
      // two stacks of one shape.)
      for (OpOperand &use : llvm::make_early_inc_range(fill->getResult(0).getUses())) {
        auto insert = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
        if (insert && &use == &insert.getDestMutable() && overwrites(insert, type))
          use.set(fill.getDpsInits()[0]);
      }
      if (fill->use_empty())
        fill.erase();
    }
  }
};

} // namespace
