//===- IndexingToLinalg.cpp - Prims that make or use indices to linalg ----===//
//
// prims.argmax/argmin: a linalg.generic that reduces one dim (or all, for a
// flattened index) into two
// accumulators, the extreme value so far and its index (linalg.index), so
// the first extreme wins as the loop walks the dim in order; NaN counts as
// the largest and the smallest value, as in PyTorch.
//
// prims.gather/take: one generic over the result reading `a` at each index
// (guarded). prims.scatter: loops over the index in order that write (or
// combine) src's elements at the indexed positions of a copy of `a`.
// prims.cumsum: one loop over the lines along dim (iterations independent,
// marked opal.parallel), each carrying its running sum.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"
#include "opal/Dialect/OpalOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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


//===----------------------------------------------------------------------===//
// scatter
//===----------------------------------------------------------------------===//

/// The reduce string of a prims.scatter ("none", "sum", ...), if constant.
std::optional<std::string> scatterReduce(Operation *op) {
  auto text = op->getOperand(4).getDefiningOp<opal::ir::StrOp>();
  if (!text)
    return std::nullopt;
  return text.getValue().str();
}

std::string scatterProblem(Operation *op) {
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto index = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
  auto src = dyn_cast<RankedTensorType>(op->getOperand(3).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !index || !src || !result)
    return "needs ranked tensors";
  if (a.getRank() == 0 || index.getRank() != a.getRank() || src.getRank() != a.getRank())
    return "needs a, index and src of one rank, at least 1";
  if (!indexedDim(op, a.getRank()))
    return "needs a constant dim within the rank of `a`";
  if (!index.getElementType().isInteger(64))
    return "needs an int64 index, got " + typeString(index);
  if (src.getElementType() != a.getElementType() || result != a)
    return "needs src and a result of a's type";
  std::optional<std::string> reduce = scatterReduce(op);
  if (!reduce || !llvm::is_contained({"none", "sum", "prod", "amax", "amin", "mean"}, *reduce))
    return "needs a constant reduce: none, sum, prod, amax, amin or mean";
  if (!constantInt(op->getOperand(5)))
    return "needs a constant include_self";
  return "";
}

/// `old` combined with `value` by `reduce` (NaN wins amax and amin; bools
/// add as `or` and multiply as `and`).
Value combine(OpBuilder &b, Location loc, StringRef reduce, Value old, Value value) {
  Type element = old.getType();
  bool isFloat = isa<FloatType>(element), isBool = element.isInteger(1);
  if (reduce == "sum" || reduce == "mean")
    return isFloat ? arith::AddFOp::create(b, loc, old, value).getResult()
           : isBool ? arith::OrIOp::create(b, loc, old, value).getResult()
                    : arith::AddIOp::create(b, loc, old, value).getResult();
  if (reduce == "prod")
    return isFloat ? arith::MulFOp::create(b, loc, old, value).getResult()
           : isBool ? arith::AndIOp::create(b, loc, old, value).getResult()
                    : arith::MulIOp::create(b, loc, old, value).getResult();
  if (reduce == "amax")
    return isFloat ? arith::MaximumFOp::create(b, loc, old, value).getResult()
           : isBool ? arith::OrIOp::create(b, loc, old, value).getResult()
                    : arith::MaxSIOp::create(b, loc, old, value).getResult();
  if (reduce == "amin")
    return isFloat ? arith::MinimumFOp::create(b, loc, old, value).getResult()
           : isBool ? arith::AndIOp::create(b, loc, old, value).getResult()
                    : arith::MinSIOp::create(b, loc, old, value).getResult();
  return value; // "none": the last write wins
}

/// A filled tensor of `a`'s sizes with `element` elements.
Value filledLike(OpBuilder &b, Location loc, Value a, Type element, TypedAttr value) {
  auto type = cast<RankedTensorType>(a.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, a, d));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), element, sizes);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

