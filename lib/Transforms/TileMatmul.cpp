//===- TileMatmul.cpp - The opal-tile-matmul pass -------------------------===//
//
// Matrix products on buffers, for CPU caches and registers.
//
// A float product whose operands are buffers of one element type with
// contiguous rows (dense, or views of them) becomes explicit loops: blocks of `tile-k` x `tile-n` of B, each
// copied into a buffer as panels one vector wide (contiguous, and kept in
// the L2 cache), and in each block, tiles of `tile-m` rows by one vector of
// columns of C held in registers while k runs: per k, one vector load of a
// row of B, one broadcast per row of A, one fused multiply-add per row. The
// last rows (fewer than `tile-m`) run as tiles of the powers of two below
// `tile-m` rows (4 and 2 for 6), each where that many are left, and one
// row; the vectors of the last columns are masked: the loops hold no
// scalar remainder loops, which LLVM would vectorize again at great cost in
// compile time.
//
// B may also come transposed ([n, k], indexing maps B[j, k]: linear's
// weight, read in place): its block is packed into the same panels by
// opal's runtime (Runtime/Packing.h), which the kernel calls per panel.
// With `direct-rows`, a call of a product in rows with at most that many
// rows skips the packing and its tiles read B where it is.
//
// Other products (integers, mixed types, strided views) keep the earlier
// scheme: loops reordered to (batch,) i, k, j so the inner loop is a
// contiguous, vectorizable row update, with k and j tiled for the L2 cache.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALTILEMATMUL
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// Whether the rows of `type` are contiguous: an identity layout, or a
/// strided one (a view: any offset and outer strides) whose last stride is
/// 1.
bool hasContiguousRows(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return !strides.empty() && strides.back() == 1;
}

/// How a product reads B: B[k, j] (the standard indexing) or B[j, k] (a
/// transposed operand: linear's weight).
enum class BOrder { None, Rows, Transposed };

/// Rows or Transposed if `op` computes C += A * B (batched or not) with the
/// standard indexing or B transposed, on float buffers of one element type
/// whose rows are contiguous; else None.
BOrder registerTiling(linalg::LinalgOp op) {
  Type element;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !hasContiguousRows(type))
      return BOrder::None;
    if (element && type.getElementType() != element)
      return BOrder::None;
    element = type.getElementType();
  }
  if (!element || !(element.isF32() || element.isF64()))
    return BOrder::None;
  // The standard maps: (b,) i, j, k -> A[(b,) i, k], B[(b,) k, j], C[(b,) i, j].
  MLIRContext *context = op.getContext();
  bool batched = isa<linalg::BatchMatmulOp>(op);
  unsigned dims = batched ? 4 : 3;
  auto map = [&](ArrayRef<unsigned> positions) {
    SmallVector<AffineExpr> results;
    for (unsigned position : positions)
      results.push_back(getAffineDimExpr(position, context));
    return AffineMap::get(dims, 0, results, context);
  };
  SmallVector<AffineMap> rows =
      batched ? SmallVector<AffineMap>{map({0, 1, 3}), map({0, 3, 2}), map({0, 1, 2})}
              : SmallVector<AffineMap>{map({0, 2}), map({2, 1}), map({0, 1})};
  SmallVector<AffineMap> transposed =
      batched ? SmallVector<AffineMap>{map({0, 1, 3}), map({0, 2, 3}), map({0, 1, 2})}
              : SmallVector<AffineMap>{map({0, 2}), map({1, 2}), map({0, 1})};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps == rows ? BOrder::Rows : maps == transposed ? BOrder::Transposed : BOrder::None;
}

/// Where a product's sums start, when the ops around it say: C filled
/// with a value right before the product (linalg.fill), or the product
/// written to a buffer only to be added to a bias along its columns right
/// after (linear, addmm: a temporary C, then D = C + bias[j]). The register
/// tiles then start their first block of k from the value or the bias, and
/// the fill, the addition and the temporary go.
struct ProductStart {
  linalg::FillOp fill;        ///< the fill of C right before, if any
  Value fillValue;            ///< its value
  /// A loop whose only op that touches memory is the product (a
  /// convolution's kernel positions), between the fill, if any, and it:
  /// the loop runs inside the register tiles.
  scf::ForOp loop;
  linalg::GenericOp addition; ///< D = C + bias[j] right after, if any
  Value bias, into;           ///< its bias and D
  /// A generic right before that writes each row of C with one value (a
  /// convolution's bias per filter: writesIndexedValues), if any.
  linalg::GenericOp rowStart;
};

