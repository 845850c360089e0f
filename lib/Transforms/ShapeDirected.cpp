//===- ShapeDirected.cpp - Broadcasting, dims and shapes per use ----------===//
//
// opal.broadcast_tensors and opal.broadcast_to follow PyTorch's broadcasting
// and expand; the dims ops normalize dimension arguments; shape_of,
// trailing_dims, infer_shape and dim_size read the shapes of a use.
//
//===----------------------------------------------------------------------===//

#include "TypeDirectedImpl.h"

#include "PrimUtils.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace opal::ir;
using namespace opal::ir::detail;

FailureOr<SmallVector<int64_t>>
opal::ir::detail::normalizedDims(Value dims, int64_t rank, std::string &problem, bool allIfEmpty) {
  SmallVector<int64_t> named;
  if (isNone(dims)) {
    // all, below
  } else if (auto one = constantInt(dims)) {
    named.push_back(*one);
  } else if (auto list = constantIntList(dims)) {
    named = *list;
  } else {
    problem = "needs constant dimensions (an int, an int list or None)";
    return failure();
  }
  if (named.empty()) {
    if (!allIfEmpty)
      return named;
    for (int64_t d = 0; d < rank; ++d)
      named.push_back(d);
    return named;
  }
  int64_t bound = std::max<int64_t>(rank, 1); // a 0-d tensor accepts 0 and -1
  for (int64_t &d : named) {
    if (d < -bound || d >= bound) {
      // PyTorch's message, which the call raises.
      expansionRefusal(problem, "Dimension out of range (expected to be in range of [" +
                                    std::to_string(-bound) + ", " + std::to_string(bound - 1) +
                                    "], but got " + std::to_string(d) + ")");
      return failure();
    }
    if (d < 0)
      d += bound;
  }
  for (size_t i = 0; i < named.size(); ++i)
    if (llvm::is_contained(ArrayRef<int64_t>(named).take_front(i), named[i])) {
      expansionRefusal(problem, "dim " + std::to_string(named[i]) +
                                    " appears multiple times in the list of dims");
      return failure();
    }
  if (rank == 0)
    named.clear();
  return named;
}

Expanded opal::ir::detail::expandBroadcast(OpBuilder &b, Operation *op, ValueRange operands,
                                           std::string &problem) {
  SmallVector<RankedTensorType> types;
  size_t rank = 0;
  for (Value value : operands) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return expansionFailure(problem,
                              "needs ranked tensors, got '" + typeString(value.getType()) + "'");
    types.push_back(type);
    rank = std::max<size_t>(rank, type.getRank());
  }
  // The common shape, aligned at the right. A dynamic size is taken to be
  // the other operand's size (it cannot be checked before run time).
  SmallVector<int64_t> shape(rank, 1);
  for (RankedTensorType type : types) {
    size_t offset = rank - type.getRank();
    for (auto [i, size] : llvm::enumerate(type.getShape())) {
      int64_t &common = shape[offset + i];
      if (size == 1 || size == common)
        continue;
      if (common == 1 || ShapedType::isDynamic(common)) {
        common = size;
        continue;
      }
      if (ShapedType::isDynamic(size))
        continue;
      std::string shapes;
      for (RankedTensorType each : types)
        shapes += (shapes.empty() ? "" : " and ") + shapeString(each.getShape());
      // (PyTorch's words after the shapes.)
      return expansionFailure(problem, "cannot broadcast shapes " + shapes +
                                           ": The size of tensor a (" + std::to_string(common) +
                                           ") must match the size of tensor b (" +
                                           std::to_string(size) +
                                           ") at non-singleton dimension " +
                                           std::to_string(offset + i));
    }
  }
  Location loc = op->getLoc();
  // The shape list: constants, and for dynamic sizes the size of an operand
  // that has it, read at run time.
  Value shapeValue;
  auto makeShape = [&]() {
    if (shapeValue)
      return shapeValue;
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size)) {
        sizes.push_back(constantI64(b, loc, size));
        continue;
      }
      for (auto [value, type] : llvm::zip(operands, types)) {
        int64_t local = static_cast<int64_t>(d) - static_cast<int64_t>(rank - type.getRank());
        if (local < 0 || !type.isDynamicDim(local))
          continue;
        sizes.push_back(sizeOf(b, loc, value, local));
        break;
      }
    }
    shapeValue = i64List(b, loc, sizes);
    return shapeValue;
  };
  SmallVector<Value> results;
  for (auto [value, type] : llvm::zip(operands, types)) {
    size_t offset = rank - type.getRank();
    bool stretches = static_cast<size_t>(type.getRank()) != rank;
    for (auto [i, size] : llvm::enumerate(type.getShape()))
      stretches |= size == 1 && shape[offset + i] != 1;
    if (!stretches) {
      // A dynamic size that meets a static one is taken to be it: the cast
      // says so, and the check before the call compares the operand's own
      // size (opal-derive-shape-checks traces through casts).
      SmallVector<int64_t> refined(type.getShape());
      for (auto [i, size] : llvm::enumerate(refined))
        if (ShapedType::isDynamic(size))
          size = shape[offset + i];
      auto refinedType = RankedTensorType::get(refined, type.getElementType());
      results.push_back(refinedType == type
                            ? value
                            : tensor::CastOp::create(b, loc, refinedType, value).getResult());
      continue;
    }
    SmallVector<int64_t> dimensions;
    for (size_t i = 0; i < static_cast<size_t>(type.getRank()); ++i)
      dimensions.push_back(offset + i);
    results.push_back(broadcastInDim(b, loc, value, makeShape(), shape, dimensions));
  }
  return results;
}

