//===- MapToGpu.cpp - The opal-map-to-gpu pass ----------------------------===//
//
// A bufferized kernel function becomes host code that launches GPU kernels:
// every linalg op on buffers becomes one `gpu.launch`, and the host's
// temporary buffers become device allocations.
//
// - All-parallel ops: one thread per element of the iteration space, which
//   is flattened (so any rank and any size map to a 1-D grid of
//   `block-size`-thread blocks); each thread delinearizes its index, loads
//   its operands through their indexing maps, runs the payload and stores.
//   When every operand is a contiguous buffer indexed by the identity and
//   known to be 16-byte aligned, each thread takes 16 bytes' worth of
//   elements instead (four f32s, two f64s): one 128-bit load per input and
//   one 128-bit store per output, the payload unrolled per lane, and a
//   scalar loop for the last thread's partial group. Ops whose buffers all
//   run contiguously along the last dim (row broadcasts) do the same per
//   row when rows start at vector boundaries (checked at run time).
// - Reductions: one block per point of the parallel dims, of a warp per 256
//   elements reduced (32 warps at most). Each thread folds a strided share
//   of the reduction space into a register with the payload's combiner
//   (add, mul, min/max, and/or/xor) starting from the combiner's identity,
//   loading 8 elements before it folds them (8 loads in flight a thread),
//   then `gpu.all_reduce` combines the threads (a
//   shuffle tree within warps and through shared memory across them) and
//   thread 0 folds the result into the output. A fill of the output right
//   before the reduction is folded into it: thread 0 combines with the
//   fill's value, and the fill needs no launch. A payload whose combiner is
//   not one of those (several outputs, as in argmax) runs serially in
//   thread 0 of each block: correct, not fast.
// - Loops over rows (`opal.rows`, from opal-fuse-rows: softmax, norms): one
//   kernel with a block per row, and softmax is one launch instead of four.
//   Rows of up to 8192 elements whose ops read and write whole rows or one
//   value per row: a warp per 256 elements, each thread loading its 8
//   elements of the row once, up front, and keeping them, and the row's
//   reduced values, in registers for the ops after (a row is read from
//   memory once). Longer rows (or other ops): 256 threads run the row's ops
//   in turn (elements shared out, reductions as above), a barrier after
//   each op, the row reread from the cache. Both kernels are compiled; the
//   row's length picks one at run time.
// - Other loops on buffers whose iterations are independent
//   (`opal.parallel`: a cumsum's lines): one thread per iteration. What
//   else reads or writes buffers on the host (a scatter's ordered loop):
//   one thread, in order; a value such a run computes and a later kernel
//   reads (a data check reporting a scatter's index) is computed again
//   there when it comes from a buffer nothing writes in between.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALMAPTOGPU
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The gpu.all_reduce operation of a payload's combiner op, if it has one.
std::optional<gpu::AllReduceOperation> combinerKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The value x with combine(x, y) == y for every y.
TypedAttr identityOf(gpu::AllReduceOperation kind, Type type) {
  using K = gpu::AllReduceOperation;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case K::ADD:
      return FloatAttr::get(type, llvm::APFloat::getZero(semantics));
    case K::MUL:
      return FloatAttr::get(type, llvm::APFloat::getOne(semantics));
    case K::MAXIMUMF:
    case K::MAXNUMF:
      return FloatAttr::get(type, llvm::APFloat::getInf(semantics, /*Negative=*/true));
    case K::MINIMUMF:
    case K::MINNUMF:
      return FloatAttr::get(type, llvm::APFloat::getInf(semantics));
    default:
      return {};
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case K::ADD:
  case K::OR:
  case K::XOR:
  case K::MAXUI:
    return IntegerAttr::get(type, llvm::APInt::getZero(width));
  case K::MUL:
    return IntegerAttr::get(type, llvm::APInt(width, 1));
  case K::AND:
  case K::MINUI:
    return IntegerAttr::get(type, llvm::APInt::getAllOnes(width));
  case K::MAXSI:
    return IntegerAttr::get(type, llvm::APInt::getSignedMinValue(width));
  case K::MINSI:
    return IntegerAttr::get(type, llvm::APInt::getSignedMaxValue(width));
  default:
    return {};
  }
}

/// A reduction the threads of a block can share: one output whose payload
/// yields combiner(out, v) with v independent of out.
struct SharedReduction {
  Operation *combiner;
  gpu::AllReduceOperation kind;
  unsigned accumulatorOperand; // which operand of the combiner is `out`
};

std::optional<SharedReduction> sharedReduction(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!element.isF32() && !element.isF64() && !element.isInteger(32) && !element.isInteger(64))
    return std::nullopt;
  Block &body = op.getRegion().front();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getBlock() != &body || combiner->getNumOperands() != 2)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = combinerKind(combiner);
  if (!kind)
    return std::nullopt;
  unsigned accumulator;
  if (combiner->getOperand(0) == out)
    accumulator = 0;
  else if (combiner->getOperand(1) == out)
    accumulator = 1;
  else
    return std::nullopt;
  // The other operand must not depend on the output: walk its producers.
  SmallVector<Value> pending{combiner->getOperand(1 - accumulator)};
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    if (value == out)
      return std::nullopt;
    if (Operation *producer = value.getDefiningOp())
      if (producer->getBlock() == &body)
        llvm::append_range(pending, producer->getOperands());
  }
  return SharedReduction{combiner, *kind, accumulator};
}

/// The alignment in bytes known for the start of `buffer`'s data: a
/// function argument's `opal.align`, 256 for a fresh device allocation
/// (cuMemAlloc's), followed through reshapes and casts; 0 when unknown.
int64_t knownAlignment(Value buffer) {
  while (Operation *producer = buffer.getDefiningOp()) {
    if (isa<memref::AllocOp, gpu::AllocOp>(producer))
      return 256;
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(producer))
      return 0;
    buffer = producer->getOperand(0);
  }
  auto argument = cast<BlockArgument>(buffer);
  auto function = dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp());
  if (!function || argument.getOwner() != &function.getFunctionBody().front())
    return 0;
  auto align = function.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(),
                                                      opal::ir::kAlignAttrName);
  return align ? align.getInt() : 0;
}

/// A launch of `grid` blocks of `threads` threads, skipped when grid is 0
/// (CUDA refuses empty grids); the builder is left inside its body.
gpu::LaunchOp createGuardedLaunch(RewriterBase &rewriter, Location loc, Value grid,
                                  Value threads) {
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value nonEmpty = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ugt, grid, zero);
  auto guard = scf::IfOp::create(rewriter, loc, nonEmpty, /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, grid, one, one, threads, one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

/// A launch of `threads` threads in blocks of `blockSize`; the builder is
/// left where the threads below `threads` continue. Returns the thread's
/// global index.
Value launchGuardedThreads(RewriterBase &rewriter, Location loc, Value threads,
                           int64_t blockSize) {
  Value block = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  Value grid = arith::CeilDivUIOp::create(rewriter, loc, threads, block);
  gpu::LaunchOp launch = createGuardedLaunch(rewriter, loc, grid, block);
  Value linear = arith::AddIOp::create(
      rewriter, loc, arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, block),
      launch.getThreadIds().x);
  Value inBounds =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, linear, threads);
  auto guard = scf::IfOp::create(rewriter, loc, inBounds, /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
  return linear;
}

