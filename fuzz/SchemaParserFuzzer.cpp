//===- SchemaParserFuzzer.cpp - libFuzzer target: the schema parser -------===//
//
// Any text: parsing never crashes, and every schema, name or type the parser
// accepts prints to a form that parses back to the same thing and prints the
// same way again (the printer round-trips all it accepts).
//
//===----------------------------------------------------------------------===//

#include "opal/Schema/SchemaParser.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace opal;

[[noreturn]] static void fail(const char *what, const std::string &input,
                              const std::string &printed) {
  std::fprintf(stderr, "opal-fuzz-schema: %s\n  input:   %s\n  printed: %s\n", what,
               input.c_str(), printed.c_str());
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto parsed = parseSchemaOrName(text);
  if (!parsed) {
    (void)parsed.error().message(); // the caret line indexes the text
  } else if (auto *schema = std::get_if<FunctionSchema>(&*parsed)) {
    std::string printed = schema->str();
    auto again = parseSchema(printed);
    if (!again)
      fail(("printed schema does not parse: " + again.error().reason()).c_str(), text,
           printed);
    if (!(*again == *schema))
      fail("printed schema parses to another schema", text, printed);
    if (again->str() != printed)
      fail("printed schema prints differently the second time", text, again->str());
  } else {
    const OperatorName &name = std::get<OperatorName>(*parsed);
    auto again = parseOperatorName(name.str());
    if (!again || again->str() != name.str())
      fail("printed operator name does not read back", text, name.str());
  }
  if (auto type = parseType(text)) {
    std::string printed = (*type)->str();
    auto again = parseType(printed);
    if (!again || !(**again == **type) || (*again)->str() != printed)
      fail("printed type does not read back as the same type", text, printed);
  }
  return 0;
}
