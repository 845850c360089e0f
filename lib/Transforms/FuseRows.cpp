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
// generalized) share row loops: parallel loops each of which indexes one
// dim of every buffer operand, as that dim's whole expression and nowhere
// else, or, for an input no op of the run writes, none of its dims (a
// layer norm's weight and bias, read whole by every row) or only some (the
// weight of group_norm, [groups, C / groups, 1], indexed by the group but
// not the sample). The row loops need not lead: a row coordinate is
// matched from op to op through the buffers they share (the dim of a
// buffer one op's row loop indexes is the dim another op's must index), so
// batch norm's rows are its channels, loop 1 of the ops on the [N, C, HxW]
// input and loop 0 of the fill of its [C] sums. An op may have no other
// loops (a fill of the row maxima); a row never takes the innermost loop
// of an op that has others (a column, a cache line per element); the
// `any-row-dims=false` form (CUDA's) takes leading loops only, indexing
// the same dim of every output. A run needs a reduction (over a loop of
// its own) and an op that walks the row's elements (so rows are read more
// than once), and the sizes of its row loops provably equal across the run
// (the same buffer dims, or allocations sized by them: one op's buffers
// agree by linalg's semantics). Every buffer the run writes is sliced the
// same way by every op. Between the ops only pure ops, allocations and
// reshapes may stand; they stay before the loop. Every buffer must be a
// kernel argument or a fresh allocation (or a reshape of an input nothing
// writes, or an output argument in another shape that nothing else uses),
// never a view of another, so that row i of one is never another row of a
// second. A body may read the row's index (a gather's row) and buffers
// from outside the op (a gather's source) that no op of the run writes.
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
#include "llvm/ADT/bit.h"

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
  if (!opal::ir::detail::isReshape(buffer.getDefiningOp()))
    return false;
  auto argument = dyn_cast<BlockArgument>(opal::ir::detail::reshapeSource(buffer));
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

/// An output argument seen in another shape (opal-reshape-outputs-in-place:
/// a reinterpret_cast at offset 0, then a cast to a dense row-major type)
/// that nothing else uses: the whole argument, as a buffer of its own.
bool isSoleViewOfArgument(Value buffer) {
  auto cast = buffer.getDefiningOp<memref::CastOp>();
  if (!cast || !llvm::cast<MemRefType>(cast.getType()).getLayout().isIdentity())
    return false;
  auto view = cast.getSource().getDefiningOp<memref::ReinterpretCastOp>();
  if (!view || !cast.getSource().hasOneUse() || view.getStaticOffsets().size() != 1 ||
      view.getStaticOffsets().front() != 0)
    return false;
  Value source = view.getSource();
  return isa<BlockArgument>(source) && isWholeBuffer(source) && source.hasOneUse();
}

/// For each row coordinate, the dim of `operand`'s buffer that the op's
/// row loop `loops[i]` indexes (the map's one result that is that loop
/// alone), or -1 where no result mentions it (allowed for inputs only: a
/// layer norm's weight, read whole by every row; group_norm's, read by the
/// group). std::nullopt where the operand does not qualify.
std::optional<SmallVector<int64_t>> rowDims(linalg::LinalgOp op, OpOperand &operand,
                                            ArrayRef<int64_t> loops) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<int64_t> dims;
  for (int64_t loop : loops) {
    AffineExpr row = getAffineDimExpr(loop, op.getContext());
    int64_t found = -1;
    for (auto [position, expr] : llvm::enumerate(map.getResults())) {
      if (expr == row && found < 0)
        found = static_cast<int64_t>(position);
      else if (expr.isFunctionOfDim(loop))
        return std::nullopt;
    }
    if (found < 0 && !op.isDpsInput(&operand))
      return std::nullopt;
    dims.push_back(found);
  }
  return dims;
}

/// rowDims of an operand already known to qualify.
SmallVector<int64_t> rowDimsOf(linalg::LinalgOp op, OpOperand &operand, ArrayRef<int64_t> loops) {
  return *rowDims(op, operand, loops);
}

/// The dim of a qualifying operand's buffer that row loop `loop` indexes,
/// or -1.
int64_t rowDimOf(linalg::LinalgOp op, OpOperand &operand, int64_t loop) {
  return rowDimsOf(op, operand, {loop}).front();
}