/// Elements each thread of a block loads before it computes: of a row
/// held in registers (rows up to 8 * 1024 elements long, rowsToLaunch), and
/// per step of a block's reduction, so that a thread has that many loads in
/// flight.
constexpr int64_t kRowRegisters = 8;

/// One row of a loop over rows held in registers (rowsToLaunch's fast
/// path): the thread's k-th element is element thread + k * threads of the
/// row. Each buffer the row's ops read is loaded once; what an op writes is
/// stored and also kept for the ops after it.
struct RowRegisters {
  /// Per k: the element's index (clamped to 0 past the row's end, so that
  /// every thread loads in bounds and computes what it then discards), and
  /// whether it is in the row.
  SmallVector<Value> elements, inRow;
  Value first; // whether this is the block's thread 0
  llvm::DenseMap<Value, SmallVector<Value>> rows; // a row's buffer -> its values
  llvm::DenseMap<Value, Value> scalars;           // a 0-d buffer -> its value
};

class GenericToLaunch {
public:
  /// `initial`, when given, is the value every element of the (single)
  /// output holds before `op` runs: a fill folded into a reduction.
  GenericToLaunch(RewriterBase &rewriter, linalg::GenericOp op, int64_t blockSize,
                  Value initial = {})
      : rewriter(rewriter), op(op), loc(op.getLoc()), blockSize(blockSize),
        filled(initial) {}

  void rewrite() {
    setUp();
    if (reductionDims.empty())
      rewriteParallel();
    else
      rewriteReduction();
    rewriter.eraseOp(op);
  }

  /// The op as code for the `blockSize` threads of one block, `thread`
  /// being this one's index, where the op stands (inside a launch): the
  /// threads share its elements (or each reduction); the op's writes are
  /// done when every thread has passed the barrier the caller puts after.
  void rewriteInBlock(Value thread) {
    setUp();
    Value block = index(blockSize);
    if (reductionDims.empty()) {
      // Element thread, thread + B, ... of the flattened iteration space.
      SmallVector<unsigned> all = llvm::to_vector(llvm::seq<unsigned>(0, sizes.size()));
      auto loop = scf::ForOp::create(rewriter, loc, thread, product(all), block);
      rewriter.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> ivs(sizes.size());
      if (!sizes.empty())
        delinearize(loop.getInductionVar(), all, ivs);
      storeOutputs(clonePayload(argumentsAt(ivs), ivs), ivs);
      rewriter.eraseOp(op);
      rewriter.setInsertionPointAfter(loop);
      return;
    }
    // One reduction after the other (every thread runs the same count, so
    // all of them reach each all_reduce).
    auto outer = scf::ForOp::create(rewriter, loc, index(0), product(parallelDims), index(1));
    rewriter.setInsertionPointToStart(outer.getBody());
    SmallVector<Value> ivs(sizes.size());
    if (!parallelDims.empty())
      delinearize(outer.getInductionVar(), parallelDims, ivs);
    if (std::optional<SharedReduction> shared = sharedReduction(op)) {
      // (Rows this long are rare: the loop stays small, one load a step.)
      reduceInBlock(*shared, ivs, thread, block, /*unroll=*/1);
      // The next reduction reuses all_reduce's shared memory.
      gpu::BarrierOp::create(rewriter, loc);
    } else {
      Value first =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, thread, index(0));
      auto guard = scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
      rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
      reduceSerially(ivs);
    }
    rewriter.eraseOp(op);
    rewriter.setInsertionPointAfter(outer);
  }

  /// The op for one row held in `row`'s registers (every buffer operand
  /// 1-d and indexed by the op's one loop, or 0-d; rowsToLaunch checks):
  /// each thread computes its elements, a reduction combines the threads'
  /// values with all_reduce, whose result every thread keeps; thread 0
  /// stores what a reduction or a 0-d op writes, each thread its elements.
  void rewriteInRegisters(RowRegisters &row) {
    rewriter.setInsertionPoint(op);
    Block &body = op.getRegion().front();
    auto valueOf = [&](OpOperand &operand, int64_t k) -> Value {
      Value source = operand.get();
      auto type = dyn_cast<MemRefType>(source.getType());
      if (!type)
        return source;
      if (type.getRank() == 0) {
        Value &known = row.scalars[source];
        if (!known)
          known = memref::LoadOp::create(rewriter, loc, source, ValueRange{});
        return known;
      }
      SmallVector<Value> &values = row.rows[source];
      values.resize(row.elements.size());
      if (!values[k])
        values[k] = memref::LoadOp::create(rewriter, loc, source, ValueRange{row.elements[k]});
      return values[k];
    };
    auto argumentsAt = [&](int64_t k) {
      SmallVector<Value> arguments;
      for (OpOperand &operand : op->getOpOperands())
        arguments.push_back(
            op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand)
                ? valueOf(operand, k)
                : Value(ub::PoisonOp::create(
                      rewriter, loc, body.getArgument(operand.getOperandNumber()).getType())));
      return arguments;
    };
    auto storeScalars = [&](ArrayRef<Value> values) {
      auto guard = scf::IfOp::create(rewriter, loc, row.first, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inside(rewriter);
      rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
      for (auto [operand, value] : llvm::zip_equal(op.getDpsInitsMutable(), values))
        memref::StoreOp::create(rewriter, loc, value, operand.get(), ValueRange{});
    };

    if (op.getNumLoops() == 0) {
      SmallVector<Value> results = clonePayload(argumentsAt(0), {});
      for (auto [operand, value] : llvm::zip_equal(op.getDpsInitsMutable(), results))
        row.scalars[operand.get()] = value;
      storeScalars(results);
    } else if (op.getNumReductionLoops() == 0) {
      for (auto [k, element] : llvm::enumerate(row.elements)) {
        SmallVector<Value> results = clonePayload(argumentsAt(k), {element});
        auto guard = scf::IfOp::create(rewriter, loc, row.inRow[k], /*withElseRegion=*/false);
        OpBuilder::InsertionGuard inside(rewriter);
        rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
        for (auto [operand, value] : llvm::zip_equal(op.getDpsInitsMutable(), results)) {
          memref::StoreOp::create(rewriter, loc, value, operand.get(), ValueRange{element});
          SmallVector<Value> &values = row.rows[operand.get()];
          values.resize(row.elements.size());
          values[k] = value;
        }
      }
    } else {
      SharedReduction shared = *sharedReduction(op);
      OpOperand &output = op.getDpsInitsMutable()[0];
      Type element = getElementTypeOrSelf(output.get().getType());
      Value folded = arith::ConstantOp::create(rewriter, loc, identityOf(shared.kind, element));
      Value initial = valueOf(output, 0);
      for (auto [k, index] : llvm::enumerate(row.elements)) {
        SmallVector<Value> arguments = argumentsAt(k);
        arguments.back() = folded;
        Value next = clonePayload(arguments, {index})[0];
        folded = arith::SelectOp::create(rewriter, loc, row.inRow[k], next, folded);
      }
      auto reduced = gpu::AllReduceOp::create(
          rewriter, loc, element, folded,
          gpu::AllReduceOperationAttr::get(rewriter.getContext(), shared.kind),
          /*uniform=*/true);
      // The next reduction reuses all_reduce's shared memory.
      gpu::BarrierOp::create(rewriter, loc);
      IRMapping mapping;
      Operation *combine = rewriter.clone(*shared.combiner, mapping);
      combine->setOperand(shared.accumulatorOperand, initial);
      combine->setOperand(1 - shared.accumulatorOperand, reduced.getResult());
      row.scalars[output.get()] = combine->getResult(0);
      storeScalars({combine->getResult(0)});
    }
    rewriter.eraseOp(op);
  }

