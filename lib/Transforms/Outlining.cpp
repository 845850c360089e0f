//===- Outlining.cpp - Moving a nest into a function of its own -----------===//

#include "Outlining.h"

#include "opal/Transforms/Passes.h"

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

func::FuncOp opal::ir::detail::createPart(OpBuilder &b, SymbolTable &symbols, func::FuncOp kernel,
                                          Location loc, TypeRange leading, ArrayRef<Value> passed,
                                          ArrayRef<Operation *> cloned, IRMapping &mapping) {
  SmallVector<Type> types(leading.begin(), leading.end());
  for (Value value : passed)
    types.push_back(value.getType());
  auto part = func::FuncOp::create(b, loc, (kernel.getSymName() + "_part").str(),
                                   b.getFunctionType(types, {}));
  part.setPrivate();
  symbols.insert(part);
  part->setAttr(opal::ir::kParallelPartAttrName, b.getUnitAttr());
  Block *entry = part.addEntryBlock();
  b.setInsertionPointToStart(entry);
  for (auto [value, argument] :
       llvm::zip(passed, entry->getArguments().drop_front(leading.size())))
    mapping.map(value, argument);
  for (Operation *op : cloned)
    b.clone(*op, mapping);
  return part;
}
