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

const llvm::StringMap<PrimLowering> &lowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.argmax", {argExtremeProblem, lowerArgExtreme}},
      {"prims.argmin", {argExtremeProblem, lowerArgExtreme}},
  };
  return table;
}

} // namespace

std::string opal::ir::indexingLoweringProblem(Operation *op) {
  return primLoweringProblem(lowerings(), op);
}

bool opal::ir::isIndexingPrim(Operation *op) {
  return lowerings().count(op->getName().getStringRef()) != 0;
}

void opal::ir::populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  addPrimLoweringPatterns(patterns, lowerings());
}
