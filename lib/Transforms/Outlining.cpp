//===- Outlining.cpp - Moving a nest into a function of its own -----------===//

#include "Outlining.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <functional>

using namespace mlir;

bool opal::ir::detail::isBufferView(Operation *op) {
  return isa<memref::SubViewOp, memref::CastOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::ReshapeOp, memref::ReinterpretCastOp,
             memref::TransposeOp, memref::DimOp>(op);
}

void opal::ir::detail::splitUsedValues(ArrayRef<Value> used, llvm::SetVector<Value> &passed,
                                       llvm::SetVector<Operation *> &cloned) {
  std::function<void(Value)> take = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && (def->hasTrait<OpTrait::ConstantLike>() || isBufferView(def))) {
      if (cloned.contains(def))
        return;
      for (Value operand : def->getOperands())
        take(operand);
      cloned.insert(def);
      return;
    }
    passed.insert(value);
  };
  for (Value value : used)
    take(value);
}
