//===- OpLibraryFile.cpp - Reading the schemas of op-library files --------===//

#include "opal/Schema/OpLibraryFile.h"

#include "opal/Schema/SchemaParser.h"
#include "opal/Support/RegularFile.h"

#include <cctype>
#include <cstring>

using namespace opal;

namespace {

/// Just enough of MLIR's lexical structure to find `opal.library "ns"` and
/// `opal.def "schema"`: comments, string literals and bare identifiers.
class Scanner {
public:
  Scanner(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  Expected<OpLibraryContents> run() {
    OpLibraryContents contents;
    std::vector<FunctionSchema> &schemas = contents.schemas;
    std::string ns;
    while (skipTrivia()) {
      char c = text_[pos_];
      if (c == '"') {
        size_t start = pos_;
        auto literal = readString();
        if (!literal)
          return makeUnexpected(literal.error());
        if (*literal == "opal.def" || *literal == "opal.library")
          return fail(start, "write " + *literal + " in its custom form in op-library "
                             "files (opal.def \"schema\"), not in the generic form");
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::string_view word = readWord();
        if (word != "opal.def" && word != "opal.library" && word != "opal.decomposition" &&
            word != "opal.precompile")
          continue;
        if (!skipTrivia() || text_[pos_] != '"')
          return fail(pos_, std::string("expected a string after ") + std::string(word));
        size_t start = pos_;
        auto literal = readString();
        if (!literal)
          return makeUnexpected(literal.error());
        if (word == "opal.library") {
          ns = *literal;
          continue;
        }
        if (ns.empty())
          return fail(start, std::string(word) + " outside an opal.library");
        if (word == "opal.precompile") {
          if (!skipTrivia() || text_[pos_] != '"')
            return fail(pos_, "expected the specialization string after opal.precompile \"" +
                                  *literal + "\"");
          size_t at = pos_;
          auto specialization = readString();
          if (!specialization)
            return makeUnexpected(specialization.error());
          std::string location = failMessage(at + 1, "");
          location = location.substr(0, location.find(": error: "));
          contents.precompiled.push_back({qualified(ns, *literal), *specialization, location});
          continue;
        }
        if (word == "opal.decomposition") {
          // "op[.overload]" or "ns::op[.overload]"
          contents.decomposed.push_back(qualified(ns, *literal));
          continue;
        }
        auto schema = parseSchema(*literal);
        if (!schema)
          return fail(start + 1 + schema.error().column() - 1,
                      "invalid schema: " + schema.error().reason());
        std::string_view given = schema->ns();
        if (!given.empty() && given != ns)
          return fail(start, "schema namespace '" + std::string(given) +
                                 "' does not match the library's namespace '" + ns + "'");
        if (given.empty())
          schemas.push_back(schema->withName(
              {ns + "::" + schema->name(), schema->overloadName()}));
        else
          schemas.push_back(std::move(*schema));
        continue;
      }
      ++pos_;
    }
    return contents;
  }

  /// Fails where brackets ('{', '(' and '[', outside strings and comments)
  /// nest deeper than kMaxOpLibraryNesting.
  Expected<bool> checkNesting() {
    size_t depth = 0;
    while (skipTrivia()) {
      char c = text_[pos_];
      if (c == '"') {
        auto literal = readString();
        if (!literal)
          return makeUnexpected(literal.error());
        continue;
      }
      if (c == '{' || c == '(' || c == '[') {
        if (++depth > kMaxOpLibraryNesting)
          return fail(pos_, "brackets nest deeper than " +
                                std::to_string(kMaxOpLibraryNesting) +
                                " levels ('{', '(' and '['); opal reads texts nested at most "
                                "that deep");
      } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
        --depth;
      }
      ++pos_;
    }
    return true;
  }

private:
  /// "op[.overload]" or "ns::op[.overload]" as "ns::op[.overload]".
  static std::string qualified(const std::string &ns, const std::string &name) {
    return name.find("::") == std::string::npos ? ns + "::" + name : name;
  }

  /// Skips whitespace and `//` comments; false at the end of the text.
  bool skipTrivia() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n')
          ++pos_;
      } else {
        return true;
      }
    }
    return false;
  }

  std::string_view readWord() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            std::string_view("_.$-").find(text_[pos_]) != std::string_view::npos))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  /// Reads an MLIR string literal (escapes: \" \\ \n \t and two hex digits).
  Expected<std::string> readString() {
    size_t start = pos_++;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\n')
        break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        break;
      char e = text_[pos_++];
      if (e == 'n')
        out += '\n';
      else if (e == 't')
        out += '\t';
      else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ < text_.size() &&
               std::isxdigit(static_cast<unsigned char>(text_[pos_])))
        out += static_cast<char>(std::stoi(std::string{e, text_[pos_++]}, nullptr, 16));
      else
        out += e;
    }
    if (pos_ >= text_.size() || text_[pos_] != '"')
      return makeUnexpected(failMessage(start, "unterminated string"));
    ++pos_;
    return out;
  }

  std::string failMessage(size_t offset, const std::string &message) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return std::string(file_) + ":" + std::to_string(line) + ":" + std::to_string(column) +
           ": error: " + message;
  }
  Unexpected<Error> fail(size_t offset, const std::string &message) const {
    return makeUnexpected(Error(failMessage(offset, message)));
  }

  std::string_view text_;
  std::string_view file_;
  size_t pos_ = 0;
};

} // namespace

Expected<bool> opal::checkTextNesting(std::string_view text, std::string_view fileName) {
  return Scanner(text, fileName).checkNesting();
}

Expected<OpLibraryContents> opal::scanOpLibrary(std::string_view text,
                                                std::string_view fileName) {
  // MLIR's parser recurses once per nested region, list or parenthesis: a
  // text nested deeper than any op library needs is refused here, before
  // it can overflow the parser's stack.
  if (auto nested = checkTextNesting(text, fileName); !nested)
    return makeUnexpected(nested.error());
  return Scanner(text, fileName).run();
}

Expected<std::vector<FunctionSchema>>
opal::scanOpLibrarySchemas(std::string_view text, std::string_view fileName) {
  auto contents = scanOpLibrary(text, fileName);
  if (!contents)
    return makeUnexpected(contents.error());
  return std::move(contents->schemas);
}

Expected<std::string> opal::readOpLibraryText(const std::string &path) {
  auto fail = [&](const std::string &why) {
    return makeUnexpected(Error(path + ": error: cannot open op library: " + why));
  };
  FileProblem problem;
  auto read = readRegularFile(path, &problem);
  if (!read)
    return fail(problem == FileProblem::Directory ? "it is a directory, not an op-library file"
                                                  : read.error().message());
  std::string text = std::move(*read);
  if (text.compare(0, 4, "\x7f" "ELF") == 0)
    return fail("it is an ELF file, not op-library text (load a shared library of ops "
                "with opal.ops.load_library)");
  if (text.find('\0') != std::string::npos)
    return fail("it is a binary file, not op-library text");
  return text;
}

Expected<std::vector<FunctionSchema>> opal::readOpLibrarySchemas(const std::string &path) {
  auto text = readOpLibraryText(path);
  if (!text)
    return makeUnexpected(text.error());
  return scanOpLibrarySchemas(*text, path);
}
