//===- SchemaCheck.cpp - C++ kernel signatures against schemas ------------===//

#include "opal/Dispatch/SchemaCheck.h"

using namespace opal;

/// The type as the kernel sees it: fake types, no annotations, no sizes.
static std::string runtimeSpelling(const TypePtr &type) {
  TypePtr plain = type->fakeType()->withoutAlias();
  std::string text = plain->str();
  // Drop list sizes: `int[2]` and `int[]` are both std::vector<int64_t>.
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      size_t close = text.find(']', i);
      out += "[]";
      i = close;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::optional<std::string>
opal::findSchemaDifference(const FunctionSchema &inferred,
                           const FunctionSchema &expected) {
  if (inferred.arguments().size() != expected.arguments().size())
    return "The number of arguments is different. " +
           std::to_string(inferred.arguments().size()) + " vs " +
           std::to_string(expected.arguments().size()) + ".";
  if (inferred.returns().size() != expected.returns().size())
    return "The number of returns is different. " +
           std::to_string(inferred.returns().size()) + " vs " +
           std::to_string(expected.returns().size()) + ".";
  for (size_t i = 0; i < inferred.arguments().size(); ++i) {
    std::string a = runtimeSpelling(inferred.arguments()[i].type());
    std::string b = runtimeSpelling(expected.arguments()[i].type());
    if (a != b)
      return "Type mismatch in argument " + std::to_string(i + 1) + ": " + a +
             " vs " + b;
  }
  for (size_t i = 0; i < inferred.returns().size(); ++i) {
    std::string a = runtimeSpelling(inferred.returns()[i].type());
    std::string b = runtimeSpelling(expected.returns()[i].type());
    if (a != b)
      return "Type mismatch in return " + std::to_string(i + 1) + ": " + a +
             " vs " + b;
  }
  return std::nullopt;
}

std::string opal::schemaMismatchMessage(const std::string &opName,
                                        const FunctionSchema &expected,
                                        const std::string &expectedDebug,
                                        const FunctionSchema &inferred,
                                        const std::string &inferredDebug,
                                        const std::string &reason) {
  return "Inferred operator schema for a C++ kernel function doesn't match the "
         "expected function schema.\n"
         "  operator: " + opName + "\n"
         "  expected schema: " + expected.str() + "\n"
         "    " + expectedDebug + "\n"
         "  inferred schema: " + inferred.str() + "\n"
         "    " + inferredDebug + "\n"
         "  reason: " + reason;
}
