//===- StructuredToLinalg.cpp - Shape, creation, reduction, matmul prims --===//
//
// broadcast_in_dim and transpose (linalg.generic / linalg.transpose), reshape
// (tensor.reshape), full and iota (linalg.fill / linalg.generic),
// reductions (linalg.reduce over a filled init) and matrix products
// (linalg.matmul / linalg.batch_matmul over a zero-filled init). Their list
// operands (shape, dims, permutation) must be constants: `opal.list` of
// `arith.constant`s, or `opal.none` for "all dimensions".
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// Dynamic sizes of `type` taken from `source` (which has the same sizes at
/// the given positions `sourceDims[i]` for result dim i).
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, RankedTensorType type,
                                Value source, ArrayRef<int64_t> sourceDims) {
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(tensor::DimOp::create(b, loc, source, sourceDims[dim]));
  return sizes;
}

/// A fresh tensor of `type` filled with `value` (an attribute of the element type).
Value filled(OpBuilder &b, Location loc, RankedTensorType type, ValueRange sizes,
             TypedAttr value) {
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(), sizes);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

/// The common checks: ranked tensors, one element type; returns the problem.
std::string rankedOperands(Operation *op, unsigned tensorOperands) {
  Type element;
  for (unsigned i = 0; i < tensorOperands; ++i) {
    auto type = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    if (!type)
      return "needs ranked tensors, but operand #" + std::to_string(i) + " is " +
             typeString(op->getOperand(i).getType());
    if (element && element != type.getElementType())
      return "needs operands of one element type";
    element = type.getElementType();
  }
  if (!isa<RankedTensorType>(op->getResult(0).getType()))
    return "needs a ranked result tensor";
  if (cast<RankedTensorType>(op->getResult(0).getType()).getElementType() != element)
    return "needs a result of the operands' element type";
  return "";
}

//===----------------------------------------------------------------------===//
// broadcast_in_dim, transpose
//===----------------------------------------------------------------------===//

std::string broadcastProblem(Operation *op) {
  if (std::string p = rankedOperands(op, 1); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto shape = shapeList(op->getOperand(1));
  auto dims = constantIntList(op->getOperand(2));
  if (!shape || !dims)
    return "needs a shape list and a constant broadcast_dimensions list";
  if (static_cast<int64_t>(shape->size()) != result.getRank())
    return "has a shape of rank " + std::to_string(shape->size()) + ", but its result is " +
           typeString(result);
  if (static_cast<int64_t>(dims->size()) != input.getRank())
    return "needs one broadcast dimension per input dimension";
  for (auto [i, d] : llvm::enumerate(*dims)) {
    if (d < 0 || d >= result.getRank() || (i > 0 && d <= (*dims)[i - 1]))
      return "needs increasing broadcast_dimensions within the result's rank";
    int64_t in = input.getDimSize(i), out = result.getDimSize(d);
    if (!ShapedType::isDynamic(in) && in != 1 && !ShapedType::isDynamic(out) && in != out)
      return "cannot broadcast dimension " + std::to_string(i) + " of size " +
             std::to_string(in) + " to size " + std::to_string(out);
  }
  return "";
}

LogicalResult lowerBroadcast(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> dims = *constantIntList(op->getOperand(2));
  SmallVector<Value> sizes = shapeListSizes(rewriter, loc, resultType, op->getOperand(1));
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType(), sizes);
  SmallVector<AffineExpr> exprs;
  for (auto [i, d] : llvm::enumerate(dims))
    exprs.push_back(inputType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1
                        ? rewriter.getAffineConstantExpr(0)
                        : rewriter.getAffineDimExpr(d));
  SmallVector<AffineMap> maps = {
      AffineMap::get(resultType.getRank(), 0, exprs, rewriter.getContext()),
      rewriter.getMultiDimIdentityMap(resultType.getRank())};
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{init}, maps, iterators,
      [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

std::string transposeProblem(Operation *op) {
  if (std::string p = rankedOperands(op, 1); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto permutation = constantIntList(op->getOperand(1));
  if (!permutation)
    return "needs a constant permutation list";
  if (static_cast<int64_t>(permutation->size()) != input.getRank() ||
      !isPermutationVector(*permutation))
    return "needs a permutation of the input's dimensions";
  for (auto [i, p] : llvm::enumerate(*permutation))
    if (result.getDimSize(i) != input.getDimSize(p))
      return "has result " + typeString(result) + ", which is not the input permuted";
  return "";
}

LogicalResult lowerTranspose(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> permutation = *constantIntList(op->getOperand(1));
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType(),
                                       dynamicSizes(rewriter, loc, resultType, input, permutation));
  auto transpose = linalg::TransposeOp::create(rewriter, loc, input, init, permutation);
  rewriter.replaceOp(op, transpose.getResult());
  return success();
}

std::string squeezeProblem(Operation *op) {
  if (std::string p = rankedOperands(op, 1); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto dims = constantIntList(op->getOperand(1));
  if (!dims)
    return "needs a constant dimensions list";
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    bool removed = llvm::is_contained(*dims, d);
    if (removed && input.getDimSize(d) != 1)
      return "can only remove dimensions of static size 1, but dimension " + std::to_string(d) +
             " of " + typeString(input) + " is not";
    if (!removed)
      kept.push_back(input.getDimSize(d));
  }
  if (ArrayRef<int64_t>(kept) != result.getShape())
    return "has result " + typeString(result) + ", which is not the input without dimensions " +
           "of size 1";
  return "";
}

/// A collapse_shape: each kept dimension takes the removed ones before it;
/// removed ones at the end join the last kept dimension.
LogicalResult lowerSqueeze(Operation *op, PatternRewriter &rewriter) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> dims = *constantIntList(op->getOperand(1));
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    pending.push_back(d);
    if (llvm::is_contained(dims, d))
      continue;
    groups.push_back(pending);
    pending.clear();
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType, op->getOperand(0), groups);
  return success();
}

