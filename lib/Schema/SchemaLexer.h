//===- SchemaLexer.h - Tokens of PyTorch's schema grammar -------*- C++ -*-===//
//
// Private to lib/Schema. Splits schema text into identifiers, numbers, string
// literals and punctuation, each with its offset for error carets.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_SCHEMA_SCHEMALEXER_H
#define OPAL_LIB_SCHEMA_SCHEMALEXER_H

#include <string>
#include <string_view>

namespace opal {
namespace detail {

enum class TokenKind {
  Identifier,
  Number,
  String,
  Punct,   // ( ) [ ] , * ? ! = . | :: -> ...
  End,
  Invalid, // a character or literal the grammar has no use for
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text; // the token as written (strings with their quotes)
  size_t offset = 0;
  std::string error; // for Invalid tokens: what is wrong

  bool is(std::string_view punct) const {
    return kind == TokenKind::Punct && text == punct;
  }
  bool isIdentifier(std::string_view name) const {
    return kind == TokenKind::Identifier && text == name;
  }
  /// How the token is named in "but found ..." messages.
  std::string describe() const;
};

class SchemaLexer {
public:
  explicit SchemaLexer(std::string_view text) : text_(text) { advance(); }

  const Token &current() const { return current_; }
  /// Moves to the next token and returns the one that was current.
  Token next() {
    Token token = current_;
    advance();
    return token;
  }
  /// The token after the current one, without consuming anything.
  Token peek() const {
    SchemaLexer copy = *this;
    copy.advance();
    return copy.current_;
  }

private:
  void advance();
  Token lexNumber(size_t start);
  Token lexString(size_t start);

  std::string_view text_;
  size_t pos_ = 0;
  Token current_;
};

/// Decodes the escapes of a string token (its text includes the quotes).
std::string unquoteString(std::string_view token);

} // namespace detail
} // namespace opal

#endif // OPAL_LIB_SCHEMA_SCHEMALEXER_H
