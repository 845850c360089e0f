//===- IndexingToLinalg.cpp - Prims that make or use indices to linalg ----===//
//
// prims.argmax/argmin: a linalg.generic that reduces one dim (or all, for a
// flattened index) into two
// accumulators, the extreme value so far and its index (linalg.index), so
// the first extreme wins as the loop walks the dim in order; NaN counts as
// the largest and the smallest value, as in PyTorch.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// The dim an index prim works along (operand 1), normalized; none if it
/// is not a constant in range.
std::optional<int64_t> indexedDim(Operation *op, int64_t rank) {
  std::optional<int64_t> dim = constantInt(op->getOperand(1));
  int64_t extent = std::max<int64_t>(rank, 1);
  if (!dim || *dim < -extent || *dim >= extent)
    return std::nullopt;
  return *dim < 0 ? *dim + extent : *dim;
}

std::string argExtremeProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result)
    return "needs a ranked input and result";
  if (!isNone(op->getOperand(1)) && !indexedDim(op, input.getRank()))
    return "needs a constant dim within the input's rank, or None";
  if (!isa<FloatType, IntegerType>(input.getElementType()))
    return "does not support element type " + typeString(input.getElementType());
  if (!result.getElementType().isInteger(64))
    return "produces int64 indices, but its result is " + typeString(result);
  return "";
}

/// The accumulator's start: a value every element replaces (or equals, at
/// index 0).
TypedAttr startValue(Type element, bool max, Builder &b) {
  if (auto floatType = dyn_cast<FloatType>(element))
    return b.getFloatAttr(floatType, max ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity());
  if (element.isInteger(1))
    return b.getBoolAttr(!max);
  unsigned width = element.getIntOrFloatBitWidth();
  return b.getIntegerAttr(element, max ? APInt::getSignedMinValue(width)
                                       : APInt::getSignedMaxValue(width));
}

/// Whether `x` replaces the extreme so far, `acc`: strictly beyond it, or
/// the first NaN.
Value replaces(OpBuilder &b, Location loc, Value x, Value acc, bool max) {
  Type type = x.getType();
  if (isa<FloatType>(type)) {
    Value beyond = arith::CmpFOp::create(
        b, loc, max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, acc);
    Value xNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value accNumber = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, acc, acc);
    Value firstNan = arith::AndIOp::create(b, loc, xNan, accNumber);
    return arith::OrIOp::create(b, loc, beyond, firstNan);
  }
  arith::CmpIPredicate predicate =
      type.isInteger(1) ? (max ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult)
                        : (max ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, predicate, x, acc);
}

LogicalResult lowerArgExtreme(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  bool max = op->getName().getStringRef() == "prims.argmax";
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = inputType.getRank();
  // A 0-d input has one element, at index 0.
  if (rank == 0) {
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    Value empty = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{},
                                          rewriter.getI64Type());
    rewriter.replaceOp(op, linalg::FillOp::create(rewriter, loc, zero, empty).getResults());
    return success();
  }
  // None reduces every dim, indexing the flattened tensor.
  bool flat = isNone(op->getOperand(1));
  int64_t dim = flat ? -1 : *indexedDim(op, rank);
  auto reduced = [&](int64_t d) { return flat || d == dim; };
  SmallVector<Value> sizes;
  SmallVector<AffineExpr> kept;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    iterators.push_back(reduced(d) ? utils::IteratorType::reduction
                                   : utils::IteratorType::parallel);
    if (reduced(d))
      continue;
    kept.push_back(rewriter.getAffineDimExpr(d));
    if (inputType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
  }
  Type element = inputType.getElementType();
  auto valuesType = RankedTensorType::get(resultType.getShape(), element);
  auto fill = [&](RankedTensorType type, TypedAttr value) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType(),
                                          sizes);
    Value scalar = arith::ConstantOp::create(rewriter, loc, value);
    return linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
  };
  Value values = fill(valuesType, startValue(element, max, rewriter));
  Value indices = fill(resultType, rewriter.getI64IntegerAttr(0));
  AffineMap outputMap = AffineMap::get(rank, 0, kept, rewriter.getContext());
  SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank), outputMap, outputMap};
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{valuesType, resultType}, ValueRange{input},
      ValueRange{values, indices}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value at;
        if (!flat) {
          at = linalg::IndexOp::create(b, l, dim);
        } else {
          // Row-major: ((i0 * n1 + i1) * n2 + i2) ...
          at = linalg::IndexOp::create(b, l, 0);
          for (int64_t d = 1; d < rank; ++d) {
            Value size = tensor::DimOp::create(b, l, input, d);
            at = arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, at, size),
                                       linalg::IndexOp::create(b, l, d));
          }
        }
        Value index = arith::IndexCastOp::create(b, l, b.getI64Type(), at);
        Value better = replaces(b, l, args[0], args[1], max);
        linalg::YieldOp::create(b, l,
                                ValueRange{arith::SelectOp::create(b, l, better, args[0], args[1]),
                                           arith::SelectOp::create(b, l, better, index, args[2])});
      });
  rewriter.replaceOp(op, generic.getResult(1));
  return success();
}

