//===- FreeAtLastUse.cpp - The opal-free-at-last-use pass -----------------===//
//
// Moves each memref.dealloc of a buffer the function allocates in the same
// block up to just after the buffer's last use there (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "BufferLives.h"

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALFREEATLASTUSE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalFreeAtLastUse : public opal::ir::impl::OpalFreeAtLastUseBase<OpalFreeAtLastUse> {
  using OpalFreeAtLastUseBase::OpalFreeAtLastUseBase;

  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != dealloc->getBlock())
        continue;
      Operation *last = opal::ir::detail::lastUse(alloc.getResult(), dealloc->getBlock(), dealloc);
      if (last && last->isBeforeInBlock(dealloc) && last->getNextNode() != dealloc)
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
