//===- BuiltinLibraries.cpp - The op libraries opal ships -----------------===//
//
// The texts live in libopal (opal/Library/BuiltinOperators.h), which also
// defines their operators in the dispatcher; the compiler reads them here.
//
//===----------------------------------------------------------------------===//

#include "opal/Dialect/BuiltinLibraries.h"

#include "opal/Library/BuiltinOperators.h"

const std::vector<std::pair<std::string_view, std::string_view>> &
opal::ir::builtinLibraries() {
  return builtinLibraryTexts();
}

const std::vector<opal::FunctionSchema> &opal::ir::builtinSchemas() {
  return builtinOperatorSchemas();
}
