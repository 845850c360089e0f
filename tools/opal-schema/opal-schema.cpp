//===- opal-schema.cpp - Parse and print operator schemas -----------------===//
//
// Reads operator schemas, one per line, from files or standard input, and
// prints each in PyTorch's canonical form (or, with --explain, as a table of
// its parts). Blank lines and lines starting with '#' are skipped, so lit
// tests can hold their RUN and CHECK lines beside the schemas. A schema that
// does not parse is reported on stderr as `FILE:LINE: error: ...` with a caret
// under the offending text; the exit code is 1 if any line failed.
//
//===----------------------------------------------------------------------===//

#include "opal/Support/Version.h"
#include "opal/Schema/SchemaParser.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace opal;

namespace {

struct Options {
  bool explain = false;
  std::vector<std::string> inputs;
};

void printUsage(std::ostream &os) {
  os << "usage: opal-schema [--explain] [FILE...]\n"
        "\n"
        "Parses operator schemas (one per line; '#' starts a comment line)\n"
        "and prints them in canonical form. Reads standard input when no\n"
        "FILE (or '-') is given.\n"
        "\n"
        "  --explain   print each schema's name, arguments and returns\n"
        "  --help      show this help\n"
        "  --version   print opal's version and build\n";
}

std::string describeDefault(const Argument &argument) {
  if (!argument.defaultValue())
    return "";
  return "=" + argument.defaultValue()->str();
}

void explain(const FunctionSchema &schema, std::ostream &os) {
  os << schema.str() << "\n";
  os << "  name:     " << (schema.name().empty() ? "(none)" : schema.name())
     << "\n";
  os << "  overload: "
     << (schema.overloadName().empty() ? "(default)" : schema.overloadName())
     << "\n";
  auto row = [&](const char *what, const Argument &argument) {
    os << "  " << what << " " << (argument.name().empty() ? "_" : argument.name())
       << ": " << argument.type()->str() << describeDefault(argument);
    std::vector<std::string> flags;
    if (argument.kwargOnly())
      flags.push_back("keyword-only");
    if (const AliasInfo *alias = argument.aliasInfo())
      flags.push_back(std::string(alias->isWrite() ? "writes" : "aliases") +
                      " " + alias->str());
    if (argument.isOut())
      flags.push_back("out");
    for (size_t i = 0; i < flags.size(); ++i)
      os << (i ? ", " : "  [") << flags[i] << (i + 1 == flags.size() ? "]" : "");
    os << "\n";
  };
  for (const Argument &argument : schema.arguments())
    row("arg", argument);
  if (schema.isVararg())
    os << "  arg ...\n";
  for (const Argument &ret : schema.returns())
    row("ret", ret);
  if (schema.isVarret())
    os << "  ret ...\n";
}

/// Parses every schema line of `in`; returns the number of failures.
int processStream(std::istream &in, const std::string &fileName,
                  const Options &options) {
  int failures = 0;
  std::string line;
  for (int lineNumber = 1; std::getline(in, line); ++lineNumber) {
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#')
      continue;
    size_t last = line.find_last_not_of(" \t\r");
    std::string text = line.substr(first, last - first + 1);

    ParseResult<FunctionSchema> schema = parseSchema(text);
    if (!schema) {
      ++failures;
      std::cerr << fileName << ":" << lineNumber
                << ": error: " << schema.error().message() << "\n";
      continue;
    }
    // The canonical text must parse back to the same schema.
    ParseResult<FunctionSchema> reparsed = parseSchema(schema->str());
    if (!reparsed || *reparsed != *schema) {
      ++failures;
      std::cerr << fileName << ":" << lineNumber
                << ": error: canonical form does not round-trip: "
                << schema->str() << "\n";
      continue;
    }
    if (options.explain)
      explain(*schema, std::cout);
    else
      std::cout << schema->str() << "\n";
  }
  return failures;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--explain") {
      options.explain = true;
    } else if (arg == "--help" || arg == "-h") {
      printUsage(std::cout);
      return 0;
    } else if (arg == "--version") {
      std::cout << opal::versionText() << "\n";
      return 0;
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "opal-schema: unknown option '" << arg << "'\n";
      printUsage(std::cerr);
      return 2;
    } else {
      options.inputs.push_back(arg);
    }
  }
  if (options.inputs.empty())
    options.inputs.push_back("-");

  int failures = 0;
  for (const std::string &input : options.inputs) {
    if (input == "-") {
      failures += processStream(std::cin, "<stdin>", options);
      continue;
    }
    std::ifstream file(input);
    if (!file) {
      std::cerr << "opal-schema: cannot open '" << input
                << "': " << std::strerror(errno) << "\n";
      return 2;
    }
    failures += processStream(file, input, options);
  }
  return failures ? 1 : 0;
}
