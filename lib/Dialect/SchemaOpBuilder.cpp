//===- SchemaOpBuilder.cpp - Building schema ops with defaults ------------===//

#include "opal/Dialect/SchemaOpBuilder.h"

#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Dialect/SchemaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace opal;
using namespace opal::ir;

namespace {

/// The base kind under Optional.
const SchemaType &unwrapOptional(const SchemaType &type) {
  return type.isOptional() ? *type.element() : type;
}

Value intConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
Value floatConstant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(value));
}
Value boolConstant(OpBuilder &b, Location loc, bool value) {
  return arith::ConstantIntOp::create(b, loc, value ? 1 : 0, 1);
}

/// A constant scalar of the schema kind `kind` (int-like, float, bool or
/// Scalar) from a default's int, double or bool.
FailureOr<Value> scalarConstant(OpBuilder &b, Location loc, TypeKind kind,
                                const DefaultValue &value) {
  switch (value.kind()) {
  case DefaultValue::Kind::Int:
    return kind == TypeKind::Float ? floatConstant(b, loc, static_cast<double>(value.toInt()))
                                   : intConstant(b, loc, value.toInt());
  case DefaultValue::Kind::Double:
    return floatConstant(b, loc, value.toDouble());
  case DefaultValue::Kind::Bool:
    // A bool Scalar stays a bool (PyTorch's wrapped bool promotes as one).
    return kind == TypeKind::Bool || kind == TypeKind::Scalar
               ? boolConstant(b, loc, value.toBool())
               : intConstant(b, loc, value.toBool() ? 1 : 0);
  default:
    return failure();
  }
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

} // namespace

FailureOr<Value> opal::ir::materializeDefault(OpBuilder &b, Location loc,
                                              const Argument &argument, std::string &error) {
  if (!argument.defaultValue()) {
    error = "argument '" + argument.name() + "' has no default";
    return failure();
  }
  const DefaultValue &value = *argument.defaultValue();
  if (value.isNone())
    return Value(NoneOp::create(b, loc, NoneType::get(b.getContext())));
  const SchemaType &type = unwrapOptional(*argument.type());
  auto unsupported = [&]() -> FailureOr<Value> {
    error = "the default " + value.str() + " of argument '" + argument.name() + "' (" +
            argument.type()->str() + ") has no MLIR constant";
    return failure();
  };
  if (type.kind() == TypeKind::Str && value.kind() == DefaultValue::Kind::String)
    return Value(StrOp::create(b, loc, StrType::get(b.getContext()), value.toString()));
  if (type.isList()) {
    TypeKind elementKind = type.element()->kind();
    SmallVector<Value> elements;
    std::optional<Type> elementType;
    auto add = [&](const DefaultValue &element) {
      auto constant = scalarConstant(b, loc, elementKind, element);
      if (succeeded(constant)) {
        elements.push_back(*constant);
        elementType = constant->getType();
      }
      return succeeded(constant);
    };
    switch (value.kind()) {
    case DefaultValue::Kind::IntList:
      for (int64_t v : value.toIntList())
        if (!add(DefaultValue::fromInt(v)))
          return unsupported();
      break;
    case DefaultValue::Kind::DoubleList:
      for (double v : value.toDoubleList())
        if (!add(DefaultValue::fromDouble(v)))
          return unsupported();
      break;
    case DefaultValue::Kind::BoolList:
      for (bool v : value.toBoolList())
        if (!add(DefaultValue::fromBool(v)))
          return unsupported();
      break;
    case DefaultValue::Kind::Int: // int[2] k=1 means [1, 1]
      for (int64_t i = 0; i < type.fixedSize().value_or(1); ++i)
        if (!add(value))
          return unsupported();
      break;
    default:
      return unsupported();
    }
    Type element = elementType.value_or(elementKind == TypeKind::Float ? Type(b.getF64Type())
                                        : elementKind == TypeKind::Bool
                                            ? Type(b.getI1Type())
                                            : Type(b.getI64Type()));
    return Value(ListOp::create(b, loc, ListType::get(b.getContext(), element), elements));
  }
  auto constant = scalarConstant(b, loc, type.kind(), value);
  if (failed(constant))
    return unsupported();
  return constant;
}

FailureOr<Operation *> opal::ir::buildSchemaOp(
    OpBuilder &b, Location loc, const FunctionSchema &schema, ValueRange positional,
    const std::vector<std::pair<std::string, Value>> &keywords, TypeRange resultTypes,
    std::string &error) {
  const std::string op = schema.operatorName().str();
  const auto &arguments = schema.arguments();
  size_t positionalCount = static_cast<size_t>(
      std::count_if(arguments.begin(), arguments.end(), [](const Argument &a) { return !a.kwargOnly(); }));
  if (positional.size() > positionalCount) {
    error = op + "() takes " + std::to_string(positionalCount) + " positional arguments but " +
            std::to_string(positional.size()) + " were given";
    return failure();
  }
  std::vector<Value> values(arguments.size());
  for (size_t i = 0; i < positional.size(); ++i)
    values[i] = positional[i];
  for (const auto &[name, value] : keywords) {
    auto it = std::find_if(arguments.begin(), arguments.end(),
                           [&](const Argument &a) { return a.name() == name; });
    if (it == arguments.end()) {
      error = op + "() got an unexpected keyword argument '" + name + "'";
      return failure();
    }
    size_t index = static_cast<size_t>(it - arguments.begin());
    if (values[index]) {
      error = op + "() got multiple values for argument '" + name + "'";
      return failure();
    }
    values[index] = value;
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (values[i]) {
      if (!typeFitsSchema(values[i].getType(), *arguments[i].type())) {
        error = op + "(): argument '" + arguments[i].name() + "' must be " +
                describeSchemaType(*arguments[i].type()) + ", but is '" +
                typeText(values[i].getType()) + "'";
        return failure();
      }
      continue;
    }
    if (!arguments[i].defaultValue()) {
      error = op + "() is missing argument '" + arguments[i].name() + "'";
      return failure();
    }
  }
  if (resultTypes.size() != schema.returns().size()) {
    error = op + "() returns " + std::to_string(schema.returns().size()) + " values, but " +
            std::to_string(resultTypes.size()) + " result types were given";
    return failure();
  }
  // Everything is known to be good: only now create the defaults and the op.
  b.getContext()->getOrLoadDialect<arith::ArithDialect>();
  b.getContext()->getOrLoadDialect<OpalDialect>();
  std::vector<Value> defaults;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (values[i])
      continue;
    auto value = materializeDefault(b, loc, arguments[i], error);
    if (failed(value)) {
      error = op + "(): " + error;
      // Newest first; a list goes before the constants it holds.
      for (auto it = defaults.rbegin(); it != defaults.rend(); ++it) {
        Operation *made = it->getDefiningOp();
        SmallVector<Operation *> elements;
        for (Value element : made->getOperands())
          elements.push_back(element.getDefiningOp());
        made->erase();
        for (Operation *element : elements)
          element->erase();
      }
      return failure();
    }
    values[i] = *value;
    defaults.push_back(*value);
  }
  OperationState state(loc, schemaOpName(schema));
  state.addOperands(values);
  state.addTypes(resultTypes);
  return b.create(state);
}
