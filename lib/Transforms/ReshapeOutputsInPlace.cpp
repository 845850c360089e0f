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
// The buffer may also be the result of an scf.if whose branches each yield
// a fresh buffer of their own (a convolution's paths chosen per call): each
// branch's buffer becomes the output argument. Such a result, read through
// a cast to a strided layout, is first copied into a fresh buffer that the
// reshapes read (memref.reshape wants an identity layout): when nothing
// writes that copy or reads the result after it, the copy reads the result
// itself.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALRESHAPEOUTPUTSINPLACE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using opal::ir::detail::isReshape;
using opal::ir::detail::reshapeSource;

namespace {

/// Whether `op` only frees a buffer: a dealloc, or the metadata of a
/// buffer whose base buffer alone is read, by deallocs.
bool onlyFrees(Operation *op) {
  if (isa<memref::DeallocOp>(op))
    return true;
  auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op);
  if (!metadata)
    return false;
  for (Value result : metadata->getResults())
    for (Operation *user : result.getUsers())
      if (result != metadata.getBaseBuffer() || !isa<memref::DeallocOp>(user))
        return false;
  return true;
}

/// Erases the ops that free `buffer` or a view of it (onlyFrees).
void eraseFrees(Value buffer) {
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    if (onlyFrees(user)) {
      for (Value result : user->getResults())
        for (Operation *dealloc : llvm::make_early_inc_range(result.getUsers()))
          dealloc->erase();
      user->erase();
    } else if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1) {
      eraseFrees(user->getResult(0));
      if (user->use_empty())
        user->erase();
    }
  }
}

/// Whether `buffer` and every view of it are used, but for deallocs and
/// `copy`, only before `copy` in its block.
bool usedOnlyBefore(Value buffer, memref::CopyOp copy) {
  for (Operation *user : buffer.getUsers()) {
    if (user == copy.getOperation() || onlyFrees(user))
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

/// Whether every free of `buffer` or a view of it (onlyFrees) comes after
/// `last` in its block.
bool freedAfter(Value buffer, Operation *last) {
  Block *block = last->getBlock();
  for (Operation *user : buffer.getUsers()) {
    if (onlyFrees(user)) {
      for (Value freed : user->getResults())
        for (Operation *dealloc : freed.getUsers()) {
          Operation *ancestor = block->findAncestorOpInBlock(*dealloc);
          if (!ancestor || !last->isBeforeInBlock(ancestor))
            return false;
        }
      if (isa<memref::DeallocOp>(user)) {
        Operation *ancestor = block->findAncestorOpInBlock(*user);
        if (!ancestor || !last->isBeforeInBlock(ancestor))
          return false;
      }
    } else if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
               !freedAfter(user->getResult(0), last)) {
      return false;
    }
  }
  return true;
}

/// `value` without the memref.casts that only change its layout's type.
Value castSource(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return value;
}

/// The fresh buffers that `result` is (a memref.alloc, or an scf.if result
/// each of whose branches yields such a buffer of its own, yielded once),
/// of an identity layout in `space`; false if it is not one.
bool freshBuffers(Value result, Attribute space, SmallVectorImpl<memref::AllocOp> &allocs) {
  result = castSource(result);
  if (auto alloc = result.getDefiningOp<memref::AllocOp>()) {
    if (!alloc.getType().getLayout().isIdentity() || alloc.getType().getMemorySpace() != space)
      return false;
    allocs.push_back(alloc);
    return true;
  }
  auto branch = result.getDefiningOp<scf::IfOp>();
  if (!branch || branch.getElseRegion().empty())
    return false;
  unsigned position = cast<OpResult>(result).getResultNumber();
  for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
    Operation *yield = region->front().getTerminator();
    Value yielded = castSource(yield->getOperand(position));
    Operation *producer = yielded.getDefiningOp();
    if (!producer || producer->getBlock() != &region->front() ||
        llvm::count_if(yield->getOperands(),
                       [&](Value operand) { return castSource(operand) == yielded; }) != 1 ||
        !freshBuffers(yielded, space, allocs))
      return false;
  }
  return true;
}

/// A copy of `result` (an scf.if's fresh buffers, seen through a cast) into
/// a fresh buffer of its type that nothing writes after the copy, when
/// nothing reads `result` after it: the copy's readers read `result`, and
/// its frees (after them) free it.
void forwardCopy(memref::CopyOp copy, Block &entry) {
  Value result = castSource(copy.getSource());
  auto target = copy.getTarget().getDefiningOp<memref::AllocOp>();
  if (!target || target->getBlock() != &entry || copy->getBlock() != &entry ||
      target.getType() != result.getType() || !result.getDefiningOp<scf::IfOp>())
    return;
  SmallVector<memref::AllocOp> allocs;
  if (!freshBuffers(result, target.getType().getMemorySpace(), allocs))
    return;
  // The target: written by the copy alone, after it read by reshapes, dims
  // and other copies' sources only.
  Operation *lastRead = copy;
  for (Operation *user : target->getUsers()) {
    if (user == copy.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    if (!isReshape(user) && !isa<memref::DimOp>(user))
      return;
    Operation *ancestor = entry.findAncestorOpInBlock(*user);
    if (!ancestor || ancestor->isBeforeInBlock(copy))
      return;
    if (lastRead->isBeforeInBlock(ancestor))
      lastRead = ancestor;
    if (isReshape(user))
      for (Operation *reader : user->getResult(0).getUsers()) {
        auto read = dyn_cast<memref::CopyOp>(reader);
        if (!read || read.getSource() != user->getResult(0) || read->getBlock() != &entry)
          return;
        if (lastRead->isBeforeInBlock(read))
          lastRead = read;
      }
  }
  // The result: read before the copy only, freed after the target's reads.
  if (!usedOnlyBefore(result, copy) || !freedAfter(result, lastRead))
    return;
  for (Operation *user : llvm::make_early_inc_range(target->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  copy->erase();
  target.getResult().replaceAllUsesWith(result);
  target->erase();
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
    for (memref::CopyOp copy : llvm::make_early_inc_range(copies))
      forwardCopy(copy, entry);
    copies.clear();
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
      Value buffer = reshapeSource(copy.getSource());
      Operation *producer = buffer.getDefiningOp();
      SmallVector<memref::AllocOp> allocs;
      if (!producer || producer->getBlock() != &entry ||
          !freshBuffers(buffer, outType.getMemorySpace(), allocs) ||
          !usedOnlyBefore(buffer, copy))
        continue;
      // Each fresh buffer is the output argument, in its own shape.
      eraseFrees(buffer);
      for (memref::AllocOp alloc : allocs) {
        OpBuilder b(alloc);
        Value view = viewAs(b, alloc.getLoc(), out, alloc.getType(), alloc.getDynamicSizes());
        eraseFrees(alloc.getResult());
        alloc.getResult().replaceAllUsesWith(view);
        alloc->erase();
      }
      // The copy, then the reshapes only it read.
      Value read = copy.getSource();
      copy->erase();
      while (read.use_empty() && isReshape(read.getDefiningOp())) {
        Operation *reshape = read.getDefiningOp();
        read = reshape->getOperand(0);
        reshape->erase();
      }
    }
  }
};

} // namespace
