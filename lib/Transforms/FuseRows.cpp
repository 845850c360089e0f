//===- FuseRows.cpp - The opal-fuse-rows pass -----------------------------===//
//
// softmax over the last dim, after bufferization, is six structured ops
// that each stream the whole tensor: fill and reduce (the row maxima),
// exp(x - max) into a temporary, fill and reduce (the row sums), divide.
// Run row by row instead, a row is read from memory once, the temporary
// shrinks to one row that stays in the cache, and the tensor is written
// once.
//
// A run qualifies when its ops (structured ops on buffers, named ops
// generalized) share k leading loops: parallel, indexing dims 0..k-1 of
// every buffer operand as its own dims 0..k-1 and nowhere else, or, for an
// input no op of the run writes, none of them (a layer norm's weight and
// bias, read whole by every row) (an op may
// have no other loops: a fill of the row maxima), a reduction among them
// (over a loop of its own) and an op that walks the row's elements (so rows
// are read more than once), and the sizes of those loops
// provably equal across the run (the same buffer dims, or allocations sized
// by them: one op's buffers agree by linalg's semantics). Between the ops
// only pure ops and allocations may stand; they stay before the loop. Every
// buffer must be a kernel argument or a fresh allocation, never a view of
// another, so that row i of one is never another row of a second. A body may
// read the row's index (a gather's row) and buffers from outside the op (a
// gather's source) that no op of the run writes.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/EquivalenceClasses.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALFUSEROWS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// What a buffer's dim is known to equal: a static size, or (root value,
/// dim) where the root is a function argument or an allocation operand.
using SizeKey = std::pair<void *, int64_t>;

SizeKey sizeKey(Value buffer, int64_t dim) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(dim))
    return {nullptr, type.getDimSize(dim)};
  if (auto alloc = buffer.getDefiningOp<memref::AllocOp>()) {
    Value size = alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)];
    if (auto dimOp = size.getDefiningOp<memref::DimOp>())
      if (std::optional<int64_t> index = dimOp.getConstantIndex())
        return sizeKey(dimOp.getSource(), *index);
    return {size.getAsOpaquePointer(), -1};
  }
  return {buffer.getAsOpaquePointer(), dim};
}

/// A kernel's argument (inputs are only read, outputs are fresh: no two
/// alias one written) or a fresh allocation.
bool isWholeBuffer(Value buffer) {
  if (auto argument = dyn_cast<BlockArgument>(buffer))
    return argument.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return static_cast<bool>(buffer.getDefiningOp<memref::AllocOp>());
}

/// A reshape (memref.reshape, collapse_shape, expand_shape) of a kernel
/// argument that nothing in the kernel writes (an input: group_norm's
/// statistics over [N, groups, C / groups x HxW]): its rows are contiguous
/// pieces of a buffer only ever read, so reading them row by row in one
/// loop reads what the ops read one after the other.
bool isReshapedInput(Value buffer) {
  auto isReshape = [](Operation *op) {
    return isa_and_nonnull<memref::ReshapeOp, memref::CollapseShapeOp, memref::ExpandShapeOp>(op);
  };
  if (!isReshape(buffer.getDefiningOp()))
    return false;
  Value source = buffer;
  while (isReshape(source.getDefiningOp()))
    source = source.getDefiningOp()->getOperand(0);
  auto argument = dyn_cast<BlockArgument>(source);
  if (!argument || !isWholeBuffer(argument))
    return false;
  // Nothing writes it, through any view.
  SmallVector<Value> views{argument};
  while (!views.empty()) {
    Value next = views.pop_back_val();
    for (OpOperand &use : next.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::ReshapeOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
              memref::SubViewOp, memref::CastOp, memref::ReinterpretCastOp>(user)) {
        if (use.getOperandNumber() == 0)
          views.push_back(user->getResult(0));
        continue;
      }
      if (isa<memref::DimOp, memref::LoadOp, memref::DeallocOp>(user))
        continue;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
        if (linalgOp.isDpsInput(&use))
          continue;
        return false;
      }
      if (auto copy = dyn_cast<memref::CopyOp>(user)) {
        if (copy.getSource() == next)
          continue;
        return false;
      }
      return false; // (anything else may write)
    }
  }
  return true;
}