private:
  void setUp() {
    rewriter.setInsertionPoint(op);
    linalg::LinalgOp structured = op;
    for (Range range : structured.createLoopRanges(rewriter, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [dim, iterator] : llvm::enumerate(iterators))
      (iterator == utils::IteratorType::parallel ? parallelDims : reductionDims).push_back(dim);
  }

  Value index(int64_t value) { return arith::ConstantIndexOp::create(rewriter, loc, value); }

  Value product(ArrayRef<unsigned> dims) {
    if (dims.empty())
      return index(1);
    Value result = sizes[dims.front()];
    for (unsigned dim : dims.drop_front())
      result = arith::MulIOp::create(rewriter, loc, result, sizes[dim]);
    return result;
  }

  /// Sets ivs[dims[i]] from a linear index over `dims` (row-major).
  void delinearize(Value linear, ArrayRef<unsigned> dims, SmallVectorImpl<Value> &ivs) {
    Value rest = linear;
    for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
      unsigned dim = dims[i];
      if (i == 0) {
        ivs[dim] = rest;
        break;
      }
      ivs[dim] = arith::RemUIOp::create(rewriter, loc, rest, sizes[dim]);
      rest = arith::DivUIOp::create(rewriter, loc, rest, sizes[dim]);
    }
  }

  gpu::LaunchOp createLaunch(Value grid, Value threads) {
    return createGuardedLaunch(rewriter, loc, grid, threads);
  }

  Value launchThreads(Value threads) {
    return launchGuardedThreads(rewriter, loc, threads, blockSize);
  }

  /// The indices of `operand` at the iteration point `ivs` (in a flat op,
  /// `ivs` is the one index of every 1-D buffer).
  SmallVector<Value> indicesOf(OpOperand &operand, ArrayRef<Value> ivs) {
    if (flat)
      return SmallVector<Value>(ivs);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        indices.push_back(ivs[dim.getPosition()]);
        continue;
      }
      if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
        indices.push_back(index(constant.getValue()));
        continue;
      }
      AffineMap single = AffineMap::get(map.getNumDims(), 0, expr);
      indices.push_back(affine::AffineApplyOp::create(rewriter, loc, single, ivs));
    }
    return indices;
  }

  /// The value of `operand` at `ivs`: a load from its buffer, or the scalar.
  Value valueOf(OpOperand &operand, ArrayRef<Value> ivs) {
    Value source = operand.get();
    if (!isa<MemRefType>(source.getType()))
      return source;
    return memref::LoadOp::create(rewriter, loc, source, indicesOf(operand, ivs));
  }

  /// Clones the payload at `ivs` with the block arguments bound to
  /// `arguments`; returns the yielded values.
  SmallVector<Value> clonePayload(ArrayRef<Value> arguments, ArrayRef<Value> ivs) {
    Block &body = op.getRegion().front();
    IRMapping mapping;
    mapping.map(body.getArguments(), arguments);
    for (Operation &inner : body.without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(indexOp.getResult(), ivs[indexOp.getDim()]);
        continue;
      }
      rewriter.clone(inner, mapping);
    }
    SmallVector<Value> yielded;
    for (Value value : body.getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(value));
    return yielded;
  }

  /// The inputs' values at `ivs`.
  SmallVector<Value> inputsAt(ArrayRef<Value> ivs) {
    SmallVector<Value> inputs;
    for (OpOperand *operand : op.getDpsInputOperands())
      inputs.push_back(valueOf(*operand, ivs));
    return inputs;
  }

  /// The block arguments' values at `ivs`: inputs, then the outputs that the
  /// payload reads (others are never used, so any value stands in).
  SmallVector<Value> argumentsAt(ArrayRef<Value> ivs) {
    SmallVector<Value> arguments = inputsAt(ivs);
    for (OpOperand &operand : op.getDpsInitsMutable()) {
      if (op.payloadUsesValueFromOperand(&operand))
        arguments.push_back(valueOf(operand, ivs));
      else
        arguments.push_back(ub::PoisonOp::create(
            rewriter, loc, getElementTypeOrSelf(operand.get().getType())));
    }
    return arguments;
  }

  void storeOutputs(ArrayRef<Value> values, ArrayRef<Value> ivs) {
    for (auto [operand, value] : llvm::zip_equal(op.getDpsInitsMutable(), values))
      memref::StoreOp::create(rewriter, loc, value, operand.get(), indicesOf(operand, ivs));
  }

  /// True if every buffer operand is contiguous (identity layout) and
  /// indexed by the identity: then element i of the flattened iteration
  /// space is element i of every buffer, with no division per element.
  bool isFlat() {
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        continue;
      if (!type.getLayout().isIdentity() || !op.getMatchingIndexingMap(&operand).isIdentity())
        return false;
    }
    return true;
  }

  /// True if every buffer the op reads or writes along its last iteration
  /// dim indexes that dim with its own last index, and nowhere else, and
  /// every output does: then consecutive elements along the dim are
  /// consecutive in memory (buffers have identity layouts here, checked by
  /// vectorLanes), and a row of a buffer is as long as the dim.
  bool lastDimIsContiguous() {
    unsigned last = static_cast<unsigned>(sizes.size() - 1);
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        continue;
      if (!type.getLayout().isIdentity())
        return false;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!map.isFunctionOfDim(last)) {
        if (!op.isDpsInput(&operand))
          return false; // outputs cover the whole iteration space
        continue;
      }
      if (map.getNumResults() == 0 || map.getResults().back() != getAffineDimExpr(last, op.getContext()))
        return false;
      for (AffineExpr expr : map.getResults().drop_back())
        if (expr.isFunctionOfDim(last))
          return false;
      for (AffineExpr expr : map.getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(expr))
          return false;
    }
    return true;
  }

  /// An all-parallel op whose last dim is contiguous in every buffer (a
  /// broadcast of a row's value, say): each thread takes `lanes`
  /// consecutive elements of one row, as vectors when the rows start at
  /// vector boundaries (the last dim's size a multiple of `lanes`; decided
  /// at run time).
  void rewriteRows(int64_t lanes) {
    size_t last = sizes.size() - 1;
    SmallVector<unsigned> outerDims = llvm::to_vector(llvm::seq<unsigned>(0, last));
    Value rows = product(outerDims);
    Value groups = arith::CeilDivUIOp::create(rewriter, loc, sizes[last], index(lanes));
    Value threads = arith::MulIOp::create(rewriter, loc, rows, groups);
    Value linear = launchThreads(threads);
    SmallVector<Value> ivs(sizes.size());
    Value row = arith::DivUIOp::create(rewriter, loc, linear, groups);
    Value group = arith::RemUIOp::create(rewriter, loc, linear, groups);
    if (last > 0)
      delinearize(row, outerDims, ivs);
    ivs[last] = arith::MulIOp::create(rewriter, loc, group, index(lanes));
    Value remainder = arith::RemUIOp::create(rewriter, loc, sizes[last], index(lanes));
    Value aligned = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, remainder,
                                          index(0));
    rewriteLaneGroup(ivs, sizes[last], aligned, lanes);
  }

  /// Elements per thread in a flat op: 16 bytes' worth of the widest
  /// element when every buffer is 16-byte aligned and every element a whole
  /// number of bytes, else 1.
  int64_t vectorLanes() {
    constexpr int64_t kVectorBytes = 16;
    int64_t widest = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        continue;
      Type element = type.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
          knownAlignment(operand.get()) < kVectorBytes)
        return 1;
      widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
    }
    return widest ? std::max<int64_t>(kVectorBytes / widest, 1) : 1;
  }

  /// The buffer operands of a flat op, as 1-D views (made on the host).
  void flattenOperands() {
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || type.getRank() <= 1)
        continue;
      SmallVector<ReassociationIndices> reassociation{
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))};
      Value flat = memref::CollapseShapeOp::create(rewriter, loc, operand.get(), reassociation);
      operand.set(flat);
    }
  }

  void rewriteParallel() {
    SmallVector<unsigned> all = llvm::to_vector(llvm::seq<unsigned>(0, sizes.size()));
    Value total = product(all);
    bool usesIndices = llvm::any_of(op.getRegion().front(),
                                    [](Operation &inner) { return isa<linalg::IndexOp>(inner); });
    flat = !sizes.empty() && !usesIndices && isFlat();
    if (!flat && !sizes.empty() && !usesIndices) {
      if (int64_t lanes = vectorLanes(); lanes > 1 && lastDimIsContiguous())
        return rewriteRows(lanes);
    }
    int64_t lanes = flat ? vectorLanes() : 1;
    if (flat)
      flattenOperands();
    // Threads: one per element, or per group of `lanes` elements.
    Value threads = lanes == 1 ? total : arith::CeilDivUIOp::create(rewriter, loc, total, index(lanes));
    Value linear = launchThreads(threads);
    if (lanes > 1)
      return rewriteLaneGroup({arith::MulIOp::create(rewriter, loc, linear, index(lanes))}, total,
                              /*aligned=*/Value(), lanes);
    SmallVector<Value> ivs{linear};
    if (!flat) {
      ivs.resize(sizes.size());
      delinearize(linear, all, ivs);
    }
    storeOutputs(clonePayload(argumentsAt(ivs), ivs), ivs);
  }

  /// Whether the buffer `operand` is read along the last iteration dim
  /// (always, in a flat op).
  bool alongLastDim(OpOperand &operand) {
    if (flat)
      return true;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    return map.isFunctionOfDim(static_cast<unsigned>(sizes.size() - 1));
  }

  /// The body of the thread whose group of `lanes` elements along the last
  /// iteration dim starts at `ivs` (ivs[last] its first element; in a flat
  /// op, ivs is that one index): as vectors when the whole group is in the
  /// dim (`size` long) and `aligned` (rows start at vector boundaries; null:
  /// always), else element by element up to the end of the dim.
  void rewriteLaneGroup(SmallVector<Value> ivs, Value size, Value aligned, int64_t lanes) {
    size_t last = ivs.size() - 1;
    Value first = ivs[last];
    Value end = arith::AddIOp::create(rewriter, loc, first, index(lanes));
    Value whole = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule, end, size);
    if (aligned)
      whole = arith::AndIOp::create(rewriter, loc, whole, aligned);
    auto split = scf::IfOp::create(rewriter, loc, whole, /*withElseRegion=*/true);

    // A partial (or misaligned) group.
    rewriter.setInsertionPointToStart(&split.getElseRegion().front());
    auto loop = scf::ForOp::create(rewriter, loc, first,
                                   arith::MinUIOp::create(rewriter, loc, end, size), index(1));
    rewriter.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> scalarIvs = ivs;
    scalarIvs[last] = loop.getInductionVar();
    storeOutputs(clonePayload(argumentsAt(scalarIvs), scalarIvs), scalarIvs);

    // A whole group: one aligned vector access per buffer read along the
    // dim; a buffer that is not (a row's maximum, say) is read once.
    rewriter.setInsertionPointToStart(&split.getThenRegion().front());
    llvm::MaybeAlign alignment(16);
    auto vectorOf = [&](Value buffer) {
      return VectorType::get({lanes}, cast<MemRefType>(buffer.getType()).getElementType());
    };
    // Per block argument: its vector, or the scalar every lane shares.
    SmallVector<Value> loaded;
    Block &body = op.getRegion().front();
    for (OpOperand &operand : op->getOpOperands()) {
      Value source = operand.get();
      bool read = op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand);
      if (!isa<MemRefType>(source.getType()))
        loaded.push_back(source);
      else if (!read)
        loaded.push_back(ub::PoisonOp::create(
            rewriter, loc, body.getArgument(operand.getOperandNumber()).getType()));
      else if (!alongLastDim(operand))
        loaded.push_back(valueOf(operand, ivs));
      else
        loaded.push_back(vector::LoadOp::create(rewriter, loc, vectorOf(source), source,
                                                indicesOf(operand, ivs), /*nontemporal=*/false,
                                                alignment));
    }
    SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
    for (int64_t lane = 0; lane < lanes; ++lane) {
      SmallVector<Value> arguments;
      for (Value value : loaded)
        arguments.push_back(isa<VectorType>(value.getType())
                                ? Value(vector::ExtractOp::create(rewriter, loc, value, lane))
                                : value);
      SmallVector<Value> laneIvs = ivs;
      laneIvs[last] = arith::AddIOp::create(rewriter, loc, first, index(lane));
      for (auto [i, value] : llvm::enumerate(clonePayload(arguments, laneIvs)))
        results[i].push_back(value);
    }
    for (auto [operand, values] : llvm::zip_equal(op.getDpsInitsMutable(), results)) {
      Value buffer = operand.get();
      Value vector = vector::FromElementsOp::create(rewriter, loc, vectorOf(buffer), values);
      vector::StoreOp::create(rewriter, loc, vector, buffer, indicesOf(operand, ivs),
                              /*nontemporal=*/false, alignment);
    }
  }

  void rewriteReduction() {
    std::optional<SharedReduction> shared = sharedReduction(op);
    if (!shared) {
      gpu::LaunchOp launch = createLaunch(product(parallelDims), index(1));
      SmallVector<Value> ivs(sizes.size());
      delinearize(launch.getBlockIds().x, parallelDims, ivs);
      return reduceSerially(ivs);
    }
    // A block per output element, of as many warps as give each thread
    // kRowRegisters elements (one step), 1024 threads at most.
    Value warps = arith::CeilDivUIOp::create(rewriter, loc, product(reductionDims),
                                             index(32 * kRowRegisters));
    Value threads = arith::MulIOp::create(
        rewriter, loc, arith::MinUIOp::create(rewriter, loc, warps, index(32)), index(32));
    threads = arith::MaxUIOp::create(rewriter, loc, threads, index(32));
    gpu::LaunchOp launch = createLaunch(product(parallelDims), threads);
    SmallVector<Value> ivs(sizes.size());
    delinearize(launch.getBlockIds().x, parallelDims, ivs);
    reduceInBlock(*shared, ivs, launch.getThreadIds().x, launch.getBlockSizeX(), kRowRegisters);
  }

  /// One thread folds the whole reduction space at the parallel point
  /// `ivs` in order.
  void reduceSerially(SmallVector<Value> &ivs) {
    Value inner = product(reductionDims);
    SmallVector<Value> initial;
    for (OpOperand &operand : op.getDpsInitsMutable())
      initial.push_back(filled ? filled : valueOf(operand, ivs));
    auto loop = scf::ForOp::create(rewriter, loc, index(0), inner, index(1), initial);
    rewriter.setInsertionPointToStart(loop.getBody());
    delinearize(loop.getInductionVar(), reductionDims, ivs);
    SmallVector<Value> arguments = inputsAt(ivs);
    llvm::append_range(arguments, loop.getRegionIterArgs());
    scf::YieldOp::create(rewriter, loc, clonePayload(arguments, ivs));
    rewriter.setInsertionPointAfter(loop);
    storeOutputs(SmallVector<Value>(loop.getResults()), ivs);
  }

  /// The `threads` threads of a block share the reduction at the parallel
  /// point `ivs`: each folds elements thread, thread + B, ... into a
  /// register, `unroll` of them per step (all loaded first, the ones past
  /// the end from the step's first element and then dropped), all_reduce
  /// combines them, thread 0 folds the result into the output.
  void reduceInBlock(const SharedReduction &shared, SmallVector<Value> &ivs, Value thread,
                     Value threads, int64_t unroll) {
    Value inner = product(reductionDims);
    Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    Value identity =
        arith::ConstantOp::create(rewriter, loc, identityOf(shared.kind, element));
    Value step = arith::MulIOp::create(rewriter, loc, threads, index(unroll));
    auto loop = scf::ForOp::create(rewriter, loc, thread, inner, step, ValueRange{identity});
    rewriter.setInsertionPointToStart(loop.getBody());
    Value start = loop.getInductionVar();
    SmallVector<Value> inStep;
    SmallVector<SmallVector<Value>> inputs;
    SmallVector<SmallVector<Value>> points;
    for (int64_t k = 0; k < unroll; ++k) {
      Value at = k == 0 ? start
                        : arith::AddIOp::create(
                              rewriter, loc, start,
                              arith::MulIOp::create(rewriter, loc, threads, index(k)));
      Value valid = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, at, inner);
      inStep.push_back(valid);
      delinearize(arith::SelectOp::create(rewriter, loc, valid, at, start), reductionDims, ivs);
      points.push_back(ivs);
      inputs.push_back(inputsAt(ivs));
    }
    Value folded = loop.getRegionIterArgs()[0];
    for (int64_t k = 0; k < unroll; ++k) {
      SmallVector<Value> arguments = inputs[k];
      arguments.push_back(folded);
      Value next = clonePayload(arguments, points[k])[0];
      folded = arith::SelectOp::create(rewriter, loc, inStep[k], next, folded);
    }
    scf::YieldOp::create(rewriter, loc, folded);
    rewriter.setInsertionPointAfter(loop);
    auto reduced = gpu::AllReduceOp::create(
        rewriter, loc, element, loop.getResult(0),
        gpu::AllReduceOperationAttr::get(rewriter.getContext(), shared.kind),
        /*uniform=*/true);
    // Thread 0 folds the block's result into the output's initial value.
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, thread, index(0));
    auto guard = scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
    // (Outputs do not index reduction dims: their loop values are not read.)
    OpOperand &output = op.getDpsInitsMutable()[0];
    Value initial = filled ? filled : valueOf(output, ivs);
    IRMapping mapping;
    Operation *combine = rewriter.clone(*shared.combiner, mapping);
    combine->setOperand(shared.accumulatorOperand, initial);
    combine->setOperand(1 - shared.accumulatorOperand, reduced.getResult());
    storeOutputs(SmallVector<Value>(combine->getResults()), ivs);
    rewriter.setInsertionPointAfter(guard);
  }

  RewriterBase &rewriter;
  linalg::GenericOp op;
  Location loc;
  int64_t blockSize;
  SmallVector<Value> sizes;
  SmallVector<unsigned> parallelDims, reductionDims;
  /// Every buffer is viewed as 1-D and indexed by the thread's linear index.
  bool flat = false;
  /// The output's value before the op (a folded fill), or null.
  Value filled;
};

