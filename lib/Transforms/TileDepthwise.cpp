//===- TileDepthwise.cpp - The opal-tile-depthwise pass -------------------===//
//
// A sum of products over a window on buffers, whose second factor does not
// vary along the output's last dim:
//   out[p..., i, j] += x[..., e(p, i, r) + j] * w[...(p, i, r)]
// (p the output's other dims, i its next-to-last, j its last, r the
// reduction dims; x read densely along its last dim as j moves). A
// depthwise or grouped convolution as opal-lower-to-linalg builds it
// (groupedConv: loops (n, g, f, c, k..., o...), x the padded input, w the
// weight) is one. Lowered to loops as it is, each reduction point is a pass
// over a row of outputs that loads and stores every output; here it becomes
// register tiles of `tile-rows` rows by `tile-vectors` vectors of the
// output, which sum every reduction point in registers (per point: one
// broadcast of w per row, one vector load of x and one FMA per row and
// vector) and are stored once. Loads and stores are masked to the columns
// that exist (the last tile of a row has fewer); the last rows run as
// tiles of one row. The output's other dims run as one loop over their
// points (marked opal.parallel: its iterations write disjoint rows). A
// linalg.fill of the output right before goes: the tiles start from its
// value.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace opal::ir {
#define GEN_PASS_DEF_OPALTILEDEPTHWISE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// A generic of the kind above, and its loops' roles.
struct WindowProduct {
  linalg::GenericOp op;
  unsigned x = 0, w = 1;          ///< the inputs read along j and broadcast
  int64_t step = 1;               ///< x's last index per step of j: 1 or 2
  unsigned column = 0;            ///< the loop of the output's last dim (j)
  std::optional<unsigned> row;    ///< the loop of its next-to-last (i)
  SmallVector<unsigned> outer;    ///< the loops of its other dims, in order
  SmallVector<unsigned> reductions; ///< the reduction loops, in loop order
};

/// Whether `body` is out + a * b (either order of each), a and b the
/// block's first two arguments and out its third.
bool isProductSum(Block &body) {
  if (body.getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues().front().getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value other = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : Value();
  auto mul = other ? other.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  if (!mul)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) || (mul.getLhs() == b && mul.getRhs() == a);
}

/// How much `expr` grows when dim `d` grows by one, when that is a
/// constant.
std::optional<int64_t> stepAlong(AffineExpr expr, unsigned d, unsigned dims) {
  MLIRContext *context = expr.getContext();
  AffineExpr dim = getAffineDimExpr(d, context);
  AffineExpr step = simplifyAffineExpr(expr.replace(dim, dim + 1) - expr, dims, 0);
  if (auto constant = dyn_cast<AffineConstantExpr>(step))
    return constant.getValue();
  return std::nullopt;
}

std::optional<WindowProduct> matchWindowProduct(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isProductSum(*op.getBlock()))
    return std::nullopt;
  Type element;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || (element && type.getElementType() != element))
      return std::nullopt;
    element = type.getElementType();
  }
  if (!element.isF32() && !element.isF64())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  unsigned dims = op.getNumLoops();
  if (outMap.getNumResults() == 0 || !outMap.isProjectedPermutation(/*allowZeroInResults=*/false))
    return std::nullopt;
  WindowProduct window;
  window.op = op;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < dims; ++d) {
    bool inOutput = outMap.isFunctionOfDim(d);
    bool parallel = iterators[d] == utils::IteratorType::parallel;
    if (inOutput != parallel)
      return std::nullopt;
    if (!inOutput)
      window.reductions.push_back(d);
  }
  if (window.reductions.empty())
    return std::nullopt;
  unsigned results = outMap.getNumResults();
  window.column = outMap.getDimPosition(results - 1);
  if (results >= 2)
    window.row = outMap.getDimPosition(results - 2);
  for (unsigned r = 0; r + 2 < results; ++r)
    window.outer.push_back(outMap.getDimPosition(r));
  // x: the input whose last index moves with j, by one or two (a
  // convolution of stride 2: two vectors loaded, their even lanes kept);
  // w: the other, which j does not move.
  auto readsAlongColumn = [&](AffineMap map) {
    unsigned last = map.getNumResults();
    std::optional<int64_t> step =
        last == 0 ? std::nullopt : stepAlong(map.getResult(last - 1), window.column, dims);
    if (!step || (*step != 1 && *step != 2))
      return false;
    window.step = *step;
    for (unsigned r = 0; r + 1 < last; ++r)
      if (map.getResult(r).isFunctionOfDim(window.column))
        return false;
    return true;
  };
  if (!readsAlongColumn(maps[0]))
    std::swap(window.x, window.w);
  if (!readsAlongColumn(maps[window.x]) || maps[window.w].isFunctionOfDim(window.column))
    return std::nullopt;
  using opal::ir::detail::lastStride;
  if (lastStride(cast<MemRefType>(op->getOperand(window.x).getType())) != 1 ||
      lastStride(cast<MemRefType>(op->getOperand(2).getType())) != 1)
    return std::nullopt;
  return window;
}

