//===- Parallelize.cpp - The opal-parallelize pass ------------------------===//
//
// Splits a bufferized kernel's loop nests over threads of the OpenMP runtime.
//
// A nest that may split is
//   - a linalg op at the top of a function, or in the branches of scf.ifs
//     there (a choice made per call), not in a loop: split along one of its loops
//     that every operand indexes by that loop alone (or not at all). A
//     parallel loop is preferred (each thread writes its own part of the
//     outputs); else a reduction loop, when every output's body is one
//     combining op with a neutral element (addf, maxnumf, ori, ...): each
//     thread reduces its part into a private partial output, and the
//     partials are combined into the output in thread order afterwards, so
//     the result is the same for the same number of threads;
//     A memref.copy of a whole buffer (a clone) splits as a linalg.copy;
//   - an scf.for marked `opal.parallel` (the row loops of opal-fuse-rows,
//     the register tiles of opal-tile-matmul and its packing of B, a
//     pointwise convolution's images): its iterations are independent.
//     Buffers allocated before it and used only inside it are scratch: each
//     thread allocates its own. Its work is its iterations times
//     `opal.parallel_work` where the loop says what one iteration does. It
//     forks no more threads than it has iterations; on one thread it gives
//     its threads back before it runs, so that marked loops inside it (which
//     split too, inner ones first) take them: a batch of one image splits
//     the image's product, a batch of many the images.
// The nest moves into a new function of the range it runs (`begin`, `end`
// and the values it uses), and in its place the kernel asks the runtime
// how many threads the nest's work deserves (opal_parallel_begin, which
// returns 1 for small work: then the function runs on the caller's thread
// with no fork), and otherwise runs it in an omp.parallel region of n
// threads, where thread t calls it on the t-th of n contiguous parts of
// the range (of as many as the team has threads, should it have fewer).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Runtime/Parallel.h"

#include "Outlining.h"
#include "PrimUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALPARALLELIZE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

constexpr const char *kBeginName = "opal_parallel_begin";
constexpr const char *kEndName = "opal_parallel_end";
constexpr const char *kThreadName = "opal_parallel_thread";
constexpr const char *kTeamName = "opal_parallel_team";

/// How one output of a reduction split is combined: its combining op and
/// that op's neutral element.
struct Combiner {
  Operation *op;
  TypedAttr neutral;
  unsigned carriedOperand; ///< which operand of `op` is the output's value
};

/// A nest that may split, and how.
struct Nest {
  Operation *op = nullptr; ///< a linalg op or an scf.for
  int64_t dim = -1;        ///< the linalg op's loop that splits
  bool reduction = false;  ///< that loop is a reduction (partials)
  SmallVector<Combiner> combiners;
};

/// The one result position of `map` that is exactly loop `dim`, -1 when
/// the loop is not used, or nullopt when it is used in another way.
std::optional<int64_t> plainResult(AffineMap map, int64_t dim) {
  std::optional<int64_t> found = -1;
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isFunctionOfDim(dim))
      continue;
    auto plain = dyn_cast<AffineDimExpr>(expr);
    if (!plain || *found >= 0)
      return std::nullopt;
    found = static_cast<int64_t>(position);
  }
  return found;
}

/// Every output's body is one combining op with a neutral element.
std::optional<SmallVector<Combiner>> combinersOf(linalg::LinalgOp op) {
  SmallVector<BlockArgument> carriedArgs(op.getRegionOutputArgs());
  SmallVector<Combiner> combiners;
  for (auto [position, carried] : llvm::enumerate(carriedArgs)) {
    SmallVector<Operation *> ops;
    Value reduced = matchReduction(carriedArgs, position, ops);
    if (!reduced || ops.size() != 1 || ops[0]->getNumOperands() != 2)
      return std::nullopt;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(ops[0]);
    if (!neutral)
      return std::nullopt;
    unsigned carriedOperand = ops[0]->getOperand(0) == carried ? 0 : 1;
    if (ops[0]->getOperand(carriedOperand) != carried)
      return std::nullopt;
    combiners.push_back({ops[0], *neutral, carriedOperand});
  }
  return combiners;
}