bool isBuffer(OpOperand &operand) { return isa<MemRefType>(operand.get().getType()); }

/// Whether `dims` leaves some row coordinate unindexed (see rowDims).
bool readsAcrossRows(ArrayRef<int64_t> dims) {
  return llvm::is_contained(dims, int64_t(-1));
}

/// The loops of `op` that may be row loops (see the file comment), in
/// order; with `anyDims` off, only its leading loops, each indexing the
/// same dim of every output.
SmallVector<int64_t> rowCandidates(linalg::LinalgOp op, bool anyDims) {
  if (!op.hasPureBufferSemantics())
    return {};
  // Only whole buffers: a view (a transpose, a slice) of another buffer
  // could make one op's row depend on other rows of another's. (But for a
  // reshaped input, which no op writes.)
  for (OpOperand &operand : op->getOpOperands())
    if (isBuffer(operand) && !isWholeBuffer(operand.get()) &&
        !isSoleViewOfArgument(operand.get()) &&
        !(op.isDpsInput(&operand) && isReshapedInput(operand.get())))
      return {};
  SmallVector<int64_t> loops;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t loop = 0; loop < op.getNumLoops(); ++loop) {
    bool fits = iterators[loop] == utils::IteratorType::parallel &&
                llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
                  if (!isBuffer(operand))
                    return true;
                  std::optional<SmallVector<int64_t>> dims = rowDims(op, operand, {loop});
                  // (An input may be indexed by the row loop in any of
                  // its dims: each row takes a slice of it.)
                  return dims && (anyDims || dims->front() < 0 || dims->front() == loop ||
                                  op.isDpsInput(&operand));
                });
    if (fits)
      loops.push_back(loop);
    else if (!anyDims)
      break;
  }
  return loops;
}

bool hasReduction(linalg::LinalgOp op) {
  return llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType type) {
    return type == utils::IteratorType::reduction;
  });
}

/// Ops that may stand between the ops of a run: they stay before the loop.
bool mayStayBefore(Operation &op) {
  // (A memref.reshape reads only its shape operand: group_norm's weight as
  // [groups, C / groups, 1].)
  return isMemoryEffectFree(&op) || isa<memref::AllocOp, memref::ReshapeOp>(op);
}

/// Ops that run row by row over the same rows: row coordinate i is loop
/// loops[k][i] of ops[k]. Coordinates are matched through the buffers the
/// ops share (the dim of a buffer that one op's row loop indexes is the
/// dim another's must index), so batch norm's rows are its channels, loop
/// 1 of the input's ops but loop 0 of a fill of the [C] statistics.
struct Run {
  SmallVector<linalg::LinalgOp> ops;
  SmallVector<SmallVector<int64_t>> loops;

  size_t rows() const { return loops.empty() ? 0 : loops.front().size(); }

  /// Keeps the coordinates `keep` says, in every op.
  void keepRows(ArrayRef<bool> keep) {
    for (SmallVector<int64_t> &opLoops : loops) {
      SmallVector<int64_t> kept;
      for (auto [loop, keeps] : llvm::zip(opLoops, keep))
        if (keeps)
          kept.push_back(loop);
      opLoops = kept;
    }
  }

  /// Adds `op`, whose candidate row loops are `candidates`, keeping the
  /// coordinates it can take part in; false (and nothing changed) where
  /// it takes part in none.
  bool add(linalg::LinalgOp op, ArrayRef<int64_t> candidates) {
    if (ops.empty()) {
      ops.push_back(op);
      loops.push_back(llvm::to_vector(candidates));
      return true;
    }
    size_t rowCount = rows();
    SmallVector<int64_t> mine(rowCount, -1);
    SmallVector<bool> keep(rowCount, true);
    for (size_t row = 0; row < rowCount; ++row) {
      std::optional<int64_t> loop;
      // The loop indexing the dim an earlier op's row loop indexes of a
      // buffer both touch.
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isBuffer(operand))
          continue;
        for (auto [earlier, earlierLoops] : llvm::zip(ops, loops))
          for (OpOperand &seen : earlier->getOpOperands()) {
            if (seen.get() != operand.get())
              continue;
            int64_t dim = rowDimOf(earlier, seen, earlierLoops[row]);
            if (dim < 0)
              continue;
            AffineExpr expr = op.getMatchingIndexingMap(&operand).getResult(dim);
            auto dimExpr = dyn_cast<AffineDimExpr>(expr);
            int64_t here = dimExpr ? static_cast<int64_t>(dimExpr.getPosition()) : -1;
            if (loop && *loop != here)
              keep[row] = false; // (the buffers disagree)
            loop = here;
          }
      }
      // An op that shares no buffer with the run: its loop of the first
      // op's number.
      if (!loop)
        loop = loops.front()[row];
      if (!llvm::is_contained(candidates, *loop) || llvm::is_contained(mine, *loop))
        keep[row] = false;
      mine[row] = keep[row] ? *loop : -1;
    }
    if (llvm::none_of(keep, [](bool keeps) { return keeps; }))
      return false;
    ops.push_back(op);
    loops.push_back(mine);
    keepRows(keep);
    return true;
  }
};

