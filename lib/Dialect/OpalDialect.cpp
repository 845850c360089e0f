//===- OpalDialect.cpp - The opal dialect ---------------------------------===//

#include "opal/Dialect/OpalDialect.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Runtime/Device.h"
#include "opal/Schema/SchemaParser.h"
#include "opal/Support/MessageTemplate.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace opal::ir;

#include "opal/Dialect/OpalDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "opal/Dialect/OpalTypes.cpp.inc"

#define GET_OP_CLASSES
#include "opal/Dialect/OpalOps.cpp.inc"

void OpalDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "opal/Dialect/OpalTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "opal/Dialect/OpalOps.cpp.inc"
      >();
}

LogicalResult DeviceOp::verify() {
  auto device = opal::Device::parse(getName().str());
  if (!device)
    return emitOpError() << device.error().message();
  return success();
}

LogicalResult ListOp::verify() {
  Type elementType = cast<ir::ListType>(getResult().getType()).getElementType();
  for (auto [index, element] : llvm::enumerate(getElements()))
    if (element.getType() != elementType)
      return emitOpError() << "element #" << index << " has type " << element.getType()
                           << ", but the list holds " << elementType;
  return success();
}

/// opal.promote and opal.broadcast_tensors map operand i to result i.
static LogicalResult verifyOneResultPerOperand(Operation *op) {
  if (op->getNumOperands() != op->getNumResults())
    return op->emitOpError() << "has " << op->getNumOperands() << " operands but "
                             << op->getNumResults() << " results; it needs one result per operand";
  if (op->getNumOperands() == 0)
    return op->emitOpError() << "needs at least one operand";
  return success();
}

LogicalResult PromoteOp::verify() {
  if (failed(verifyOneResultPerOperand(*this)))
    return failure();
  for (auto [index, value] : llvm::enumerate(getValues())) {
    Type type = value.getType();
    bool scalar = type.isSignlessInteger(1) || type.isSignlessInteger(64) || type.isF64();
    if (!scalar && !isa<TensorType, ir::GenericTensorType>(type))
      return emitOpError() << "operand #" << index << " has type " << type
                           << "; expected a tensor, !opal.tensor, i1, i64 or f64";
  }
  return success();
}

LogicalResult BroadcastTensorsOp::verify() { return verifyOneResultPerOperand(*this); }

LogicalResult StrEqOp::verify() {
  if (!(*this)->getParentOfType<DecompositionOp>())
    return emitOpError() << "may only appear in an opal.decomposition body";
  return success();
}

LogicalResult CheckOp::verify() {
  for (auto [index, value] : llvm::enumerate(getValues())) {
    auto list = dyn_cast<ir::ListType>(value.getType());
    if (!value.getType().isSignlessInteger(64) &&
        !(list && list.getElementType().isSignlessInteger(64)))
      return emitOpError() << "value #" << index << " has type " << value.getType()
                           << "; expected i64 or !opal.list<i64>";
  }
  if (std::string problem = messageTemplateProblem(getMessage().str(), getValues().size());
      !problem.empty())
    return emitOpError() << "message has " << problem;
  return success();
}

LogicalResult AssertOp::verify() {
  int64_t total = 0;
  for (int32_t count : getGroups()) {
    if (count < 0)
      return emitOpError() << "groups must not be negative";
    total += count;
  }
  if (total != static_cast<int64_t>(getValues().size()))
    return emitOpError() << "groups hold " << total << " values, but the op has "
                         << getValues().size();
  if (std::string problem = messageTemplateProblem(getMessage().str(), getGroups().size());
      !problem.empty())
    return emitOpError() << "message has " << problem;
  return success();
}

LogicalResult StaticIfOp::verify() {
  if (!(*this)->getParentOfType<DecompositionOp>())
    return emitOpError() << "may only appear in an opal.decomposition body";
  for (Region *region : {&getThenRegion(), &getElseRegion()}) {
    auto yield = dyn_cast<YieldOp>(region->front().getTerminator());
    if (!yield)
      return emitOpError() << "branches must end with opal.yield";
    if (yield.getValues().size() != getNumResults())
      return emitOpError() << "has " << getNumResults() << " results, but a branch yields "
                           << yield.getValues().size();
  }
  return success();
}

