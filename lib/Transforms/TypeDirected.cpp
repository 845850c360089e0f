//===- TypeDirected.cpp - Expanding opal.promote and friends --------------===//
//
// opal.promote follows PyTorch's result_type (c10/core/ScalarType.h
// promoteTypes and ATen's TensorIterator: tensors with dimensions, then 0-d
// tensors, then scalars, a lower group winning only with a higher category).
// opal.broadcast_tensors follows PyTorch's broadcasting.
//
//===----------------------------------------------------------------------===//

#include "TypeDirected.h"

#include "PrimUtils.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace opal::ir;
using namespace opal::ir::detail;

namespace {

/// 0 for bool, 1 for integers, 2 for floats.
int category(Type type) {
  if (type.isInteger(1))
    return 0;
  return isa<FloatType>(type) ? 2 : 1;
}

/// `b` if `a` is null, `a` if `b` is null, else their promotion.
Type promoteOrTake(Type a, Type b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return promoteElementTypes(a, b);
}

/// The group of higher priority, unless the lower one has a higher category.
Type combineGroups(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower || category(lower) <= category(higher))
    return higher;
  return lower;
}

Value constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}

Value constantList(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  SmallVector<Value> elements;
  for (int64_t value : values)
    elements.push_back(constantI64(b, loc, value));
  return ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), elements);
}

/// Creates the prim `name` with `operands` and one result of `type`.
Value createPrim(OpBuilder &b, Location loc, StringRef name, ValueRange operands, Type type) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  return b.create(state)->getResult(0);
}

/// The size of dimension `d` of `tensor` as an i64 value (a constant when
/// static, a tensor.dim otherwise).
Value sizeOf(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return constantI64(b, loc, type.getDimSize(d));
  Value dim = tensor::DimOp::create(b, loc, tensor, d);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), dim);
}

FailureOr<SmallVector<Value>> fail(std::string &problem, std::string reason) {
  problem = std::move(reason);
  return failure();
}

FailureOr<SmallVector<Value>> expandPromote(OpBuilder &b, PromoteOp op, ValueRange operands,
                                            std::string &problem) {
  Location loc = op.getLoc();
  Type dims, zeroDim, scalars;
  for (Value value : operands) {
    Type type = value.getType();
    if (auto tensor = dyn_cast<TensorType>(type)) {
      Type &group = tensor.hasRank() && tensor.getRank() == 0 ? zeroDim : dims;
      group = promoteOrTake(group, tensor.getElementType());
    } else if (isa<GenericTensorType>(type)) {
      return fail(problem, "needs operands of known types");
    } else {
      scalars = promoteOrTake(scalars, type);
    }
  }
  // A float scalar stands for the default dtype, float32.
  if (scalars && scalars.isF64())
    scalars = b.getF32Type();
  Type result = combineGroups(combineGroups(dims, zeroDim), scalars);
  if (op.getToFloat() && category(result) < 2)
    result = b.getF32Type();
  std::optional<int64_t> code = scalarTypeCodeFor(result);
  if (!code)
    return fail(problem, "cannot convert to '" + typeString(result) + "'");

  SmallVector<Value> results;
  for (Value value : operands) {
    if (auto tensor = dyn_cast<TensorType>(value.getType())) {
      if (tensor.getElementType() == result) {
        results.push_back(value);
        continue;
      }
      results.push_back(createPrim(b, loc, "prims.convert_element_type",
                                   {value, constantI64(b, loc, *code)},
                                   tensor.clone(result)));
      continue;
    }
    Value shape = constantList(b, loc, {});
    Value device = DeviceOp::create(b, loc, DeviceType::get(b.getContext()), "cpu");
    Value requiresGrad = arith::ConstantIntOp::create(b, loc, 0, 1);
    results.push_back(createPrim(b, loc, "prims.full",
                                 {shape, value, constantI64(b, loc, *code), device, requiresGrad},
                                 RankedTensorType::get({}, result)));
  }
  return results;
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, size] : llvm::enumerate(shape))
    text += (i ? ", " : "") + (ShapedType::isDynamic(size) ? "?" : std::to_string(size));
  return text + "]";
}

