//===- ReshapeOutputsInPlace.cpp - The opal-reshape-outputs-in-place pass -===//
//
// A result that the kernel computes in another shape than it returns
// (group_norm normalizes [N, groups, C / groups, HxW], then reshapes to the
// input's [N, C, H, W]) bufferizes to a fresh buffer, a reshape of it, and
// a copy of that reshape into the output argument: one more pass over the
// whole tensor. When nothing but that copy uses the output argument and
// nothing uses the fresh buffer after the copy, the buffer is the output
// argument itself, seen in the computed shape (a reinterpret_cast: both are
// dense and row-major), and the copy goes.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALRESHAPEOUTPUTSINPLACE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using opal::ir::detail::isReshape;
using opal::ir::detail::reshapeSource;

namespace {

/// Whether `buffer` and every view of it are used, but for deallocs and
/// `copy`, only before `copy` in its block.
bool usedOnlyBefore(Value buffer, memref::CopyOp copy) {
  for (Operation *user : buffer.getUsers()) {
    if (user == copy.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1) {
      if (!usedOnlyBefore(user->getResult(0), copy))
        return false;
      continue;
    }
    Operation *ancestor = copy->getBlock()->findAncestorOpInBlock(*user);
    if (!ancestor || !ancestor->isBeforeInBlock(copy))
      return false;
  }
  return true;
}

/// The output argument `out` seen as `type` (dense, row-major, of as many
/// elements), at the builder's place; the sizes of `type`'s dynamic dims
/// are `dynamicSizes`.
Value viewAs(OpBuilder &b, Location loc, Value out, MemRefType type, ValueRange dynamicSizes) {
  SmallVector<OpFoldResult> sizes;
  size_t next = 0;
  for (int64_t size : type.getShape())
    sizes.push_back(ShapedType::isDynamic(size) ? OpFoldResult(dynamicSizes[next++])
                                                : OpFoldResult(b.getIndexAttr(size)));
  // Row-major strides: the product of the sizes after each dim.
  SmallVector<OpFoldResult> strides(sizes.size());
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t dim = static_cast<int64_t>(sizes.size()) - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    if (dim == 0)
      break;
    std::optional<int64_t> staticStride = getConstantIntValue(stride),
                           staticSize = getConstantIntValue(sizes[dim]);
    if (staticStride && staticSize)
      stride = b.getIndexAttr(*staticStride * *staticSize);
    else if (staticStride == 1)
      stride = sizes[dim];
    else
      stride = arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                                     getValueOrCreateConstantIndexOp(b, loc, sizes[dim]))
                   .getResult();
  }
  auto view = memref::ReinterpretCastOp::create(b, loc, out, b.getIndexAttr(0), sizes, strides);
  return memref::CastOp::create(b, loc, type, view.getResult());
}

struct OpalReshapeOutputsInPlace
    : public opal::ir::impl::OpalReshapeOutputsInPlaceBase<OpalReshapeOutputsInPlace> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      if (!out || out.getOwner() != &entry || !out.hasOneUse() || copy->getBlock() != &entry)
        continue;
      auto outType = dyn_cast<MemRefType>(out.getType());
      if (!outType || !outType.getLayout().isIdentity())
        continue;
      // The source: reshapes of a fresh buffer, dense and row-major.
      if (!isReshape(copy.getSource().getDefiningOp()))
        continue; // (a plain copy of an allocation is bufferization's to avoid)
      auto alloc = reshapeSource(copy.getSource()).getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &entry || !alloc.getType().getLayout().isIdentity() ||
          alloc.getType().getMemorySpace() != outType.getMemorySpace() ||
          !usedOnlyBefore(alloc.getResult(), copy))
        continue;
      OpBuilder b(alloc);
      Value view = viewAs(b, alloc.getLoc(), out, alloc.getType(), alloc.getDynamicSizes());
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.getResult().replaceAllUsesWith(view);
      // The copy, then the reshapes only it read.
      Value read = copy.getSource();
      copy->erase();
      while (read.use_empty() && isReshape(read.getDefiningOp())) {
        Operation *reshape = read.getDefiningOp();
        read = reshape->getOperand(0);
        reshape->erase();
      }
      alloc->erase();
    }
  }
};

} // namespace
