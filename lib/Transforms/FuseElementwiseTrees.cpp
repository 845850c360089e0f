//===- FuseElementwiseTrees.cpp - Elementwise producers fused in one step -===//
//
// linalg-fuse-elementwise-ops fuses one producer into one consumer at a
// time, each fusion copying the bodies of both into a new op: a chain of N
// elementwise ops (a decomposition of thousands of ops) made fused bodies of
// 1, 2, ..., N ops, and compile time grew with N^2 (2,000 ops: 6.9 s in that
// pass alone). This pass makes the same fusions the upstream pass makes by
// default (an all-parallel linalg.generic into the generic that is its
// result's only use), but a whole tree of them at once: every op's body is
// copied once, so the time is linear in the number of ops. What it leaves
// (producers with several results, a body that reads its own output or
// loop indices, maps that are not permutations) the upstream pass fuses
// after it.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SmallBitVector.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALFUSEELEMENTWISETREES
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// Whether `producer` can be fused into `consumer` through input `use`, by
/// the rules of linalg's default elementwise fusion: an all-parallel
/// generic of one tensor result whose only use is an input of `consumer`
/// in the same block, indexed there and produced through permutations.
/// Producers whose bodies read their output or the loop indices are left
/// to the upstream pass.
bool fusable(linalg::GenericOp producer, linalg::GenericOp consumer, OpOperand &use) {
  if (!producer || producer == consumer || producer->getNumResults() != 1 ||
      !producer->getResult(0).hasOneUse() || !producer.hasPureTensorSemantics() ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      producer->getBlock() != consumer->getBlock() || !consumer.isDpsInput(&use))
    return false;
  if (!producer.getMatchingIndexingMap(producer.getDpsInitOperand(0)).isPermutation())
    return false;
  AffineMap consumerMap = consumer.getMatchingIndexingMap(&use);
  if (consumerMap.getNumResults() != producer.getNumLoops())
    return false;
  Block &body = producer.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return false;
  bool usesIndices = false;
  body.walk([&](linalg::IndexOp) { usesIndices = true; });
  return !usesIndices;
}

/// Inputs of generics that another generic computes as one value defined
/// outside it (a constant broadcast: the mask of a comparison of
/// constants, addmm's `beta == 0`) are read as that value. CSE makes one
/// such generic serve every consumer, so it fuses into none of them and
/// each consumer read a buffer of the value (BERT's four layers: a pass
/// over a [1024, 256] mask per product); linalg-fuse-elementwise-ops then
/// drops the inputs no body reads.
void readBroadcastValues(Operation *root) {
  root->walk([&](linalg::GenericOp consumer) {
    if (!consumer.hasPureTensorSemantics())
      return;
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer.getNumDpsInputs() != 0 || producer->getNumResults() != 1 ||
          !producer.hasPureTensorSemantics())
        continue;
      Value value = producer.getRegion().front().getTerminator()->getOperand(0);
      Region *home = value.getParentRegion();
      if (producer->isAncestor(home->getParentOp()) ||
          !home->isAncestor(consumer->getParentRegion()))
        continue;
      consumer.getMatchingBlockArgument(input).replaceAllUsesWith(value);
    }
  });
}

/// One op of a tree: how its loops are found from the root's (`toLoops`:
/// root loops -> this op's loops) and, for each of its inputs, the member
/// that produces it (-1 for a leaf).
struct Member {
  linalg::GenericOp op;
  AffineMap toLoops;
  SmallVector<int> producers;
};