FailureOr<SmallVector<Value>> expandBroadcast(OpBuilder &b, Operation *op, ValueRange operands,
                                              std::string &problem) {
  SmallVector<RankedTensorType> types;
  size_t rank = 0;
  for (Value value : operands) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return fail(problem, "needs ranked tensors, got '" + typeString(value.getType()) + "'");
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
      return fail(problem, "cannot broadcast shapes " + shapes + ": size " +
                               std::to_string(size) + " against " + std::to_string(common) +
                               " in dimension " + std::to_string(offset + i));
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
    shapeValue = ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), sizes);
    return shapeValue;
  };
  SmallVector<Value> results;
  for (auto [value, type] : llvm::zip(operands, types)) {
    size_t offset = rank - type.getRank();
    bool stretches = static_cast<size_t>(type.getRank()) != rank;
    for (auto [i, size] : llvm::enumerate(type.getShape()))
      stretches |= size == 1 && shape[offset + i] != 1;
    if (!stretches) {
      results.push_back(value);
      continue;
    }
    SmallVector<int64_t> dimensions;
    for (size_t i = 0; i < static_cast<size_t>(type.getRank()); ++i)
      dimensions.push_back(offset + i);
    results.push_back(createPrim(b, loc, "prims.broadcast_in_dim",
                                 {value, makeShape(), constantList(b, loc, dimensions)},
                                 RankedTensorType::get(shape, type.getElementType())));
  }
  return results;
}

/// The constant dims a dims operand names (an int, an int list or None),
/// normalized for `rank`; None and [] mean all.
FailureOr<SmallVector<int64_t>> normalizedDims(Value dims, int64_t rank, std::string &problem,
                                               bool allIfEmpty = true) {
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
      problem = "dimension " + std::to_string(d) + " is out of range for a tensor of rank " +
                std::to_string(rank);
      return failure();
    }
    if (d < 0)
      d += bound;
  }
  for (size_t i = 0; i < named.size(); ++i)
    if (llvm::is_contained(ArrayRef<int64_t>(named).take_front(i), named[i])) {
      problem = "dimension " + std::to_string(named[i]) + " is named twice";
      return failure();
    }
  if (rank == 0)
    named.clear();
  return named;
}

RankedTensorType rankedOperand(Value value, std::string &problem) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    problem = "needs a ranked tensor, got '" + typeString(value.getType()) + "'";
  return type;
}

FailureOr<SmallVector<Value>> expandNormalizeDims(OpBuilder &b, Operation *op,
                                                  ValueRange operands, std::string &problem) {
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

FailureOr<SmallVector<Value>> expandToDtype(OpBuilder &b, ToDtypeOp op, ValueRange operands,
                                            std::string &problem) {
  auto type = dyn_cast<TensorType>(operands[0].getType());
  if (!type)
    return fail(problem, "needs a tensor of known type");
  Type element = type.getElementType();
  Type target = element;
  if (auto code = constantInt(operands[1])) {
    target = elementTypeFor(*code, b.getContext());
    if (!target)
      return fail(problem, "has an unsupported dtype code " + std::to_string(*code));
  } else if (!isNone(operands[1])) {
    return fail(problem, "needs a constant dtype or None");
  } else if (category(element) < 2 && op.getToFloat()) {
    target = b.getF32Type();
  } else if (category(element) < 2 && op.getIntegralToLong()) {
    target = b.getI64Type();
  }
  if (target == element)
    return SmallVector<Value>{operands[0]};
  Location loc = op.getLoc();
  return SmallVector<Value>{createPrim(b, loc, "prims.convert_element_type",
                                       {operands[0], constantI64(b, loc, *scalarTypeCodeFor(target))},
                                       type.clone(target))};
}

FailureOr<SmallVector<Value>> expandKeepDims(OpBuilder &b, Operation *op, ValueRange operands,
                                             std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto dims = constantIntList(operands[1]);
  auto keep = constantInt(operands[2]);
  if (!dims || !keep)
    return fail(problem, "needs constant dims and keepdim");
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
      return fail(problem, "has dims that do not fit a tensor of rank " +
                               std::to_string(type.getRank()));
    shape.push_back(type.getDimSize(next));
    sizes.push_back(sizeOf(b, loc, operands[0], next));
    kept.push_back(d);
    ++next;
  }
  Value shapeList = ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), sizes);
  return SmallVector<Value>{createPrim(b, loc, "prims.broadcast_in_dim",
                                       {operands[0], shapeList, constantList(b, loc, kept)},
                                       RankedTensorType::get(shape, type.getElementType()))};
}

