//===- CollapseElementwise.cpp - The opal-collapse-elementwise pass -------===//
//
// An elementwise linalg.generic on dense buffers whose consecutive loops
// every operand reads as consecutive dims, in order, runs those loops as
// one (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALCOLLAPSEELEMENTWISE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The groups of consecutive loops of `op` that merge, or nothing when
/// none does or `op` is not an elementwise generic on dense buffers.
SmallVector<ReassociationIndices> mergedLoops(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return {};
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getLayout().isIdentity())
      return {};
  }
  // (Merged loops would give linalg.index a position to split again.)
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return {};
  // (A constant in a map, a broadcast dim of size 1, has no dims to merge
  // into: collapseOpIterationDims would make a wrong reshape of it.)
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, [](AffineMap map) { return map.isProjectedPermutation(); }))
    return {};
  SmallVector<ReassociationIndices> groups = {{0}};
  for (int64_t loop = 1; loop < static_cast<int64_t>(op.getNumLoops()); ++loop) {
    ReassociationIndices longer = groups.back();
    longer.push_back(loop);
    if (linalg::areDimSequencesPreserved(maps, {longer}))
      groups.back() = std::move(longer);
    else
      groups.push_back({loop});
  }
  if (groups.size() == op.getNumLoops())
    return {};
  return groups;
}

struct OpalCollapseElementwise
    : public opal::ir::impl::OpalCollapseElementwiseBase<OpalCollapseElementwise> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<ReassociationIndices> groups = mergedLoops(op);
      if (groups.empty())
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
    }
  }
};

} // namespace