/// Whether a run is worth it: a reduction over the row and an op that
/// walks the row's elements in parallel (x - max, say), so rows are read
/// more than once. (A lone reduction with the fill of its output is not.)
bool rereadsRows(const Run &run) {
  bool reduces = false, walks = false;
  for (linalg::LinalgOp op : run.ops) {
    reduces |= hasReduction(op);
    walks |= !hasReduction(op) && op.getNumLoops() > run.rows();
  }
  return reduces && walks;
}

/// Whether every op's row loops have the same sizes (see the file comment).
bool rowSizesAgree(Run &run) {
  for (size_t row = 0; row < run.rows(); ++row) {
    llvm::EquivalenceClasses<SizeKey> classes;
    SmallVector<SizeKey> keys;
    for (auto [op, loops] : llvm::zip(run.ops, run.loops)) {
      std::optional<SizeKey> opKey;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isBuffer(operand))
          continue;
        int64_t dim = rowDimOf(op, operand, loops[row]);
        if (dim < 0)
          continue;
        SizeKey key = sizeKey(operand.get(), dim);
        classes.insert(key);
        if (opKey)
          classes.unionSets(*opKey, key); // one op's buffers agree
        opKey = key;
        keys.push_back(key);
      }
      if (!opKey)
        return false;
    }
    for (SizeKey key : keys)
      if (!classes.isEquivalent(keys.front(), key))
        return false;
  }
  return true;
}

/// The buffers the run's ops write.
llvm::SmallPtrSet<Value, 4> writtenBuffers(const Run &run) {
  llvm::SmallPtrSet<Value, 4> written;
  for (linalg::LinalgOp op : run.ops)
    for (Value init : op.getDpsInits())
      written.insert(init);
  return written;
}

/// Whether every buffer an op of the run writes is read and written by
/// rows the same way by all of them (the same dims its rows are), and
/// no op reads it across rows: every row must see all of what it reads
/// across rows before the run starts.
bool rowsOfWrittenAgree(Run &run) {
  llvm::SmallPtrSet<Value, 4> written = writtenBuffers(run);
  DenseMap<Value, SmallVector<int64_t>> dimsOf;
  for (auto [op, loops] : llvm::zip(run.ops, run.loops))
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isBuffer(operand) || !written.contains(operand.get()))
        continue;
      SmallVector<int64_t> dims = rowDimsOf(op, operand, loops);
      if (readsAcrossRows(dims))
        return false;
      auto [it, inserted] = dimsOf.try_emplace(operand.get(), dims);
      if (!inserted && it->second != dims)
        return false;
    }
  return true;
}

