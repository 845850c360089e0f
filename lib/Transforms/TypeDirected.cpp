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
        Value dim = tensor::DimOp::create(b, loc, value, local);
        sizes.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), dim));
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

bool opal::ir::detail::isTypeDirected(Operation *op) {
  return isa<PromoteOp, BroadcastTensorsOp>(op);
}

FailureOr<SmallVector<Value>> opal::ir::detail::expandTypeDirected(OpBuilder &builder,
                                                                   Operation *op,
                                                                   ValueRange operands,
                                                                   std::string &problem) {
  if (auto promote = dyn_cast<PromoteOp>(op))
    return expandPromote(builder, promote, operands, problem);
  return expandBroadcast(builder, op, operands, problem);
}