LogicalResult LibraryOp::verify() {
  StringRef ns = getNs();
  bool identifier = !ns.empty() && (std::isalpha(ns.front()) || ns.front() == '_') &&
                    llvm::all_of(ns, [](char c) { return std::isalnum(c) || c == '_'; });
  if (!identifier)
    return emitOpError() << "namespace '" << ns << "' is not an identifier";
  if (ns == "_")
    return emitOpError() << "namespace _ is reserved for backend fallbacks";
  return success();
}

LogicalResult DefOp::verify() {
  auto schema = opal::parseSchema(getSchema().str());
  if (!schema)
    return emitOpError() << "invalid schema: " << schema.error().message();
  auto library = (*this)->getParentOfType<LibraryOp>();
  std::string_view ns = schema->ns();
  if (!ns.empty() && library && llvm::StringRef(ns.data(), ns.size()) != library.getNs())
    return emitOpError() << "schema namespace '" << ns
                         << "' does not match the library's namespace '"
                         << library.getNs() << "'";
  if (schema->name().empty())
    return emitOpError() << "the schema needs an operator name";
  return success();
}

/// The schema of the library op named `name` ("op", "op.overload" or
/// "ns::op..."), if the library defines it. Only the matching definition is
/// parsed: a library verifies each of its decompositions this way, and
/// parsing every schema for each made that quadratic (a sixth of a
/// process's first JIT compile with the aten library).
static std::optional<opal::FunctionSchema> findDefinition(LibraryOp library,
                                                          StringRef name) {
  std::string qualified = name.contains("::") ? name.str()
                                              : (library.getNs() + "::" + name).str();
  for (auto def : library.getBody().front().getOps<DefOp>()) {
    // The operator's name is the text before the argument list.
    StringRef text = def.getSchema();
    StringRef defined = text.take_until([](char c) { return c == '('; }).trim();
    bool matches = defined.contains("::")
                       ? defined == qualified
                       : (library.getNs() + "::" + defined).str() == qualified;
    if (!matches)
      continue;
    auto schema = opal::parseSchema(text.str());
    if (schema)
      return *schema;
  }
  return std::nullopt;
}

LogicalResult DecompositionOp::verify() {
  auto library = (*this)->getParentOfType<LibraryOp>();
  auto schema = findDefinition(library, getOp());
  if (!schema)
    return emitOpError() << "decomposes '" << getOp()
                         << "', which this library does not define (opal.def)";
  // A decomposition computes new tensors: it cannot write into an argument
  // as `(a!)` promises, so such an op needs a kernel instead.
  for (const auto &argument : schema->arguments())
    if (argument.isWrite())
      return emitOpError() << "decomposes " << library.getNs() << "::" << getOp()
                           << ", which writes into its argument '" << argument.name()
                           << "' (an alias annotation with '!' in its schema): a "
                           << "decomposition computes new tensors and cannot write into its "
                           << "arguments; register a kernel for the op instead";
  Block &block = getBody().front();
  const auto &arguments = schema->arguments();
  if (block.getNumArguments() != arguments.size())
    return emitOpError() << "has " << block.getNumArguments() << " block arguments, but "
                         << schema->operatorName().str() << " takes " << arguments.size();
  for (auto [index, argument] : llvm::enumerate(block.getArguments()))
    if (!typeFitsSchema(argument.getType(), *arguments[index].type()))
      return emitOpError() << "block argument #" << index << " ('"
                           << arguments[index].name() << "') must be "
                           << describeSchemaType(*arguments[index].type()) << ", but is "
                           << argument.getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError() << "must end with opal.yield";
  const auto &returns = schema->returns();
  if (yield.getValues().size() != returns.size())
    return emitOpError() << "yields " << yield.getValues().size() << " values, but "
                         << schema->operatorName().str() << " returns " << returns.size();
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    if (!typeFitsSchema(value.getType(), *returns[index].type()))
      return emitOpError() << "yields " << value.getType() << " as result #" << index
                           << ", which must be " << describeSchemaType(*returns[index].type());
  return success();
}