Expanded opal::ir::detail::expandNormalizeDims(OpBuilder &b, Operation *op, ValueRange operands,
                                               std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  bool insert = cast<NormalizeDimsOp>(op).getInsert();
  auto dims = normalizedDims(operands[1], type.getRank() + (insert ? 1 : 0), problem, !insert);
  if (failed(dims))
    return failure();
  if (cast<NormalizeDimsOp>(op).getSizeOne())
    llvm::erase_if(*dims, [&](int64_t d) { return type.getDimSize(d) != 1; });
  return SmallVector<Value>{constantList(b, op->getLoc(), *dims)};
}

Expanded opal::ir::detail::expandDimsExcept(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  int64_t skip = cast<DimsExceptOp>(op).getDim();
  int64_t start = cast<DimsExceptOp>(op).getStart();
  if (skip < 0 || skip >= type.getRank())
    return expansionFailure(problem, "dim " + std::to_string(skip) +
                                         " is outside a tensor of rank " +
                                         std::to_string(type.getRank()));
  SmallVector<int64_t> dims;
  for (int64_t d = std::max<int64_t>(start, 0); d < type.getRank(); ++d)
    if (d != skip)
      dims.push_back(d);
  return SmallVector<Value>{constantList(b, op->getLoc(), dims)};
}

