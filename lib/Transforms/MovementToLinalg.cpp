//===- MovementToLinalg.cpp - Prims that move elements, to linalg ---------===//
//
// prims.slice_in_dim, prims.slice_scatter, prims.select_in_dim, prims.pad,
// prims.pad_edges, prims.rev and prims.tile: each a linalg.generic over
// its result that reads the element it needs with tensor.extract at
// coordinates computed from linalg.index. Nothing is read outside the
// input: a slice's bounds are clamped into the dim first, and a select or
// a pad reads only where its coordinate lies inside the input (elsewhere it
// yields 0 or the padding value). The generics have no tensor inputs, so elementwise fusion
// folds them into their consumers.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"
#include "opal/Dialect/OpalOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// The common checks: a ranked input and result of one element type and rank.
std::string sameRankProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result)
    return "needs a ranked input and result";
  if (input.getElementType() != result.getElementType() || input.getRank() != result.getRank())
    return "needs a result of the input's element type and rank, got " + typeString(result);
  return "";
}

Value indexValue(OpBuilder &b, Location loc, Value i64) {
  if (auto constant = constantInt(i64))
    return arith::ConstantIndexOp::create(b, loc, *constant);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

//===----------------------------------------------------------------------===//
// slice_in_dim
//===----------------------------------------------------------------------===//

std::string sliceProblem(Operation *op) {
  if (std::string p = sameRankProblem(op); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  std::optional<int64_t> stride = constantInt(op->getOperand(3));
  std::optional<int64_t> axis = constantInt(op->getOperand(4));
  if (!stride || *stride < 1)
    return "needs a constant stride of at least 1";
  if (!axis || *axis < 0 || *axis >= input.getRank())
    return "needs a constant axis within the input's rank";
  if (!op->getOperand(1).getType().isInteger(64) || !op->getOperand(2).getType().isInteger(64))
    return "needs i64 start and limit indices";
  return "";
}

/// A slice's [start, limit) along `axis` of `a` with PyTorch's rules: each
/// bound wraps once (negative counts from the end) and clamps into [0,
/// size]; the limit is at least the start.
std::pair<Value, Value> sliceBounds(OpBuilder &b, Location loc, Value a, int64_t axis,
                                    Value rawStart, Value rawLimit) {
  Value size = tensor::DimOp::create(b, loc, a, axis);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto bound = [&](Value raw) {
    Value i = indexValue(b, loc, raw);
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
    Value wrapped = arith::SelectOp::create(b, loc, negative,
                                            arith::AddIOp::create(b, loc, i, size), i);
    Value low = arith::MaxSIOp::create(b, loc, wrapped, zero);
    return arith::MinSIOp::create(b, loc, low, size).getResult();
  };
  Value start = bound(rawStart);
  Value limit = arith::MaxSIOp::create(b, loc, bound(rawLimit), start);
  return {start, limit};
}

LogicalResult lowerSlice(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t stride = *constantInt(op->getOperand(3));
  int64_t axis = *constantInt(op->getOperand(4));
  OpBuilder &b = rewriter;
  auto [start, limit] = sliceBounds(b, loc, a, axis, op->getOperand(1), op->getOperand(2));
  Value step = arith::ConstantIndexOp::create(b, loc, stride);
  Value length = arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, limit, start),
                                            step);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      sizes.push_back(d == axis ? length : tensor::DimOp::create(b, loc, a, d).getResult());
  Value result = generateTensor(
      b, loc, resultType, sizes, [&](OpBuilder &inner, Location l, ArrayRef<Value> coords) {
        SmallVector<Value> at(coords);
        Value scaled = arith::MulIOp::create(inner, l, coords[axis], step);
        at[axis] = arith::AddIOp::create(inner, l, scaled, start);
        return tensor::ExtractOp::create(inner, l, a, at).getResult();
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// slice_scatter
//===----------------------------------------------------------------------===//

std::string sliceScatterProblem(Operation *op) {
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto src = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !src || !result || result != a || src.getRank() != a.getRank() ||
      src.getElementType() != a.getElementType())
    return "needs ranked a and src of one rank and element type, and a result of a's type";
  std::optional<int64_t> stride = constantInt(op->getOperand(4));
  std::optional<int64_t> axis = constantInt(op->getOperand(5));
  if (!stride || *stride < 1)
    return "needs a constant stride of at least 1";
  if (!axis || *axis < 0 || *axis >= a.getRank())
    return "needs a constant axis within a's rank";
  return "";
}

/// `a` with src written into the slice: a tensor.insert_slice, which
/// bufferization does in place where `a` is not read after (a cat
/// decomposed into slice_scatters into a buffer of zeros, each write then
/// only its slice; as a generic over all of `a`, each copied the whole
/// buffer: an LSTM's backward over 32 steps moved 32 times its gates'
/// gradients). The slice written is src's sizes clamped to the slice's
/// (a src of other sizes, which a data check refuses after the call,
/// writes nothing outside the slice and reads nothing outside itself).
LogicalResult lowerSliceScatter(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0), src = op->getOperand(1);
  auto type = cast<RankedTensorType>(a.getType());
  int64_t stride = *constantInt(op->getOperand(4));
  int64_t axis = *constantInt(op->getOperand(5));
  OpBuilder &b = rewriter;
  auto [start, limit] = sliceBounds(b, loc, a, axis, op->getOperand(2), op->getOperand(3));
  Value step = arith::ConstantIndexOp::create(b, loc, stride);
  Value length =
      arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, limit, start), step);
  SmallVector<OpFoldResult> offsets, sizes, steps, unit;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value extent = d == axis ? length : tensor::DimOp::create(b, loc, a, d).getResult();
    Value given = tensor::DimOp::create(b, loc, src, d);
    sizes.push_back(arith::MinSIOp::create(b, loc, extent, given).getResult());
    offsets.push_back(d == axis ? OpFoldResult(start) : OpFoldResult(b.getIndexAttr(0)));
    steps.push_back(d == axis ? OpFoldResult(step) : OpFoldResult(b.getIndexAttr(1)));
    unit.push_back(b.getIndexAttr(1));
  }
  SmallVector<OpFoldResult> origin(type.getRank(), b.getIndexAttr(0));
  Value part = tensor::ExtractSliceOp::create(b, loc, src, origin, sizes, unit);
  Value result = tensor::InsertSliceOp::create(b, loc, part, a, offsets, sizes, steps);
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// select_in_dim
//===----------------------------------------------------------------------===//

