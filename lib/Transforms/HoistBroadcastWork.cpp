//===- HoistBroadcastWork.cpp - The opal-hoist-broadcast-work pass --------===//
//
// Elementwise fusion puts a producer's body into its consumer's, also when
// the consumer reads the producer broadcast: batch norm's mean per channel,
// sum / n over [C], fused into the variance's (x - mean)^2 over [N, C],
// divides once per element instead of once per channel; softmax over dim 0
// takes a reciprocal of the column's sum per element. Where the broadcast
// value varies along the innermost loop (a column's), LLVM cannot hoist it
// out of the loops either.
//
// Such work is computed again over the broadcast operand's own dims, in a
// generic of its own whose results the consumer reads the same way: the
// ops of the body that depend only on inputs read through one such map
// (and on values from outside), where one of them is costly (a division, a
// math function), the map keeping the innermost loop and dropping another.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALHOISTBROADCASTWORK
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// Whether `op` costs much more than an addition per element.
bool costly(Operation *op) {
  return isa<arith::DivFOp, arith::RemFOp>(op) ||
         op->getDialect()->getNamespace() == math::MathDialect::getDialectNamespace();
}

/// Whether `map` reads a broadcast operand worth hoisting from: a projected
/// permutation that drops some loop but keeps the innermost one.
bool broadcastAlongOuter(AffineMap map) {
  if (!map.isProjectedPermutation() || map.isPermutation() || map.getNumResults() == 0)
    return false;
  return map.isFunctionOfDim(map.getNumDims() - 1);
}

struct OpalHoistBroadcastWork
    : public opal::ir::impl::OpalHoistBroadcastWorkBase<OpalHoistBroadcastWork> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics) {
      // One map at a time; each hoist makes a new consumer (and leaves no
      // costly op of that map behind).
      for (unsigned maps = op.getNumDpsInputs(); maps > 0; --maps) {
        std::optional<Hoistable> work = hoistable(op);
        if (!work)
          break;
        op = hoist(op, work->map, work->ops);
      }
    }
  }

  /// The ops of `op`'s body that only `map`'s inputs and outside values
  /// feed, in order.
  static SmallVector<Operation *> invariantOps(linalg::GenericOp op, AffineMap map) {
    Block &body = op.getRegion().front();
    llvm::SmallDenseSet<Value> invariant;
    for (OpOperand *input : op.getDpsInputOperands())
      if (op.getMatchingIndexingMap(input) == map)
        invariant.insert(body.getArgument(input->getOperandNumber()));
    SmallVector<Operation *> ops;
    for (Operation &inner : body.without_terminator()) {
      if (inner.getNumRegions() > 0 || !isMemoryEffectFree(&inner) ||
          isa<linalg::IndexOp>(inner) || inner.getNumResults() != 1)
        continue;
      bool fed = llvm::all_of(inner.getOperands(), [&](Value operand) {
        return invariant.contains(operand) || !op.getRegion().isAncestor(operand.getParentRegion());
      });
      bool byMap = llvm::any_of(inner.getOperands(), [&](Value operand) {
        return invariant.contains(operand);
      });
      if (fed && byMap) {
        invariant.insert(inner.getResult(0));
        ops.push_back(&inner);
      }
    }
    return ops;
  }

  /// A map of a generic's inputs and its invariant ops, one of them costly.
  struct Hoistable {
    AffineMap map;
    SmallVector<Operation *> ops;
  };

  /// A map of `op`'s inputs worth hoisting work from, if any.
  static std::optional<Hoistable> hoistable(linalg::GenericOp op) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!broadcastAlongOuter(map) || !isa<RankedTensorType>(input->get().getType()))
        continue;
      SmallVector<Operation *> ops = invariantOps(op, map);
      if (llvm::any_of(ops, costly))
        return Hoistable{map, std::move(ops)};
    }
    return std::nullopt;
  }

  /// Computes `map`'s invariant ops `ops` (in order) over the map's dims
  /// in a generic of their own; `op` reads its results through `map`
  /// instead. Returns the new consumer.
  static linalg::GenericOp hoist(linalg::GenericOp op, AffineMap map,
                                 ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 8> hoisted(ops.begin(), ops.end());
    // The results the rest of the body (or the yield) uses.
    SmallVector<Value> roots;
    for (Operation *inner : ops)
      if (llvm::any_of(inner->getUsers(), [&](Operation *user) { return !hoisted.contains(user); }))
        roots.push_back(inner->getResult(0));
    SmallVector<OpOperand *> inputs;
    for (OpOperand *input : op.getDpsInputOperands())
      if (op.getMatchingIndexingMap(input) == map)
        inputs.push_back(input);

    OpBuilder b(op);
    Location loc = op.getLoc();
    // The hoisted generic: the map's dims, identity maps, one result per
    // root, shaped like the first input read through `map`.
    Value shapeSource = inputs.front()->get();
    auto shapeType = cast<RankedTensorType>(shapeSource.getType());
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < shapeType.getRank(); ++d)
      if (shapeType.isDynamicDim(d))
        dynamicSizes.push_back(tensor::DimOp::create(b, loc, shapeSource, d));
    SmallVector<Value> inits;
    SmallVector<Type> resultTypes;
    for (Value root : roots) {
      auto type = RankedTensorType::get(shapeType.getShape(), root.getType());
      inits.push_back(tensor::EmptyOp::create(b, loc, type, dynamicSizes));
      resultTypes.push_back(type);
    }
    unsigned rank = shapeType.getRank();
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps(inputs.size() + roots.size(), identity);
    SmallVector<Value> inputValues;
    for (OpOperand *input : inputs)
      inputValues.push_back(input->get());
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Block &body = op.getRegion().front();
    auto hoistedOp = linalg::GenericOp::create(
        b, loc, resultTypes, inputValues, inits, maps, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          IRMapping mapping;
          for (auto [i, input] : llvm::enumerate(inputs))
            mapping.map(body.getArgument(input->getOperandNumber()), args[i]);
          for (Operation *inner : ops)
            nb.clone(*inner, mapping);
          SmallVector<Value> yielded;
          for (Value root : roots)
            yielded.push_back(mapping.lookup(root));
          linalg::YieldOp::create(nb, nl, yielded);
        });

    // The consumer, with the hoisted results as inputs read through `map`.
    SmallVector<Value> newInputs(op.getDpsInputs());
    llvm::append_range(newInputs, hoistedOp.getResults());
    SmallVector<AffineMap> newMaps;
    for (OpOperand *input : op.getDpsInputOperands())
      newMaps.push_back(op.getMatchingIndexingMap(input));
    newMaps.append(roots.size(), map);
    for (OpOperand &init : op.getDpsInitsMutable())
      newMaps.push_back(op.getMatchingIndexingMap(&init));
    auto consumer = linalg::GenericOp::create(b, loc, op.getResultTypes(), newInputs,
                                              op.getDpsInits(), newMaps,
                                              op.getIteratorTypesArray());
    consumer->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Region &region = consumer.getRegion();
    region.takeBody(op.getRegion());
    Block &newBody = region.front();
    // New block arguments for the hoisted results, after the old inputs.
    unsigned position = op.getNumDpsInputs();
    for (auto [i, root] : llvm::enumerate(roots)) {
      BlockArgument argument = newBody.insertArgument(position + i, root.getType(), loc);
      root.replaceAllUsesWith(argument);
    }
    for (Operation *inner : llvm::reverse(ops))
      if (inner->use_empty())
        inner->erase();
    op.replaceAllUsesWith(consumer.getResults());
    op.erase();
    return consumer;
  }
};

} // namespace
