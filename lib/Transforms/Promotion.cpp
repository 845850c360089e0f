//===- Promotion.cpp - opal.promote, opal.to_dtype, opal.dtype_of ---------===//
//
// opal.promote follows PyTorch's result_type (c10/core/ScalarType.h
// promoteTypes and ATen's TensorIterator: tensors with dimensions, then 0-d
// tensors, then scalars, a lower group winning only with a higher category).
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

int opal::ir::detail::category(Type type) {
  if (type.isInteger(1))
    return 0;
  return isa<FloatType>(type) ? 2 : 1;
}

Type opal::ir::detail::promoteOrTake(Type a, Type b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return promoteElementTypes(a, b);
}

Type opal::ir::detail::combineGroups(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower || category(lower) <= category(higher))
    return higher;
  return lower;
}

Type opal::ir::detail::promoteElementTypes(Type a, Type b) {
  if (a == b)
    return a;
  if (category(a) != category(b))
    return category(a) > category(b) ? a : b;
  // uint8 with a signed integer: the smallest signed type holding both
  // (int16 for int8).
  if (a.isUnsignedInteger() != b.isUnsignedInteger()) {
    Type unsignedOne = a.isUnsignedInteger() ? a : b, other = a.isUnsignedInteger() ? b : a;
    return IntegerType::get(a.getContext(), std::max(other.getIntOrFloatBitWidth(),
                                                     2 * unsignedOne.getIntOrFloatBitWidth()));
  }
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa == wb) // float16 and bfloat16
    return Float32Type::get(a.getContext());
  return wa > wb ? a : b;
}

Expanded opal::ir::detail::expandPromote(OpBuilder &b, Operation *generic, ValueRange operands,
                                         std::string &problem) {
  auto op = cast<PromoteOp>(generic);
  Location loc = op.getLoc();
  Type dims, zeroDim, scalars;
  for (Value value : operands) {
    Type type = value.getType();
    if (auto tensor = dyn_cast<TensorType>(type)) {
      Type &group = tensor.hasRank() && tensor.getRank() == 0 ? zeroDim : dims;
      group = promoteOrTake(group, tensor.getElementType());
    } else if (isa<GenericTensorType>(type)) {
      return expansionFailure(problem, "needs operands of known types");
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
    return expansionFailure(problem, "cannot convert to '" + typeString(result) + "'");

  SmallVector<Value> results;
  for (Value value : operands) {
    if (auto tensor = dyn_cast<TensorType>(value.getType())) {
      if (tensor.getElementType() == result) {
        results.push_back(value);
        continue;
      }
      results.push_back(createPrim(b, loc, "prims.convert_element_type",
                                   {value, constantI64(b, loc, *code)}, tensor.clone(result)));
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

Expanded opal::ir::detail::expandToDtype(OpBuilder &b, Operation *generic, ValueRange operands,
                                         std::string &problem) {
  auto op = cast<ToDtypeOp>(generic);
  auto type = dyn_cast<TensorType>(operands[0].getType());
  if (!type)
    return expansionFailure(problem, "needs a tensor of known type");
  Type element = type.getElementType();
  Type target = element;
  if (auto code = constantInt(operands[1])) {
    target = elementTypeFor(*code, b.getContext());
    if (!target)
      return expansionFailure(problem, "has an unsupported dtype code " + std::to_string(*code));
  } else if (!isNone(operands[1])) {
    return expansionFailure(problem, "needs a constant dtype or None");
  } else if (category(element) < 2 && op.getToFloat()) {
    target = b.getF32Type();
  } else if (category(element) < 2 && op.getIntegralToLong()) {
    target = b.getI64Type();
  }
  if (target == element)
    return SmallVector<Value>{operands[0]};
  Location loc = op.getLoc();
  return SmallVector<Value>{createPrim(
      b, loc, "prims.convert_element_type",
      {operands[0], constantI64(b, loc, *scalarTypeCodeFor(target))}, type.clone(target))};
}

Expanded opal::ir::detail::expandDtypeOf(OpBuilder &b, Operation *op, ValueRange operands,
                                         std::string &problem) {
  auto type = dyn_cast<TensorType>(operands[0].getType());
  Type scalar = operands[0].getType();
  if (!type) {
    // A number: the dtype of its Python type (int64, float64, bool).
    std::optional<int64_t> code = scalar.isInteger(1)    ? std::optional<int64_t>(11)
                                  : scalar.isInteger(64) ? std::optional<int64_t>(4)
                                  : scalar.isF64()       ? std::optional<int64_t>(7)
                                                         : std::nullopt;
    if (!code || !isNone(operands[1]))
      return expansionFailure(problem, "needs a tensor of known type, or a number and None");
    return SmallVector<Value>{constantI64(b, op->getLoc(), *code)};
  }
  std::optional<int64_t> code;
  if (isNone(operands[1]))
    code = scalarTypeCodeFor(type.getElementType());
  else
    code = constantInt(operands[1]);
  if (!code)
    return expansionFailure(problem, "needs a constant dtype or None");
  return SmallVector<Value>{constantI64(b, op->getLoc(), *code)};
}