FailureOr<SmallVector<Value>> expandCount(OpBuilder &b, Operation *op, ValueRange operands,
                                          std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto dims = constantIntList(operands[1]);
  if (!dims)
    return fail(problem, "needs constant dims");
  Location loc = op->getLoc();
  int64_t known = 1;
  Value product;
  for (int64_t d : *dims) {
    if (d < 0 || d >= type.getRank())
      return fail(problem, "has dimension " + std::to_string(d) + " outside rank " +
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

FailureOr<SmallVector<Value>> expandTransposePerm(OpBuilder &b, Operation *op,
                                                  ValueRange operands, std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto d0 = constantInt(operands[1]), d1 = constantInt(operands[2]);
  if (!d0 || !d1)
    return fail(problem, "needs constant dimensions");
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

FailureOr<SmallVector<Value>> expandIsNone(OpBuilder &b, Operation *op, ValueRange operands,
                                           std::string &problem) {
  return SmallVector<Value>{
      arith::ConstantIntOp::create(b, op->getLoc(), isNone(operands[0]) ? 1 : 0, 1)};
}

FailureOr<SmallVector<Value>> expandStrEq(OpBuilder &b, StrEqOp op, ValueRange operands,
                                          std::string &problem) {
  auto str = operands[0].getDefiningOp<StrOp>();
  if (!str)
    return fail(problem, "needs a constant string (opal.str)");
  bool equal = str.getValue() == op.getExpected();
  return SmallVector<Value>{arith::ConstantIntOp::create(b, op.getLoc(), equal ? 1 : 0, 1)};
}

FailureOr<SmallVector<Value>> expandShapeOf(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  Location loc = op->getLoc();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(sizeOf(b, loc, operands[0], d));
  return SmallVector<Value>{
      ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), sizes)};
}

FailureOr<SmallVector<Value>> expandDtypeOf(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  auto type = dyn_cast<TensorType>(operands[0].getType());
  if (!type)
    return fail(problem, "needs a tensor of known type");
  std::optional<int64_t> code;
  if (isNone(operands[1]))
    code = scalarTypeCodeFor(type.getElementType());
  else
    code = constantInt(operands[1]);
  if (!code)
    return fail(problem, "needs a constant dtype or None");
  return SmallVector<Value>{constantI64(b, op->getLoc(), *code)};
}

FailureOr<SmallVector<Value>> expandTrailingDims(OpBuilder &b, Operation *op,
                                                 ValueRange operands, std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto shape = constantIntList(operands[1]);
  if (!shape)
    return fail(problem, "needs a constant shape");
  int64_t count = static_cast<int64_t>(shape->size()), rank = type.getRank();
  if (count > rank)
    return fail(problem, "has a shape of " + std::to_string(count) +
                             " dimensions for a tensor of rank " + std::to_string(rank));
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < count; ++i) {
    int64_t d = rank - count + i, size = type.getDimSize(d);
    if (!ShapedType::isDynamic(size) && size != (*shape)[i])
      return fail(problem, "expects the last dimensions to be " + shapeString(*shape) +
                               ", but the tensor is '" + typeString(type) + "'");
    dims.push_back(d);
  }
  return SmallVector<Value>{constantList(b, op->getLoc(), dims)};
}

FailureOr<SmallVector<Value>> expandBroadcastTo(OpBuilder &b, Operation *op, ValueRange operands,
                                                std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto sizes = shapeList(operands[1]);
  if (!sizes)
    return fail(problem, "needs a shape list");
  Operation *list = operands[1].getDefiningOp();
  int64_t rank = static_cast<int64_t>(sizes->size()), offset = rank - type.getRank();
  if (offset < 0)
    return fail(problem, "cannot expand '" + typeString(type) + "' to " +
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
        return fail(problem, "cannot expand dimension " + std::to_string(local) + " of size " +
                                 std::to_string(have) + " to size " + std::to_string(size));
      }
    } else if (size == -1) {
      return fail(problem, "cannot use -1 for the new leading dimension " + std::to_string(d));
    }
    shape.push_back(size);
    values.push_back(value);
  }
  Value shapeList = ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), values);
  return SmallVector<Value>{createPrim(b, loc, "prims.broadcast_in_dim",
                                       {operands[0], shapeList, constantList(b, loc, dims)},
                                       RankedTensorType::get(shape, type.getElementType()))};
}

