//===- SchemaParser.h - Parsing PyTorch's schema grammar --------*- C++ -*-===//
//
// Parses `ns::name.overload(args) -> returns`, the name-less form
// `(args) -> returns`, bare operator names and types. Errors are values that
// say what is wrong, where (column), and show the text with a caret under it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SCHEMA_SCHEMAPARSER_H
#define OPAL_SCHEMA_SCHEMAPARSER_H

#include "opal/Schema/FunctionSchema.h"
#include "opal/Support/Expected.h"

#include <string>
#include <string_view>
#include <variant>

namespace opal {

class SchemaParseError {
public:
  SchemaParseError(std::string reason, std::string source, size_t offset,
                   size_t length)
      : reason_(std::move(reason)), source_(std::move(source)),
        offset_(offset), length_(length) {}

  /// What is wrong, without position: "unknown type 'Tensr'".
  const std::string &reason() const { return reason_; }
  /// The text that was parsed.
  const std::string &source() const { return source_; }
  /// The 1-based column of the offending text.
  size_t column() const { return offset_ + 1; }
  /// The full message: reason and column, the text, and a caret line.
  std::string message() const;

private:
  std::string reason_;
  std::string source_;
  size_t offset_;
  size_t length_;
};

template <typename T> using ParseResult = Expected<T, SchemaParseError>;

/// Parses a full schema. A bare name (`ns::op.overload`) is an error.
ParseResult<FunctionSchema> parseSchema(std::string_view text);
/// Parses `ns::op` or `ns::op.overload`. A full schema is an error.
ParseResult<OperatorName> parseOperatorName(std::string_view text);
/// Parses either a full schema or a bare operator name (`def("ns::op")`).
ParseResult<std::variant<OperatorName, FunctionSchema>>
parseSchemaOrName(std::string_view text);
/// Parses one type, e.g. `Tensor(a!)?` or `int[]`.
ParseResult<TypePtr> parseType(std::string_view text);

} // namespace opal

#endif // OPAL_SCHEMA_SCHEMAPARSER_H