std::string reshapeProblem(Operation *op) {
  if (std::string p = rankedOperands(op, 1); !p.empty())
    return p;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  // Sizes computed per call are checked against the input's element count
  // before the call (opal-derive-shape-checks).
  auto shape = shapeList(op->getOperand(1));
  if (!shape)
    return "needs a shape list";
  if (static_cast<int64_t>(shape->size()) != result.getRank())
    return "has a shape of rank " + std::to_string(shape->size()) + ", but its result is " +
           typeString(result);
  int64_t elements = 1;
  bool dynamic = false;
  for (auto [i, size] : llvm::enumerate(*shape)) {
    if (ShapedType::isDynamic(size)) {
      dynamic = true;
      continue;
    }
    if (size < 0)
      return "needs non-negative sizes (infer -1 before prims.reshape)";
    if (!result.isDynamicDim(i) && result.getDimSize(i) != size)
      return "has shape sizes that disagree with its result " + typeString(result);
    elements *= size;
  }
  if (!dynamic && input.hasStaticShape() && input.getNumElements() != elements)
    return "reshapes " + std::to_string(input.getNumElements()) + " elements into " +
           std::to_string(elements);
  return "";
}

LogicalResult lowerReshape(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> sizes;
  for (Value size : op->getOperand(1).getDefiningOp()->getOperands()) {
    if (std::optional<int64_t> constant = constantInt(size))
      sizes.push_back(arith::ConstantIndexOp::create(rewriter, loc, *constant));
    else
      sizes.push_back(arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), size));
  }
  // (Typed explicitly: a 0-d result has no sizes to infer the type from.)
  auto shapeType = RankedTensorType::get({static_cast<int64_t>(sizes.size())},
                                         rewriter.getIndexType());
  Value shapeTensor = tensor::FromElementsOp::create(rewriter, loc, shapeType, sizes);
  auto reshape =
      tensor::ReshapeOp::create(rewriter, loc, resultType, op->getOperand(0), shapeTensor);
  rewriter.replaceOp(op, reshape.getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// Creation: full, iota
//===----------------------------------------------------------------------===//

std::string fullProblem(Operation *op) {
  if (std::string p = shapedResultProblem(op); !p.empty())
    return p;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isa<FloatType, IntegerType>(result.getElementType()))
    return "does not support element type " + typeString(result.getElementType());
  if (isa<ComplexType>(op->getOperand(1).getType()))
    return "does not support complex fill values";
  return "";
}