Expanded opal::ir::detail::expandSumTo(OpBuilder &b, Operation *op, ValueRange operands,
                                       std::string &problem) {
  RankedTensorType grad = rankedOperand(operands[0], problem);
  RankedTensorType like = grad ? rankedOperand(operands[1], problem) : nullptr;
  if (!grad || !like)
    return failure();
  int64_t rank = grad.getRank(), target = like.getRank(), lead = rank - target;
  if (lead < 0)
    return expansionFailure(problem, "cannot sum '" + typeString(grad) + "' to the shape of '" +
                                         typeString(like) + "'");
  Location loc = op->getLoc();
  SmallVector<int64_t> summed, keptShape;
  SmallVector<bool> stretched(target, false);
  for (int64_t d = 0; d < rank; ++d) {
    bool sum = d < lead;
    if (!sum) {
      int64_t want = like.getDimSize(d - lead), have = grad.getDimSize(d);
      sum = want == 1 && have != 1;
      stretched[d - lead] = sum;
    }
    if (sum)
      summed.push_back(d);
    else
      keptShape.push_back(grad.getDimSize(d));
  }
  Value result = operands[0];
  if (!summed.empty()) {
    Value none = NoneOp::create(b, loc, NoneType::get(b.getContext()));
    auto reduced = RankedTensorType::get(keptShape, grad.getElementType());
    result = createPrim(b, loc, "prims.sum", {result, constantList(b, loc, summed), none},
                        reduced);
    if (llvm::is_contained(stretched, true)) {
      // The size-1 dims the forward stretched come back.
      SmallVector<int64_t> shape, kept;
      SmallVector<Value> sizes;
      int64_t next = 0;
      for (int64_t d = 0; d < target; ++d) {
        if (stretched[d]) {
          shape.push_back(1);
          sizes.push_back(constantI64(b, loc, 1));
          continue;
        }
        shape.push_back(reduced.getDimSize(next));
        sizes.push_back(sizeOf(b, loc, result, next));
        kept.push_back(d);
        ++next;
      }
      result = broadcastInDim(b, loc, result, i64List(b, loc, sizes), shape, kept);
    }
  }
  Type element = like.getElementType();
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getElementType() != element)
    result = createPrim(b, loc, "prims.convert_element_type",
                        {result, constantI64(b, loc, *scalarTypeCodeFor(element))},
                        type.clone(element));
  return SmallVector<Value>{result};
}

Expanded opal::ir::detail::expandKeepDims(OpBuilder &b, Operation *op, ValueRange operands,
                                          std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto dims = constantIntList(operands[1]);
  auto keep = constantInt(operands[2]);
  if (!dims || !keep)
    return expansionFailure(problem, "needs constant dims and keepdim");
  if (!*keep)
    return SmallVector<Value>{operands[0]};
  Location loc = op->getLoc();
  int64_t rank = type.getRank() + static_cast<int64_t>(dims->size());
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  SmallVector<int64_t> kept;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(*dims, d)) {
      shape.push_back(1);
      sizes.push_back(constantI64(b, loc, 1));
      continue;
    }
    if (next >= type.getRank())
      return expansionFailure(problem, "has dims that do not fit a tensor of rank " +
                                           std::to_string(type.getRank()));
    shape.push_back(type.getDimSize(next));
    sizes.push_back(sizeOf(b, loc, operands[0], next));
    kept.push_back(d);
    ++next;
  }
  return SmallVector<Value>{
      broadcastInDim(b, loc, operands[0], i64List(b, loc, sizes), shape, kept)};
}

Expanded opal::ir::detail::expandCount(OpBuilder &b, Operation *op, ValueRange operands,
                                       std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto dims = constantIntList(operands[1]);
  if (!dims)
    return expansionFailure(problem, "needs constant dims");
  Location loc = op->getLoc();
  int64_t known = 1;
  Value product;
  for (int64_t d : *dims) {
    if (d < 0 || d >= type.getRank())
      return expansionFailure(problem, "has dimension " + std::to_string(d) + " outside rank " +
                                           std::to_string(type.getRank()));
    if (!type.isDynamicDim(d)) {
      known *= type.getDimSize(d);
      continue;
    }
    Value size = sizeOf(b, loc, operands[0], d);
    product = product ? Value(arith::MulIOp::create(b, loc, product, size)) : size;
  }
  Value count = constantI64(b, loc, known);
  if (product)
    count = arith::MulIOp::create(b, loc, product, count);
  return SmallVector<Value>{count};
}

Expanded opal::ir::detail::expandTransposePerm(OpBuilder &b, Operation *op, ValueRange operands,
                                               std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto d0 = constantInt(operands[1]), d1 = constantInt(operands[2]);
  if (!d0 || !d1)
    return expansionFailure(problem, "needs constant dimensions");
  SmallVector<int64_t> permutation;
  for (int64_t d = 0; d < type.getRank(); ++d)
    permutation.push_back(d);
  if (type.getRank() >= 2) {
    auto first = normalizedDims(operands[1], type.getRank(), problem);
    if (failed(first))
      return failure();
    auto second = normalizedDims(operands[2], type.getRank(), problem);
    if (failed(second))
      return failure();
    std::swap(permutation[(*first)[0]], permutation[(*second)[0]]);
  }
  return SmallVector<Value>{constantList(b, op->getLoc(), permutation)};
}