/// Emits the register tiles of one window product (see the file comment).
class RegisterTiledWindow {
public:
  RegisterTiledWindow(RewriterBase &rewriter, WindowProduct window, int64_t tileRows,
                      int64_t vectors, int64_t vectorBytes)
      : b(rewriter), loc(window.op.getLoc()), window(window), tileRows(tileRows),
        vectors(vectors) {
    linalg::GenericOp op = window.op;
    x = op->getOperand(window.x);
    w = op->getOperand(window.w);
    out = op->getOperand(2);
    element = cast<MemRefType>(out.getType()).getElementType();
    lanes = std::max<int64_t>(vectorBytes / (element.getIntOrFloatBitWidth() / 8), 1);
    vectorType = VectorType::get({lanes}, element);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    xMap = maps[window.x];
    wMap = maps[window.w];
    outMap = maps[2];
  }

  /// Replaces the generic (and `fill` or `startOp`, if given: the tiles
  /// start from their value) with the tiles' loops.
  void emit(linalg::FillOp fill, linalg::GenericOp startOp) {
    linalg::GenericOp op = window.op;
    b.setInsertionPoint(op);
    if (fill)
      fillValue = fill.getDpsInputOperand(0)->get();
    else
      start = startOp;
    for (Range range : cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
    point.assign(op.getNumLoops(), Value());
    // The output's other dims: one loop over their points.
    Value points = index(1);
    for (unsigned d : window.outer)
      points = mul(points, sizes[d]);
    auto each = scf::ForOp::create(b, loc, index(0), points, index(1));
    each->setAttr(opal::ir::kParallelAttrName, b.getUnitAttr());
    b.setInsertionPointToStart(each.getBody());
    SmallVector<Value> outerSizes;
    for (unsigned d : window.outer)
      outerSizes.push_back(sizes[d]);
    for (auto [d, coordinate] : llvm::zip(window.outer, opal::ir::detail::delinearize(
                                                            b, loc, each.getInductionVar(),
                                                            outerSizes)))
      point[d] = coordinate;
    if (!window.row) {
      emitRow(Value(), 1);
    } else {
      Value rows = sizes[*window.row];
      Value whole = arith::SubIOp::create(b, loc, rows,
                                          arith::RemUIOp::create(b, loc, rows, index(tileRows)));
      {
        OpBuilder::InsertionGuard guard(b);
        emitRow(loop(index(0), whole, tileRows), tileRows);
      }
      emitRow(loop(whole, rows, 1), 1);
    }
    b.eraseOp(op);
    if (fill)
      b.eraseOp(fill);
    if (start)
      b.eraseOp(start);
  }

private:
  /// The value `start` writes at the current point (the same for every row
  /// and column of a tile: startBefore).
  Value startAtPoint() {
    SmallVector<Value> at;
    for (unsigned d = 0; d < outMap.getNumResults(); ++d)
      at.push_back(point[outMap.getDimPosition(d)]);
    return opal::ir::detail::indexedValueAt(b, start, at);
  }

  Value index(int64_t value) { return arith::ConstantIndexOp::create(b, loc, value); }
  Value add(Value l, Value r) { return arith::AddIOp::create(b, loc, l, r); }
  Value mul(Value l, Value r) { return arith::MulIOp::create(b, loc, l, r); }

  /// A loop from `from` to `to` by `step`, the builder inside it; its index.
  Value loop(Value from, Value to, int64_t step) {
    auto each = scf::ForOp::create(b, loc, from, to, index(step));
    b.setInsertionPointToStart(each.getBody());
    return each.getInductionVar();
  }

  /// The rows from `i0` (rows of them; none without a row dim): tiles of
  /// `vectors` vectors, masked to the columns left (one kind of tile, not
  /// a second for the last columns: half the code to compile, and a row of
  /// 28 outputs one tile of 8 sums rather than two of 4).
  void emitRow(Value i0, int64_t rows) {
    Value columns = sizes[window.column];
    OpBuilder::InsertionGuard guard(b);
    Value jj = loop(index(0), columns, lanes * vectors);
    emitTile(i0, rows, jj, arith::SubIOp::create(b, loc, columns, jj));
  }

  /// The first `count` lanes (none when `count` < 1).
  Value lanesBelow(Value count) {
    auto maskType = VectorType::get({lanes}, b.getI1Type());
    return vector::CreateMaskOp::create(b, loc, maskType,
                                        ValueRange{arith::MaxSIOp::create(b, loc, count, index(0))});
  }

  /// The indices `map` gives at the current point.
  SmallVector<Value> indices(AffineMap map) {
    SmallVector<Value> at;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        at.push_back(point[dim.getPosition()]);
        continue;
      }
      AffineMap one = AffineMap::get(map.getNumDims(), 0, expr);
      at.push_back(affine::AffineApplyOp::create(b, loc, one, point));
    }
    return at;
  }

  /// The lanes of `mask` of the vector at `at` of `memref` (zero in the
  /// others).
  Value load(Value memref, ArrayRef<Value> at, Value mask, Value zeros) {
    return vector::MaskedLoadOp::create(b, loc, vectorType, memref, at, mask, zeros);
  }

  /// x's lanes at the current point: one vector load, or with a step of
  /// 2, the even lanes of two (`masks`: of each vector loaded).
  Value loadX(ArrayRef<Value> masks, Value zeros) {
    SmallVector<Value> at = indices(xMap);
    if (window.step == 1)
      return load(x, at, masks[0], zeros);
    Value low = load(x, at, masks[0], zeros);
    at.back() = add(at.back(), index(lanes));
    Value high = load(x, at, masks[1], zeros);
    SmallVector<int64_t> even;
    for (int64_t l = 0; l < lanes; ++l)
      even.push_back(2 * l);
    return vector::ShuffleOp::create(b, loc, low, high, even);
  }

  /// out[i0 : i0 + rows, jj : jj + vectors * lanes], of which the first
  /// `remaining` columns exist, summed over every reduction point in
  /// registers.
  void emitTile(Value i0, int64_t rows, Value jj, Value remaining) {
    int64_t width = vectors;
    Value zeros = arith::ConstantOp::create(
        b, loc, vectorType, DenseElementsAttr::get(vectorType, b.getZeroAttr(element)));
    // Per vector, its lanes that exist; and the lanes of x loaded: the
    // same, or with a step of 2, the 2 n - 1 elements from the first (the
    // last odd one would read past the row, or past the buffer).
    SmallVector<Value> masks;
    SmallVector<SmallVector<Value>> xMasks;
    for (int64_t v = 0; v < width; ++v) {
      Value left = v == 0 ? remaining
                          : arith::SubIOp::create(b, loc, remaining, index(v * lanes)).getResult();
      masks.push_back(lanesBelow(left));
      if (window.step == 1) {
        xMasks.push_back({masks.back()});
        continue;
      }
      Value span = arith::SubIOp::create(b, loc, add(left, left), index(1));
      xMasks.push_back({lanesBelow(span), lanesBelow(arith::SubIOp::create(b, loc, span,
                                                                           index(lanes)))});
    }
    SmallVector<Value> rowAt, columnAt;
    for (int64_t r = 0; r < rows; ++r)
      rowAt.push_back(!window.row || r == 0 ? i0 : add(i0, index(r)));
    for (int64_t v = 0; v < width; ++v)
      columnAt.push_back(v == 0 ? jj : add(jj, index(v * lanes)));
    // The point of row r, vector v (the reduction loops' indices aside).
    auto at = [&](int64_t r, int64_t v) {
      if (window.row)
        point[*window.row] = rowAt[r];
      point[window.column] = columnAt[v];
    };
    SmallVector<Value> accumulators;
    Value startValue = fillValue ? fillValue : start ? startAtPoint() : Value();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < width; ++v) {
        if (startValue) {
          accumulators.push_back(vector::BroadcastOp::create(b, loc, vectorType, startValue));
          continue;
        }
        at(r, v);
        accumulators.push_back(load(out, indices(outMap), masks[v], zeros));
      }
    // The reduction loops, nested, the sums carried through each.
    std::function<ValueRange(size_t, ValueRange)> reduce = [&](size_t level,
                                                               ValueRange sums) -> ValueRange {
      unsigned d = window.reductions[level];
      auto each = scf::ForOp::create(b, loc, index(0), sizes[d], index(1), sums);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(each.getBody());
      point[d] = each.getInductionVar();
      SmallVector<Value> next;
      if (level + 1 < window.reductions.size()) {
        llvm::append_range(next, reduce(level + 1, each.getRegionIterArgs()));
      } else {
        for (int64_t r = 0; r < rows; ++r) {
          at(r, 0);
          Value scalar = memref::LoadOp::create(b, loc, w, indices(wMap));
          Value splat = vector::BroadcastOp::create(b, loc, vectorType, scalar);
          for (int64_t v = 0; v < width; ++v) {
            at(r, v);
            Value row = loadX(xMasks[v], zeros);
            next.push_back(vector::FMAOp::create(b, loc, row, splat,
                                                 each.getRegionIterArgs()[r * width + v]));
          }
        }
      }
      scf::YieldOp::create(b, loc, next);
      return each.getResults();
    };
    ValueRange sums = reduce(0, accumulators);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < width; ++v) {
        at(r, v);
        SmallVector<Value> where = indices(outMap);
        vector::MaskedStoreOp::create(b, loc, out, where, masks[v], sums[r * width + v]);
      }
  }

  RewriterBase &b;
  Location loc;
  WindowProduct window;
  int64_t tileRows, vectors, lanes = 1;
  Value x, w, out, fillValue;
  linalg::GenericOp start;
  AffineMap xMap, wMap, outMap;
  Type element;
  VectorType vectorType;
  SmallVector<Value> sizes; ///< each loop's trip count
  SmallVector<Value> point; ///< each loop's index at the op being built
};

