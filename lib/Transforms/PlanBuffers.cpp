//===- PlanBuffers.cpp - The opal-plan-buffers pass -----------------------===//
//
// Gives the temporary buffers of a function's entry block one allocation,
// each a view of it at an offset chosen here, buffers whose lives do not
// overlap sharing memory (Passes.td says why and which buffers).
//
//===----------------------------------------------------------------------===//

#include "BufferLives.h"

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <optional>

namespace opal::ir {
#define GEN_PASS_DEF_OPALPLANBUFFERS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The alignment of the shared buffer and of every offset in it: the
/// runtime's (a cache line; the vector loads of a kernel need no more).
constexpr int64_t kAlignment = 64;

/// The largest temporary placed (1 TiB): one larger stays an allocation of
/// its own, for the allocator to refuse, and the offsets of any number of
/// placed ones cannot overflow.
constexpr int64_t kLargestPlaced = int64_t(1) << 40;

/// A temporary that moves into the shared buffer: its life (positions of
/// its allocation and its deallocation in the block) and its place.
struct Temporary {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  unsigned first, last;
  int64_t bytes;
  int64_t offset = -1;

  bool livesWith(const Temporary &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// The bytes of one element of `type` in memory (host CPU); none for a type
/// this pass leaves alone.
std::optional<int64_t> elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return std::nullopt;
}

/// `alloc`'s buffer as a temporary of `block` freed by `dealloc`; none when
/// it is not one this pass can place.
std::optional<Temporary> temporaryOf(memref::AllocOp alloc, memref::DeallocOp dealloc,
                                     Block *block,
                                     const llvm::DenseMap<Operation *, unsigned> &position) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() || type.getMemorySpace() ||
      !alloc.getSymbolOperands().empty() || alloc.getAlignment().value_or(0) > kAlignment)
    return std::nullopt;
  std::optional<int64_t> element = elementBytes(type.getElementType());
  if (!element)
    return std::nullopt;
  Operation *last = opal::ir::detail::lastUse(alloc.getResult(), block, dealloc);
  if (!last || !last->isBeforeInBlock(dealloc))
    return std::nullopt;
  int64_t elements = type.getNumElements();
  if (elements > kLargestPlaced / *element)
    return std::nullopt;
  int64_t bytes = std::max<int64_t>(elements * *element, 1);
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  return Temporary{alloc, dealloc, position.lookup(alloc), position.lookup(dealloc), bytes};
}

/// Places each temporary, largest first, at the lowest offset where it
/// overlaps no placed temporary whose life overlaps its own; returns the
/// bytes they take in all.
int64_t place(SmallVector<Temporary> &temporaries) {
  SmallVector<Temporary *> order;
  for (Temporary &temporary : temporaries)
    order.push_back(&temporary);
  std::stable_sort(order.begin(), order.end(), [](const Temporary *a, const Temporary *b) {
    return a->bytes > b->bytes;
  });
  int64_t total = 0;
  SmallVector<Temporary *> placed;
  for (Temporary *temporary : order) {
    SmallVector<Temporary *> beside;
    for (Temporary *other : placed)
      if (other->livesWith(*temporary))
        beside.push_back(other);
    std::sort(beside.begin(), beside.end(),
              [](const Temporary *a, const Temporary *b) { return a->offset < b->offset; });
    int64_t offset = 0;
    for (Temporary *other : beside) {
      if (offset + temporary->bytes <= other->offset)
        break;
      offset = std::max(offset, other->offset + other->bytes);
    }
    temporary->offset = offset;
    total = std::max(total, offset + temporary->bytes);
    placed.push_back(temporary);
  }
  return total;
}

struct OpalPlanBuffers : public opal::ir::impl::OpalPlanBuffersBase<OpalPlanBuffers> {
  using OpalPlanBuffersBase::OpalPlanBuffersBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block *block = &func.getBody().front();
    // A deallocation of anything but an allocation (a view, an argument)
    // might free a view of the shared buffer: left as it is.
    bool freesOther = func.walk([](memref::DeallocOp dealloc) {
                            return dealloc.getMemref().getDefiningOp<memref::AllocOp>()
                                       ? WalkResult::advance()
                                       : WalkResult::interrupt();
                          }).wasInterrupted();
    if (freesOther)
      return;
    llvm::DenseMap<Operation *, unsigned> position;
    unsigned index = 0;
    for (Operation &op : *block)
      position[&op] = index++;
    SmallVector<Temporary> temporaries;
    for (Operation &op : *block) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      // Freed once, in this block.
      memref::DeallocOp dealloc;
      unsigned deallocs = 0;
      for (Operation *user : alloc->getUsers())
        if (auto free = dyn_cast<memref::DeallocOp>(user)) {
          dealloc = free;
          ++deallocs;
        }
      if (deallocs != 1 || dealloc->getBlock() != block)
        continue;
      if (std::optional<Temporary> temporary = temporaryOf(alloc, dealloc, block, position))
        temporaries.push_back(*temporary);
    }
    if (temporaries.size() < 2)
      return;
    int64_t total = place(temporaries);

    OpBuilder b(func.getContext());
    Location loc = func.getLoc();
    b.setInsertionPointToStart(block);
    auto sharedType = MemRefType::get({total}, b.getI8Type());
    Value shared = memref::AllocOp::create(b, loc, sharedType, b.getI64IntegerAttr(kAlignment));
    b.setInsertionPoint(block->getTerminator());
    memref::DeallocOp::create(b, loc, shared);
    for (Temporary &temporary : temporaries) {
      b.setInsertionPoint(temporary.alloc);
      Value offset = arith::ConstantIndexOp::create(b, temporary.alloc.getLoc(), temporary.offset);
      Value view = memref::ViewOp::create(b, temporary.alloc.getLoc(), temporary.alloc.getType(),
                                          shared, offset, ValueRange());
      temporary.dealloc->erase();
      temporary.alloc.getResult().replaceAllUsesWith(view);
      temporary.alloc->erase();
    }
  }
};

} // namespace