std::string selectProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result || input.getElementType() != result.getElementType() ||
      result.getRank() + 1 != input.getRank())
    return "needs a ranked input and a result of its element type with one dim less";
  std::optional<int64_t> axis = constantInt(op->getOperand(2));
  if (!axis || *axis < 0 || *axis >= input.getRank())
    return "needs a constant axis within the input's rank";
  if (!op->getOperand(1).getType().isInteger(64))
    return "needs an i64 index";
  return "";
}

LogicalResult lowerSelect(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(a.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t axis = *constantInt(op->getOperand(2));
  OpBuilder &b = rewriter;
  Value size = tensor::DimOp::create(b, loc, a, axis);
  Value i = indexValue(b, loc, op->getOperand(1));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value index = arith::SelectOp::create(b, loc, negative, arith::AddIOp::create(b, loc, i, size),
                                        i);
  Value inside = inBounds(b, loc, index, size);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, a, d < axis ? d : d + 1));
  Value result = generateTensor(
      b, loc, resultType, sizes, [&](OpBuilder &inner, Location l, ArrayRef<Value> coords) {
        SmallVector<Value> at(coords);
        at.insert(at.begin() + axis, index);
        return extractInside(inner, l, a, at, inside,
                             inner.getZeroAttr(inputType.getElementType()));
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// pad, pad_edges
//===----------------------------------------------------------------------===//

/// The common checks of the pads: ranks and element types as sameRankProblem
/// says, and a constant `pad` list (operand `padOperand`) in
/// constant_pad_nd's form.
std::string padListProblem(Operation *op, unsigned padOperand) {
  if (std::string p = sameRankProblem(op); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto pad = constantIntList(op->getOperand(padOperand));
  if (!pad || pad->size() % 2 || static_cast<int64_t>(pad->size()) > 2 * input.getRank())
    return "needs a constant pad list of two entries per dim, for at most every dim";
  return "";
}

/// The dynamic sizes of a padded `a`: each size plus its pads, at least 0
/// (a negative pad crops).
SmallVector<Value> paddedSizes(OpBuilder &b, Location loc, Value a, RankedTensorType resultType,
                               ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    Value grown = arith::AddIOp::create(
        b, loc, tensor::DimOp::create(b, loc, a, d),
        arith::ConstantIndexOp::create(b, loc, low[d] + high[d]));
    sizes.push_back(arith::MaxSIOp::create(b, loc, grown, zero));
  }
  return sizes;
}

std::string padProblem(Operation *op) {
  if (std::string p = padListProblem(op, 2); !p.empty())
    return p;
  if (!op->getOperand(1).getType().isIntOrFloat())
    return "needs a scalar padding value";
  return "";
}

LogicalResult lowerPad(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(a.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> low, high;
  padsPerDim(*constantIntList(op->getOperand(2)), inputType.getRank(), low, high);
  OpBuilder &b = rewriter;
  Value value = convertScalar(b, loc, op->getOperand(1), inputType.getElementType());
  SmallVector<Value> sizes = paddedSizes(b, loc, a, resultType, low, high);
  Value result = generateTensor(
      b, loc, resultType, sizes, [&](OpBuilder &inner, Location l, ArrayRef<Value> coords) {
        SmallVector<Value> at;
        Value inside = arith::ConstantIntOp::create(inner, l, 1, 1);
        for (auto [d, coord] : llvm::enumerate(coords)) {
          Value shifted = arith::SubIOp::create(
              inner, l, coord, arith::ConstantIndexOp::create(inner, l, low[d]));
          at.push_back(shifted);
          Value extent = tensor::DimOp::create(inner, l, a, d);
          inside = arith::AndIOp::create(inner, l, inside, inBounds(inner, l, shifted, extent));
        }
        return extractInside(inner, l, a, at, inside, value);
      });
  rewriter.replaceOp(op, result);
  return success();
}

std::string padEdgesProblem(Operation *op) {
  if (std::string p = padListProblem(op, 1); !p.empty())
    return p;
  auto mode = op->getOperand(2).getDefiningOp<opal::ir::StrOp>();
  if (!mode || (mode.getValue() != "reflect" && mode.getValue() != "replicate"))
    return "needs a constant mode, \"reflect\" or \"replicate\"";
  return "";
}

/// Each result coordinate, shifted by the low pad, reflected about the
/// dim's ends (or clamped to them) and then clamped into the dim, so that
/// nothing is read outside `a` whatever the pads.
LogicalResult lowerPadEdges(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(a.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> low, high;
  padsPerDim(*constantIntList(op->getOperand(1)), inputType.getRank(), low, high);
  bool reflect = op->getOperand(2).getDefiningOp<opal::ir::StrOp>().getValue() == "reflect";
  OpBuilder &b = rewriter;
  SmallVector<Value> sizes = paddedSizes(b, loc, a, resultType, low, high);
  Value result = generateTensor(
      b, loc, resultType, sizes, [&](OpBuilder &inner, Location l, ArrayRef<Value> coords) {
        SmallVector<Value> at;
        Value lo = arith::ConstantIndexOp::create(inner, l, 0);
        for (auto [d, coord] : llvm::enumerate(coords)) {
          Value n = tensor::DimOp::create(inner, l, a, d);
          Value last = arith::SubIOp::create(inner, l, n,
                                             arith::ConstantIndexOp::create(inner, l, 1));
          Value i = arith::SubIOp::create(inner, l, coord,
                                          arith::ConstantIndexOp::create(inner, l, low[d]));
          if (reflect) {
            // -i before the start, 2 (n - 1) - i past the end.
            Value before = arith::CmpIOp::create(inner, l, arith::CmpIPredicate::slt, i, lo);
            i = arith::SelectOp::create(inner, l, before,
                                        arith::SubIOp::create(inner, l, lo, i), i);
            Value past = arith::CmpIOp::create(inner, l, arith::CmpIPredicate::sgt, i, last);
            Value mirrored = arith::SubIOp::create(
                inner, l, arith::AddIOp::create(inner, l, last, last), i);
            i = arith::SelectOp::create(inner, l, past, mirrored, i);
          }
          i = arith::MinSIOp::create(inner, l, arith::MaxSIOp::create(inner, l, i, lo), last);
          at.push_back(i);
        }
        return tensor::ExtractOp::create(inner, l, a, at).getResult();
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// rev
//===----------------------------------------------------------------------===//

std::string revProblem(Operation *op) {
  if (std::string p = sameRankProblem(op); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto dims = constantIntList(op->getOperand(1));
  if (!dims)
    return "needs a constant dims list";
  for (int64_t d : *dims)
    if (d < 0 || d >= input.getRank())
      return "needs dims within the input's rank";
  return "";
}

LogicalResult lowerRev(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> dims = *constantIntList(op->getOperand(1));
  OpBuilder &b = rewriter;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, a, d));
  Value result = generateTensor(
      b, loc, resultType, sizes, [&](OpBuilder &inner, Location l, ArrayRef<Value> coords) {
        SmallVector<Value> at(coords);
        Value one = arith::ConstantIndexOp::create(inner, l, 1);
        for (int64_t d : dims) {
          Value last = arith::SubIOp::create(inner, l, tensor::DimOp::create(inner, l, a, d), one);
          at[d] = arith::SubIOp::create(inner, l, last, coords[d]);
        }
        return tensor::ExtractOp::create(inner, l, a, at).getResult();
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// tile
//===----------------------------------------------------------------------===//

std::string tileProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto repeats = constantIntList(op->getOperand(1));
  if (!input || !result || input.getElementType() != result.getElementType())
    return "needs a ranked input and a result of its element type";
  if (!repeats || static_cast<int64_t>(repeats->size()) < input.getRank() ||
      static_cast<int64_t>(repeats->size()) != result.getRank())
    return "needs constant repeats, one per dimension of the result (at least the input's)";
  return "";
}

LogicalResult lowerTile(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  int64_t rank = cast<RankedTensorType>(a.getType()).getRank();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> repeats = *constantIntList(op->getOperand(1));
  int64_t lead = resultType.getRank() - rank;
  OpBuilder &b = rewriter;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      sizes.push_back(arith::MulIOp::create(b, loc, tensor::DimOp::create(b, loc, a, d - lead),
                                            arith::ConstantIndexOp::create(
                                                b, loc, std::max<int64_t>(repeats[d], 0))));
  Value result = generateTensor(
      b, loc, resultType, sizes, [&](OpBuilder &inner, Location l, ArrayRef<Value> coords) {
        // Leading dims are new (size 1); the result has elements only where
        // every size is nonzero.
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d)
          at.push_back(arith::RemUIOp::create(inner, l, coords[d + lead],
                                              tensor::DimOp::create(inner, l, a, d)));
        return tensor::ExtractOp::create(inner, l, a, at).getResult();
      });
  rewriter.replaceOp(op, result);
  return success();
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::movementLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.slice_in_dim", {sliceProblem, lowerSlice}},
      {"prims.slice_scatter", {sliceScatterProblem, lowerSliceScatter}},
      {"prims.select_in_dim", {selectProblem, lowerSelect}},
      {"prims.pad", {padProblem, lowerPad}},
      {"prims.rev", {revProblem, lowerRev}},
      {"prims.pad_edges", {padEdgesProblem, lowerPadEdges}},
      {"prims.tile", {tileProblem, lowerTile}},
  };
  return table;
}