/// The linalg.fill of `op`'s output right before it, if any.
linalg::FillOp fillBefore(linalg::GenericOp op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getDpsInitOperand(0)->get() != op.getDpsInitOperand(0)->get())
    return linalg::FillOp();
  return fill;
}

/// The linalg.generic right before `window`'s op that writes each element
/// of its output with a value that does not vary along the output's last
/// two dims (a bias per channel: the sums start from it), if any.
linalg::GenericOp startBefore(const WindowProduct &window) {
  linalg::GenericOp op = window.op;
  AffineMap outMap = op.getIndexingMapsArray()[2];
  SmallVector<unsigned> varying; // (the output's dims of the tiles' rows and columns)
  for (unsigned d = 0; d < outMap.getNumResults(); ++d) {
    unsigned loop = outMap.getDimPosition(d);
    if (loop == window.column || loop == window.row)
      varying.push_back(d);
  }
  Operation *before = op->getPrevNode();
  if (!opal::ir::detail::writesIndexedValues(before, op.getDpsInitOperand(0)->get(), varying))
    return linalg::GenericOp();
  return cast<linalg::GenericOp>(before);
}

struct OpalTileDepthwise : public opal::ir::impl::OpalTileDepthwiseBase<OpalTileDepthwise> {
  using OpalTileDepthwiseBase::OpalTileDepthwiseBase;

  void runOnOperation() override {
    if (tileRows < 1 || tileVectors < 1 || vectorBytes < 1) {
      getOperation().emitError() << "opal-tile-depthwise: tile-rows, tile-vectors and "
                                    "vector-bytes must be positive";
      return signalPassFailure();
    }
    SmallVector<WindowProduct> windows;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<WindowProduct> window = matchWindowProduct(op))
        windows.push_back(*window);
    });
    IRRewriter rewriter(&getContext());
    for (const WindowProduct &window : windows)
      RegisterTiledWindow(rewriter, window, tileRows, tileVectors, vectorBytes)
          .emit(fillBefore(window.op), startBefore(window));
  }
};

} // namespace