/// Whether `operand` is an input that no row loop indexes (of the first
/// `rows` loops, none appears in its map): a layer norm's weight, read
/// whole by every row.
bool broadcastAcrossRows(linalg::LinalgOp op, OpOperand &operand, int64_t rows) {
  if (!op.isDpsInput(&operand) || !isa<MemRefType>(operand.get().getType()))
    return false;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  for (AffineExpr expr : map.getResults())
    for (int64_t loop = 0; loop < rows; ++loop)
      if (expr.isFunctionOfDim(loop))
        return false;
  return true;
}

/// The number of leading loops of `op` that qualify as row loops (see the
/// file comment).
int64_t rowLoops(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return 0;
  int64_t leading = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t loop = 0; loop < leading; ++loop)
    if (iterators[loop] != utils::IteratorType::parallel)
      leading = loop;
  // Only whole buffers: a view (a transpose, a slice) of another buffer
  // could make one op's row depend on other rows of another's. (But for a
  // reshaped input, which no op writes.)
  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()) && !isWholeBuffer(operand.get()) &&
        !(op.isDpsInput(&operand) && isReshapedInput(operand.get())))
      return 0;
  // Every buffer indexed by loops 0..rows-1 as its dims 0..rows-1 and
  // nowhere else, or (an input) by none of them; the most such rows.
  auto indexedAsRows = [&](OpOperand &operand, int64_t rows) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.getNumResults() < static_cast<unsigned>(rows))
      return false;
    for (int64_t loop = 0; loop < rows; ++loop)
      if (map.getResult(loop) != getAffineDimExpr(loop, op.getContext()))
        return false;
    for (AffineExpr expr : map.getResults().drop_front(rows))
      for (int64_t loop = 0; loop < rows; ++loop)
        if (expr.isFunctionOfDim(loop))
          return false;
    return true;
  };
  for (int64_t rows = leading; rows > 0; --rows) {
    bool fits = llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
      return !isa<MemRefType>(operand.get().getType()) ||
             broadcastAcrossRows(op, operand, rows) || indexedAsRows(operand, rows);
    });
    if (fits)
      return rows;
  }
  return 0;
}

bool hasReduction(linalg::LinalgOp op) {
  return llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType type) {
    return type == utils::IteratorType::reduction;
  });
}

/// Ops that may stand between the ops of a run: they stay before the loop.
bool mayStayBefore(Operation &op) {
  return isMemoryEffectFree(&op) || isa<memref::AllocOp>(op);
}

struct Run {
  SmallVector<linalg::LinalgOp> ops;
  int64_t rows = 0; ///< the leading loops the ops share
};

/// Whether a run is worth it: a reduction over the row and an op that
/// walks the row's elements in parallel (x - max, say), so rows are read
/// more than once. (A lone reduction with the fill of its output is not.)
bool rereadsRows(const Run &run) {
  bool reduces = false, walks = false;
  for (linalg::LinalgOp op : run.ops) {
    reduces |= hasReduction(op);
    walks |= !hasReduction(op) && op.getNumLoops() > static_cast<unsigned>(run.rows);
  }
  return reduces && walks;
}

/// Whether every op's row loops have the same sizes (see the file comment).
bool rowSizesAgree(const Run &run) {
  for (int64_t loop = 0; loop < run.rows; ++loop) {
    llvm::EquivalenceClasses<SizeKey> classes;
    std::optional<SizeKey> first;
    for (linalg::LinalgOp op : run.ops) {
      std::optional<SizeKey> opKey;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()) ||
            broadcastAcrossRows(op, operand, run.rows))
          continue;
        SizeKey key = sizeKey(operand.get(), loop);
        classes.insert(key);
        if (opKey)
          classes.unionSets(*opKey, key); // one op's buffers agree
        opKey = key;
        if (!first)
          first = key;
      }
      if (!opKey)
        return false;
    }
    for (linalg::LinalgOp op : run.ops)
      for (OpOperand &operand : op->getOpOperands())
        if (isa<MemRefType>(operand.get().getType()) &&
            !broadcastAcrossRows(op, operand, run.rows) &&
            !classes.isEquivalent(*first, sizeKey(operand.get(), loop)))
          return false;
  }
  return true;
}

