//===- SchemaCheck.h - C++ kernel signatures against schemas ----*- C++ -*-===//

#ifndef OPAL_DISPATCH_SCHEMACHECK_H
#define OPAL_DISPATCH_SCHEMACHECK_H

#include "opal/Schema/FunctionSchema.h"

#include <optional>
#include <string>

namespace opal {

/// Why a schema inferred from a C++ kernel does not fit the op's schema, in
/// PyTorch's words ("The number of arguments is different. 2 vs 1."), or
/// nothing if it fits. Types are compared as they are at run time: alias
/// annotations and list sizes are ignored, and SymInt, ScalarType, Layout
/// and MemoryFormat are ints.
std::optional<std::string> findSchemaDifference(const FunctionSchema &inferred,
                                                const FunctionSchema &expected);

/// The full registration error for a mismatch.
std::string schemaMismatchMessage(const std::string &opName,
                                  const FunctionSchema &expected,
                                  const std::string &expectedDebug,
                                  const FunctionSchema &inferred,
                                  const std::string &inferredDebug,
                                  const std::string &reason);

} // namespace opal

#endif // OPAL_DISPATCH_SCHEMACHECK_H