/// Loops over every element of `index` in order (scf.for per dim), carrying
/// the result, and for "mean" the count of values each element took, and
/// without include_self whether it took one yet. Each index in range writes
/// src's element there; nothing is read or written outside the tensors.
LogicalResult lowerScatter(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0), index = op->getOperand(2), src = op->getOperand(3);
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t rank = aType.getRank();
  int64_t dim = *indexedDim(op, rank);
  std::string reduce = *scatterReduce(op);
  bool includeSelf = *constantInt(op->getOperand(5)) != 0;
  bool mean = reduce == "mean", tracksSeen = reduce != "none" && !includeSelf;
  Type element = aType.getElementType();
  OpBuilder &b = rewriter;
  Type i64 = b.getI64Type();
  // The loop updates a copy of a made up front, so that every index
  // element's update is in place (bufferization would otherwise copy a
  // inside a branch the index decides, a buffer the host must choose).
  Value fresh = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), element);
  Value copy = linalg::CopyOp::create(b, loc, a, fresh).getResult(0);
  SmallVector<Value> carried = {copy};
  if (mean)
    carried.push_back(filledLike(b, loc, a, i64, b.getI64IntegerAttr(includeSelf ? 1 : 0)));
  if (tracksSeen)
    carried.push_back(filledLike(b, loc, a, b.getI1Type(), b.getBoolAttr(false)));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> coords;
  // The innermost body: one index element.
  std::function<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body =
      [&](OpBuilder &nb, Location l, ValueRange state) -> SmallVector<Value> {
    Value at = arith::IndexCastOp::create(
        nb, l, nb.getIndexType(), tensor::ExtractOp::create(nb, l, index, coords).getResult());
    Value inside = inBounds(nb, l, at, tensor::DimOp::create(nb, l, a, dim));
    SmallVector<Value> target(coords);
    target[dim] = at;
    for (int64_t d = 0; d < rank; ++d) {
      inside = arith::AndIOp::create(nb, l, inside,
                                     inBounds(nb, l, coords[d], tensor::DimOp::create(nb, l, src, d)));
      if (d != dim)
        inside = arith::AndIOp::create(
            nb, l, inside, inBounds(nb, l, coords[d], tensor::DimOp::create(nb, l, a, d)));
    }
    auto branch = scf::IfOp::create(
        nb, l, inside,
        [&](OpBuilder &tb, Location tl) {
          Value value = tensor::ExtractOp::create(tb, tl, src, coords);
          Value old = tensor::ExtractOp::create(tb, tl, state[0], target);
          Value combined = combine(tb, tl, reduce, old, value);
          SmallVector<Value> next;
          unsigned at = 1;
          Value count, seen;
          if (mean)
            count = state[at++];
          if (tracksSeen) {
            seen = state[at];
            Value before = tensor::ExtractOp::create(tb, tl, seen, target);
            combined = arith::SelectOp::create(tb, tl, before, combined, value);
          }
          next.push_back(tensor::InsertOp::create(tb, tl, combined, state[0], target));
          if (mean) {
            Value n = tensor::ExtractOp::create(tb, tl, count, target);
            Value n1 = arith::AddIOp::create(
                tb, tl, n, arith::ConstantOp::create(tb, tl, tb.getI64IntegerAttr(1)));
            next.push_back(tensor::InsertOp::create(tb, tl, n1, count, target));
          }
          if (tracksSeen)
            next.push_back(tensor::InsertOp::create(
                tb, tl, arith::ConstantOp::create(tb, tl, tb.getBoolAttr(true)), seen, target));
          scf::YieldOp::create(tb, tl, next);
        },
        [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, state); });
    return SmallVector<Value>(branch.getResults());
  };
  // The loop nest, outermost dim first.
  std::function<SmallVector<Value>(OpBuilder &, Location, int64_t, ValueRange)> nest =
      [&](OpBuilder &nb, Location l, int64_t d, ValueRange state) -> SmallVector<Value> {
    if (d == rank)
      return body(nb, l, state);
    Value upper = tensor::DimOp::create(nb, l, index, d);
    auto loop = scf::ForOp::create(
        nb, l, zero, upper, one, state,
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange inner) {
          coords.push_back(iv);
          SmallVector<Value> next = nest(lb, ll, d + 1, inner);
          coords.pop_back();
          scf::YieldOp::create(lb, ll, next);
        });
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> state = nest(b, loc, 0, carried);
  Value result = state[0];
  if (mean) {
    // (The generic's init has a's sizes: the shapes entry reads them.)
    // Each element divided by how many values it took (integers round down).
    auto identity = b.getMultiDimIdentityMap(rank);
    Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), element);
    result = linalg::GenericOp::create(
                 b, loc, TypeRange{aType}, ValueRange{result, state[1]}, ValueRange{init},
                 SmallVector<AffineMap>{identity, identity, identity},
                 SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   Value n = arith::MaxSIOp::create(
                       nb, l, args[1],
                       arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(1)));
                   Value q;
                   if (isa<FloatType>(element))
                     q = arith::DivFOp::create(nb, l, args[0],
                                               arith::SIToFPOp::create(nb, l, element, n));
                   else if (element.isInteger(1))
                     q = args[0];
                   else
                     q = arith::FloorDivSIOp::create(nb, l, args[0],
                                                     convertScalar(nb, l, n, element));
                   linalg::YieldOp::create(nb, l, q);
                 })
                 .getResult(0);
  }
  else {
    // Copied out of the loop into a tensor whose sizes are a's: the
    // kernel's shapes entry then reads them from a (no loop to run).
    Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), element);
    result = linalg::CopyOp::create(b, loc, result, init).getResult(0);
  }
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// cumsum
//===----------------------------------------------------------------------===//