/// The buffers the run's ops read whole by every row.
llvm::SmallPtrSet<Value, 4> broadcastBuffers(const Run &run) {
  llvm::SmallPtrSet<Value, 4> buffers;
  for (linalg::LinalgOp op : run.ops)
    for (OpOperand &operand : op->getOpOperands())
      if (broadcastAcrossRows(op, operand, run.rows))
        buffers.insert(operand.get());
  return buffers;
}

/// Whether no op of the run writes (or reads by rows) a buffer another
/// reads whole: every row must see all of it before the run starts.
bool broadcastsAreInputs(const Run &run) {
  llvm::SmallPtrSet<Value, 4> whole = broadcastBuffers(run);
  for (linalg::LinalgOp op : run.ops)
    for (OpOperand &operand : op->getOpOperands())
      if (whole.contains(operand.get()) && !broadcastAcrossRows(op, operand, run.rows))
        return false;
  return true;
}

/// The buffers the bodies of `op` read from outside it (a gather's source).
SmallVector<Value> capturedBuffers(linalg::LinalgOp op) {
  SmallVector<Value> buffers;
  op->walk([&](Operation *inner) {
    if (inner == op.getOperation())
      return;
    for (Value operand : inner->getOperands())
      if (isa<MemRefType>(operand.getType()) &&
          !op->isAncestor(operand.getParentRegion()->getParentOp()))
        buffers.push_back(operand);
  });
  return buffers;
}

/// Whether no op of the run writes a buffer another's body reads from
/// outside it: such a read may be of any row, which the loop over rows
/// may not have computed yet.
bool capturesAreInputs(const Run &run) {
  llvm::SmallPtrSet<Value, 4> written;
  for (linalg::LinalgOp op : run.ops)
    for (Value init : op.getDpsInits())
      written.insert(init);
  return llvm::none_of(run.ops, [&](linalg::LinalgOp op) {
    return llvm::any_of(capturedBuffers(op),
                        [&](Value buffer) { return written.contains(buffer); });
  });
}

/// Maximal runs in `block` worth running row by row.
SmallVector<Run> findRuns(Block &block) {
  SmallVector<Run> runs;
  Run current;
  // The most row loops (of those all the ops share) that make a run worth
  // it: fewer rows also qualify, and may leave an op loops of its own to
  // walk.
  auto close = [&] {
    for (int64_t rows = current.rows; current.ops.size() >= 2 && rows > 0; --rows) {
      current.rows = rows;
      if (rereadsRows(current) && rowSizesAgree(current) && broadcastsAreInputs(current) &&
          capturesAreInputs(current)) {
        runs.push_back(current);
        break;
      }
    }
    current = Run();
  };
  for (Operation &op : block) {
    auto structured = dyn_cast<linalg::LinalgOp>(op);
    int64_t rows = structured ? rowLoops(structured) : 0;
    if (rows > 0) {
      // The run keeps the row loops all its ops share.
      current.rows = current.ops.empty() ? rows : std::min(current.rows, rows);
      current.ops.push_back(structured);
      continue;
    }
    if (!current.ops.empty() && mayStayBefore(op))
      continue;
    close();
  }
  close();
  return runs;
}

/// `buffer` at the row `ivs` (its first ivs.size() dims dropped).
Value rowOf(OpBuilder &b, Location loc, Value buffer, ValueRange ivs) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank(), rows = static_cast<int64_t>(ivs.size());
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (dim < rows) {
      offsets.push_back(ivs[dim]);
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(memref::getMixedSize(b, loc, buffer, dim));
  }
  auto rowType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(rows), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(rowType), buffer, offsets, sizes,
                                   strides);
}

/// Allocations that only the run's ops and a dealloc use: one row is
/// enough. Returns them with their one-row replacements (allocated before
/// the loop).
DenseMap<Value, Value> shrinkTemporaries(OpBuilder &b, const Run &run) {
  DenseMap<Value, Value> shrunk;
  llvm::SmallPtrSet<Operation *, 8> inRun;
  for (linalg::LinalgOp op : run.ops)
    inRun.insert(op);
  llvm::SmallPtrSet<Value, 4> whole = broadcastBuffers(run);
  for (linalg::LinalgOp op : run.ops)
    for (Value operand : op->getOperands()) {
      auto alloc = operand.getDefiningOp<memref::AllocOp>();
      if (!alloc || shrunk.count(operand) || whole.contains(operand) ||
          !alloc.getType().getLayout().isIdentity())
        continue;
      bool onlyRun = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
        return inRun.contains(user) || isa<memref::DeallocOp>(user);
      });
      if (!onlyRun)
        continue;
      MemRefType type = alloc.getType();
      auto rowType = MemRefType::get(type.getShape().drop_front(run.rows),
                                     type.getElementType(), MemRefLayoutAttrInterface(),
                                     type.getMemorySpace());
      SmallVector<Value> dynamicSizes;
      for (int64_t dim = run.rows; dim < type.getRank(); ++dim)
        if (type.isDynamicDim(dim))
          dynamicSizes.push_back(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(alloc);
      auto row = memref::AllocOp::create(b, alloc.getLoc(), rowType, dynamicSizes,
                                         alloc.getAlignmentAttr());
      shrunk[operand] = row;
    }
  return shrunk;
}