/// Whether rows keep the innermost loop of every op that has loops of its
/// own: a row that is a column (the last loop, contiguous in memory)
/// would read its elements one cache line each. Drops such coordinates.
SmallVector<bool> innermostKept(Run &run) {
  SmallVector<bool> keep(run.rows(), true);
  for (auto [op, loops] : llvm::zip(run.ops, run.loops)) {
    int64_t last = static_cast<int64_t>(op.getNumLoops()) - 1;
    if (op.getNumLoops() > loops.size())
      for (auto [row, loop] : llvm::enumerate(loops))
        if (loop == last)
          keep[row] = false;
  }
  return keep;
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
/// outside it, directly or through a view (a reshape of a convolution's
/// rows read by the gather that transposes them): such a read may be of
/// any row, which the loop over rows may not have computed yet.
bool capturesAreInputs(const Run &run) {
  llvm::SmallPtrSet<Value, 4> written;
  for (Value buffer : writtenBuffers(run))
    written.insert(opal::ir::detail::rootOf(buffer));
  return llvm::none_of(run.ops, [&](linalg::LinalgOp op) {
    return llvm::any_of(capturedBuffers(op), [&](Value buffer) {
      return written.contains(opal::ir::detail::rootOf(buffer));
    });
  });
}

/// Maximal runs in `block` worth running row by row.
SmallVector<Run> findRuns(Block &block, bool anyDims) {
  SmallVector<Run> runs;
  Run current;
  // The most row coordinates (of those all the ops share) that make a run
  // worth it: fewer rows also qualify, and may leave an op loops of its
  // own to walk.
  auto close = [&] {
    if (current.ops.size() >= 2) {
      current.keepRows(innermostKept(current));
      // The subsets of the coordinates, the largest first and, among
      // those of a size, the ones of the leading coordinates (a unit dim
      // of the statistics may disagree with the input's first dim while
      // the channels agree).
      size_t rows = std::min<size_t>(current.rows(), 8);
      SmallVector<unsigned> subsets;
      for (unsigned subset = (1u << rows) - 1; subset > 0; --subset)
        subsets.push_back(subset);
      llvm::stable_sort(subsets, [](unsigned a, unsigned b) {
        return llvm::popcount(a) > llvm::popcount(b);
      });
      for (unsigned subset : subsets) {
        Run trial = current;
        SmallVector<bool> keep(trial.rows(), false);
        for (size_t row = 0; row < rows; ++row)
          keep[row] = (subset >> (rows - 1 - row)) & 1;
        trial.keepRows(keep);
        if (rereadsRows(trial) && rowSizesAgree(trial) && rowsOfWrittenAgree(trial) &&
            capturesAreInputs(trial)) {
          runs.push_back(trial);
          break;
        }
      }
    }
    current = Run();
  };
  for (Operation &op : block) {
    auto structured = dyn_cast<linalg::LinalgOp>(op);
    SmallVector<int64_t> candidates;
    if (structured)
      candidates = rowCandidates(structured, anyDims);
    if (!candidates.empty()) {
      // An op that shares no row with the run starts the next one.
      if (!current.add(structured, candidates)) {
        close();
        current.add(structured, candidates);
      }
      continue;
    }
    if (!current.ops.empty() && mayStayBefore(op))
      continue;
    close();
  }
  close();
  return runs;
}

/// `buffer` at the row `ivs`: dims[i] (where not -1) fixed at ivs[i] and
/// dropped; the buffer itself where no dim is.
Value rowOf(OpBuilder &b, Location loc, Value buffer, ValueRange ivs, ArrayRef<int64_t> dims) {
  if (llvm::all_of(dims, [](int64_t dim) { return dim < 0; }))
    return buffer;
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t dim = 0; dim < rank; ++dim) {
    const int64_t *row = llvm::find(dims, dim);
    if (row != dims.end()) {
      offsets.push_back(ivs[row - dims.begin()]);
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(memref::getMixedSize(b, loc, buffer, dim));
  }
  // The rank-reduced type, dropping exactly the row dims (a unit dim
  // elsewhere stays).
  MemRefType full = memref::SubViewOp::inferResultType(type, offsets, sizes, strides);
  auto [fullStrides, offset] = full.getStridesAndOffset();
  SmallVector<int64_t> shape, rowStrides;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(dims, dim)) {
      shape.push_back(full.getDimSize(dim));
      rowStrides.push_back(fullStrides[dim]);
    }
  auto rowType =
      MemRefType::get(shape, type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), offset, rowStrides),
                      type.getMemorySpace());
  return memref::SubViewOp::create(b, loc, rowType, buffer, offsets, sizes, strides);
}