/// How `op` splits, if it does: the first parallel loop that every operand
/// indexes plainly (and that is not of static size 1), else the first such
/// reduction loop when the outputs' bodies are plain combinations.
std::optional<Nest> linalgNest(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  // Loops of a small static nest stay as they are (no code for threads).
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  int64_t staticWork = 1;
  bool dynamic = false;
  for (int64_t size : sizes) {
    if (ShapedType::isDynamic(size))
      dynamic = true;
    else
      staticWork *= std::max<int64_t>(size, 0);
  }
  if (!dynamic && staticWork < 2 * opal::kParallelGrain)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto splits = [&](int64_t dim) {
    if (sizes[dim] == 1)
      return false;
    return llvm::all_of(maps, [&](AffineMap map) { return plainResult(map, dim).has_value(); });
  };
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t dim = 0; dim < op.getNumLoops(); ++dim)
    if (iterators[dim] == utils::IteratorType::parallel && splits(dim))
      return Nest{op, dim, false, {}};
  std::optional<SmallVector<Combiner>> combiners;
  for (int64_t dim = 0; dim < op.getNumLoops(); ++dim)
    if (iterators[dim] == utils::IteratorType::reduction && splits(dim)) {
      if (!combiners)
        combiners = combinersOf(op);
      if (!combiners)
        return std::nullopt;
      // The outputs must be whole buffers the partials can stand in for.
      for (Value init : op.getDpsInits()) {
        auto type = cast<MemRefType>(init.getType());
        if (!type.getLayout().isIdentity())
          return std::nullopt;
      }
      return Nest{op, dim, true, *combiners};
    }
  return std::nullopt;
}

/// Builds index arithmetic at one place.
struct Arith {
  OpBuilder &b;
  Location loc;
  Value index(int64_t value) { return arith::ConstantIndexOp::create(b, loc, value); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, Value y) { return arith::CeilDivSIOp::create(b, loc, x, y); }
  Value toI64(Value x) { return arith::IndexCastOp::create(b, loc, b.getI64Type(), x); }
  Value toIndex(Value x) { return arith::IndexCastOp::create(b, loc, b.getIndexType(), x); }
  /// The elements of a buffer.
  Value elements(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    Value product = index(1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      product = mul(product, memref::DimOp::create(b, loc, buffer, dim));
    return product;
  }
};

class Parallelizer {
public:
  Parallelizer(ModuleOp module) : module(module), symbols(module) {}

  /// Declares the runtime's functions the kernels call.
  void declareRuntime() {
    Builder b(module.getContext());
    Type i64 = b.getI64Type();
    using opal::ir::detail::declareFunction;
    declareFunction(module, kBeginName, b.getFunctionType({i64}, {i64}));
    declareFunction(module, kEndName, b.getFunctionType({i64, i64}, {}));
    declareFunction(module, kThreadName, b.getFunctionType({}, {i64}));
    declareFunction(module, kTeamName, b.getFunctionType({}, {i64}));
  }