Expanded opal::ir::detail::expandShapeOf(OpBuilder &b, Operation *op, ValueRange operands,
                                         std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  Location loc = op->getLoc();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(sizeOf(b, loc, operands[0], d));
  return SmallVector<Value>{i64List(b, loc, sizes)};
}

Expanded opal::ir::detail::expandTrailingDims(OpBuilder &b, Operation *op, ValueRange operands,
                                              std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto shape = constantIntList(operands[1]);
  if (!shape)
    return expansionFailure(problem, "needs a constant shape");
  int64_t count = static_cast<int64_t>(shape->size()), rank = type.getRank();
  if (count > rank)
    return expansionFailure(problem, "has a shape of " + std::to_string(count) +
                                         " dimensions for a tensor of rank " +
                                         std::to_string(rank));
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < count; ++i) {
    int64_t d = rank - count + i, size = type.getDimSize(d);
    if (!ShapedType::isDynamic(size) && size != (*shape)[i])
      return expansionFailure(problem, "expects the last dimensions to be " + shapeString(*shape) +
                                           ", but the tensor is '" + typeString(type) + "'");
    dims.push_back(d);
  }
  return SmallVector<Value>{constantList(b, op->getLoc(), dims)};
}

Expanded opal::ir::detail::expandBroadcastTo(OpBuilder &b, Operation *op, ValueRange operands,
                                             std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto sizes = shapeList(operands[1]);
  if (!sizes)
    return expansionFailure(problem, "needs a shape list");
  Operation *list = operands[1].getDefiningOp();
  int64_t rank = static_cast<int64_t>(sizes->size()), offset = rank - type.getRank();
  if (offset < 0)
    return expansionFailure(problem, "cannot expand '" + typeString(type) + "' to " +
                                         std::to_string(rank) + " dimensions");
  Location loc = op->getLoc();
  SmallVector<int64_t> shape;
  SmallVector<Value> values;
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = (*sizes)[d];
    Value value = list->getOperand(d);
    if (d >= offset) {
      int64_t local = d - offset, have = type.getDimSize(local);
      dims.push_back(d);
      if (size == -1) {
        size = have;
        value = sizeOf(b, loc, operands[0], local);
      } else if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(have) && have != 1 &&
                 have != size) {
        return expansionFailure(problem, "cannot expand dimension " + std::to_string(local) +
                                             " of size " + std::to_string(have) + " to size " +
                                             std::to_string(size));
      }
    } else if (size == -1) {
      return expansionFailure(problem,
                              "cannot use -1 for the new leading dimension " + std::to_string(d));
    }
    shape.push_back(size);
    values.push_back(value);
  }
  return SmallVector<Value>{
      broadcastInDim(b, loc, operands[0], i64List(b, loc, values), shape, dims)};
}

namespace {

/// infer_shape where the input's shape or the list's sizes are only known
/// per call: the sizes as given, the -1 one computed as the input's element
/// count over the product of the others (that product at least 1, so that
/// the size computation never divides by zero). opal-derive-shape-checks
/// recognizes that form on the tensor.reshape it lowers to and checks
/// before the call that the counts agree (PyTorch's "shape '[2, -1]' is
/// invalid for input of size 5").
Expanded expandDynamicInferShape(OpBuilder &b, Location loc, Value input,
                                 RankedTensorType type, Value list, std::string &problem) {
  Operation *def = list.getDefiningOp();
  if (!def || def->getName().getStringRef() != "opal.list")
    return expansionFailure(problem, "needs a shape list");
  SmallVector<Value> sizes(def->getOperands());
  std::optional<size_t> inferred;
  Value known;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (!size.getType().isInteger(64))
      return expansionFailure(problem, "needs a list of ints");
    std::optional<int64_t> constant = constantInt(size);
    if (constant && *constant == -1) {
      if (inferred)
        return expansionFailure(problem, "can infer only one dimension (-1)");
      inferred = i;
      continue;
    }
    if (constant && *constant < 0)
      return expansionFailure(problem, "has an invalid size " + std::to_string(*constant));
    known = known ? arith::MulIOp::create(b, loc, known, size).getResult() : size;
  }
  if (inferred) {
    Value elements = constantI64(b, loc, 1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      elements = arith::MulIOp::create(b, loc, elements, sizeOf(b, loc, input, d));
    Value divisor = arith::MaxSIOp::create(b, loc, known ? known : constantI64(b, loc, 1),
                                           constantI64(b, loc, 1));
    sizes[*inferred] = arith::DivSIOp::create(b, loc, elements, divisor);
  }
  return SmallVector<Value>{i64List(b, loc, sizes)};
}

} // namespace