/// An op (with what it nests) that a GPU thread can run as it is: loads,
/// stores, views, arithmetic, math and structured control flow.
bool runsInAThread(Operation *op) {
  WalkResult walked = op->walk([](Operation *inner) {
    StringRef dialect = inner->getName().getDialectNamespace();
    bool fits = isa<memref::LoadOp, memref::StoreOp, memref::DimOp, memref::SubViewOp,
                    memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp,
                    affine::AffineApplyOp>(inner) ||
                dialect == "arith" || dialect == "math" || dialect == "scf" ||
                dialect == "index" || dialect == "ub";
    return fits ? WalkResult::advance() : WalkResult::interrupt();
  });
  return !walked.wasInterrupted();
}

bool touchesMemory(Operation *op) {
  return op->walk([](Operation *inner) {
           return isa<memref::LoadOp, memref::StoreOp>(inner) ? WalkResult::interrupt()
                                                              : WalkResult::advance();
         }).wasInterrupted();
}

/// A loop whose iterations are independent (`opal.parallel`, not over
/// rows: a cumsum's lines) runs one GPU thread per iteration, each running
/// the body as it is.
LogicalResult parallelLoopToLaunch(RewriterBase &rewriter, scf::ForOp loop, int64_t blockSize) {
  if (loop.getNumResults() != 0)
    return loop.emitError() << "opal-map-to-gpu: a parallel loop must not carry values";
  if (!runsInAThread(loop))
    return loop.emitError() << "opal-map-to-gpu: a parallel loop holds an op a GPU thread "
                               "cannot run";
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value span = arith::SubIOp::create(rewriter, loc, loop.getUpperBound(), loop.getLowerBound());
  Value count = arith::MaxSIOp::create(
      rewriter, loc, arith::CeilDivSIOp::create(rewriter, loc, span, loop.getStep()), zero);
  Value id = launchGuardedThreads(rewriter, loc, count, blockSize);
  IRMapping mapping;
  mapping.map(loop.getInductionVar(),
              arith::AddIOp::create(rewriter, loc, loop.getLowerBound(),
                                    arith::MulIOp::create(rewriter, loc, id, loop.getStep())));
  for (Operation &inner : loop.getBody()->without_terminator())
    rewriter.clone(inner, mapping);
  rewriter.eraseOp(loop);
  return success();
}