/// Allocations that only the run's ops and a dealloc use: one row is
/// enough. Returns them with their one-row replacements (allocated before
/// the loop).
DenseMap<Value, Value> shrinkTemporaries(OpBuilder &b, Run &run) {
  DenseMap<Value, Value> shrunk;
  llvm::SmallPtrSet<Operation *, 8> inRun;
  for (linalg::LinalgOp op : run.ops)
    inRun.insert(op);
  for (auto [op, loops] : llvm::zip(run.ops, run.loops))
    for (OpOperand &operand : op->getOpOperands()) {
      auto alloc = operand.get().getDefiningOp<memref::AllocOp>();
      if (!alloc || shrunk.count(operand.get()) || !alloc.getType().getLayout().isIdentity())
        continue;
      SmallVector<int64_t> dims = rowDimsOf(op, operand, loops);
      if (readsAcrossRows(dims))
        continue;
      bool onlyRun = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
        return inRun.contains(user) || isa<memref::DeallocOp>(user);
      });
      if (!onlyRun)
        continue;
      MemRefType type = alloc.getType();
      SmallVector<int64_t> shape;
      SmallVector<Value> dynamicSizes;
      for (int64_t dim = 0; dim < type.getRank(); ++dim) {
        if (llvm::is_contained(dims, dim))
          continue;
        shape.push_back(type.getDimSize(dim));
        if (type.isDynamicDim(dim))
          dynamicSizes.push_back(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
      }
      auto rowType = MemRefType::get(shape, type.getElementType(), MemRefLayoutAttrInterface(),
                                     type.getMemorySpace());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(alloc);
      auto row = memref::AllocOp::create(b, alloc.getLoc(), rowType, dynamicSizes,
                                         alloc.getAlignmentAttr());
      shrunk[operand.get()] = row;
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

/// For each dim of a buffer a row's ops use, the dim of the dense
/// (identity-layout) buffer it was sliced from, where it was.
using DenseDims = DenseMap<Value, SmallVector<int64_t>>;

/// Whether loops `a` and `a + 1` of `op` can run as one: of the same kind,
/// and in every buffer either both absent or two adjacent results, in
/// order, over two adjacent dims of a dense buffer (batch norm's H and W
/// in a channel's [N, H, W] slice of [N, C, H, W]; N and H are not
/// adjacent there).
bool loopsMerge(linalg::GenericOp op, unsigned a, const DenseDims &dense) {
  if (op.getIteratorTypesArray()[a] != op.getIteratorTypesArray()[a + 1])
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<int64_t> first, second;
    for (auto [position, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (dim && dim.getPosition() == a)
        first = position;
      else if (dim && dim.getPosition() == a + 1)
        second = position;
      else if (expr.isFunctionOfDim(a) || expr.isFunctionOfDim(a + 1))
        return false;
    }
    if (!first && !second)
      continue;
    if (!first || !second || *second != *first + 1)
      return false;
    auto it = dense.find(operand.get());
    if (it == dense.end() || it->second[*second] != it->second[*first] + 1)
      return false;
  }
  return true;
}

/// `buffer` with each group of dims of `reassociation`, known to be
/// dense together, as one dim whose stride is its innermost's (MLIR infers
/// a dynamic one where the strides are not all static: cast to the known
/// one, as the unit stride of a row's last dim is what lets it vectorize).
Value collapseDense(OpBuilder &b, Location loc, Value buffer,
                    ArrayRef<ReassociationIndices> reassociation) {
  auto type = cast<MemRefType>(buffer.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> shape, collapsedStrides;
  for (const ReassociationIndices &group : reassociation) {
    int64_t size = 1;
    for (int64_t dim : group)
      size = ShapedType::isDynamic(size) || type.isDynamicDim(dim)
                 ? ShapedType::kDynamic
                 : size * type.getDimSize(dim);
    shape.push_back(size);
    collapsedStrides.push_back(strides[group.back()]);
  }
  auto collapsed = MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), offset, collapsedStrides), type.getMemorySpace());
  Value merged = memref::CollapseShapeOp::create(b, loc, buffer, reassociation);
  if (merged.getType() == collapsed)
    return merged;
  return memref::CastOp::create(b, loc, collapsed, merged);
}