LogicalResult lowerFull(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> sizes = shapeListSizes(rewriter, loc, resultType, op->getOperand(0));
  Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                        resultType.getElementType(), sizes);
  Value value = convertScalar(rewriter, loc, op->getOperand(1), resultType.getElementType());
  rewriter.replaceOp(op, linalg::FillOp::create(rewriter, loc, value, empty).getResults());
  return success();
}

std::string iotaProblem(Operation *op) {
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result || result.getRank() != 1)
    return "needs a 1-d ranked result tensor";
  if (!isa<FloatType, IntegerType>(result.getElementType()))
    return "does not support element type " + typeString(result.getElementType());
  return "";
}

LogicalResult lowerIota(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = resultType.getElementType();
  SmallVector<Value> sizes;
  if (resultType.isDynamicDim(0))
    sizes.push_back(arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                               op->getOperand(0)));
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), element, sizes);
  Value start = op->getOperand(1), step = op->getOperand(2);
  AffineMap identity = rewriter.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{identity}, ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &b, Location l, ValueRange) {
        Value index = linalg::IndexOp::create(b, l, 0);
        Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
        Value value = arith::AddIOp::create(b, l, start, arith::MulIOp::create(b, l, i, step));
        linalg::YieldOp::create(b, l, convertScalar(b, l, value, element));
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>> reducedDims(Operation *op, int64_t rank) {
  if (isNone(op->getOperand(1))) {
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < rank; ++d)
      all.push_back(d);
    return all;
  }
  auto dims = constantIntList(op->getOperand(1));
  if (!dims)
    return std::nullopt;
  for (int64_t &d : *dims)
    if (d < 0)
      d += rank;
  llvm::sort(*dims);
  return dims;
}

std::string reductionProblem(Operation *op) {
  if (std::string p = rankedOperands(op, 1); !p.empty())
    return p + " (output_dtype conversions are the composites' job)";
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isNone(op->getOperand(2)))
    return "supports output_dtype=None only; convert with prims.convert_element_type";
  auto dims = reducedDims(op, input.getRank());
  if (!dims)
    return "needs a constant dims list (or None)";
  for (auto [i, d] : llvm::enumerate(*dims))
    if (d < 0 || d >= input.getRank() || (i > 0 && d == (*dims)[i - 1]))
      return "has an out-of-range or repeated dimension in dims";
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!llvm::is_contained(*dims, d))
      kept.push_back(input.getDimSize(d));
  if (result.getShape() != ArrayRef<int64_t>(kept))
    return "has result " + typeString(result) + ", but reducing " + typeString(input) +
           " leaves the other dimensions";
  if (!isa<FloatType, IntegerType>(input.getElementType()))
    return "does not support element type " + typeString(input.getElementType());
  return "";
}

TypedAttr reductionIdentity(StringRef name, Type element, Builder &b) {
  bool isFloat = isa<FloatType>(element);
  if (name == "prims.sum")
    return isFloat ? TypedAttr(b.getFloatAttr(element, 0.0)) : b.getIntegerAttr(element, 0);
  if (name == "prims.prod")
    return isFloat ? TypedAttr(b.getFloatAttr(element, 1.0)) : b.getIntegerAttr(element, 1);
  bool max = name == "prims.amax";
  if (isFloat)
    return b.getFloatAttr(element, max ? -std::numeric_limits<double>::infinity()
                                       : std::numeric_limits<double>::infinity());
  if (element.isInteger(1)) // bool: false < true
    return b.getBoolAttr(!max);
  unsigned width = element.getIntOrFloatBitWidth();
  APInt limit = max ? APInt::getSignedMinValue(width) : APInt::getSignedMaxValue(width);
  return b.getIntegerAttr(element, limit);
}

