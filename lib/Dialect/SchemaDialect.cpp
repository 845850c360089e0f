//===- SchemaDialect.cpp - Operator schemas as MLIR ops -------------------===//

#include "opal/Dialect/SchemaDialect.h"

#include "opal/Dialect/OpalTypes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ExtensibleDialect.h"
#include "mlir/IR/OpImplementation.h"

#include <map>

using namespace mlir;
using namespace opal;
using namespace opal::ir;

std::string opal::ir::schemaOpName(const FunctionSchema &schema) {
  std::string name = std::string(schema.ns()) + "." + std::string(schema.baseName());
  if (!schema.overloadName().empty())
    name += "." + schema.overloadName();
  return name;
}

static bool isTensorElement(Type type) {
  return isa<IntegerType, FloatType, ComplexType>(type);
}

bool opal::ir::typeFitsSchema(Type type, const SchemaType &schemaType) {
  auto isI64 = [&] { return type.isSignlessInteger(64); };
  switch (schemaType.kind()) {
  case TypeKind::Optional:
    return isa<ir::NoneType>(type) || typeFitsSchema(type, *schemaType.element());
  case TypeKind::Tensor:
    if (isa<ir::GenericTensorType>(type))
      return true; // decided when a decomposition body is instantiated
    if (auto tensor = dyn_cast<TensorType>(type))
      return isTensorElement(tensor.getElementType());
    return false;
  case TypeKind::Int:
  case TypeKind::SymInt:
  case TypeKind::ScalarType:
  case TypeKind::Layout:
  case TypeKind::MemoryFormat:
    return isI64();
  case TypeKind::Float:
    return type.isF64();
  case TypeKind::Bool:
    return type.isSignlessInteger(1);
  case TypeKind::Complex:
    return isa<ComplexType>(type);
  case TypeKind::Scalar:
    return isI64() || type.isF64() || type.isSignlessInteger(1) || isa<ComplexType>(type);
  case TypeKind::Str:
  case TypeKind::Dimname:
    return isa<ir::StrType>(type);
  case TypeKind::Device:
    return isa<ir::DeviceType>(type);
  case TypeKind::List:
    if (auto list = dyn_cast<ir::ListType>(type))
      return typeFitsSchema(list.getElementType(), *schemaType.element());
    return false;
  default:
    return false;
  }
}

std::string opal::ir::describeSchemaType(const SchemaType &schemaType) {
  switch (schemaType.kind()) {
  case TypeKind::Optional:
    if (schemaType.element()->kind() == TypeKind::Generator)
      return "!opal.none (opal has no generator objects)";
    return describeSchemaType(*schemaType.element()) + " or !opal.none";
  case TypeKind::Tensor:
    return "a tensor";
  case TypeKind::Int:
  case TypeKind::SymInt:
  case TypeKind::ScalarType:
  case TypeKind::Layout:
  case TypeKind::MemoryFormat:
    return "i64";
  case TypeKind::Float:
    return "f64";
  case TypeKind::Bool:
    return "i1";
  case TypeKind::Complex:
    return "a complex";
  case TypeKind::Scalar:
    return "i64, f64, i1 or a complex";
  case TypeKind::Str:
  case TypeKind::Dimname:
    return "!opal.str";
  case TypeKind::Device:
    return "!opal.device";
  case TypeKind::List:
    return "!opal.list of " + describeSchemaType(*schemaType.element());
  default:
    return schemaType.str();
  }
}

/// True if MLIR has a form for values of `schemaType`.
static bool representable(const SchemaType &schemaType) {
  switch (schemaType.kind()) {
  case TypeKind::Optional:
    // A Generator? is always None: opal has no generator objects (one
    // generator per device type, Runtime/Generator.h).
    return schemaType.element()->kind() == TypeKind::Generator ||
           representable(*schemaType.element());
  case TypeKind::List:
    return representable(*schemaType.element());
  case TypeKind::Tensor:
  case TypeKind::Int:
  case TypeKind::SymInt:
  case TypeKind::ScalarType:
  case TypeKind::Layout:
  case TypeKind::MemoryFormat:
  case TypeKind::Float:
  case TypeKind::Bool:
  case TypeKind::Complex:
  case TypeKind::Scalar:
  case TypeKind::Str:
  case TypeKind::Dimname:
  case TypeKind::Device:
    return true;
  default:
    return false;
  }
}

