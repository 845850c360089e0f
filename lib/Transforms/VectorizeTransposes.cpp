//===- VectorizeTransposes.cpp - The opal-vectorize-transposes pass -------===//
//
// A linalg.transpose on buffers whose source and destination are each dense
// along their last dim, where those dims differ (a matrix transposed: an
// NCHW input made channels last), walks one of the two a column at a time
// when lowered to loops: a scalar load or store per element, a cache line
// apart. Here it becomes tiles of T x T elements (T = 8 lanes): T vector
// loads of the source's rows, a transpose in registers by log2(T) rounds of
// two-vector shuffles (each round swaps the off-diagonal blocks of every
// 2h x 2h block, h = T/2, ..., 1), and T vector stores of the destination's
// rows. The other dims run as one loop over their points (marked
// opal.parallel: its iterations write disjoint elements); the edges that do
// not fill a tile are copied element by element. A source of stride 2
// along its last dim (a strided convolution's phase) is read through a
// unit-stride view of its rows: one load of 2T lanes per row, the even ones
// kept.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"
#include "VectorTranspose.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALVECTORIZETRANSPOSES
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using opal::ir::detail::lastStride;

namespace {

/// A branch whose buffer result every branch yields as a cast of one
/// layout (one-shot bufferization gives an scf.if result a fully dynamic
/// layout when it cannot tell the branches' apart: a convolution's sums,
/// channels last, from either of its two lowerings) takes that layout:
/// the transposes that read it then know their rows dense. Users other
/// than structured ops read it through a cast back.
void narrowBranchLayouts(Operation *root) {
  root->walk([](scf::IfOp branch) {
    if (branch.getElseRegion().empty())
      return;
    for (OpResult result : branch->getResults()) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (!type)
        continue;
      unsigned i = result.getResultNumber();
      SmallVector<memref::CastOp> casts;
      for (scf::YieldOp yield : {branch.thenYield(), branch.elseYield()})
        if (auto cast = yield->getOperand(i).getDefiningOp<memref::CastOp>())
          casts.push_back(cast);
      if (casts.size() != 2 || casts[0].getSource().getType() != casts[1].getSource().getType())
        continue;
      Type narrow = casts[0].getSource().getType();
      if (narrow == type)
        continue;
      branch.thenYield()->setOperand(i, casts[0].getSource());
      branch.elseYield()->setOperand(i, casts[1].getSource());
      result.setType(narrow);
      OpBuilder b(branch->getContext());
      b.setInsertionPointAfter(branch);
      Value wide;
      for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
        if (isa<linalg::LinalgOp>(use.getOwner()))
          continue;
        if (!wide)
          wide = memref::CastOp::create(b, branch.getLoc(), type, result);
        use.set(wide);
      }
    }
  });
}

/// `source`, whose last dim has a stride of 2 (every other element of a
/// row: a strided convolution's phase), as a view of the same rows with a
/// unit stride and twice the elements: a tile's row is then one vector
/// load of twice the lanes whose even lanes are kept.
Value pairedView(OpBuilder &b, Location loc, Value source) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, source);
  SmallVector<OpFoldResult> sizes, strides;
  for (auto [size, stride] : llvm::zip(meta.getSizes(), meta.getStrides())) {
    sizes.push_back(size);
    strides.push_back(stride);
  }
  Value last = meta.getSizes().back();
  sizes.back() = arith::AddIOp::create(b, loc, last, last).getResult();
  strides.back() = b.getIndexAttr(1);
  return memref::ReinterpretCastOp::create(b, loc, meta.getBaseBuffer(), meta.getOffset(), sizes,
                                           strides);
}

struct Transpose {
  linalg::TransposeOp op;
  int64_t rank;
  int64_t across; ///< the destination dim along which the source is dense
  bool paired;    ///< the source's last dim has a stride of 2
  SmallVector<int64_t> permutation;
};

/// Whether `op` is a transpose of the two last-dim-dense kind (see above).
std::optional<Transpose> matchTranspose(linalg::TransposeOp op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  auto source = cast<MemRefType>(op.getInput().getType());
  auto destination = cast<MemRefType>(op.getInit().getType());
  Type element = source.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
      element.getIntOrFloatBitWidth() > 64 || lastStride(destination) != 1)
    return std::nullopt;
  std::optional<int64_t> sourceStride = lastStride(source);
  if (sourceStride != 1 && sourceStride != 2)
    return std::nullopt;
  int64_t rank = source.getRank();
  SmallVector<int64_t> permutation(op.getPermutation());
  // Destination dim d reads source dim permutation[d].
  int64_t across = -1;
  for (int64_t d = 0; d < rank; ++d)
    if (permutation[d] == rank - 1)
      across = d;
  if (across < 0 || across == rank - 1)
    return std::nullopt;
  return Transpose{op, rank, across, *sourceStride == 2, permutation};
}