/// Whether `op` is D[i, j] = C[i, j] + bias[j] (either order of the
/// operands of one arith.addf) over `c`.
bool addsBias(linalg::GenericOp op, Value c) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op->getNumResults() != 0 ||
      op.getNumLoops() != 2 || op.getNumParallelLoops() != 2 ||
      op.getDpsInputOperand(0)->get() != c)
    return false;
  MLIRContext *context = op.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  AffineMap columns = AffineMap::get(2, 0, {getAffineDimExpr(1, context)}, context);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps != SmallVector<AffineMap>{identity, columns, identity})
    return false;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto sum = dyn_cast<arith::AddFOp>(body.front());
  auto yield = dyn_cast<linalg::YieldOp>(body.back());
  if (!sum || !yield || yield->getOperand(0) != sum.getResult())
    return false;
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (sum.getLhs() == x && sum.getRhs() == y) || (sum.getLhs() == y && sum.getRhs() == x);
}

/// What starts `op`'s sums (see ProductStart); `order`: how it reads B.
ProductStart productStart(linalg::LinalgOp op, BOrder order) {
  ProductStart start;
  Value c = op->getOperand(2);
  // Ops that may stand between the product and what starts it: the views
  // of A and B, and loads from buffers other than C (a convolution's table
  // of kernel positions' offsets).
  auto harmless = [&](Operation *inner) {
    if (isMemoryEffectFree(inner))
      return true;
    auto load = dyn_cast<memref::LoadOp>(inner);
    return load && load.getMemRef().getDefiningOp<memref::AllocOp>() &&
           load.getMemRef() != opal::ir::detail::rootOf(c);
  };
  // The op before `from` that touches memory.
  auto touching = [&](Operation *from) {
    Operation *before = from->getPrevNode();
    while (before && harmless(before))
      before = before->getPrevNode();
    return before;
  };
  auto fillOfC = [&](Operation *before) {
    auto fill = dyn_cast_or_null<linalg::FillOp>(before);
    return fill && fill.hasPureBufferSemantics() && fill.getDpsInitOperand(0)->get() == c
               ? fill
               : linalg::FillOp();
  };
  Operation *before = touching(op);
  if (linalg::FillOp fill = fillOfC(before)) {
    start.fill = fill;
  } else if (!isa<linalg::BatchMatmulOp>(op) &&
             opal::ir::detail::writesIndexedValues(before, c, /*varying=*/{1})) {
    // (A value per row of C.)
    start.rowStart = cast<linalg::GenericOp>(before);
    return start;
  } else if (auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
             !before && loop && loop.getNumResults() == 0 && loop.isDefinedOutsideOfLoop(c) &&
             getConstantIntValue(loop.getStep()) == 1 && order == BOrder::Rows &&
             llvm::all_of(loop.getBody()->without_terminator(),
                          [&](Operation &inner) {
                            return &inner == op.getOperation() || harmless(&inner);
                          })) {
    // The product is the loop body's only op that touches memory, by steps
    // of 1, with B in rows: the loop runs inside the register tiles, which
    // may start from a fill before it.
    start.loop = loop;
    if (linalg::FillOp fill = fillOfC(touching(loop)))
      start.fill = fill;
  }
  if (start.fill)
    start.fillValue = start.fill.getDpsInputOperand(0)->get();
  // (Without a fill, C's values would be summed too: no bias then.)
  if (!start.fill || start.loop)
    return start;
  // The bias: C a temporary (an alloc that only the fill, the product, the
  // addition and its dealloc use) of one element type with the bias and D,
  // D a buffer of contiguous rows that is not C.
  auto addition = dyn_cast_or_null<linalg::GenericOp>(op->getNextNode());
  if (isa<linalg::BatchMatmulOp>(op) || !addition || !addition.hasPureBufferSemantics() ||
      !addsBias(addition, c) || !c.getDefiningOp<memref::AllocOp>())
    return start;
  for (Operation *user : c.getUsers())
    if (user != op && user != addition && user != start.fill && !isa<memref::DeallocOp>(user))
      return start;
  Value bias = addition.getDpsInputOperand(1)->get();
  Value into = addition.getDpsInitOperand(0)->get();
  auto biasType = dyn_cast<MemRefType>(bias.getType());
  auto intoType = dyn_cast<MemRefType>(into.getType());
  Type element = cast<MemRefType>(c.getType()).getElementType();
  if (!biasType || !intoType || biasType.getElementType() != element ||
      intoType.getElementType() != element || !hasContiguousRows(biasType) ||
      !hasContiguousRows(intoType) || into == c)
    return start;
  start.addition = addition;
  start.bias = bias;
  start.into = into;
  start.fillValue = Value();
  return start;
}

