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
// Such work is computed again over the broadcast operands' own dims, in a
// generic of its own whose results the consumer reads the same way: the
// ops of the body that depend only on inputs read through maps of the same
// loops (and on values from outside), the loops keeping the innermost one
// and dropping another (`(d0, d1) -> (d1)` and `(d0, d1) -> (0, d1)` alike),
// where one of them is costly (a division, a math function) or they leave
// fewer values to read per element than they read: batch norm's
// invstd * weight and bias - mean * invstd * weight, four reads and three
// operations per element, become two per-channel values.
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

/// The loops a broadcast operand read through `map` varies along, if it is
/// one worth hoisting from: a projected permutation, zeros allowed, that
/// drops some loop but keeps the innermost one. The map without its zeros
/// (`(d0, d1) -> (0, d1)` gives `(d0, d1) -> (d1)`); maps of the same loops
/// read values that one loop nest over those loops computes.
std::optional<AffineMap> broadcastLoops(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) || map.getNumResults() == 0)
    return std::nullopt;
  SmallVector<AffineExpr> loops;
  for (AffineExpr result : map.getResults())
    if (isa<AffineDimExpr>(result))
      loops.push_back(result);
  AffineMap key = AffineMap::get(map.getNumDims(), 0, loops, map.getContext());
  if (key.getNumResults() == map.getNumDims() || !key.isFunctionOfDim(map.getNumDims() - 1))
    return std::nullopt;
  return key;
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
        op = hoist(op, *work);
      }
    }
  }

  /// The inputs of `op` read through maps of the loops `loops`.
  static SmallVector<OpOperand *> inputsAlong(linalg::GenericOp op, AffineMap loops) {
    SmallVector<OpOperand *> inputs;
    for (OpOperand *input : op.getDpsInputOperands())
      if (broadcastLoops(op.getMatchingIndexingMap(input)) == loops &&
          isa<RankedTensorType>(input->get().getType()))
        inputs.push_back(input);
    return inputs;
  }

  /// The ops of `op`'s body that only `inputs` and outside values feed, in
  /// order.
  static SmallVector<Operation *> invariantOps(linalg::GenericOp op,
                                               ArrayRef<OpOperand *> inputs) {
    Block &body = op.getRegion().front();
    llvm::SmallDenseSet<Value> invariant;
    for (OpOperand *input : inputs)
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

  /// The results of `ops` that the rest of `op`'s body (or its yield) uses.
  static SmallVector<Value> rootsOf(ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 8> hoisted(ops.begin(), ops.end());
    SmallVector<Value> roots;
    for (Operation *inner : ops)
      if (llvm::any_of(inner->getUsers(), [&](Operation *user) { return !hoisted.contains(user); }))
        roots.push_back(inner->getResult(0));
    return roots;
  }

  /// Loops of a generic's broadcast inputs, the inputs read along them,
  /// the ops to hoist and those of their results the rest of the body uses.
  struct Hoistable {
    AffineMap loops;
    SmallVector<OpOperand *> inputs;
    SmallVector<Operation *> ops;
    SmallVector<Value> roots;
  };

  /// Loops of `op`'s broadcast inputs worth hoisting work from, if any: one
  /// of their invariant ops is costly, or the ops leave fewer values for
  /// each element to read than the inputs they read.
  static std::optional<Hoistable> hoistable(linalg::GenericOp op) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::optional<AffineMap> loops = broadcastLoops(op.getMatchingIndexingMap(input));
      if (!loops)
        continue;
      SmallVector<OpOperand *> inputs = inputsAlong(op, *loops);
      SmallVector<Operation *> ops = invariantOps(op, inputs);
      if (ops.empty())
        continue;
      SmallVector<Value> roots = rootsOf(ops);
      if (llvm::any_of(ops, costly) || roots.size() < inputs.size())
        return Hoistable{*loops, std::move(inputs), std::move(ops), std::move(roots)};
    }
    return std::nullopt;
  }

  /// Computes `work`'s ops (in order) over its loops, in a generic of
  /// their own; `op` reads their roots through the loops instead. Returns
  /// the new consumer.
  static linalg::GenericOp hoist(linalg::GenericOp op, const Hoistable &work) {
    AffineMap loops = work.loops;
    ArrayRef<OpOperand *> inputs = work.inputs;
    ArrayRef<Operation *> ops = work.ops;
    ArrayRef<Value> roots = work.roots;

    OpBuilder b(op);
    Location loc = op.getLoc();
    // The hoisted generic: one loop per loop of `loops`, each input read
    // through its map with those loops renumbered (zeros kept), one result
    // per root over the loops. A loop's size: the first input's dim along it.
    unsigned rank = loops.getNumResults();
    SmallVector<unsigned> loopAt(op.getNumLoops(), 0);
    for (auto [k, result] : llvm::enumerate(loops.getResults()))
      loopAt[cast<AffineDimExpr>(result).getPosition()] = k;
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamicSizes;
    for (AffineExpr result : loops.getResults()) {
      for (OpOperand *input : inputs) {
        AffineMap map = op.getMatchingIndexingMap(input);
        std::optional<unsigned> at = map.getResultPosition(result);
        if (!at)
          continue;
        auto type = cast<RankedTensorType>(input->get().getType());
        shape.push_back(type.getDimSize(*at));
        if (type.isDynamicDim(*at))
          dynamicSizes.push_back(tensor::DimOp::create(b, loc, input->get(), *at));
        break;
      }
    }
    SmallVector<AffineMap> maps;
    for (OpOperand *input : inputs) {
      SmallVector<AffineExpr> reads;
      for (AffineExpr result : op.getMatchingIndexingMap(input).getResults())
        reads.push_back(isa<AffineDimExpr>(result)
                            ? b.getAffineDimExpr(loopAt[cast<AffineDimExpr>(result).getPosition()])
                            : result);
      maps.push_back(AffineMap::get(rank, 0, reads, b.getContext()));
    }
    SmallVector<Value> inits;
    SmallVector<Type> resultTypes;
    for (Value root : roots) {
      auto type = RankedTensorType::get(shape, root.getType());
      inits.push_back(tensor::EmptyOp::create(b, loc, type, dynamicSizes));
      resultTypes.push_back(type);
    }
    maps.append(roots.size(), b.getMultiDimIdentityMap(rank));
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

    // The consumer, with the hoisted results as inputs read through `loops`.
    SmallVector<Value> newInputs(op.getDpsInputs());
    llvm::append_range(newInputs, hoistedOp.getResults());
    SmallVector<AffineMap> newMaps;
    for (OpOperand *input : op.getDpsInputOperands())
      newMaps.push_back(op.getMatchingIndexingMap(input));
    newMaps.append(roots.size(), loops);
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
      Value(root).replaceAllUsesWith(argument);
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