/// In one row's body, merges each elementwise op whose result the next
/// reduction reads element by element (softmax's exp(x - max), then its
/// sum) into that reduction: one op whose loop computes the element, stores
/// it and combines it, instead of a second loop that reads the row back.
/// Between the two may stand fills of buffers the elementwise op does not
/// touch (the sum's start); they stay before the merged op.
void mergeElementwiseIntoReductions(RewriterBase &rewriter, SmallVector<linalg::GenericOp> &ops) {
  using opal::ir::detail::rootOf;
  auto touches = [](linalg::GenericOp op, Value buffer) {
    return llvm::any_of(op->getOperands(), [&](Value operand) {
      return isa<MemRefType>(operand.getType()) && rootOf(operand) == rootOf(buffer);
    });
  };
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    linalg::GenericOp producer = ops[i];
    if (producer.getNumLoops() == 0 || producer.getNumReductionLoops() != 0 ||
        producer.getNumDpsInits() != 1)
      continue;
    OpOperand *init = producer.getDpsInitOperand(0);
    if (!producer.getMatchingIndexingMap(init).isIdentity() ||
        producer.payloadUsesValueFromOperand(init))
      continue;
    Value element = init->get();
    size_t j = i + 1;
    while (j < ops.size() && ops[j].getNumLoops() == 0 && ops[j].getNumDpsInits() == 1 &&
           !touches(producer, ops[j].getDpsInitOperand(0)->get()))
      ++j;
    if (j == ops.size())
      break;
    linalg::GenericOp consumer = ops[j];
    if (consumer.getNumLoops() != producer.getNumLoops() ||
        consumer.getNumReductionLoops() == 0)
      continue;
    // The consumer reads the element once, at its own position, and writes
    // nothing the producer touches.
    int64_t reads = 0;
    bool fits = true;
    for (OpOperand *input : consumer.getDpsInputOperands())
      if (input->get() == element) {
        ++reads;
        fits &= consumer.getMatchingIndexingMap(input).isIdentity();
      } else if (isa<MemRefType>(input->get().getType()) &&
                 rootOf(input->get()) == rootOf(element)) {
        fits = false; // (another view of the element's buffer)
      }
    for (Value output : consumer.getDpsInits())
      fits &= !touches(producer, output);
    if (!fits || reads != 1)
      continue;

    SmallVector<Value> inputs(producer.getDpsInputs());
    SmallVector<AffineMap> maps;
    for (OpOperand *input : producer.getDpsInputOperands())
      maps.push_back(producer.getMatchingIndexingMap(input));
    for (OpOperand *input : consumer.getDpsInputOperands())
      if (input->get() != element) {
        inputs.push_back(input->get());
        maps.push_back(consumer.getMatchingIndexingMap(input));
      }
    // The element is stored unless nothing else reads it (a temporary only
    // the two use: log_softmax's exp, which only its sum reads).
    bool kept = !element.getDefiningOp<memref::AllocOp>() ||
                llvm::any_of(element.getUsers(), [&](Operation *user) {
                  return user != producer && user != consumer && !isa<memref::DeallocOp>(user);
                });
    // (Every loop must index some operand, or its range is unknown: an
    // element written over a unit dim its input does not read, then
    // summed, is stored after all.)
    auto coversLoops = [&](ArrayRef<AffineMap> all) {
      for (unsigned loop = 0; loop < consumer.getNumLoops(); ++loop)
        if (llvm::none_of(all, [&](AffineMap map) { return map.isFunctionOfDim(loop); }))
          return false;
      return true;
    };
    {
      SmallVector<AffineMap> without(maps);
      for (OpOperand &output : consumer.getDpsInitsMutable())
        without.push_back(consumer.getMatchingIndexingMap(&output));
      if (!coversLoops(without))
        kept = true;
    }
    SmallVector<Value> outputs;
    if (kept) {
      outputs.push_back(element);
      maps.push_back(producer.getMatchingIndexingMap(init));
    }
    for (OpOperand &output : consumer.getDpsInitsMutable()) {
      outputs.push_back(output.get());
      maps.push_back(consumer.getMatchingIndexingMap(&output));
    }
    size_t producerInputs = producer.getNumDpsInputs();
    size_t mergedInputs = inputs.size();
    rewriter.setInsertionPoint(consumer);
    auto merged = linalg::GenericOp::create(
        rewriter, consumer.getLoc(), TypeRange(), inputs, outputs, maps,
        consumer.getIteratorTypesArray(), [&](OpBuilder &b, Location loc, ValueRange args) {
          IRMapping mapping;
          Block &first = producer.getRegion().front();
          for (size_t a = 0; a < producerInputs; ++a)
            mapping.map(first.getArgument(a), args[a]);
          if (kept)
            mapping.map(first.getArgument(producerInputs), args[mergedInputs]);
          for (Operation &op : first.without_terminator())
            b.clone(op, mapping);
          Value value = mapping.lookupOrDefault(first.getTerminator()->getOperand(0));
          size_t next = producerInputs;
          for (OpOperand *input : consumer.getDpsInputOperands())
            mapping.map(consumer.getMatchingBlockArgument(input),
                        input->get() == element ? value : args[next++]);
          size_t out = mergedInputs + (kept ? 1 : 0);
          for (OpOperand &output : consumer.getDpsInitsMutable())
            mapping.map(consumer.getMatchingBlockArgument(&output), args[out++]);
          Block &second = consumer.getRegion().front();
          for (Operation &op : second.without_terminator())
            b.clone(op, mapping);
          SmallVector<Value> yields;
          if (kept)
            yields.push_back(value);
          for (Value yielded : second.getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(yielded));
          linalg::YieldOp::create(b, loc, yields);
        });
    rewriter.eraseOp(consumer);
    rewriter.eraseOp(producer);
    ops[j] = merged;
    ops.erase(ops.begin() + i);
    // The merged op may take the op before as well (log_softmax's x - max,
    // then exp and its sum): look again from the start.
    i = static_cast<size_t>(-1);
  }
}

