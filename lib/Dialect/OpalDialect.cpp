//===- OpalDialect.cpp - The opal dialect ---------------------------------===//

#include "opal/Dialect/OpalDialect.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Runtime/Device.h"
#include "opal/Schema/SchemaParser.h"

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