  void run(func::FuncOp func, const Nest &nest) {
    Location loc = nest.op->getLoc();
    OpBuilder b(nest.op);
    Arith a{b, loc};
    // The range that splits, and the work of the whole nest.
    Value count, work;
    auto loop = dyn_cast<scf::ForOp>(nest.op);
    SmallVector<Operation *> scratch;
    if (loop) {
      scratch = scratchOf(loop); // (before anything here uses them)
      count = a.ceilDiv(a.sub(loop.getUpperBound(), loop.getLowerBound()), loop.getStep());
      count = a.max(count, a.index(0));
      if (auto perIteration = loop->getAttrOfType<IntegerAttr>(opal::ir::kParallelWorkAttrName))
        work = a.mul(count, a.index(perIteration.getInt())); // (>= 1: checked)
      else
        work = loopWork(a, loop, count, scratch);
    } else {
      auto op = cast<linalg::LinalgOp>(nest.op);
      SmallVector<Range> ranges = op.createLoopRanges(b, loc);
      work = a.index(1);
      for (auto [dim, range] : llvm::enumerate(ranges)) {
        Value size = getValueOrCreateConstantIndexOp(b, loc, range.size);
        work = a.mul(work, size);
        if (static_cast<int64_t>(dim) == nest.dim)
          count = size;
      }
    }
    Value work64 = a.toI64(work);
    Value granted =
        func::CallOp::create(b, loc, kBeginName, b.getI64Type(), work64).getResult(0);
    // A loop forks no more threads than it has iterations: a loop of one
    // iteration (a batch of one image) runs on the caller's thread, and
    // gives its threads back first, for the nests inside it.
    Value threads = loop ? a.min(granted, a.toI64(count)) : granted;

    // The nest as a function of (begin, end, outputs of a reduction, used values).
    llvm::SetVector<Value> used;
    if (loop) {
      getUsedValuesDefinedAbove(loop.getRegion(), loop.getRegion(), used);
      for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        used.insert(bound);
      for (Operation *alloc : scratch)
        used.remove(alloc->getResult(0));
      for (Operation *alloc : scratch)
        for (Value size : alloc->getOperands())
          used.insert(size);
    } else {
      for (Value operand : nest.op->getOperands())
        if (!nest.reduction || !llvm::is_contained(cast<linalg::LinalgOp>(nest.op).getDpsInits(),
                                                  operand))
          used.insert(operand);
      getUsedValuesDefinedAbove(nest.op->getRegion(0), nest.op->getRegion(0), used);
    }
    // Constants and views are cloned into the function rather than passed,
    // so that every buffer it takes is a whole one: a kernel argument, an
    // allocation or a global, none a view of another.
    llvm::SetVector<Value> passedSet;
    llvm::SetVector<Operation *> cloned;
    opal::ir::detail::splitUsedValues(used.getArrayRef(), passedSet, cloned);
    SmallVector<Value> passed(passedSet.begin(), passedSet.end());
    SmallVector<Operation *> constants(cloned.begin(), cloned.end());
    SmallVector<Value> outputs; // a reduction's outputs, as the function sees them
    SmallVector<Type> outputTypes;
    if (nest.reduction)
      for (Value init : cast<linalg::LinalgOp>(nest.op).getDpsInits()) {
        outputs.push_back(init);
        outputTypes.push_back(partialType(cast<MemRefType>(init.getType())));
      }
    func::FuncOp part = outline(func, nest, passed, constants, outputTypes, scratch);

    auto call = [&](OpBuilder &builder, Value begin, Value end, ValueRange outs) {
      SmallVector<Value> operands{begin, end};
      llvm::append_range(operands, outs);
      llvm::append_range(operands, passed);
      func::CallOp::create(builder, loc, part, operands);
    };
    Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
    Value multi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, threads, one);
    auto branch = scf::IfOp::create(b, loc, multi, /*withElseRegion=*/true);
    auto giveBack = [&](OpBuilder &builder) {
      func::CallOp::create(builder, loc, kEndName, TypeRange(), ValueRange{work64, granted});
    };
    {
      // One thread: the whole range, into the outputs themselves.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.elseBlock());
      giveBack(b);
      SmallVector<Value> outs;
      for (auto [output, type] : llvm::zip(outputs, outputTypes))
        outs.push_back(memref::CastOp::create(b, loc, type, output));
      call(b, a.index(0), count, outs);
    }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      // A reduction's partial outputs, one per thread, start neutral.
      SmallVector<Value> partials;
      for (auto [output, combiner] : llvm::zip(outputs, nest.combiners)) {
        auto type = cast<MemRefType>(output.getType());
        SmallVector<int64_t> shape{ShapedType::kDynamic};
        llvm::append_range(shape, type.getShape());
        SmallVector<Value> dynamic{a.toIndex(threads)};
        for (int64_t dim = 0; dim < type.getRank(); ++dim)
          if (type.isDynamicDim(dim))
            dynamic.push_back(memref::DimOp::create(b, loc, output, dim));
        Value partial = memref::AllocOp::create(
            b, loc, MemRefType::get(shape, type.getElementType()), dynamic);
        Value neutral = arith::ConstantOp::create(b, loc, combiner.neutral);
        linalg::FillOp::create(b, loc, neutral, partial);
        partials.push_back(partial);
      }
      omp::ParallelOperands clauses;
      clauses.numThreads = arith::TruncIOp::create(b, loc, b.getI32Type(), threads);
      auto region = omp::ParallelOp::create(b, loc, clauses);
      b.createBlock(&region.getRegion());
      // Thread t of the team runs the t-th of as many contiguous parts of
      // the range as the team has threads: the n asked for, or fewer
      // should the runtime give fewer (a region inside another one). No
      // loop over parts: a statically scheduled omp.wsloop over [0, n)
      // made an elementwise kernel's compile take twice as long as
      // without threads, this 1.4 times. The thread's number and the
      // team's size come from the runtime, which asks libomp by its
      // __kmpc_* names (GCC's libgomp, which PyTorch loads, defines
      // omp_get_thread_num too).
      Value thread = a.toIndex(
          func::CallOp::create(b, loc, kThreadName, b.getI64Type(), ValueRange{}).getResult(0));
      Value team = a.toIndex(
          func::CallOp::create(b, loc, kTeamName, b.getI64Type(), ValueRange{}).getResult(0));
      Value chunk = a.ceilDiv(count, team);
      Value begin = a.min(a.mul(thread, chunk), count);
      Value end = a.min(a.add(begin, chunk), count);
      SmallVector<Value> outs;
      for (auto [partial, type] : llvm::zip(partials, outputTypes))
        outs.push_back(partialOf(b, loc, partial, thread, cast<MemRefType>(type)));
      call(b, begin, end, outs);
      omp::TerminatorOp::create(b, loc);
      b.setInsertionPointAfter(region);
      for (auto [partial, output, combiner] : llvm::zip(partials, outputs, nest.combiners)) {
        combine(b, loc, partial, output, combiner);
        memref::DeallocOp::create(b, loc, partial);
      }
      giveBack(b);
    }
    for (Operation *alloc : scratch)
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
    nest.op->erase();
    for (Operation *alloc : scratch)
      alloc->erase();
  }