/// The run as one loop over its rows, at the place of its last op.
void fuse(RewriterBase &rewriter, Run &run, bool shrink, bool merge) {
  // Every buffer a temporary only the run uses: it computes nothing that
  // is kept. (An allocation read after the run is kept: group_norm's
  // normalized rows, which its weight and bias then scale in the input's
  // layout.)
  llvm::SmallPtrSet<Operation *, 8> inRun;
  for (linalg::LinalgOp op : run.ops)
    inRun.insert(op);
  bool writesKept = llvm::any_of(run.ops, [&](linalg::LinalgOp op) {
    return llvm::any_of(op.getDpsInits(), [&](Value init) {
      return !init.getDefiningOp<memref::AllocOp>() ||
             llvm::any_of(init.getUsers(), [&](Operation *user) {
               return !inRun.contains(user) && !isa<memref::DeallocOp>(user);
             });
    });
  });
  if (!writesKept)
    return;
  // Named ops become generics, whose maps and loops can be sliced.
  for (linalg::LinalgOp &op : run.ops)
    if (!isa<linalg::GenericOp>(op)) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic))
        return; // (the ops generalized so far mean the same)
      op = *generic;
    }
  Location loc = run.ops.back().getLoc();
  DenseMap<Value, Value> shrunk;
  if (shrink)
    shrunk = shrinkTemporaries(rewriter, run);

  rewriter.setInsertionPoint(run.ops.back());
  // The row counts, from a buffer that outlives the run (the shrunk
  // temporaries go; a kept one exists, see writesKept).
  Value kept;
  for (linalg::LinalgOp op : run.ops)
    for (OpOperand &operand : op->getOpOperands())
      if (!kept && isa<MemRefType>(operand.get().getType()) && !shrunk.count(operand.get()) &&
          !broadcastAcrossRows(op, operand, run.rows))
        kept = operand.get();
  SmallVector<Value> bounds;
  for (int64_t dim = 0; dim < run.rows; ++dim)
    bounds.push_back(memref::DimOp::create(rewriter, loc, kept, dim));
  // One loop over all rows; the row's index in each dim from its number.
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value total = bounds.front();
  for (Value bound : ArrayRef(bounds).drop_front())
    total = arith::MulIOp::create(rewriter, loc, total, bound);
  auto loop = scf::ForOp::create(rewriter, loc, zero, total, one);
  loop->setAttr(opal::ir::kRowsAttrName, rewriter.getUnitAttr());
  // Rows are independent; the shrunk temporaries become each thread's own.
  loop->setAttr(opal::ir::kParallelAttrName, rewriter.getUnitAttr());
  rewriter.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs =
      opal::ir::detail::delinearize(rewriter, loc, loop.getInductionVar(), bounds);
  SmallVector<linalg::GenericOp> rowOps;
  for (linalg::LinalgOp op : run.ops) {
    auto generic = cast<linalg::GenericOp>(op.getOperation());
    auto operandOf = [&](OpOperand &operand) -> Value {
      Value value = operand.get();
      if (!isa<MemRefType>(value.getType()) || broadcastAcrossRows(op, operand, run.rows))
        return value;
      if (auto row = shrunk.lookup(value))
        return row;
      return rowOf(rewriter, loc, value, ivs);
    };
    SmallVector<Value> inputs, outputs;
    for (OpOperand *input : generic.getDpsInputOperands())
      inputs.push_back(operandOf(*input));
    for (OpOperand &output : generic.getDpsInitsMutable())
      outputs.push_back(operandOf(output));
    // The maps lose their row results and dims: d(k + i) becomes d(i); a
    // buffer read whole by every row keeps all its results.
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      SmallVector<AffineExpr> renamed;
      for (unsigned dim = 0; dim < map.getNumDims(); ++dim)
        renamed.push_back(dim < run.rows ? rewriter.getAffineConstantExpr(0)
                                         : rewriter.getAffineDimExpr(dim - run.rows));
      int64_t dropped = broadcastAcrossRows(op, operand, run.rows)
                            ? 0
                            : std::min<int64_t>(run.rows, map.getNumResults());
      SmallVector<AffineExpr> results;
      for (AffineExpr expr : map.getResults().drop_front(dropped))
        results.push_back(expr.replaceDims(renamed));
      maps.push_back(AffineMap::get(map.getNumDims() - run.rows, 0, results,
                                    rewriter.getContext()));
    }
    SmallVector<utils::IteratorType> iterators =
        llvm::to_vector(ArrayRef(generic.getIteratorTypesArray()).drop_front(run.rows));
    auto row = linalg::GenericOp::create(rewriter, loc, TypeRange(), inputs, outputs, maps,
                                         iterators);
    rewriter.inlineRegionBefore(generic.getRegion(), row.getRegion(), row.getRegion().begin());
    // A row loop's index is the row's; the others are renumbered.
    row->walk([&](linalg::IndexOp index) {
      rewriter.setInsertionPoint(index);
      int64_t dim = static_cast<int64_t>(index.getDim());
      if (dim < run.rows)
        rewriter.replaceOp(index, ivs[dim]);
      else
        rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, dim - run.rows);
    });
    rewriter.setInsertionPointAfter(row);
    rowOps.push_back(row);
  }
  for (linalg::LinalgOp op : run.ops)
    rewriter.eraseOp(op);
  if (merge)
    mergeElementwiseIntoReductions(rewriter, rowOps);
  // The full-size temporaries are no longer used but by their deallocs.
  for (auto [full, row] : shrunk) {
    for (Operation *user : llvm::make_early_inc_range(full.getUsers())) {
      rewriter.setInsertionPoint(user);
      memref::DeallocOp::create(rewriter, user->getLoc(), row);
      rewriter.eraseOp(user);
    }
    rewriter.eraseOp(full.getDefiningOp());
  }
}

struct OpalFuseRows : public opal::ir::impl::OpalFuseRowsBase<OpalFuseRows> {
  using OpalFuseRowsBase::OpalFuseRowsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      for (Run &run : findRuns(*block))
        fuse(rewriter, run, shrinkTemporaries, mergeIntoReductions);
  }
};

} // namespace