struct OpalFuseElementwiseTrees
    : public opal::ir::impl::OpalFuseElementwiseTreesBase<OpalFuseElementwiseTrees> {
  void runOnOperation() override {
    readBroadcastValues(getOperation());
    // Roots: generics whose result is not fused into a consumer.
    SmallVector<linalg::GenericOp> roots;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      if (op->getNumResults() == 1 && op->getResult(0).hasOneUse()) {
        OpOperand &use = *op->getResult(0).getUses().begin();
        auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
        if (consumer && consumer.hasPureTensorSemantics() && fusable(op, consumer, use))
          return; // fused into its consumer's tree
      }
      roots.push_back(op);
    });
    for (linalg::GenericOp root : roots)
      fuseTree(root);
  }

  /// The tree under `root`, producers after their consumers.
  SmallVector<Member> gather(linalg::GenericOp root) {
    SmallVector<Member> members;
    members.push_back({root, AffineMap::getMultiDimIdentityMap(root.getNumLoops(),
                                                               root.getContext()),
                       {}});
    for (size_t i = 0; i < members.size(); ++i) {
      linalg::GenericOp op = members[i].op;
      SmallVector<int> producers;
      for (OpOperand *input : op.getDpsInputOperands()) {
        auto producer = input->get().getDefiningOp<linalg::GenericOp>();
        if (!producer || !fusable(producer, op, *input)) {
          producers.push_back(-1);
          continue;
        }
        // root loops -> op loops -> the tensor's dims -> producer loops.
        AffineMap resultMap = producer.getMatchingIndexingMap(producer.getDpsInitOperand(0));
        AffineMap toLoops = inversePermutation(resultMap)
                                .compose(op.getMatchingIndexingMap(input))
                                .compose(members[i].toLoops);
        producers.push_back(static_cast<int>(members.size()));
        members.push_back({producer, toLoops, {}});
      }
      members[i].producers = std::move(producers);
    }
    return members;
  }

  void fuseTree(linalg::GenericOp root) {
    SmallVector<Member> members = gather(root);
    if (members.size() == 1)
      return;
    // The fused op's inputs: every leaf, indexed from the root's loops
    // (one operand per distinct value and map).
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    llvm::DenseMap<std::pair<Value, AffineMap>, unsigned> leafIndex;
    SmallVector<SmallVector<int>> leafOf(members.size());
    for (auto [index, member] : llvm::enumerate(members)) {
      for (auto [i, input] : llvm::enumerate(member.op.getDpsInputOperands())) {
        if (member.producers[i] >= 0) {
          leafOf[index].push_back(-1);
          continue;
        }
        AffineMap map = member.op.getMatchingIndexingMap(input).compose(member.toLoops);
        auto [it, inserted] = leafIndex.try_emplace({input->get(), map}, inputs.size());
        if (inserted) {
          inputs.push_back(input->get());
          maps.push_back(map);
        }
        leafOf[index].push_back(static_cast<int>(it->second));
      }
    }
    for (OpOperand &init : root.getDpsInitsMutable())
      maps.push_back(root.getMatchingIndexingMap(&init));
    // Every loop must still be sized by some operand.
    llvm::SmallBitVector covered(root.getNumLoops());
    for (AffineMap map : maps)
      for (AffineExpr result : map.getResults())
        if (auto dim = dyn_cast<AffineDimExpr>(result))
          covered.set(dim.getPosition());
    if (!covered.all())
      return;

    OpBuilder b(root);
    auto fused = linalg::GenericOp::create(
        b, root.getLoc(), root->getResultTypes(), inputs, root.getDpsInits(), maps,
        root.getIteratorTypesArray());
    fused->setDiscardableAttrs(root->getDiscardableAttrDictionary());
    Block *block = b.createBlock(&fused.getRegion());
    for (Value input : inputs)
      block->addArgument(getElementTypeOrSelf(input.getType()), root.getLoc());
    for (Value init : root.getDpsInits())
      block->addArgument(getElementTypeOrSelf(init.getType()), root.getLoc());
    b.setInsertionPointToStart(block);
    // Producers first (they come after their consumers in `members`).
    SmallVector<Value> yielded(members.size());
    for (int index = static_cast<int>(members.size()) - 1; index >= 0; --index) {
      Member &member = members[index];
      Block &body = member.op.getRegion().front();
      IRMapping mapping;
      unsigned inputCount = member.op.getNumDpsInputs();
      for (unsigned i = 0; i < inputCount; ++i)
        mapping.map(body.getArgument(i), member.producers[i] >= 0
                                             ? yielded[member.producers[i]]
                                             : block->getArgument(leafOf[index][i]));
      if (index == 0)
        for (unsigned i = inputCount; i < body.getNumArguments(); ++i)
          mapping.map(body.getArgument(i), block->getArgument(inputs.size() + i - inputCount));
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      if (index > 0) {
        yielded[index] = mapping.lookupOrDefault(yield.getValues()[0]);
        continue;
      }
      SmallVector<Value> values;
      for (Value value : yield.getValues())
        values.push_back(mapping.lookupOrDefault(value));
      linalg::YieldOp::create(b, yield.getLoc(), values);
    }
    root->replaceAllUsesWith(fused->getResults());
    // Consumers before their producers: each is erased once its use is.
    for (Member &member : members)
      member.op->erase();
  }
};

} // namespace