Expanded opal::ir::detail::expandInferShape(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto shape = constantIntList(operands[1]);
  if (!type.hasStaticShape() || !shape)
    return expandDynamicInferShape(b, op->getLoc(), operands[0], type, operands[1], problem);
  int64_t known = 1, inferred = -1;
  for (auto [i, size] : llvm::enumerate(*shape)) {
    if (size == -1) {
      if (inferred >= 0)
        return expansionFailure(problem, "can infer only one dimension (-1)");
      inferred = i;
    } else if (size < 0) {
      return expansionFailure(problem, "has an invalid size " + std::to_string(size));
    } else {
      known *= size;
    }
  }
  int64_t elements = type.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || elements % known != 0)
      return expansionFailure(problem, "cannot reshape '" + typeString(type) + "' to " +
                                           shapeString(*shape));
    (*shape)[inferred] = elements / known;
  } else if (known != elements) {
    return expansionFailure(problem, "cannot reshape '" + typeString(type) + "' (" +
                                         std::to_string(elements) + " elements) to " +
                                         shapeString(*shape));
  }
  return SmallVector<Value>{constantList(b, op->getLoc(), *shape)};
}

Expanded opal::ir::detail::expandDimSize(OpBuilder &b, Operation *op, ValueRange operands,
                                         std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  int64_t d = cast<DimSizeOp>(op).getDim();
  if (d < -type.getRank() || d >= type.getRank())
    return expansionFailure(problem, "dimension " + std::to_string(d) + " is out of range for '" +
                                         typeString(type) + "'");
  if (d < 0)
    d += type.getRank();
  return SmallVector<Value>{sizeOf(b, op->getLoc(), operands[0], d)};
}

Expanded opal::ir::detail::expandSizeAt(OpBuilder &b, Operation *op, ValueRange operands,
                                        std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  std::optional<int64_t> d = constantInt(operands[1]);
  int64_t extent = std::max<int64_t>(type.getRank(), 1);
  if (!d || *d < -extent || *d >= extent)
    return expansionFailure(problem, "needs a constant dimension within the rank of '" +
                                         typeString(type) + "'");
  if (type.getRank() == 0)
    return SmallVector<Value>{constantI64(b, op->getLoc(), 1)};
  return SmallVector<Value>{sizeOf(b, op->getLoc(), operands[0], *d < 0 ? *d + extent : *d)};
}

