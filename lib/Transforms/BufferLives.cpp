//===- BufferLives.cpp - Where a temporary buffer is last used ------------===//

#include "BufferLives.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

Operation *opal::ir::detail::lastUse(Value buffer, Block *block, Operation *dealloc) {
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