/// Emits the register-tiled loops of one product (see the file comment).
class RegisterTiledProduct {
public:
  RegisterTiledProduct(RewriterBase &rewriter, linalg::LinalgOp op, bool transposedB,
                       int64_t tileM, int64_t vectors, int64_t vectorBytes, int64_t tileK,
                       int64_t tileN, int64_t directRows, const ProductStart &start)
      : b(rewriter), loc(op.getLoc()), a(op->getOperand(0)), bMat(op->getOperand(1)),
        c(start.into ? start.into : op->getOperand(2)), fillValue(start.fillValue),
        bias(start.bias), rowStart(start.rowStart), positions(start.loop), product(op),
        batched(isa<linalg::BatchMatmulOp>(op)),
        transposedB(transposedB), tileM(tileM), vectors(vectors), tileK(tileK), tileN(tileN),
        directRows(directRows) {
    element = cast<MemRefType>(c.getType()).getElementType();
    lanes = std::max<int64_t>(vectorBytes / (element.getIntOrFloatBitWidth() / 8), 1);
  }

  void emit() {
    unsigned rank = batched ? 3 : 2;
    Value m = memref::DimOp::create(b, loc, c, rank - 2);
    Value n = memref::DimOp::create(b, loc, c, rank - 1);
    // (Inside a loop of products, every iteration's A has the same sizes:
    // the first one's views, made here, give them.)
    Value k = memref::DimOp::create(
        b, loc, positions ? viewsAt(positions.getLowerBound()).first : a, rank - 1);
    // The block of B being multiplied, packed (see emitPacking); one buffer
    // for the whole product, with room for a last partial tile of panels
    // when tileN is not a multiple of the register tile's columns (panels
    // past the block's last column are read but never stored). Inside a
    // loop of products, one such block per iteration.
    int64_t panels = (tileN + lanes * vectors - 1) / (lanes * vectors) * vectors;
    if (positions) {
      positionStride = index(panelStride() * panels);
      Value count = arith::MaxSIOp::create(
          b, loc, index(1),
          arith::SubIOp::create(b, loc, positions.getUpperBound(), positions.getLowerBound()));
      auto packedType = MemRefType::get({ShapedType::kDynamic}, element);
      packed = memref::AllocOp::create(b, loc, packedType,
                                       ValueRange{arith::MulIOp::create(b, loc, count,
                                                                        positionStride)},
                                       b.getI64IntegerAttr(64));
    } else {
      auto packedType = MemRefType::get({panelStride() * panels}, element);
      packed = memref::AllocOp::create(b, loc, packedType, b.getI64IntegerAttr(64));
    }
    if (!batched) {
      emitProduct(m, n, k);
    } else {
      OpBuilder::InsertionGuard guard(b);
      Value batches = memref::DimOp::create(b, loc, c, 0);
      auto loop = scf::ForOp::create(b, loc, index(0), batches, index(1));
      b.setInsertionPointToStart(loop.getBody());
      batch = loop.getInductionVar();
      emitProduct(m, n, k);
    }
    memref::DeallocOp::create(b, loc, packed);
  }

private:
  Value index(int64_t value) { return arith::ConstantIndexOp::create(b, loc, value); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  /// The indices of element (row, column) of a matrix of the current batch.
  SmallVector<Value> at(Value row, Value column) {
    if (batch)
      return {batch, row, column};
    return {row, column};
  }
  /// The product's A and B in the iteration `at` of the loop of products:
  /// the ops of the loop's body before it, copied with `at` for its index.
  std::pair<Value, Value> viewsAt(Value at) {
    IRMapping mapping;
    mapping.map(positions.getInductionVar(), at);
    for (Operation &op : positions.getBody()->without_terminator()) {
      if (&op == product)
        break;
      b.clone(op, mapping);
    }
    return {mapping.lookupOrDefault(product->getOperand(0)),
            mapping.lookupOrDefault(product->getOperand(1))};
  }

  /// Where iteration `at`'s block of B starts in `packed`.
  Value positionOffset(Value at) {
    return arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, at, positions.getLowerBound()), positionStride);
  }

  /// A loop from `lower` to `upper` by `step`; the builder is left in its body.
  Value loop(Value lower, Value upper, int64_t step) {
    auto forOp = scf::ForOp::create(b, loc, lower, upper, index(step));
    b.setInsertionPointToStart(forOp.getBody());
    return forOp.getInductionVar();
  }

  void emitProduct(Value m, Value n, Value k) {
    OpBuilder::InsertionGuard guard(b);
    if (!transposedB && !positions && directRows > 0)
      prepareDirect(m);
    Value j0 = loop(index(0), n, tileN);
    Value jEnd = min(add(j0, index(tileN)), n);
    // (A product whose sums start from a fill or a bias runs its first
    // block of k even for k = 0: the tiles write the start.)
    Value kBlocks = fillValue || bias || rowStart
                        ? arith::MaxUIOp::create(b, loc, k, index(1)).getResult()
                        : k;
    Value k0 = loop(index(0), kBlocks, tileK);
    Value kEnd = min(add(k0, index(tileK)), k);
    if (positions) {
      // Every iteration's block of B, each at its offset.
      OpBuilder::InsertionGuard blocks(b);
      Value at = loop(positions.getLowerBound(), positions.getUpperBound(), 1);
      Value productB = bMat;
      bMat = viewsAt(at).second;
      packOffset = positionOffset(at);
      emitPacking(j0, jEnd, k0, kEnd);
      bMat = productB;
      packOffset = Value();
    } else if (direct) {
      OpBuilder::InsertionGuard packing(b);
      Value packs = arith::XOrIOp::create(b, loc, direct,
                                          arith::ConstantIntOp::create(b, loc, 1, 1));
      auto branch = scf::IfOp::create(b, loc, packs, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      emitPacking(j0, jEnd, k0, kEnd);
    } else {
      emitPacking(j0, jEnd, k0, kEnd);
    }
    // Register tiles of tileM rows, then the rows left (fewer) in tiles of
    // the powers of two below tileM, each taken when that many are left,
    // and a last single row: 16 rows (a recurrent layer's batch) are two
    // tiles of 6 and one of 4, where single rows, a broadcast per four
    // loads of B, took as long as the 12 rows before them.
    Value wholeRows = arith::SubIOp::create(
        b, loc, m, arith::RemUIOp::create(b, loc, m, index(tileM)));
    {
      OpBuilder::InsertionGuard rows(b);
      Value i0 = loop(index(0), wholeRows, tileM);
      // The register tiles of a block are independent: threads share them
      // (opal-parallelize), each reading the one packed block of B.
      i0.getParentRegion()->getParentOp()->setAttr(opal::ir::kParallelAttrName,
                                                   b.getUnitAttr());
      emitTileRow(i0, tileM, j0, jEnd, k0, kEnd);
    }
    Value left = wholeRows;
    int64_t part = 1;
    while (part * 2 < tileM)
      part *= 2;
    for (; part > 1; part /= 2) {
      Value takes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          arith::SubIOp::create(b, loc, m, left), index(part));
      {
        OpBuilder::InsertionGuard rows(b);
        auto branch = scf::IfOp::create(b, loc, takes, /*withElseRegion=*/false);
        b.setInsertionPointToStart(&branch.getThenRegion().front());
        emitTileRow(left, part, j0, jEnd, k0, kEnd);
      }
      left = arith::SelectOp::create(b, loc, takes, add(left, index(part)), left);
    }
    Value i = loop(left, m, 1);
    emitTileRow(i, 1, j0, jEnd, k0, kEnd);
  }

  /// For a product of few rows (at most `directRows`, known per call), the
  /// register tiles read B where it is instead of from packed panels:
  /// packing copies all of B's block for every product, which for 16 rows
  /// (a recurrent layer's step) cost as much as the sums. Both are read as
  /// one row of elements (`source`): B's through its base buffer, element
  /// (k, j) at k * sourceRowStride + j, the panels' at their packedRow.
  void prepareDirect(Value m) {
    direct = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, m, index(directRows));
    MLIRContext *context = b.getContext();
    auto flatType = MemRefType::get({ShapedType::kDynamic}, element,
                                    StridedLayoutAttr::get(context, ShapedType::kDynamic, {1}));
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, bMat);
    unsigned rank = batched ? 3 : 2;
    // (The view's size: up to B's last element.)
    Value last = index(1);
    for (unsigned d = 0; d < rank; ++d)
      last = add(last, arith::MulIOp::create(
                           b, loc, arith::SubIOp::create(b, loc, meta.getSizes()[d], index(1)),
                           meta.getStrides()[d]));
    Value elements = arith::MaxSIOp::create(b, loc, last, index(0));
    Value flatB = memref::ReinterpretCastOp::create(
        b, loc, flatType, meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
        ArrayRef<OpFoldResult>{elements}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    Value flatPacked = memref::CastOp::create(b, loc, flatType, packed);
    source = arith::SelectOp::create(b, loc, direct, flatB, flatPacked);
    sourceRowStride = meta.getStrides()[rank - 2];
    if (batched)
      sourceBatchStride = meta.getStrides()[0];
  }

  /// The lanes of a vector that starts at column jj and are inside the
  /// block (all of them but in the block's last, partial vector).
  Value columnsMask(Value jj, Value jEnd) {
    auto maskType = VectorType::get({lanes}, b.getI1Type());
    Value left = arith::SubIOp::create(b, loc, jEnd, jj);
    return vector::CreateMaskOp::create(b, loc, maskType, ValueRange{left});
  }

  /// The elements from one panel's start to the next: tileK rows of a
  /// vector, and one vector more, so that the panels (written a row of each
  /// at a time) do not start a multiple of 4 KiB apart, which would put
  /// their rows in one set of the L1 cache.
  int64_t panelStride() const { return (tileK + 1) * lanes; }

  /// Where the panel of column jj starts in the packed block.
  Value panelStart(Value j0, Value jj) {
    Value panel = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, jj, j0),
                                         index(lanes));
    Value start = arith::MulIOp::create(b, loc, panel, index(panelStride()));
    return packOffset ? add(start, packOffset) : start;
  }

  /// The index in `packed` of row kk of the panel that starts at `panel`.
  Value packedRow(Value panel, Value kk, Value k0) {
    Value offset = arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, kk, k0),
                                         index(lanes));
    return add(panel, offset);
  }

  /// Lets threads share the packing loop of `iv` (opal-parallelize), each
  /// of whose iterations copies `elements` elements: its iterations write
  /// disjoint parts of the block, which all the register tiles then read.
  /// (Packing is 1.5% of a 2048^2 product on one thread; packed by one
  /// thread while the others wait, it would add a quarter to the product's
  /// time on 16.) The work is the block's, not B's: a block of 256 x 512
  /// floats takes 4 threads, and none where a fork costs a wake-up
  /// (passive OpenMP waits). Not inside a loop of products (a
  /// convolution's blocks of weights are small).
  void sharePacking(Value iv, int64_t elements) {
    if (positions)
      return;
    Operation *loop = iv.getParentRegion()->getParentOp();
    loop->setAttr(opal::ir::kParallelAttrName, b.getUnitAttr());
    loop->setAttr(opal::ir::kParallelWorkAttrName, b.getI64IntegerAttr(elements));
  }

  /// Copies B[k0 : kEnd, j0 : jEnd] into `packed` as panels one vector
  /// wide: element (k, j) of the panel that starts at column jj is at
  /// panelStart(j0, jj) + (k - k0) * lanes + j - jj, so the register tiles
  /// read B contiguously (rows of B a power of two apart would fight over
  /// the same cache sets). One vector a row of a panel; lanes past the
  /// last column are zeros.
  void emitPacking(Value j0, Value jEnd, Value k0, Value kEnd) {
    if (transposedB)
      return emitTransposedPacking(j0, jEnd, k0, kEnd);
    OpBuilder::InsertionGuard guard(b);
    auto vectorType = VectorType::get({lanes}, element);
    Value zeros = arith::ConstantOp::create(
        b, loc, vectorType, DenseElementsAttr::get(vectorType, b.getZeroAttr(element)));
    // Rows of B outside: each read whole, in order (the panels, in the L2
    // cache, take the scattered writes).
    Value kk = loop(k0, kEnd, 1);
    sharePacking(kk, tileN);
    Value jj = loop(j0, jEnd, lanes);
    Value start = panelStart(j0, jj);
    Value mask = columnsMask(jj, jEnd);
    Value row = vector::MaskedLoadOp::create(b, loc, vectorType, bMat, at(kk, jj), mask, zeros);
    vector::StoreOp::create(b, loc, row, packed, ValueRange{packedRow(start, kk, k0)});
  }

  /// The same panels from B given transposed ([n, k], rows of B's
  /// columns): a call of opal's runtime per panel (Runtime/Packing.h),
  /// which reads B's rows across into the panel's columns, in squares
  /// transposed in vector registers. (The same squares in the kernel, 16
  /// masked loads, 64 shuffles and 16 stores, made `linear` compile 41%
  /// more instructions than `mm`.)
  void emitTransposedPacking(Value j0, Value jEnd, Value k0, Value kEnd) {
    OpBuilder::InsertionGuard guard(b);
    MLIRContext *context = b.getContext();
    Value matrix = bMat;
    if (batch) {
      // The batch's [n, k] matrix.
      auto type = cast<MemRefType>(bMat.getType());
      SmallVector<OpFoldResult> offsets{batch, b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), memref::getMixedSize(b, loc, bMat, 1),
                                      memref::getMixedSize(b, loc, bMat, 2)};
      SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
      auto viewType = memref::SubViewOp::inferRankReducedResultType(
          type.getShape().drop_front(), type, offsets, sizes, strides);
      matrix = memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), bMat, offsets, sizes,
                                         strides);
    }
    auto matrixType = MemRefType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic}, element,
        StridedLayoutAttr::get(context, ShapedType::kDynamic,
                               {ShapedType::kDynamic, ShapedType::kDynamic}));
    matrix = memref::CastOp::create(b, loc, matrixType, matrix);
    auto bufferType = MemRefType::get({ShapedType::kDynamic}, element);
    Value buffer = memref::CastOp::create(b, loc, bufferType, packed);
    StringRef name = element.isF32() ? "opal_pack_panel_f32" : "opal_pack_panel_f64";
    // (matrix, jj, columns, k0, kEnd, buffer, start, lanes)
    Type i = b.getIndexType();
    opal::ir::detail::declareFunction(
        product->getParentOfType<ModuleOp>(), name,
        b.getFunctionType({matrixType, i, i, i, i, bufferType, i, i}, {}));
    Value jj = loop(j0, jEnd, lanes);
    sharePacking(jj, lanes * tileK);
    Value columns = min(arith::SubIOp::create(b, loc, jEnd, jj), index(lanes));
    func::CallOp::create(b, loc, name, TypeRange{},
                         ValueRange{matrix, jj, columns, k0, kEnd, buffer, panelStart(j0, jj),
                                    index(lanes)});
  }

  /// Rows i0 .. i0 + rows of C, every `vectors` vectors of columns of the
  /// block.
  /// (Tiles of `tile-m` rows take `vectors` vectors over the block's whole
  /// multiples of them, then one vector for the columns left, so that a
  /// narrow block (a convolution's 16 output channels) does not compute
  /// masked-off lanes; the last rows, fewer, take `vectors` vectors
  /// throughout, masked.)
  void emitTileRow(Value i0, int64_t rows, Value j0, Value jEnd, Value k0, Value kEnd) {
    OpBuilder::InsertionGuard guard(b);
    if (rows == 1 || vectors == 1) {
      Value jj = loop(j0, jEnd, lanes * vectors);
      emitRegisterTile(i0, rows, jj, jEnd, k0, kEnd, j0, vectors);
      return;
    }
    Value wide = j0;
    {
      Value width = index(lanes * vectors);
      Value whole = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, jEnd, j0), width),
          width);
      wide = add(j0, whole);
      OpBuilder::InsertionGuard inner(b);
      Value jj = loop(j0, wide, lanes * vectors);
      emitRegisterTile(i0, rows, jj, jEnd, k0, kEnd, j0, vectors);
    }
    Value jj = loop(wide, jEnd, lanes);
    emitRegisterTile(i0, rows, jj, jEnd, k0, kEnd, j0, 1);
  }

  /// C[i0 : i0 + rows, jj : jj + width * lanes] += A[.., k0 : kEnd] *
  /// B[k0 : kEnd, ..] (the columns before jEnd), the tile of C in registers:
  /// rows x width accumulators.
  void emitRegisterTile(Value i0, int64_t rows, Value jj, Value jEnd, Value k0, Value kEnd,
                        Value j0, int64_t width) {
    auto vectorType = VectorType::get({lanes}, element);
    Value zeros = arith::ConstantOp::create(
        b, loc, vectorType, DenseElementsAttr::get(vectorType, b.getZeroAttr(element)));
    SmallVector<Value> rowIndices, columns, masks, accumulators;
    for (int64_t v = 0; v < width; ++v) {
      columns.push_back(add(jj, index(v * lanes)));
      // (A vector past jEnd has no lanes: its sums are never stored.)
      masks.push_back(columnsMask(columns[v], jEnd));
    }
    for (int64_t r = 0; r < rows; ++r)
      rowIndices.push_back(add(i0, index(r)));
    auto loadC = [&](OpBuilder &) {
      SmallVector<Value> loaded;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < width; ++v)
          loaded.push_back(vector::MaskedLoadOp::create(
              b, loc, vectorType, c, at(rowIndices[r], columns[v]), masks[v], zeros));
      return loaded;
    };
    if (!fillValue && !bias && !rowStart) {
      accumulators = loadC(b);
    } else {
      // The first block of k starts from the fill value, the bias or each
      // row's value (C was never written); the later ones from C.
      SmallVector<Type> types(rows * width, vectorType);
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k0, index(0));
      auto start = scf::IfOp::create(b, loc, types, first, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&start.getThenRegion().front());
        SmallVector<Value> initial;
        for (int64_t v = 0; v < width; ++v)
          initial.push_back(
              rowStart ? zeros
              : fillValue ? vector::BroadcastOp::create(b, loc, vectorType, fillValue).getResult()
                        : vector::MaskedLoadOp::create(b, loc, vectorType, bias,
                                                       ValueRange{columns[v]}, masks[v], zeros)
                              .getResult());
        SmallVector<Value> all;
        for (int64_t r = 0; r < rows; ++r)
          llvm::append_range(all, initial);
        scf::YieldOp::create(b, loc, all);
        b.setInsertionPointToStart(&start.getElseRegion().front());
        scf::YieldOp::create(b, loc, loadC(b));
      }
      accumulators.assign(start.getResults().begin(), start.getResults().end());
    }
    // The sums over k0 .. kEnd of A and the packed block, from `from`.
    auto sumBlock = [&](ValueRange from) {
      SmallVector<Value> panels;
      for (int64_t v = 0; v < width; ++v)
        panels.push_back(panelStart(j0, columns[v]));
      // Row kk of each vector's columns in `source` (a product that may
      // read B in place) is at starts[v] + kk * stride.
      SmallVector<Value> starts;
      Value stride;
      if (direct) {
        stride = arith::SelectOp::create(b, loc, direct, sourceRowStride, index(lanes));
        Value first = batch ? arith::MulIOp::create(b, loc, batch, sourceBatchStride).getResult()
                            : index(0);
        Value packedFirst = arith::MulIOp::create(b, loc, k0, index(lanes));
        for (int64_t v = 0; v < width; ++v)
          starts.push_back(arith::SelectOp::create(
              b, loc, direct, add(first, columns[v]),
              arith::SubIOp::create(b, loc, panels[v], packedFirst)));
      }
      auto kLoop = scf::ForOp::create(b, loc, k0, kEnd, index(1), from);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      SmallVector<Value> rowsOfB;
      for (int64_t v = 0; v < width; ++v)
        rowsOfB.push_back(
            direct ? vector::MaskedLoadOp::create(
                         b, loc, vectorType, source,
                         ValueRange{add(starts[v], arith::MulIOp::create(b, loc, kk, stride))},
                         masks[v], zeros)
                         .getResult()
                   : vector::LoadOp::create(b, loc, vectorType, packed,
                                            ValueRange{packedRow(panels[v], kk, k0)})
                         .getResult());
      SmallVector<Value> next;
      for (int64_t r = 0; r < rows; ++r) {
        Value scalar = memref::LoadOp::create(b, loc, a, at(rowIndices[r], kk));
        Value splat = vector::BroadcastOp::create(b, loc, vectorType, scalar);
        for (int64_t v = 0; v < width; ++v)
          next.push_back(vector::FMAOp::create(b, loc, splat, rowsOfB[v],
                                               kLoop.getRegionIterArgs()[r * width + v]));
      }
      scf::YieldOp::create(b, loc, next);
      return kLoop;
    };
    Operation *sums;
    if (positions) {
      // Every iteration of the loop of products, the tile's sums in
      // registers throughout.
      auto each = scf::ForOp::create(b, loc, positions.getLowerBound(),
                                     positions.getUpperBound(), index(1), accumulators);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(each.getBody());
      Value productA = a;
      a = viewsAt(each.getInductionVar()).first;
      packOffset = positionOffset(each.getInductionVar());
      scf::YieldOp::create(b, loc, sumBlock(each.getRegionIterArgs())->getResults());
      a = productA;
      packOffset = Value();
      sums = each;
    } else {
      sums = sumBlock(accumulators);
    }
    for (int64_t r = 0; r < rows; ++r) {
      // Each row's value (rowStart) is added once, to the first block's sums
      // (which start from zero), after the block: loaded before it, the
      // rows' values would hold registers the sums need (LLVM spilled sums
      // of a 6 x 4 tile).
      Value rowAdd;
      if (rowStart) {
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k0, index(0));
        Value row = opal::ir::detail::indexedValueAt(b, rowStart, {rowIndices[r], Value()});
        Value value = vector::BroadcastOp::create(b, loc, vectorType, row);
        rowAdd = arith::SelectOp::create(b, loc, first, value, zeros);
      }
      for (int64_t v = 0; v < width; ++v) {
        Value sum = sums->getResult(r * width + v);
        if (rowAdd)
          sum = arith::AddFOp::create(b, loc, sum, rowAdd);
        vector::MaskedStoreOp::create(b, loc, c, at(rowIndices[r], columns[v]), masks[v], sum);
      }
    }
  }

  RewriterBase &b;
  Location loc;
  Value a, bMat, c;
  /// What C holds before the product, when not C's own values (see
  /// ProductStart): the first block of k starts the sums there.
  Value fillValue, bias;
  linalg::GenericOp rowStart;
  /// The loop of products whose iterations run inside the register tiles
  /// (each tile sums every iteration's product before it is stored).
  scf::ForOp positions;
  Operation *product;
  Value positionStride; ///< elements of `packed` per iteration of `positions`
  Value packOffset;     ///< where the current iteration's block starts
  bool batched;
  bool transposedB; ///< B given as [(batch,) n, k]
  int64_t tileM, vectors, tileK, tileN, directRows, lanes = 1;
  Type element;
  /// Whether this call reads B in place (i1; null where the product always
  /// packs), and what the tiles then read (see prepareDirect).
  Value direct, source, sourceRowStride, sourceBatchStride;
  Value batch;  ///< the batch loop's index, for batch_matmul
  Value packed; ///< tileK x tileN elements: the current block of B
};