FailureOr<SmallVector<Value>> expandInferShape(OpBuilder &b, Operation *op, ValueRange operands,
                                               std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  if (!type.hasStaticShape())
    return fail(problem, "needs a static shape, got '" + typeString(type) +
                             "' (reshaping dynamic shapes is not supported yet)");
  auto shape = constantIntList(operands[1]);
  if (!shape)
    return fail(problem, "needs a constant shape");
  int64_t known = 1, inferred = -1;
  for (auto [i, size] : llvm::enumerate(*shape)) {
    if (size == -1) {
      if (inferred >= 0)
        return fail(problem, "can infer only one dimension (-1)");
      inferred = i;
    } else if (size < 0) {
      return fail(problem, "has an invalid size " + std::to_string(size));
    } else {
      known *= size;
    }
  }
  int64_t elements = type.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || elements % known != 0)
      return fail(problem, "cannot reshape '" + typeString(type) + "' to " + shapeString(*shape));
    (*shape)[inferred] = elements / known;
  } else if (known != elements) {
    return fail(problem, "cannot reshape '" + typeString(type) + "' (" + std::to_string(elements) +
                             " elements) to " + shapeString(*shape));
  }
  return SmallVector<Value>{constantList(b, op->getLoc(), *shape)};
}

FailureOr<SmallVector<Value>> expandHasRank(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  bool has = type.getRank() == cast<HasRankOp>(op).getRank();
  return SmallVector<Value>{arith::ConstantIntOp::create(b, op->getLoc(), has ? 1 : 0, 1)};
}

FailureOr<SmallVector<Value>> expandDimSize(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  int64_t d = cast<DimSizeOp>(op).getDim();
  if (d < -type.getRank() || d >= type.getRank())
    return fail(problem, "dimension " + std::to_string(d) + " is out of range for '" +
                             typeString(type) + "'");
  if (d < 0)
    d += type.getRank();
  return SmallVector<Value>{sizeOf(b, op->getLoc(), operands[0], d)};
}

} // namespace

Type opal::ir::detail::promoteElementTypes(Type a, Type b) {
  if (a == b)
    return a;
  if (category(a) != category(b))
    return category(a) > category(b) ? a : b;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa == wb) // float16 and bfloat16
    return Float32Type::get(a.getContext());
  return wa > wb ? a : b;
}

namespace {

using Expander = FailureOr<SmallVector<Value>> (*)(OpBuilder &, Operation *, ValueRange,
                                                   std::string &);

/// The expansion of each type-directed op, by op name.
const llvm::StringMap<Expander> &expanders() {
  static const llvm::StringMap<Expander> table = [] {
    llvm::StringMap<Expander> t;
    t[PromoteOp::getOperationName()] = [](OpBuilder &b, Operation *op, ValueRange operands,
                                          std::string &problem) {
      return expandPromote(b, cast<PromoteOp>(op), operands, problem);
    };
    t[ToDtypeOp::getOperationName()] = [](OpBuilder &b, Operation *op, ValueRange operands,
                                          std::string &problem) {
      return expandToDtype(b, cast<ToDtypeOp>(op), operands, problem);
    };
    t[StrEqOp::getOperationName()] = [](OpBuilder &b, Operation *op, ValueRange operands,
                                        std::string &problem) {
      return expandStrEq(b, cast<StrEqOp>(op), operands, problem);
    };
    t[BroadcastTensorsOp::getOperationName()] = expandBroadcast;
    t[NormalizeDimsOp::getOperationName()] = expandNormalizeDims;
    t[KeepDimsOp::getOperationName()] = expandKeepDims;
    t[CountOp::getOperationName()] = expandCount;
    t[ShapeOfOp::getOperationName()] = expandShapeOf;
    t[DtypeOfOp::getOperationName()] = expandDtypeOf;
    t[TrailingDimsOp::getOperationName()] = expandTrailingDims;
    t[BroadcastToOp::getOperationName()] = expandBroadcastTo;
    t[InferShapeOp::getOperationName()] = expandInferShape;
    t[IsNoneOp::getOperationName()] = expandIsNone;
    t[TransposePermOp::getOperationName()] = expandTransposePerm;
    t[HasRankOp::getOperationName()] = expandHasRank;
    t[DimSizeOp::getOperationName()] = expandDimSize;
    return t;
  }();
  return table;
}

} // namespace

bool opal::ir::detail::isTypeDirected(Operation *op) {
  return expanders().count(op->getName().getStringRef());
}

FailureOr<SmallVector<Value>> opal::ir::detail::expandTypeDirected(OpBuilder &builder,
                                                                   Operation *op,
                                                                   ValueRange operands,
                                                                   std::string &problem) {
  return expanders().lookup(op->getName().getStringRef())(builder, op, operands, problem);
}