/// Whether `memref` (or a view of it) holds the same values when `reader`
/// (what holds a launch) runs as it did at `start` (a run's first op; both
/// in one block): every write to it comes before `start`, and its dealloc, if
/// any, after `reader`.
bool unchangedUntil(Value memref, Operation *start, Operation *reader) {
  Block *block = start->getBlock();
  SmallVector<Value> worklist{memref};
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::LoadOp, memref::DimOp>(user))
        continue;
      if (auto copy = dyn_cast<memref::CopyOp>(user); copy && copy.getSource() == buffer)
        continue;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
          linalgOp && linalgOp.isDpsInput(&use))
        continue;
      if (isa<ViewLikeOpInterface>(user)) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      Operation *at = block->findAncestorOpInBlock(*user);
      if (!at)
        return false;
      if (isa<memref::DeallocOp>(user) ? !reader->isBeforeInBlock(at)
                                       : !at->isBeforeInBlock(start))
        return false;
    }
  }
  return true;
}

/// The ops of a run (`inRun`, starting at `start`) that compute `value`, in
/// order, if a launch after the run (held by `reader`) can compute it again: loads
/// of buffers nothing changes in between and ops without memory effects or
/// regions; what the run did not compute comes from the host as it is.
std::optional<SmallVector<Operation *>>
recomputable(Value value, const llvm::SmallPtrSetImpl<Operation *> &inRun, Operation *start,
             Operation *reader) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !inRun.contains(def) || slice.contains(def))
      continue;
    auto load = dyn_cast<memref::LoadOp>(def);
    bool pure = def->getNumRegions() == 0 && isMemoryEffectFree(def);
    if ((!load && !pure) || (load && !unchangedUntil(load.getMemref(), start, reader)))
      return std::nullopt;
    slice.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// What is left on the host that reads or writes buffers (a scatter's loop