std::string cumsumProblem(Operation *op) {
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !result || a != result || a.getRank() == 0)
    return "needs a ranked input of rank at least 1 and a result of its type";
  if (!indexedDim(op, a.getRank()))
    return "needs a constant dim within the input's rank";
  if (!isa<FloatType, IntegerType>(a.getElementType()) || a.getElementType().isInteger(1))
    return "needs a floating-point or integer input";
  return "";
}

/// Loops over every line along dim (scf.for per other dim), each summed in
/// order by an inner loop that carries the running sum.
LogicalResult lowerCumsum(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value a = op->getOperand(0);
  auto type = cast<RankedTensorType>(a.getType());
  int64_t rank = type.getRank();
  int64_t dim = *indexedDim(op, rank);
  Type element = type.getElementType();
  OpBuilder &b = rewriter;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), element);
  // One loop over the lines (every position of the other dims, row-major),
  // whose iterations are independent: opal-parallelize shares them among
  // threads, opal-map-to-gpu gives each its own GPU thread.
  SmallVector<Value> sizes;
  Value lines = one;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(tensor::DimOp::create(b, loc, a, d));
    if (d != dim)
      lines = arith::MulIOp::create(b, loc, lines, sizes.back());
  }
  auto outer = scf::ForOp::create(
      b, loc, zero, lines, one, ValueRange{init},
      [&](OpBuilder &ob, Location ol, Value line, ValueRange outerState) {
        SmallVector<Value> coords(rank);
        Value rest = line;
        for (int64_t d = rank - 1; d >= 0; --d) {
          if (d == dim)
            continue;
          coords[d] = arith::RemUIOp::create(ob, ol, rest, sizes[d]);
          rest = arith::DivUIOp::create(ob, ol, rest, sizes[d]);
        }
        // The line: coords[dim] runs, with the sum so far. Floats sum in
        // double, as PyTorch's CPU kernel does.
        Type accumulator = isa<FloatType>(element) ? Type(ob.getF64Type()) : element;
        Value start = arith::ConstantOp::create(ob, ol, ob.getZeroAttr(accumulator));
        auto inner = scf::ForOp::create(
            ob, ol, zero, sizes[dim], one, ValueRange{outerState[0], start},
            [&](OpBuilder &lb, Location ll, Value iv, ValueRange state) {
              coords[dim] = iv;
              Value x = tensor::ExtractOp::create(lb, ll, a, coords);
              Value sum = isa<FloatType>(element)
                              ? arith::AddFOp::create(lb, ll, state[1],
                                                      convertScalar(lb, ll, x, accumulator))
                                    .getResult()
                              : arith::AddIOp::create(lb, ll, state[1], x).getResult();
              Value next = tensor::InsertOp::create(lb, ll, convertScalar(lb, ll, sum, element),
                                                    state[0], coords);
              scf::YieldOp::create(lb, ll, ValueRange{next, sum});
            });
        scf::YieldOp::create(ob, ol, inner.getResult(0));
      });
  outer->setAttr(opal::ir::kParallelAttrName, b.getUnitAttr());
  // A copy out of the loops into a tensor of a's sizes, which the shapes
  // entry reads without running them.
  Value sized = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), element);
  rewriter.replaceOp(op, linalg::CopyOp::create(b, loc, outer.getResult(0), sized).getResult(0));
  return success();
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::indexingLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.argmax", {argExtremeProblem, lowerArgExtreme}},
      {"prims.argmin", {argExtremeProblem, lowerArgExtreme}},
      {"prims.gather", {gatherProblem, lowerGather}},
      {"prims.take", {gatherProblem, lowerGather}},
      {"prims.scatter", {scatterProblem, lowerScatter}},
      {"prims.cumsum", {cumsumProblem, lowerCumsum}},
  };
  return table;
}