Expanded opal::ir::detail::expandBatchMatmul(OpBuilder &b, Operation *op, ValueRange operands,
                                             std::string &problem) {
  RankedTensorType lhs = rankedOperand(operands[0], problem);
  RankedTensorType rhs = lhs ? rankedOperand(operands[1], problem) : nullptr;
  if (!rhs)
    return failure();
  int64_t ra = lhs.getRank(), rb = rhs.getRank();
  if (ra < 2 || rb < 2 || (ra == 2 && rb == 2))
    return expansionFailure(problem, "needs operands of rank 2 or more, one of rank 3 or "
                                     "more, got '" + typeString(lhs) + "' and '" +
                                     typeString(rhs) + "'");
  Location loc = op->getLoc();
  Type element = lhs.getElementType();
  Value a = operands[0], c = operands[1];
  auto bmmType = [&](Value x, Value y) {
    auto tx = cast<RankedTensorType>(x.getType()), ty = cast<RankedTensorType>(y.getType());
    return RankedTensorType::get({tx.getDimSize(0), tx.getDimSize(1), ty.getDimSize(2)},
                                 element);
  };
  // Broadcasts a 2-d operand over the batch of a 3-d one (shape-polymorphic).
  auto overBatch = [&](Value matrix, Value batched) {
    auto type = cast<RankedTensorType>(matrix.getType());
    auto batchType = cast<RankedTensorType>(batched.getType());
    SmallVector<int64_t> shape = {batchType.getDimSize(0), type.getDimSize(0),
                                  type.getDimSize(1)};
    Value sizes = i64List(b, loc, {sizeOf(b, loc, batched, 0), sizeOf(b, loc, matrix, 0),
                                   sizeOf(b, loc, matrix, 1)});
    return broadcastInDim(b, loc, matrix, sizes, shape, {1, 2});
  };
  bool sameBatch = ra == 3 && rb == 3 &&
                   (lhs.getDimSize(0) == rhs.getDimSize(0) ||
                    (lhs.isDynamicDim(0) && rhs.isDynamicDim(0)));
  if (sameBatch)
    return SmallVector<Value>{createPrim(b, loc, "prims.bmm", {a, c}, bmmType(a, c))};
  if (ra == 2 && rb == 3) {
    Value ab = overBatch(a, c);
    return SmallVector<Value>{createPrim(b, loc, "prims.bmm", {ab, c}, bmmType(ab, c))};
  }
  if (ra == 3 && rb == 2) {
    Value cb = overBatch(c, a);
    return SmallVector<Value>{createPrim(b, loc, "prims.bmm", {a, cb}, bmmType(a, cb))};
  }
  // General: broadcast the batch dims, flatten them, bmm, restore them.
  if (!lhs.hasStaticShape() || !rhs.hasStaticShape())
    return expansionFailure(problem, "needs static shapes to flatten the batch dimensions of '" +
                                         typeString(lhs) + "' and '" + typeString(rhs) + "'");
  ArrayRef<int64_t> sa = lhs.getShape(), sb = rhs.getShape();
  int64_t batchRank = std::max(ra, rb) - 2;
  SmallVector<int64_t> batch(batchRank, 1);
  for (int64_t i = 0; i < batchRank; ++i) {
    int64_t da = i - (batchRank - (ra - 2)), db = i - (batchRank - (rb - 2));
    int64_t x = da >= 0 ? sa[da] : 1, y = db >= 0 ? sb[db] : 1;
    if (x != y && x != 1 && y != 1)
      return expansionFailure(problem, "cannot broadcast the batch dimensions of '" +
                                           typeString(lhs) + "' and '" + typeString(rhs) + "'");
    batch[i] = x == 1 ? y : x;
  }
  int64_t flat = 1;
  for (int64_t size : batch)
    flat *= size;
  auto flatten = [&](Value x, ArrayRef<int64_t> shape) {
    int64_t rank = static_cast<int64_t>(shape.size());
    SmallVector<int64_t> full(batch), dims;
    full.push_back(shape[rank - 2]);
    full.push_back(shape[rank - 1]);
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(batchRank + 2 - rank + d);
    Value expanded = broadcastInDim(b, loc, x, constantList(b, loc, full), full, dims);
    SmallVector<int64_t> three = {flat, shape[rank - 2], shape[rank - 1]};
    return createPrim(b, loc, "prims.reshape", {expanded, constantList(b, loc, three)},
                      RankedTensorType::get(three, element));
  };
  Value a3 = flatten(a, sa), c3 = flatten(c, sb);
  Value product = createPrim(b, loc, "prims.bmm", {a3, c3}, bmmType(a3, c3));
  SmallVector<int64_t> result(batch);
  result.push_back(sa[ra - 2]);
  result.push_back(sb[rb - 1]);
  return SmallVector<Value>{createPrim(b, loc, "prims.reshape",
                                       {product, constantList(b, loc, result)},
                                       RankedTensorType::get(result, element))};
}