/// over its index, a cumsum of one line, or their bodies when a loop of one
/// iteration folded away) runs in one GPU thread, in order: each maximal
/// run of such ops in a block becomes a launch of one thread. A value the
/// run computes and a later launch reads (a data check reporting a
/// scatter's index) is computed again in that launch when it can be (a
/// load of a buffer nothing writes, arithmetic); otherwise it must not be
/// needed after the run.
LogicalResult hostRunsToLaunches(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<Block *> blocks;
  func->walk<WalkOrder::PreOrder>([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    Operation *parent = block->getParentOp();
    if (isa<gpu::LaunchOp>(parent) || parent->getParentOfType<gpu::LaunchOp>())
      continue;
    SmallVector<SmallVector<Operation *>> runs(1);
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (!op.hasTrait<OpTrait::IsTerminator>() && runsInAThread(&op) &&
          (!runs.back().empty() || touchesMemory(&op))) {
        runs.back().push_back(&op);
        continue;
      }
      // A buffer allocated inside a run (for a value the run stores) is
      // allocated before it instead, so the run goes on.
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (alloc && !runs.back().empty() && llvm::none_of(alloc->getOperands(), [&](Value v) {
            return llvm::is_contained(runs.back(), v.getDefiningOp());
          })) {
        alloc->moveBefore(runs.back().front());
        continue;
      }
      if (!runs.back().empty())
        runs.emplace_back();
    }
    for (SmallVector<Operation *> &run : runs) {
      while (!run.empty() && !touchesMemory(run.back()))
        run.pop_back(); // what follows the last access stays on the host
      if (run.empty())
        continue;
      llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
      for (Operation *op : run)
        for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
          Operation *user = use.getOwner();
          if (inRun.contains(block->findAncestorOpInBlock(*user)))
            continue;
          auto launch = user->getParentOfType<gpu::LaunchOp>();
          while (launch && launch->getParentOfType<gpu::LaunchOp>())
            launch = launch->getParentOfType<gpu::LaunchOp>();
          std::optional<SmallVector<Operation *>> slice;
          if (Operation *reader = launch ? block->findAncestorOpInBlock(*launch) : nullptr)
            slice = recomputable(use.get(), inRun, run.front(), reader);
          if (!slice)
            return user->emitError() << "opal-map-to-gpu: '" << user->getName()
                                     << "' uses on the host a value computed from device "
                                        "memory";
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(&launch.getBody().front());
          IRMapping mapping;
          for (Operation *computes : *slice)
            rewriter.clone(*computes, mapping);
          rewriter.modifyOpInPlace(user, [&] { use.set(mapping.lookup(use.get())); });
        }
      Location loc = run.front()->getLoc();
      rewriter.setInsertionPoint(run.front());
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      gpu::LaunchOp launch = createGuardedLaunch(rewriter, loc, one, one);
      Operation *terminator = launch.getBody().front().getTerminator();
      for (Operation *op : run)
        op->moveBefore(terminator);
    }
  }
  return success();
}

Value sizeBeforeLoop(RewriterBase &rewriter, Value buffer, int64_t index, scf::ForOp loop);

/// `value` (from a loop over rows' body) computed before `loop`, if it does
/// not depend on the row: a value from outside, a constant, or a dim of a
/// buffer (sizeBeforeLoop).
Value beforeLoop(RewriterBase &rewriter, Value value, scf::ForOp loop) {
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return loop->isProperAncestor(value.getParentBlock()->getParentOp()) ||
                   value.getParentBlock() == loop.getBody()
               ? Value()
               : value;
  if (!loop->isAncestor(producer))
    return value;
  if (auto constant = dyn_cast<arith::ConstantOp>(producer)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(loop);
    return rewriter.clone(*constant)->getResult(0);
  }
  if (auto dim = dyn_cast<memref::DimOp>(producer))
    if (std::optional<int64_t> index = dim.getConstantIndex())
      return sizeBeforeLoop(rewriter, dim.getSource(), *index, loop);
  return {};
}

/// The size of `buffer`'s dim `index` computed before `loop`, if it does
/// not depend on the row: a buffer from outside, or a view whose size does
/// not.
Value sizeBeforeLoop(RewriterBase &rewriter, Value buffer, int64_t index, scf::ForOp loop) {
  if (auto view = buffer.getDefiningOp<memref::SubViewOp>();
      view && loop->isAncestor(view)) {
    // The view's size along the result's dim `index` (unit dims dropped).
    llvm::SmallBitVector dropped = view.getDroppedDims();
    int64_t seen = -1;
    for (auto [sourceDim, size] : llvm::enumerate(view.getMixedSizes())) {
      if (dropped.test(sourceDim) || ++seen != index)
        continue;
      if (auto attr = dyn_cast<Attribute>(size)) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(loop);
        return arith::ConstantIndexOp::create(rewriter, view.getLoc(),
                                              cast<IntegerAttr>(attr).getInt());
      }
      return beforeLoop(rewriter, cast<Value>(size), loop);
    }
    return {};
  }
  Value source = beforeLoop(rewriter, buffer, loop);
  if (!source)
    return {};
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  return memref::DimOp::create(rewriter, loop.getLoc(), source, index);
}