struct OpalTileMatmul : public opal::ir::impl::OpalTileMatmulBase<OpalTileMatmul> {
  using OpalTileMatmulBase::OpalTileMatmulBase;

  void runOnOperation() override {
    if (tileM < 1 || tileVectors < 1 || tileK < 1 || tileN < 1 || vectorBytes < 1) {
      getOperation().emitError() << "opal-tile-matmul: tile sizes and vector-bytes must be "
                                    "positive";
      return signalPassFailure();
    }
    if (directRows < 0) {
      getOperation().emitError() << "opal-tile-matmul: direct-rows must be 0 (always pack) or "
                                    "positive, got "
                                 << static_cast<int64_t>(directRows);
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) && op.hasPureBufferSemantics())
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : products) {
      rewriter.setInsertionPoint(op);
      if (BOrder order = registerTiling(op); order != BOrder::None) {
        ProductStart start = productStart(op, order);
        // (A loop of products: the tiles are emitted before the loop, which
        // goes; they write the start even where it runs no iteration.)
        if (start.loop)
          rewriter.setInsertionPoint(start.loop);
        RegisterTiledProduct(rewriter, op, order == BOrder::Transposed, tileM, tileVectors,
                             vectorBytes, tileK, tileN, directRows, start)
            .emit();
        Value c = op->getOperand(2);
        rewriter.eraseOp(start.loop ? start.loop.getOperation() : op.getOperation());
        if (start.fill)
          rewriter.eraseOp(start.fill);
        if (start.rowStart)
          rewriter.eraseOp(start.rowStart);
        if (start.addition) {
          // The temporary C goes with its dealloc.
          rewriter.eraseOp(start.addition);
          for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
            rewriter.eraseOp(user);
          rewriter.eraseOp(c.getDefiningOp());
        }
        continue;
      }
      tileForCaches(rewriter, op);
    }
  }

  /// The earlier scheme: (b,) i, k, j loops, k and j tiled.
  void tileForCaches(RewriterBase &rewriter, linalg::LinalgOp op) {
    bool batched = isa<linalg::BatchMatmulOp>(op);
    auto generic = linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return;
    // (b,) i, j, k -> (b,) i, k, j
    SmallVector<unsigned> order =
        batched ? SmallVector<unsigned>{0, 1, 3, 2} : SmallVector<unsigned>{0, 2, 1};
    auto interchanged = linalg::interchangeGenericOp(rewriter, *generic, order);
    if (failed(interchanged))
      return;
    SmallVector<int64_t> sizes =
        batched ? SmallVector<int64_t>{0, 0, tileK, tileN} : SmallVector<int64_t>{0, tileK, tileN};
    linalg::LinalgTilingOptions options;
    options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
    rewriter.setInsertionPoint(*interchanged);
    auto tiled = linalg::tileLinalgOp(rewriter, *interchanged, options);
    if (failed(tiled))
      return;
    rewriter.eraseOp(*interchanged);
  }
};

} // namespace
