//===- BuiltinLibraries.cpp - The op libraries opal ships -----------------===//

#include "opal/Dialect/BuiltinLibraries.h"

#include "opal/Schema/OpLibraryFile.h"

#include <cstdio>
#include <cstdlib>

using namespace opal;
using namespace opal::ir;

const std::vector<std::pair<std::string_view, std::string_view>> &
opal::ir::builtinLibraries() {
  static const std::vector<std::pair<std::string_view, std::string_view>> libraries = {
#include "opal/Library/BuiltinLibraries.inc"
  };
  return libraries;
}

const std::vector<FunctionSchema> &opal::ir::builtinSchemas() {
  static const std::vector<FunctionSchema> schemas = [] {
    std::vector<FunctionSchema> all;
    for (auto [name, text] : builtinLibraries()) {
      auto found = scanOpLibrarySchemas(text, name);
      if (!found) { // the build embeds these files; a bad one is a bug
        std::fprintf(stderr, "opal: built-in library: %s\n", found.error().message().c_str());
        std::abort();
      }
      all.insert(all.end(), found->begin(), found->end());
    }
    return all;
  }();
  return schemas;
}
