//===- SchemaLexer.cpp - Tokens of PyTorch's schema grammar ---------------===//

#include "SchemaLexer.h"

#include <cctype>

using namespace opal;
using namespace opal::detail;

std::string Token::describe() const {
  switch (kind) {
  case TokenKind::End:
    return "end of input";
  case TokenKind::Identifier:
    return "'" + std::string(text) + "'";
  case TokenKind::Number:
    return "number " + std::string(text);
  case TokenKind::String:
    return "string " + std::string(text);
  case TokenKind::Punct:
  case TokenKind::Invalid:
    return "'" + std::string(text) + "'";
  }
  return "?";
}

static bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
static bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
static bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

void SchemaLexer::advance() {
  while (pos_ < text_.size() &&
         std::isspace(static_cast<unsigned char>(text_[pos_])))
    ++pos_;
  size_t start = pos_;
  current_ = Token();
  current_.offset = start;
  if (pos_ >= text_.size()) {
    current_.kind = TokenKind::End;
    current_.text = text_.substr(text_.size());
    return;
  }
  char c = text_[pos_];
  if (isIdentStart(c)) {
    while (pos_ < text_.size() && isIdentChar(text_[pos_]))
      ++pos_;
    current_.kind = TokenKind::Identifier;
    current_.text = text_.substr(start, pos_ - start);
    return;
  }
  if (isDigit(c)) {
    current_ = lexNumber(start);
    return;
  }
  if (c == '"' || c == '\'') {
    current_ = lexString(start);
    return;
  }
  for (std::string_view punct : {"::", "->", "..."}) {
    if (text_.substr(pos_, punct.size()) == punct) {
      pos_ += punct.size();
      current_.kind = TokenKind::Punct;
      current_.text = text_.substr(start, punct.size());
      return;
    }
  }
  static constexpr std::string_view kSingle = "()[],*?!=.|-";
  ++pos_;
  current_.text = text_.substr(start, 1);
  if (kSingle.find(c) != std::string_view::npos) {
    current_.kind = TokenKind::Punct;
    return;
  }
  current_.kind = TokenKind::Invalid;
  current_.error = "unexpected character '" + std::string(1, c) + "'";
}

// number := digits ['.' digits*] [('e'|'E') ['+'|'-'] digits] ['j']
Token SchemaLexer::lexNumber(size_t start) {
  Token token;
  token.kind = TokenKind::Number;
  token.offset = start;
  auto digits = [&] {
    while (pos_ < text_.size() && isDigit(text_[pos_]))
      ++pos_;
  };
  digits();
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    digits();
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    size_t save = pos_++;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
      ++pos_;
    if (pos_ < text_.size() && isDigit(text_[pos_]))
      digits();
    else
      pos_ = save; // not an exponent; the 'e' is left for the next token
  }
  if (pos_ < text_.size() && text_[pos_] == 'j')
    ++pos_;
  if (pos_ < text_.size() && isIdentChar(text_[pos_])) {
    while (pos_ < text_.size() && isIdentChar(text_[pos_]))
      ++pos_;
    token.kind = TokenKind::Invalid;
    token.text = text_.substr(start, pos_ - start);
    token.error = "malformed number '" + std::string(token.text) + "'";
    return token;
  }
  token.text = text_.substr(start, pos_ - start);
  return token;
}

Token SchemaLexer::lexString(size_t start) {
  Token token;
  token.offset = start;
  char quote = text_[pos_++];
  while (pos_ < text_.size() && text_[pos_] != quote) {
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size())
      ++pos_;
    ++pos_;
  }
  if (pos_ >= text_.size()) {
    token.kind = TokenKind::Invalid;
    token.text = text_.substr(start, 1);
    token.error = "unterminated string literal";
    return token;
  }
  ++pos_; // closing quote
  token.kind = TokenKind::String;
  token.text = text_.substr(start, pos_ - start);
  return token;
}

std::string opal::detail::unquoteString(std::string_view token) {
  std::string out;
  std::string_view body = token.substr(1, token.size() - 2);
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    if (e >= '0' && e <= '7') { // up to three octal digits
      int code = 0;
      for (int n = 0; n < 3 && i < body.size() && body[i] >= '0' &&
                      body[i] <= '7';
           ++n, ++i)
        code = code * 8 + (body[i] - '0');
      --i;
      out += static_cast<char>(code);
      continue;
    }
    switch (e) {
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'v': out += '\v'; break;
    default: // \\, \", \' and any other escaped character stand for themselves
      out += e;
    }
  }
  return out;
}