std::string gatherProblem(Operation *op) {
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto index = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !index || !result)
    return "needs ranked tensors";
  if (!indexedDim(op, a.getRank()))
    return "needs a constant dim within the rank of `a`";
  if (!index.getElementType().isInteger(64))
    return "needs an int64 index, got " + typeString(index);
  bool gather = op->getName().getStringRef() == "prims.gather";
  if (gather && index.getRank() != a.getRank())
    return "needs an index of the rank of `a` (" + std::to_string(a.getRank()) + "), got " +
           typeString(index);
  return "";
}

/// The size of dim `d` of `tensor` (1 for a 0-d tensor) as an index.
Value extentOf(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  if (cast<RankedTensorType>(tensor.getType()).getRank() == 0)
    return arith::ConstantIndexOp::create(b, loc, 1);
  return tensor::DimOp::create(b, loc, tensor, d);
}

LogicalResult lowerGather(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  bool gather = op->getName().getStringRef() == "prims.gather";
  Value a = op->getOperand(0), index = op->getOperand(2);
  auto aType = cast<RankedTensorType>(a.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = aType.getRank(), indexRank = indexType.getRank();
  int64_t dim = *indexedDim(op, rank);
  int64_t outRank = resultType.getRank();
  // Each result dim's size: from the index (gather; take's index dims) or `a`.
  auto source = [&](int64_t d) -> std::pair<Value, int64_t> {
    if (gather)
      return {index, d};
    if (d < dim)
      return {a, d};
    if (d < dim + indexRank)
      return {index, d - dim};
    return {a, d - indexRank + 1};
  };
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < outRank; ++d)
    if (resultType.isDynamicDim(d)) {
      auto [tensor, at] = source(d);
      sizes.push_back(tensor::DimOp::create(rewriter, loc, tensor, at));
    }
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType(), sizes);
  SmallVector<AffineExpr> indexDims;
  for (int64_t j = 0; j < indexRank; ++j)
    indexDims.push_back(rewriter.getAffineDimExpr(gather ? j : dim + j));
  SmallVector<AffineMap> maps = {AffineMap::get(outRank, 0, indexDims, rewriter.getContext()),
                                 rewriter.getMultiDimIdentityMap(outRank)};
  SmallVector<utils::IteratorType> iterators(outRank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{index}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value at = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
        Value inside = inBounds(b, l, at, extentOf(b, l, a, dim));
        SmallVector<Value> coords;
        for (int64_t d = 0; d < rank; ++d) {
          if (d == dim) {
            coords.push_back(at);
            continue;
          }
          int64_t loop = gather || d < dim ? d : d + indexRank - 1;
          Value i = linalg::IndexOp::create(b, l, loop);
          coords.push_back(i);
          // A gather's index may be smaller than `a`, never larger: its
          // other coordinates are checked too.
          if (gather)
            inside = arith::AndIOp::create(b, l, inside,
                                           inBounds(b, l, i, extentOf(b, l, a, d)));
        }
        Type element = cast<RankedTensorType>(a.getType()).getElementType();
        linalg::YieldOp::create(b, l,
                                extractInside(b, l, a, coords, inside, b.getZeroAttr(element)));
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}


} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::indexingLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.argmax", {argExtremeProblem, lowerArgExtreme}},
      {"prims.argmin", {argExtremeProblem, lowerArgExtreme}},
      {"prims.gather", {gatherProblem, lowerGather}},
      {"prims.take", {gatherProblem, lowerGather}},
  };
  return table;
}