/// The row length of a loop over rows whose every op can hold the row in
/// registers (computed before the loop), with each op's own length: one
/// loop at most per op (reductions shared ones with a 0-d output), buffers
/// either 1-d and indexed by that loop or 0-d, and every buffer written
/// reached through one value only.
std::optional<SmallVector<Value>> rowLengths(RewriterBase &rewriter, scf::ForOp loop) {
  SmallVector<Value> lengths;
  llvm::DenseMap<Value, Value> accessOf; // root -> the one value written through
  llvm::DenseSet<Value> writtenRoots;
  SmallVector<Value> buffers;
  for (Operation &inner : loop.getBody()->without_terminator()) {
    auto generic = dyn_cast<linalg::GenericOp>(inner);
    if (!generic)
      continue;
    unsigned loops = generic.getNumLoops();
    if (loops > 1 || generic.getNumDpsInits() == 0)
      return std::nullopt;
    if (generic.getNumReductionLoops() == 1 &&
        (generic.getNumDpsInits() != 1 || !sharedReduction(generic) ||
         cast<MemRefType>(generic.getDpsInits()[0].getType()).getRank() != 0))
      return std::nullopt;
    Value rowBuffer;
    for (OpOperand &operand : generic->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        continue;
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      bool element = type.getRank() == 1 && loops == 1 && map.isIdentity();
      if (!element && type.getRank() != 0)
        return std::nullopt;
      // An all-parallel op over the row writes whole rows.
      if (loops == 1 && generic.getNumReductionLoops() == 0 && !generic.isDpsInput(&operand) &&
          !element)
        return std::nullopt;
      if (element && !rowBuffer)
        rowBuffer = operand.get();
      if (!generic.isDpsInput(&operand))
        writtenRoots.insert(opal::ir::detail::rootOf(operand.get()));
      buffers.push_back(operand.get());
    }
    if (loops == 1) {
      if (!rowBuffer)
        return std::nullopt;
      Value length = sizeBeforeLoop(rewriter, rowBuffer, 0, loop);
      if (!length)
        return std::nullopt;
      lengths.push_back(length);
    }
  }
  for (Value buffer : buffers) {
    Value root = opal::ir::detail::rootOf(buffer);
    if (!writtenRoots.contains(root))
      continue;
    auto [it, inserted] = accessOf.try_emplace(root, buffer);
    if (!inserted && it->second != buffer)
      return std::nullopt;
  }
  if (lengths.empty())
    return std::nullopt;
  return lengths;
}

/// A loop over rows from opal-fuse-rows as one kernel: a block per row,
/// whose threads run the loop body's ops one after the other (each shared
/// among them: GenericToLaunch::rewriteInBlock) with a barrier after each,
/// so a row's maximum is in memory before its elements read it. Rows of up
/// to kRowRegisters * 1024 elements take a faster kernel where the ops
/// allow it: each thread holds its kRowRegisters elements of the row in
/// registers (every load issued up front, each buffer read once), and a
/// row's reduced values stay in registers too (RowRegisters). Fails
/// (leaving the loop) for a loop it does not recognize.
LogicalResult rowsToLaunch(RewriterBase &rewriter, scf::ForOp loop, int64_t blockSize) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (lower != 0 || step != 1 || loop.getNumResults() != 0)
    return loop.emitError() << "opal-map-to-gpu: a loop over rows must run from 0 by 1";
  for (Operation &inner : loop.getBody()->without_terminator())
    if (!isa<linalg::GenericOp, memref::SubViewOp, memref::DimOp>(inner) &&
        inner.getName().getDialectNamespace() != "arith")
      return inner.emitError() << "opal-map-to-gpu: '" << inner.getName()
                               << "' in a loop over rows has no GPU mapping";
  Location loc = loop.getLoc();
  // Equal views of one row become one value (each op made its own).
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, loop);
  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t value) { return arith::ConstantIndexOp::create(rewriter, loc, value); };
  if (std::optional<SmallVector<Value>> lengths = rowLengths(rewriter, loop)) {
    // Registers when every op's row is as long and 1 <= length <= 8 * 1024;
    // threads: a multiple of 32, at least one per kRowRegisters elements.
    Value length = lengths->front();
    Value fits = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, length, constant(1)),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule, length,
                              constant(kRowRegisters * 1024)));
    for (Value other : llvm::drop_begin(*lengths))
      fits = arith::AndIOp::create(
          rewriter, loc, fits,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, other, length));
    Value warps = arith::CeilDivUIOp::create(rewriter, loc, length, constant(32 * kRowRegisters));
    Value threads = arith::MulIOp::create(rewriter, loc, warps, constant(32));
    auto choice = scf::IfOp::create(rewriter, loc, fits, /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(&choice.getThenRegion().front());
    gpu::LaunchOp launch = createGuardedLaunch(rewriter, loc, loop.getUpperBound(), threads);
    Value thread = launch.getThreadIds().x;
    Value count = launch.getBlockSizeX();
    RowRegisters row;
    row.first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, thread, constant(0));
    for (int64_t k = 0; k < kRowRegisters; ++k) {
      Value element = arith::AddIOp::create(
          rewriter, loc, thread, arith::MulIOp::create(rewriter, loc, count, constant(k)));
      Value inRow = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, element, length);
      row.inRow.push_back(inRow);
      row.elements.push_back(arith::SelectOp::create(rewriter, loc, inRow, element, constant(0)));
    }
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), launch.getBlockIds().x);
    for (Operation &inner : loop.getBody()->without_terminator()) {
      Operation *copy = rewriter.clone(inner, mapping);
      if (auto generic = dyn_cast<linalg::GenericOp>(copy))
        GenericToLaunch(rewriter, generic, blockSize).rewriteInRegisters(row);
    }
    // Otherwise: the loop below, in the else branch.
    loop->moveBefore(choice.elseBlock()->getTerminator());
    rewriter.setInsertionPoint(loop);
  }
  Value threads = constant(blockSize);
  gpu::LaunchOp launch = createGuardedLaunch(rewriter, loc, loop.getUpperBound(), threads);
  Value thread = launch.getThreadIds().x;
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), launch.getBlockIds().x);
  for (Operation &inner : loop.getBody()->without_terminator()) {
    Operation *copy = rewriter.clone(inner, mapping);
    if (auto generic = dyn_cast<linalg::GenericOp>(copy)) {
      GenericToLaunch(rewriter, generic, blockSize).rewriteInBlock(thread);
      gpu::BarrierOp::create(rewriter, loc);
    }
  }
  rewriter.eraseOp(loop);
  return success();
}

/// The value a generic writes to every element of its one output, if it is
/// a fill: all-parallel, identity-indexed output, and a payload that yields
/// a scalar input or a value defined outside it. The value is usable on the
/// host (constants in the payload are not recognized).
Value fillValue(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return {};
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 1)
    return {};
  Value yielded = body.getTerminator()->getOperand(0);
  if (auto argument = dyn_cast<BlockArgument>(yielded)) {
    if (argument.getOwner() != &body || argument.getArgNumber() >= op.getNumDpsInputs())
      return {};
    Value input = op.getDpsInputs()[argument.getArgNumber()];
    return isa<ShapedType>(input.getType()) ? Value() : input;
  }
  return yielded.getParentRegion()->isProperAncestor(&op.getRegion()) ? yielded : Value();
}