private:
  /// The work of a marked loop: its iterations times those of the loops
  /// its body starts with (whose bounds are known before it), or the
  /// elements of the largest buffer it reads or writes, whichever is more.
  Value loopWork(Arith &a, scf::ForOp loop, Value count, ArrayRef<Operation *> scratch) {
    Value work = count;
    Block *body = loop.getBody();
    while (body) {
      scf::ForOp inner;
      for (Operation &op : *body)
        if ((inner = dyn_cast<scf::ForOp>(op)))
          break;
      if (!inner)
        break;
      bool outside = llvm::all_of(inner->getOperands().take_front(3), [&](Value v) {
        return !loop.getRegion().isAncestor(v.getParentRegion());
      });
      if (!outside)
        break;
      Value trips = a.ceilDiv(a.sub(inner.getUpperBound(), inner.getLowerBound()),
                              inner.getStep());
      work = a.mul(work, a.max(trips, a.index(1)));
      body = inner.getBody();
    }
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop.getRegion(), loop.getRegion(), used);
    for (Value value : used)
      if (isa<MemRefType>(value.getType()) &&
          !llvm::is_contained(scratch, value.getDefiningOp()))
        work = a.max(work, a.elements(value));
    return work;
  }

  /// Buffers allocated before `loop` in its block and used only inside it
  /// (and freed after it): each thread's own.
  SmallVector<Operation *> scratchOf(scf::ForOp loop) {
    SmallVector<Operation *> scratch;
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      bool inside = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
        return isa<memref::DeallocOp>(user) || loop->isAncestor(user);
      });
      bool usedInside = llvm::any_of(alloc->getUsers(),
                                     [&](Operation *user) { return loop->isAncestor(user); });
      if (inside && usedInside)
        scratch.push_back(alloc);
    }
    return scratch;
  }

  /// The type both a reduction's output and a thread's partial of it are
  /// passed as: the layout of one slice of the partials.
  static MemRefType partialType(MemRefType output) {
    SmallVector<int64_t> strides(output.getRank(), ShapedType::kDynamic);
    if (output.getRank() > 0)
      strides.back() = 1;
    auto layout = StridedLayoutAttr::get(output.getContext(), ShapedType::kDynamic, strides);
    return MemRefType::get(output.getShape(), output.getElementType(), layout);
  }

  /// Slice `thread` of the partials, as `type`.
  static Value partialOf(OpBuilder &b, Location loc, Value partials, Value thread,
                         MemRefType type) {
    auto partialsType = cast<MemRefType>(partials.getType());
    int64_t rank = partialsType.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes, strides(rank, b.getIndexAttr(1));
    offsets[0] = thread;
    sizes.push_back(b.getIndexAttr(1));
    for (int64_t dim = 1; dim < rank; ++dim)
      sizes.push_back(memref::getMixedSize(b, loc, partials, dim));
    auto sliceType = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        type.getShape(), partialsType, offsets, sizes, strides));
    Value reduced =
        memref::SubViewOp::create(b, loc, sliceType, partials, offsets, sizes, strides);
    if (sliceType == type)
      return reduced;
    return memref::CastOp::create(b, loc, type, reduced);
  }

  /// output = combine(output, partial[0]), then partial[1], ...: a
  /// reduction over the partials' first dim, in order.
  static void combine(OpBuilder &b, Location loc, Value partials, Value output,
                      const Combiner &combiner) {
    auto type = cast<MemRefType>(output.getType());
    int64_t rank = type.getRank();
    MLIRContext *context = b.getContext();
    AffineMap all = AffineMap::getMultiDimIdentityMap(rank + 1, context);
    AffineMap rest = all.dropResult(0);
    SmallVector<utils::IteratorType> iterators{utils::IteratorType::reduction};
    iterators.append(rank, utils::IteratorType::parallel);
    linalg::GenericOp::create(
        b, loc, TypeRange(), ValueRange{partials}, ValueRange{output},
        ArrayRef<AffineMap>{all, rest}, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          IRMapping mapping;
          Operation *op = combiner.op;
          mapping.map(op->getOperand(combiner.carriedOperand), args[1]);
          mapping.map(op->getOperand(1 - combiner.carriedOperand), args[0]);
          Operation *combined = nested.clone(*op, mapping);
          linalg::YieldOp::create(nested, nestedLoc, combined->getResult(0));
        });
  }

  /// The function that runs `nest` on [begin, end) of its range.
  func::FuncOp outline(func::FuncOp func, const Nest &nest, ArrayRef<Value> passed,
                       ArrayRef<Operation *> constants, ArrayRef<Type> outputTypes,
                       ArrayRef<Operation *> scratch) {
    Location loc = nest.op->getLoc();
    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(func);
    SmallVector<Type> leading{b.getIndexType(), b.getIndexType()};
    llvm::append_range(leading, outputTypes);
    IRMapping mapping;
    func::FuncOp part = opal::ir::detail::createPart(b, symbols, func, loc, leading, passed,
                                                     constants, mapping);
    Block *entry = &part.getBody().front();
    Arith a{b, loc};
    Value begin = entry->getArgument(0), end = entry->getArgument(1);

    if (auto loop = dyn_cast<scf::ForOp>(nest.op)) {
      SmallVector<Operation *> own;
      for (Operation *alloc : llvm::reverse(scratch))
        own.push_back(b.clone(*alloc, mapping));
      Value lower = mapping.lookup(loop.getLowerBound());
      Value upper = mapping.lookup(loop.getUpperBound());
      Value step = mapping.lookup(loop.getStep());
      Value first = a.add(lower, a.mul(begin, step));
      Value last = a.min(a.add(lower, a.mul(end, step)), upper);
      auto clone = cast<scf::ForOp>(b.clone(*loop, mapping));
      clone.getLowerBoundMutable().assign(first);
      clone.getUpperBoundMutable().assign(last);
      clone->removeAttr(opal::ir::kParallelAttrName);
      for (Operation *alloc : own)
        memref::DeallocOp::create(b, loc, alloc->getResult(0));
    } else {
      auto op = cast<linalg::LinalgOp>(nest.op);
      SmallVector<Value> operands;
      unsigned output = 0;
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = operand.get();
        bool reductionOutput = nest.reduction && op.isDpsInit(&operand);
        Value mapped = reductionOutput ? entry->getArgument(2 + output++)
                                       : mapping.lookupOrDefault(value);
        std::optional<int64_t> position =
            isa<MemRefType>(value.getType())
                ? plainResult(op.getMatchingIndexingMap(&operand), nest.dim)
                : std::nullopt;
        if (position && *position >= 0)
          mapped = rangeOf(b, loc, mapped, *position, begin, end);
        operands.push_back(mapped);
      }
      Operation *clone = b.clone(*op, mapping);
      clone->setOperands(operands);
      // linalg.index of the split loop counts from the range's start.
      clone->walk([&](linalg::IndexOp index) {
        if (static_cast<int64_t>(index.getDim()) != nest.dim)
          return;
        OpBuilder after(index.getContext());
        after.setInsertionPointAfter(index);
        Value shifted = arith::AddIOp::create(after, index.getLoc(), index, begin);
        index.getResult().replaceAllUsesExcept(shifted, shifted.getDefiningOp());
      });
    }
    func::ReturnOp::create(b, loc);
    return part;
  }

  /// `buffer` restricted to [begin, end) along `dim`.
  static Value rangeOf(OpBuilder &b, Location loc, Value buffer, int64_t dim, Value begin,
                       Value end) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes,
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(memref::getMixedSize(b, loc, buffer, d));
    offsets[dim] = begin;
    sizes[dim] = arith::SubIOp::create(b, loc, end, begin).getResult();
    return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
  }

  ModuleOp module;
  SymbolTable symbols;
};

