//===- FreeAtLastUse.cpp - The opal-free-at-last-use pass -----------------===//
//
// Moves each memref.dealloc of a buffer the function allocates in the same
// block up to just after the buffer's last use there (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALFREEATLASTUSE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The op of `block` after which nothing reads or writes `buffer` (an
/// allocation in `block`) or a view of it, other than `dealloc`; null when
/// an alias may leave the ops this can see (a terminator yields it, a
/// region op forwards it into its regions).
Operation *lastUse(Value buffer, Block *block, Operation *dealloc) {
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  Operation *last = buffer.getDefiningOp();
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (Operation *user : aliases[i].getUsers()) {
      if (user == dealloc)
        continue;
      if (user->hasTrait<OpTrait::IsTerminator>())
        return nullptr;
      if (user->getNumRegions() != 0 && !isa<linalg::LinalgOp>(user) &&
          isa<RegionBranchOpInterface>(user))
        return nullptr;
      // Results that are memrefs (views, casts, metadata) may alias it.
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          aliases.insert(result);
      Operation *here = block->findAncestorOpInBlock(*user);
      if (!here)
        return nullptr;
      if (last->isBeforeInBlock(here))
        last = here;
    }
  }
  return last;
}

struct OpalFreeAtLastUse : public opal::ir::impl::OpalFreeAtLastUseBase<OpalFreeAtLastUse> {
  using OpalFreeAtLastUseBase::OpalFreeAtLastUseBase;

  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != dealloc->getBlock())
        continue;
      Operation *last = lastUse(alloc.getResult(), dealloc->getBlock(), dealloc);
      if (last && last->isBeforeInBlock(dealloc) && last->getNextNode() != dealloc)
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