/// Fills whose buffer the next op, a reduction, overwrites whole: the
/// reduction starts from the fill's value instead of reading it back, and
/// the fill's kernel goes (one launch fewer per reduction). Returns the
/// reductions with their initial values; the fills are erased.
llvm::DenseMap<Operation *, Value> foldFillsIntoReductions(RewriterBase &rewriter,
                                                          ArrayRef<linalg::GenericOp> generics) {
  llvm::DenseMap<Operation *, Value> initial;
  for (size_t i = 0; i + 1 < generics.size(); ++i) {
    linalg::GenericOp fill = generics[i], next = generics[i + 1];
    Value value = fillValue(fill);
    if (!value || next.getNumDpsInits() != 1 || next.getNumReductionLoops() == 0 ||
        next->getBlock() != fill->getBlock())
      continue;
    Value buffer = fill.getDpsInits()[0];
    // The reduction writes every element of its output once; nothing in
    // between may touch the buffer.
    if (next.getDpsInits()[0] != buffer ||
        llvm::any_of(next.getDpsInputs(), [&](Value input) { return input == buffer; }))
      continue;
    bool touched = false;
    for (Operation *between = fill->getNextNode(); between != next.getOperation();
         between = between->getNextNode())
      touched |= llvm::is_contained(between->getOperands(), buffer);
    if (touched)
      continue;
    initial[next] = value;
    rewriter.eraseOp(fill);
  }
  return initial;
}

struct OpalMapToGpu : public opal::ir::impl::OpalMapToGpuBase<OpalMapToGpu> {
  using OpalMapToGpuBase::OpalMapToGpuBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::vector<std::string> host(hostFunctions.begin(), hostFunctions.end());
    if (host.empty())
      host.push_back("opal_kernel_shapes");
    if (llvm::is_contained(host, func.getSymName().str()))
      return;
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0) {
      func.emitError() << "opal-map-to-gpu: block-size must be a multiple of 32 in [32, 1024], got "
                       << blockSize;
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    // Copies and named ops become generics.
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(), copy.getTarget());
    }
    SmallVector<linalg::LinalgOp> named;
    func.walk([&](linalg::LinalgOp linalgOp) {
      if (!isa<linalg::GenericOp>(linalgOp))
        named.push_back(linalgOp);
    });
    for (linalg::LinalgOp linalgOp : named) {
      rewriter.setInsertionPoint(linalgOp);
      if (failed(linalg::generalizeNamedOp(rewriter, linalgOp))) {
        linalgOp->emitError() << "opal-map-to-gpu: cannot generalize " << linalgOp->getName();
        return signalPassFailure();
      }
    }

    SmallVector<linalg::GenericOp> generics;
    func.walk([&](linalg::GenericOp generic) { generics.push_back(generic); });
    for (linalg::GenericOp generic : generics) {
      if (!generic.hasPureBufferSemantics()) {
        generic.emitError() << "opal-map-to-gpu: expected a linalg op on buffers (run "
                               "one-shot-bufferize first)";
        return signalPassFailure();
      }
      // A reduction's outputs are written once per point of its parallel
      // loops; one that a reduction loop indexes has no such point.
      SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
      for (OpOperand &init : generic.getDpsInitsMutable())
        for (AffineExpr result : generic.getMatchingIndexingMap(&init).getResults())
          for (auto [dim, iterator] : llvm::enumerate(iterators))
            if (iterator == utils::IteratorType::reduction && result.isFunctionOfDim(dim)) {
              generic.emitError() << "opal-map-to-gpu: output #"
                                  << init.getOperandNumber() - generic.getNumDpsInputs()
                                  << " is indexed by reduction loop d" << dim
                                  << "; it has no GPU mapping";
              return signalPassFailure();
            }
    }
    // Loops over rows (opal-fuse-rows) first: one kernel each.
    SmallVector<scf::ForOp> rowLoops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(opal::ir::kRowsAttrName))
        rowLoops.push_back(loop);
    });
    for (scf::ForOp loop : rowLoops)
      if (failed(rowsToLaunch(rewriter, loop, blockSize)))
        return signalPassFailure();
    generics.clear();
    func.walk([&](linalg::GenericOp generic) {
      if (!generic->getParentOfType<gpu::LaunchOp>())
        generics.push_back(generic);
    });
    llvm::DenseMap<Operation *, Value> initial = foldFillsIntoReductions(rewriter, generics);
    SmallVector<linalg::GenericOp> remaining;
    func.walk([&](linalg::GenericOp generic) {
      if (!generic->getParentOfType<gpu::LaunchOp>())
        remaining.push_back(generic);
    });
    for (linalg::GenericOp generic : remaining)
      GenericToLaunch(rewriter, generic, blockSize, initial.lookup(generic)).rewrite();
    // Loops on buffers whose iterations are independent (a cumsum's lines):
    // a thread per iteration; what else reads or writes buffers on the
    // host: one thread, in order.
    SmallVector<scf::ForOp> parallelLoops;
    func.walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (isa<gpu::LaunchOp>(inner))
        return WalkResult::skip();
      auto loop = dyn_cast<scf::ForOp>(inner);
      if (loop && loop->hasAttr(opal::ir::kParallelAttrName)) {
        parallelLoops.push_back(loop);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (scf::ForOp loop : parallelLoops)
      if (failed(parallelLoopToLaunch(rewriter, loop, blockSize)))
        return signalPassFailure();
    if (failed(hostRunsToLaunches(rewriter, func)))
      return signalPassFailure();

    // Host buffers become device buffers.
    SmallVector<Operation *> hostMemory;
    func.walk([&](Operation *inner) {
      if (isa<memref::AllocOp, memref::DeallocOp>(inner))
        hostMemory.push_back(inner);
    });
    for (Operation *inner : hostMemory) {
      rewriter.setInsertionPoint(inner);
      if (auto alloc = dyn_cast<memref::AllocOp>(inner)) {
        if (!alloc.getSymbolOperands().empty()) {
          alloc.emitError() << "opal-map-to-gpu: cannot allocate a buffer with a layout symbol "
                               "on the device";
          return signalPassFailure();
        }
        rewriter.replaceOpWithNewOp<gpu::AllocOp>(alloc, alloc.getType(), /*asyncToken=*/Type(),
                                                  ValueRange{}, alloc.getDynamicSizes(),
                                                  ValueRange{});
      } else {
        auto dealloc = cast<memref::DeallocOp>(inner);
        gpu::DeallocOp::create(rewriter, dealloc.getLoc(), /*asyncToken=*/Type(), ValueRange{},
                               dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      }
    }

    // Whatever still touches memory on the host cannot run: the buffers are
    // the device's.
    WalkResult result = func.walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (isa<gpu::LaunchOp>(inner))
        return WalkResult::skip();
      if (isa<memref::LoadOp, memref::StoreOp, memref::AllocaOp>(inner) ||
          inner->getName().getDialectNamespace() == "vector" ||
          inner->getName().getDialectNamespace() == "linalg") {
        inner->emitError() << "opal-map-to-gpu: '" << inner->getName()
                           << "' would access device memory from the host; it has no GPU "
                              "mapping";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};

} // namespace