struct OpalParallelize : public opal::ir::impl::OpalParallelizeBase<OpalParallelize> {
  using OpalParallelizeBase::OpalParallelizeBase;

  /// A copy of a whole buffer (a result that is an input, a clone) is a
  /// memref.copy, one memcpy on one thread: where it is large enough to
  /// split, it becomes a linalg.copy, which splits like any linalg op.
  static void copiesAsLinalg(func::FuncOp func) {
    for (auto copy : llvm::make_early_inc_range(func.getBody().front().getOps<memref::CopyOp>())) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!source || !target || source.getRank() == 0)
        continue;
      OpBuilder b(copy);
      auto linalgCopy =
          linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      if (linalgNest(cast<linalg::LinalgOp>(linalgCopy.getOperation()))) {
        copy->erase();
      } else {
        linalgCopy->erase();
      }
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<func::FuncOp, Nest>> nests;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration() || func->hasAttr(opal::ir::kParallelPartAttrName))
        continue;
      copiesAsLinalg(func);
      // Linalg ops that run once per call: at the top of the function, or
      // in the branches of a choice made per call (a convolution's path),
      // not inside a loop.
      func.walk([&](linalg::LinalgOp linalgOp) {
        for (Operation *parent = linalgOp->getParentOp(); parent != func.getOperation();
             parent = parent->getParentOp())
          if (!isa<scf::IfOp>(parent))
            return;
        if (std::optional<Nest> nest = linalgNest(linalgOp))
          nests.push_back({func, *nest});
      });
      // Inner loops first (post-order): a marked loop inside another one
      // splits too, for the calls whose outer loop runs on one thread (the
      // outer loop of one iteration); inside the outer loop's threads, the
      // runtime grants its nests one thread each.
      bool bad = false;
      func.walk<WalkOrder::PostOrder>([&](scf::ForOp loop) {
        if (!loop->hasAttr(opal::ir::kParallelAttrName))
          return WalkResult::advance();
        if (Attribute work = loop->getAttr(opal::ir::kParallelWorkAttrName)) {
          auto elements = dyn_cast<IntegerAttr>(work);
          if (!elements || elements.getInt() < 1) {
            loop.emitError() << "opal-parallelize: " << opal::ir::kParallelWorkAttrName
                             << " must be a positive integer (the elements one iteration "
                                "moves), got "
                             << work;
            bad = true;
            return WalkResult::interrupt();
          }
        }
        nests.push_back({func, Nest{loop, -1, false, {}}});
        return WalkResult::advance();
      });
      if (bad)
        return signalPassFailure();
    }
    if (nests.empty())
      return;
    Parallelizer parallelizer(module);
    parallelizer.declareRuntime();
    for (auto &[func, nest] : nests)
      parallelizer.run(func, nest);
  }
};

} // namespace