void vectorize(IRRewriter &rewriter, const Transpose &t, int64_t lanes) {
  linalg::TransposeOp op = t.op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value source = op.getInput(), destination = op.getInit();
  Type element = cast<MemRefType>(source.getType()).getElementType();
  auto vectorType = VectorType::get({lanes}, element);
  int64_t rank = t.rank, inner = rank - 1, across = t.across;
  auto index = [&](int64_t value) { return arith::ConstantIndexOp::create(rewriter, loc, value); };
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(memref::DimOp::create(rewriter, loc, destination, d));
  // The source's coordinates of destination coordinates `at`.
  auto sourceAt = [&](ArrayRef<Value> at) {
    SmallVector<Value> coords(rank);
    for (int64_t d = 0; d < rank; ++d)
      coords[t.permutation[d]] = at[d];
    return coords;
  };
  // Tiles cover [0, full) of `across` and `inner`; the rest is edges.
  auto fullPart = [&](Value size) {
    return arith::MulIOp::create(rewriter, loc,
                                 arith::DivUIOp::create(rewriter, loc, size, index(lanes)),
                                 index(lanes));
  };
  Value fullAcross = fullPart(sizes[across]), fullInner = fullPart(sizes[inner]);

  // One loop over the points of the other dims.
  SmallVector<int64_t> others;
  Value points = index(1);
  for (int64_t d = 0; d < rank; ++d)
    if (d != across && d != inner) {
      others.push_back(d);
      points = arith::MulIOp::create(rewriter, loc, points, sizes[d]);
    }
  Value zero = index(0), one = index(1), step = index(lanes);
  // A source that is a kernel argument (a caller's tensor: a convolution's
  // NCHW input) comes from memory, a tile's rows a plane apart each, which
  // the hardware prefetchers do not follow: each tile asks for the rows of
  // the next point's tile while it transposes its own. (A temporary, just
  // written, is in the cache: prefetches of it would only cost.)
  Value root = opal::ir::detail::rootOf(source);
  bool prefetch = !others.empty() && isa<BlockArgument>(root) &&
                  isa<func::FuncOp>(cast<BlockArgument>(root).getOwner()->getParentOp());
  // A source of stride 2: its rows read through a view of unit stride,
  // two lanes an element, the last (odd) one not loaded: past the row's
  // last element read it may lie past the buffer.
  Value paired = t.paired ? pairedView(rewriter, loc, source) : Value();
  auto pairType = VectorType::get({2 * lanes}, element);
  Value pairMask, pairZeros;
  if (paired) {
    pairMask = vector::ConstantMaskOp::create(
        rewriter, loc, VectorType::get({2 * lanes}, rewriter.getI1Type()),
        ArrayRef<int64_t>{2 * lanes - 1});
    pairZeros = arith::ConstantOp::create(rewriter, loc, pairType,
                                          rewriter.getZeroAttr(pairType));
  }
  SmallVector<int64_t> evenLanes;
  for (int64_t k = 0; k < lanes; ++k)
    evenLanes.push_back(2 * k);
  // The inner loop of tiles walks along the side whose 8 rows lie farther
  // apart, so that its rows are read or written in order: along `across`
  // when the source's rows are (an image's channel planes made channels
  // last), along `inner` when the destination's are (rows of sums made
  // NCHW again). Walked the other way, the tiles touch every row a plane
  // from the next before finishing any line: with planes 4 KiB apart (32 x
  // 32 floats) they share one set of the L1 cache, and the output transpose
  // of a convolution of 64 channels was a sixth of the call.
  SmallVector<Value> sourceStrides =
      memref::ExtractStridedMetadataOp::create(rewriter, loc, source).getStrides();
  SmallVector<Value> destinationStrides =
      memref::ExtractStridedMetadataOp::create(rewriter, loc, destination).getStrides();
  Value acrossInnermost = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ule, destinationStrides[across],
      sourceStrides[t.permutation[inner]]);
  auto outer = scf::ForOp::create(rewriter, loc, zero, points, one);
  outer->setAttr(opal::ir::kParallelAttrName, rewriter.getUnitAttr());
  rewriter.setInsertionPointToStart(outer.getBody());
  SmallVector<Value> otherSizes;
  for (int64_t d : others)
    otherSizes.push_back(sizes[d]);
  SmallVector<Value> at(rank);
  for (auto [d, coordinate] : llvm::zip(others, opal::ir::detail::delinearize(
                                                    rewriter, loc, outer.getInductionVar(),
                                                    otherSizes)))
    at[d] = coordinate;
  // The next point's coordinates (the last point's own).
  SmallVector<Value> nextAt(rank);
  if (prefetch) {
    Value following = arith::AddIOp::create(rewriter, loc, outer.getInductionVar(), one);
    Value last = arith::SubIOp::create(rewriter, loc, points, one);
    Value next = arith::MinUIOp::create(rewriter, loc, following, last);
    for (auto [d, coordinate] :
         llvm::zip(others, opal::ir::detail::delinearize(rewriter, loc, next, otherSizes)))
      nextAt[d] = coordinate;
  }

  // Element by element over [aFrom, aTo) x [iFrom, iTo) of across x inner.
  auto copyElements = [&](Value aFrom, Value aTo, Value iFrom, Value iTo) {
    scf::ForOp::create(
        rewriter, loc, aFrom, aTo, one, ValueRange{},
        [&](OpBuilder &ab, Location al, Value a, ValueRange) {
          scf::ForOp::create(ab, al, iFrom, iTo, one, ValueRange{},
                             [&](OpBuilder &ib, Location il, Value i, ValueRange) {
                               SmallVector<Value> point(at);
                               point[across] = a;
                               point[inner] = i;
                               Value v = memref::LoadOp::create(ib, il, source, sourceAt(point));
                               memref::StoreOp::create(ib, il, v, destination, point);
                               scf::YieldOp::create(ib, il);
                             });
          scf::YieldOp::create(ab, al);
        });
  };

  // Whole tiles at (a0, i0) of across x inner: source row k is the
  // destination's inner coordinate i0 + k, its lanes across; transposed,
  // row k is across coordinate a0 + k, its lanes along inner.
  // (Which loop of tiles is innermost: see acrossInnermost.)
  auto pick = [&](OpBuilder &pb, Location pl, Value ifAcross, Value otherwise) -> Value {
    return arith::SelectOp::create(pb, pl, acrossInnermost, ifAcross, otherwise);
  };
  scf::ForOp::create(
      rewriter, loc, zero, pick(rewriter, loc, fullInner, fullAcross), step, ValueRange{},
      [&](OpBuilder &ab, Location al, Value first, ValueRange) {
        scf::ForOp::create(
            ab, al, zero, pick(ab, al, fullAcross, fullInner), step, ValueRange{},
            [&](OpBuilder &ib, Location il, Value second, ValueRange) {
              Value i0 = pick(ib, il, first, second), a0 = pick(ib, il, second, first);
              auto plus = [&](Value base, int64_t k) -> Value {
                return arith::AddIOp::create(ib, il, base,
                                             arith::ConstantIndexOp::create(ib, il, k));
              };
              // Where the source's element at `point` is read: in the
              // paired view, at twice its last coordinate.
              auto readAt = [&](ArrayRef<Value> point) {
                SmallVector<Value> coords = sourceAt(point);
                if (paired)
                  coords.back() = arith::AddIOp::create(ib, il, coords.back(), coords.back());
                return coords;
              };
              Value from = paired ? paired : source;
              SmallVector<Value> rows;
              for (int64_t k = 0; k < lanes; ++k) {
                SmallVector<Value> point(at);
                point[across] = a0;
                point[inner] = plus(i0, k);
                if (!paired) {
                  rows.push_back(vector::LoadOp::create(ib, il, vectorType, source, readAt(point)));
                  continue;
                }
                Value pair = vector::MaskedLoadOp::create(ib, il, pairType, paired, readAt(point),
                                                          pairMask, pairZeros);
                rows.push_back(vector::ShuffleOp::create(ib, il, pair, pair, evenLanes));
              }
              for (int64_t k = 0; prefetch && k < lanes; ++k) {
                SmallVector<Value> point(nextAt);
                point[across] = a0;
                point[inner] = plus(i0, k);
                memref::PrefetchOp::create(ib, il, from, readAt(point), /*isWrite=*/false,
                                           /*localityHint=*/3, /*isDataCache=*/true);
              }
              SmallVector<Value> columns = opal::ir::detail::transposeRows(ib, il, rows);
              for (int64_t k = 0; k < lanes; ++k) {
                SmallVector<Value> point(at);
                point[across] = plus(a0, k);
                point[inner] = i0;
                vector::StoreOp::create(ib, il, columns[k], destination, point);
              }
              scf::YieldOp::create(ib, il);
            });
        scf::YieldOp::create(ab, al);
      });
  // The edges: the last rows of `across`, then the last columns of `inner`
  // beside the tiles.
  copyElements(fullAcross, sizes[across], zero, sizes[inner]);
  copyElements(zero, fullAcross, fullInner, sizes[inner]);
  rewriter.eraseOp(op);
}

struct OpalVectorizeTransposes
    : public opal::ir::impl::OpalVectorizeTransposesBase<OpalVectorizeTransposes> {
  using OpalVectorizeTransposesBase::OpalVectorizeTransposesBase;

  void runOnOperation() override {
    if (lanes < 2 || (lanes & (lanes - 1)) != 0) {
      getOperation().emitError("opal-vectorize-transposes: lanes must be a power of 2 "
                               "of at least 2, got ")
          << static_cast<int64_t>(lanes);
      return signalPassFailure();
    }
    narrowBranchLayouts(getOperation());
    SmallVector<Transpose> transposes;
    getOperation()->walk([&](linalg::TransposeOp op) {
      if (std::optional<Transpose> t = matchTranspose(op))
        transposes.push_back(*t);
    });
    IRRewriter rewriter(&getContext());
    for (const Transpose &t : transposes)
      vectorize(rewriter, t, lanes);
  }
};

} // namespace