/// Float sums and products may be reassociated (fastmath<reassoc>), so the
/// CPU backend vectorizes them; like numpy's pairwise summation, the result
/// can differ from a sequential sum in the last bits.
Value combine(OpBuilder &b, Location loc, StringRef name, Value acc, Value x) {
  bool isFloat = isa<FloatType>(x.getType());
  auto reassoc = arith::FastMathFlags::reassoc;
  if (name == "prims.sum")
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, acc, reassoc))
                   : Value(arith::AddIOp::create(b, loc, x, acc));
  if (name == "prims.prod")
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, acc, reassoc))
                   : Value(arith::MulIOp::create(b, loc, x, acc));
  if (x.getType().isInteger(1)) // bool: max is or, min is and
    return name == "prims.amax" ? Value(arith::OrIOp::create(b, loc, x, acc))
                                : Value(arith::AndIOp::create(b, loc, x, acc));
  if (name == "prims.amax")
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, x, acc))
                   : Value(arith::MaxSIOp::create(b, loc, x, acc));
  return isFloat ? Value(arith::MinimumFOp::create(b, loc, x, acc))
                 : Value(arith::MinSIOp::create(b, loc, x, acc));
}

LogicalResult lowerReduction(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  StringRef name = op->getName().getStringRef();
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> dims = *reducedDims(op, inputType.getRank());
  SmallVector<int64_t> keptDims;
  for (int64_t d = 0; d < inputType.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      keptDims.push_back(d);
  Value init = filled(rewriter, loc, resultType,
                      dynamicSizes(rewriter, loc, resultType, input, keptDims),
                      reductionIdentity(name, resultType.getElementType(), rewriter));
  auto reduce = linalg::ReduceOp::create(
      rewriter, loc, ValueRange{input}, ValueRange{init}, dims,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, combine(b, l, name, args[1], args[0]));
      });
  rewriter.replaceOp(op, reduce.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

std::string matmulProblem(Operation *op) {
  if (std::string p = rankedOperands(op, 2); !p.empty())
    return p;
  bool batched = op->getName().getStringRef() == "prims.bmm";
  int64_t rank = batched ? 3 : 2;
  auto a = cast<RankedTensorType>(op->getOperand(0).getType());
  auto b = cast<RankedTensorType>(op->getOperand(1).getType());
  auto c = cast<RankedTensorType>(op->getResult(0).getType());
  if (a.getRank() != rank || b.getRank() != rank || c.getRank() != rank)
    return std::string("needs ") + (batched ? "3-d" : "2-d") + " operands and result";
  auto compatible = [](int64_t x, int64_t y) {
    return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
  };
  if (!compatible(a.getDimSize(rank - 1), b.getDimSize(rank - 2)))
    return "has mismatched inner dimensions: " + typeString(a) + " and " + typeString(b);
  if (!compatible(c.getDimSize(rank - 2), a.getDimSize(rank - 2)) ||
      !compatible(c.getDimSize(rank - 1), b.getDimSize(rank - 1)))
    return "has result " + typeString(c) + ", which does not fit its operands";
  return "";
}

/// The matrix whose transpose `value` is, when it is a prims.transpose
/// that swaps the last two dims of a matrix (or of a batch of them) of
/// `rank`; else null.
Value transposedMatrix(Value value, int64_t rank) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "prims.transpose")
    return Value();
  auto permutation = constantIntList(def->getOperand(1));
  SmallVector<int64_t> swapped = rank == 2 ? SmallVector<int64_t>{1, 0}
                                           : SmallVector<int64_t>{0, 2, 1};
  if (!permutation || *permutation != swapped)
    return Value();
  return def->getOperand(0);
}