/// `op` with each run of loops that merge (loopsMerge) as one loop: a
/// channel's [N, H, W] as [N, HxW], whose inner loop vectorizes without a
/// remainder every W elements.
linalg::GenericOp withDenseLoopsMerged(RewriterBase &rewriter, linalg::GenericOp op,
                                       const DenseDims &dense) {
  SmallVector<ReassociationIndices> groups;
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
    if (!groups.empty() && loopsMerge(op, loop - 1, dense))
      groups.back().push_back(loop);
    else
      groups.push_back({static_cast<int64_t>(loop)});
  }
  if (groups.size() == op.getNumLoops())
    return op;
  // (An index of a merged loop would need its parts back: left alone.)
  bool indexesMerged = false;
  op->walk([&](linalg::IndexOp index) {
    for (const ReassociationIndices &group : groups)
      indexesMerged |= group.size() > 1 && llvm::is_contained(group, index.getDim());
  });
  if (indexesMerged)
    return op;
  // MLIR's collapseOpIterationDims refuses buffers whose strides are not
  // static (a channel's slice): loopsMerge proved them dense, so the
  // operands are collapsed here directly.
  SmallVector<int64_t> newLoop(op.getNumLoops());
  for (auto [index, group] : llvm::enumerate(groups))
    for (int64_t loop : group)
      newLoop[loop] = static_cast<int64_t>(index);
  SmallVector<AffineExpr> renamed;
  for (int64_t loop : newLoop)
    renamed.push_back(rewriter.getAffineDimExpr(loop));
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<AffineExpr> results;
    SmallVector<ReassociationIndices> reassociation;
    for (unsigned position = 0; position < map.getNumResults(); ++position) {
      AffineExpr expr = map.getResult(position);
      auto dim = dyn_cast<AffineDimExpr>(expr);
      const ReassociationIndices *group =
          dim ? &groups[newLoop[dim.getPosition()]] : nullptr;
      ReassociationIndices positions{static_cast<int64_t>(position)};
      if (group && group->size() > 1) {
        for (size_t more = 1; more < group->size(); ++more)
          positions.push_back(static_cast<int64_t>(++position));
      }
      reassociation.push_back(positions);
      results.push_back(expr.replaceDims(renamed));
    }
    Value value = operand.get();
    if (reassociation.size() != map.getNumResults())
      value = collapseDense(rewriter, op.getLoc(), value, reassociation);
    operands.push_back(value);
    maps.push_back(AffineMap::get(groups.size(), 0, results, rewriter.getContext()));
  }
  SmallVector<utils::IteratorType> iterators;
  for (const ReassociationIndices &group : groups)
    iterators.push_back(op.getIteratorTypesArray()[group.front()]);
  size_t inputs = op.getNumDpsInputs();
  auto merged = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange(), ArrayRef(operands).take_front(inputs),
      ArrayRef(operands).drop_front(inputs), maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), merged.getRegion(), merged.getRegion().begin());
  // The loops that remain keep their indices' order: renumbered.
  merged->walk([&](linalg::IndexOp index) {
    rewriter.setInsertionPoint(index);
    rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, newLoop[index.getDim()]);
  });
  rewriter.eraseOp(op);
  return merged;
}

