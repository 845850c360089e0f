//===- BuiltinLibraries.h - The op libraries opal ships ---------*- C++ -*-===//
//
// The built-in op-library files (lib/Library/*.opal.mlir) are embedded in
// the compiler. opal-opt registers their dialects before anything else, and
// tests can read their text.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DIALECT_BUILTINLIBRARIES_H
#define OPAL_DIALECT_BUILTINLIBRARIES_H

#include "opal/Schema/FunctionSchema.h"

#include <string_view>
#include <utility>
#include <vector>

namespace opal::ir {

/// (file name, text) of every built-in op library.
const std::vector<std::pair<std::string_view, std::string_view>> &builtinLibraries();
/// Every schema the built-in libraries define.
const std::vector<FunctionSchema> &builtinSchemas();

} // namespace opal::ir

#endif // OPAL_DIALECT_BUILTINLIBRARIES_H