LogicalResult lowerMatmul(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  bool batched = op->getName().getStringRef() == "prims.bmm";
  Value a = op->getOperand(0), b = op->getOperand(1);
  // A product with a transposed matrix (linear's weight) reads the matrix
  // itself through transposed indexing maps, instead of a transposed copy
  // (opal-tile-matmul packs it as it reads it).
  Value bRows = op->hasAttr(kSharedTransposeAttr) ? Value() : transposedMatrix(b, batched ? 3 : 2);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = resultType.getElementType();
  // Sizes: batch and rows from `a`, columns from `b`.
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    bool column = d == resultType.getRank() - 1;
    sizes.push_back(column && bRows ? tensor::DimOp::create(rewriter, loc, bRows, d - 1)
                                    : tensor::DimOp::create(rewriter, loc, column ? b : a, d));
  }
  TypedAttr zero = isa<FloatType>(element) ? TypedAttr(rewriter.getFloatAttr(element, 0.0))
                                           : rewriter.getIntegerAttr(element, 0);
  Value init = filled(rewriter, loc, resultType, sizes, zero);
  SmallVector<NamedAttribute> attributes;
  if (bRows) {
    // (b,) i, j, k -> A[(b,) i, k], B[(b,) j, k], C[(b,) i, j].
    MLIRContext *context = rewriter.getContext();
    unsigned dims = batched ? 4 : 3;
    auto map = [&](ArrayRef<unsigned> positions) {
      SmallVector<AffineExpr> results;
      for (unsigned position : positions)
        results.push_back(getAffineDimExpr(position, context));
      return AffineMapAttr::get(AffineMap::get(dims, 0, results, context));
    };
    SmallVector<Attribute> maps =
        batched ? SmallVector<Attribute>{map({0, 1, 3}), map({0, 2, 3}), map({0, 1, 2})}
                : SmallVector<Attribute>{map({0, 2}), map({1, 2}), map({0, 1})};
    attributes.push_back(rewriter.getNamedAttr("indexing_maps", rewriter.getArrayAttr(maps)));
    b = bRows;
  }
  Operation *product =
      batched ? linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{resultType},
                                              ValueRange{a, b}, ValueRange{init}, attributes)
                    .getOperation()
              : linalg::MatmulOp::create(rewriter, loc, TypeRange{resultType},
                                         ValueRange{a, b}, ValueRange{init}, attributes)
                    .getOperation();
  rewriter.replaceOp(op, product->getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// The pattern table
//===----------------------------------------------------------------------===//


} // namespace

void opal::ir::detail::markSharedTransposes(Operation *root) {
  llvm::DenseMap<Value, SmallVector<Operation *>> readers;
  root->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if ((name == "prims.mm" || name == "prims.bmm") && op->getNumOperands() == 2)
      if (Value matrix = transposedMatrix(op->getOperand(1), name == "prims.bmm" ? 3 : 2))
        readers[matrix].push_back(op);
  });
  for (auto &[matrix, products] : readers)
    if (products.size() > 1)
      for (Operation *product : products)
        product->setAttr(kSharedTransposeAttr, UnitAttr::get(root->getContext()));
}

const llvm::StringMap<PrimLowering> &opal::ir::detail::structuredLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.broadcast_in_dim", {broadcastProblem, lowerBroadcast}},
      {"prims.transpose", {transposeProblem, lowerTranspose}},
      {"prims.reshape", {reshapeProblem, lowerReshape}},
      {"prims.squeeze", {squeezeProblem, lowerSqueeze}},
      {"prims.full", {fullProblem, lowerFull}},
      {"prims.iota", {iotaProblem, lowerIota}},
      {"prims.sum", {reductionProblem, lowerReduction}},
      {"prims.prod", {reductionProblem, lowerReduction}},
      {"prims.amax", {reductionProblem, lowerReduction}},
      {"prims.amin", {reductionProblem, lowerReduction}},
      {"prims.mm", {matmulProblem, lowerMatmul}},
      {"prims.bmm", {matmulProblem, lowerMatmul}},
  };
  return table;
}