/// The run as one loop over its rows, at the place of its last op.
void fuse(RewriterBase &rewriter, Run &run, bool shrink, bool merge, bool mergeLoops) {
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
  // temporaries go; a kept one exists, see writesKept) and is indexed by
  // every row loop.
  Value kept;
  SmallVector<int64_t> keptDims;
  for (auto [op, loops] : llvm::zip(run.ops, run.loops))
    for (OpOperand &operand : op->getOpOperands()) {
      if (kept || !isBuffer(operand) || shrunk.count(operand.get()))
        continue;
      SmallVector<int64_t> dims = rowDimsOf(op, operand, loops);
      if (!readsAcrossRows(dims)) {
        kept = operand.get();
        keptDims = dims;
      }
    }
  SmallVector<Value> bounds;
  for (int64_t dim : keptDims)
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
  DenseDims dense;
  for (auto [op, loops] : llvm::zip(run.ops, run.loops)) {
    auto generic = cast<linalg::GenericOp>(op.getOperation());
    auto operandOf = [&](OpOperand &operand) -> Value {
      Value value = operand.get();
      if (!isBuffer(operand))
        return value;
      if (auto row = shrunk.lookup(value)) {
        dense[row] = llvm::to_vector(
            llvm::seq<int64_t>(0, cast<MemRefType>(row.getType()).getRank()));
        return row;
      }
      SmallVector<int64_t> dims = rowDimsOf(op, operand, loops);
      Value row = rowOf(rewriter, loc, value, ivs, dims);
      auto type = cast<MemRefType>(value.getType());
      if (type.getLayout().isIdentity()) {
        SmallVector<int64_t> &sourceDims = dense[row];
        sourceDims.clear();
        for (int64_t dim = 0; dim < type.getRank(); ++dim)
          if (!llvm::is_contained(dims, dim))
            sourceDims.push_back(dim);
      }
      return row;
    };
    SmallVector<Value> inputs, outputs;
    for (OpOperand *input : generic.getDpsInputOperands())
      inputs.push_back(operandOf(*input));
    for (OpOperand &output : generic.getDpsInitsMutable())
      outputs.push_back(operandOf(output));
    // The maps lose their row loops (the others are renumbered in order)
    // and the results that are row loops.
    SmallVector<AffineExpr> renamed;
    SmallVector<int64_t> renumbered;
    int64_t next = 0;
    for (int64_t dim = 0; dim < static_cast<int64_t>(generic.getNumLoops()); ++dim) {
      bool isRow = llvm::is_contained(loops, dim);
      renumbered.push_back(isRow ? -1 : next++);
      renamed.push_back(isRow ? rewriter.getAffineConstantExpr(0)
                              : rewriter.getAffineDimExpr(renumbered.back()));
    }
    unsigned bodyLoops = generic.getNumLoops() - loops.size();
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      SmallVector<int64_t> dims;
      if (isBuffer(operand))
        dims = rowDimsOf(op, operand, loops);
      SmallVector<AffineExpr> results;
      for (auto [position, expr] : llvm::enumerate(map.getResults()))
        if (!llvm::is_contained(dims, static_cast<int64_t>(position)))
          results.push_back(expr.replaceDims(renamed));
      maps.push_back(AffineMap::get(bodyLoops, 0, results, rewriter.getContext()));
    }
    SmallVector<utils::IteratorType> iterators;
    for (auto [dim, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
      if (renumbered[dim] >= 0)
        iterators.push_back(iterator);
    auto row = linalg::GenericOp::create(rewriter, loc, TypeRange(), inputs, outputs, maps,
                                         iterators);
    rewriter.inlineRegionBefore(generic.getRegion(), row.getRegion(), row.getRegion().begin());
    // A row loop's index is the row's; the others are renumbered.
    row->walk([&](linalg::IndexOp index) {
      rewriter.setInsertionPoint(index);
      int64_t dim = static_cast<int64_t>(index.getDim());
      if (renumbered[dim] < 0)
        rewriter.replaceOp(index, ivs[llvm::find(loops, dim) - loops.begin()]);
      else
        rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, renumbered[dim]);
    });
    rewriter.setInsertionPointAfter(row);
    rowOps.push_back(row);
  }
  for (linalg::LinalgOp op : run.ops)
    rewriter.eraseOp(op);
  if (merge)
    mergeElementwiseIntoReductions(rewriter, rowOps);
  if (mergeLoops)
    for (linalg::GenericOp &op : rowOps)
      op = withDenseLoopsMerged(rewriter, op, dense);
  // The full-size temporaries are no longer used but by their deallocs.
  for (auto [full, row] : shrunk) {
    for (Operation *user : llvm::make_early_inc_range(full.getUsers())) {
      rewriter.setInsertionPoint(user);
      memref::DeallocOp::create(rewriter, user->getLoc(), row);
      rewriter.eraseOp(user);
    }
    rewriter.eraseOp(full.getDefiningOp());
    // A row the merged ops no longer store (batch norm's squared
    // differences) is not allocated at all.
    if (llvm::all_of(row.getUsers(), [](Operation *user) { return isa<memref::DeallocOp>(user); })) {
      for (Operation *user : llvm::make_early_inc_range(row.getUsers()))
        rewriter.eraseOp(user);
      rewriter.eraseOp(row.getDefiningOp());
    }
  }
}

struct OpalFuseRows : public opal::ir::impl::OpalFuseRowsBase<OpalFuseRows> {
  using OpalFuseRowsBase::OpalFuseRowsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      for (Run &run : findRuns(*block, anyRowDims))
        fuse(rewriter, run, shrinkTemporaries, mergeIntoReductions, mergeDenseLoops);
  }
};

} // namespace