std::string opal::ir::schemaOpProblem(const FunctionSchema &schema) {
  if (schema.ns().empty())
    return "schema " + schema.str() + " has no namespace";
  if (schema.isVararg() || schema.isVarret())
    return "schema " + schema.str() + " has '...', which MLIR ops cannot have";
  for (const Argument &argument : schema.arguments())
    if (!representable(*argument.type()))
      return "argument '" + argument.name() + "' of " + schema.operatorName().str() +
             " has type " + argument.type()->str() + ", which opal's MLIR ops do not support yet";
  for (const Argument &ret : schema.returns())
    if (!representable(*ret.type()))
      return "a return of " + schema.operatorName().str() + " has type " + ret.type()->str() +
             ", which opal's MLIR ops do not support yet";
  return "";
}

/// Checks an op's operands and results against its schema.
static LogicalResult verifyAgainstSchema(Operation *op, const FunctionSchema &schema) {
  const auto &arguments = schema.arguments();
  if (op->getNumOperands() != arguments.size())
    return op->emitOpError() << "expects " << arguments.size() << " operands ("
                             << schema.str() << "), but got " << op->getNumOperands();
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    const Argument &argument = arguments[index];
    if (!typeFitsSchema(operand.getType(), *argument.type()))
      return op->emitOpError() << "operand #" << index << " ('" << argument.name()
                               << "' of type " << argument.type()->str() << ") must be "
                               << describeSchemaType(*argument.type()) << ", but got "
                               << operand.getType();
  }
  const auto &returns = schema.returns();
  if (op->getNumResults() != returns.size())
    return op->emitOpError() << "expects " << returns.size() << " results ("
                             << schema.str() << "), but got " << op->getNumResults();
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (!typeFitsSchema(result.getType(), *returns[index].type()))
      return op->emitOpError() << "result #" << index << " (of type "
                               << returns[index].type()->str() << ") must be "
                               << describeSchemaType(*returns[index].type()) << ", but got "
                               << result.getType();
  if (op->getNumRegions() != 0)
    return op->emitOpError() << "takes no regions";
  return success();
}

// `%r = ns.op %a, %b {attrs} : (A, B) -> R`
static ParseResult parseSchemaOp(OpAsmParser &parser, OperationState &state) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  FunctionType type;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) || parser.parseOptionalAttrDict(state.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands(operands, type.getInputs(), loc, state.operands))
    return failure();
  state.addTypes(type.getResults());
  return success();
}

static void printSchemaOp(Operation *op, OpAsmPrinter &printer, StringRef) {
  // Dynamic ops print their own name.
  printer.getStream() << op->getName().getStringRef() << ' ';
  printer.printOperands(op->getOperands());
  printer.printOptionalAttrDict(op->getAttrs());
  printer << " : ";
  printer.printFunctionalType(op->getOperandTypes(), op->getResultTypes());
}

void opal::ir::registerSchemaDialects(DialectRegistry &registry,
                                      const std::vector<FunctionSchema> &schemas) {
  std::map<std::string, std::vector<FunctionSchema>> byNamespace;
  for (const FunctionSchema &schema : schemas)
    byNamespace[std::string(schema.ns())].push_back(schema);
  for (auto &[ns, nsSchemas] : byNamespace) {
    registry.insertDynamic(ns, [schemas = nsSchemas](MLIRContext *, DynamicDialect *dialect) {
      for (const FunctionSchema &schema : schemas) {
        std::string name = schemaOpName(schema);
        std::string local = name.substr(name.find('.') + 1); // without "ns."
        auto definition = DynamicOpDefinition::get(
            local, dialect,
            [schema](Operation *op) { return verifyAgainstSchema(op, schema); },
            [](Operation *) { return success(); }, &parseSchemaOp, &printSchemaOp);
        dialect->registerDynamicOp(std::move(definition));
      }
    });
  }
}
