//===- SchemaParser.cpp - Parsing PyTorch's schema grammar ----------------===//
//
// A recursive-descent parser for
//
//   decl     := [name] '(' params ')' '->' rets | name
//   name     := IDENT ['::' IDENT] ['.' IDENT]
//   params   := [param (',' param)*]
//   param    := '*' | '...' | type ['[' N ']' [alias] ['?']] IDENT ['=' default]
//   type     := (base | 'Dict' '(' type ',' type ')' | '(' type, ... ')')
//               [alias] ('[' ']' [alias] | '?')*
//   alias    := '(' sets ['!'] ['->' sets] ')' | '!'       (Tensor!)
//   rets     := '...' | '(' [ret (',' ret)*] ')' | ret
//   ret      := type [IDENT]
//
// Every failure records the first error with the offending token's position;
// nothing throws.
//
//===----------------------------------------------------------------------===//

#include "opal/Schema/SchemaParser.h"

#include "SchemaLexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace opal;
using namespace opal::detail;

//===----------------------------------------------------------------------===//
// SchemaParseError
//===----------------------------------------------------------------------===//

std::string SchemaParseError::message() const {
  // Show the line that holds the error, with a caret under the token.
  size_t lineStart = source_.rfind('\n', offset_ == 0 ? 0 : offset_ - 1);
  lineStart = (lineStart == std::string::npos || offset_ == 0) ? 0 : lineStart + 1;
  size_t lineEnd = source_.find('\n', offset_);
  if (lineEnd == std::string::npos)
    lineEnd = source_.size();
  size_t lineNumber = 1 + std::count(source_.begin(),
                                     source_.begin() + lineStart, '\n');
  size_t column = offset_ - lineStart;

  std::string out = reason_ + " (";
  if (lineNumber > 1 || lineEnd < source_.size())
    out += "line " + std::to_string(lineNumber) + ", ";
  out += "column " + std::to_string(column + 1) + ")\n";
  out += "  " + source_.substr(lineStart, lineEnd - lineStart) + "\n";
  out += "  " + std::string(column, ' ') + "^";
  size_t span = std::min(length_, lineEnd - std::min(offset_, lineEnd));
  if (span > 1)
    out += std::string(span - 1, '~');
  return out;
}

//===----------------------------------------------------------------------===//
// Literals of default values
//===----------------------------------------------------------------------===//

namespace {

/// A default value as written, before it is checked against its type.
struct Literal {
  enum class Kind { None, Bool, Int, Double, Complex, String, Named, List };
  Kind kind = Kind::None;
  Token token; // first token of the literal, for errors
  size_t length = 0;
  bool boolValue = false;
  int64_t intValue = 0;
  double doubleValue = 0;
  std::string text; // String: the decoded text; Named: the identifier
  std::vector<Literal> elements;

  std::string spelling(std::string_view source) const {
    return std::string(source.substr(token.offset, length));
  }
};

/// Named constants PyTorch's schema parser knows, with the type each belongs
/// to and its integer value.
struct NamedConstant {
  std::string_view name;
  TypeKind type;
  int64_t value;
};
constexpr NamedConstant kNamedConstants[] = {
    {"float", TypeKind::ScalarType, 6},          // at::kFloat
    {"long", TypeKind::ScalarType, 4},           // at::kLong
    {"complex", TypeKind::ScalarType, 9},        // at::kComplexFloat
    {"strided", TypeKind::Layout, 0},            // at::kStrided
    {"contiguous_format", TypeKind::MemoryFormat, 0},
    {"Mean", TypeKind::Int, 1},                  // at::Reduction::Mean
};

/// Case-insensitive edit distance with transpositions (optimal string
/// alignment), for "did you mean" hints: `flaot` is 1 from `float`.
size_t editDistance(std::string_view a, std::string_view b) {
  auto lower = [](char c) {
    return std::tolower(static_cast<unsigned char>(c));
  };
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

/// The base type name closest to `name` within `maxDistance`, if any.
std::string_view closestBaseType(std::string_view name, size_t maxDistance) {
  std::string_view best;
  size_t bestDistance = maxDistance + 1;
  for (std::string_view candidate : allBaseTypeNames()) {
    size_t distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class Parser {
public:
  explicit Parser(std::string_view text) : source_(text), lexer_(text) {}

  std::optional<SchemaParseError> error;

  bool parseDeclaration(std::optional<OperatorName> &name,
                        std::optional<FunctionSchema> &schema);
  bool parseName(OperatorName &name);
  bool parseStandaloneType(TypePtr &type);
  bool expectEnd(const char *what);
  const Token &current() const { return lexer_.current(); }

private:
  bool fail(const Token &token, std::string reason, size_t length = 0);
  bool failAt(size_t offset, size_t length, std::string reason);
  bool expectPunct(std::string_view punct, const std::string &context);
  bool checkToken();

  bool parseSchemaBody(OperatorName name, std::optional<FunctionSchema> &out);
  bool parseArguments(std::vector<Argument> &arguments,
                      std::vector<Token> &nameTokens, bool &isVararg);
  bool parseArgument(bool kwargOnly, std::vector<Argument> &arguments,
                     std::vector<Token> &nameTokens);
  bool parseReturns(std::vector<Argument> &returns,
                    std::vector<Token> &nameTokens, bool &isVarret);
  bool parseReturn(std::vector<Argument> &returns,
                   std::vector<Token> &nameTokens);
  bool parseType(TypePtr &type, bool isArgument);
  bool parseTypeAtom(TypePtr &type);
  bool parseAliasAnnotation(TypePtr &type);
  bool parseAliasSets(std::vector<std::string> &sets);
  bool parseLiteral(Literal &literal);
  bool parseNumber(const Token &token, bool negative, Literal &literal);
  bool convertDefault(const Literal &literal, const TypePtr &type,
                      const std::string &argName, DefaultValue &value);
  bool convertScalar(const Literal &literal, const SchemaType &type,
                     const std::string &argName, DefaultValue &value);
  bool defaultMismatch(const Literal &literal, const SchemaType &type,
                       const std::string &argName, const std::string &expected);
  bool validate(const std::vector<Argument> &arguments,
                const std::vector<Token> &argumentNames,
                const std::vector<Argument> &returns,
                const std::vector<Token> &returnNames, bool isVararg);

  /// Counts one level of the recursive descent (types in types, lists in
  /// lists) while alive; past SchemaType::kMaxNesting the parse fails
  /// instead of recursing on (a schema text is input: 20,000 nested
  /// parentheses overflowed the stack).
  class NestingGuard {
  public:
    explicit NestingGuard(Parser &parser) : depth_(++parser.depth_) {}
    ~NestingGuard() { --depth_; }
    bool ok() const { return depth_ <= static_cast<size_t>(SchemaType::kMaxNesting); }

  private:
    size_t &depth_;
  };

  std::string source_;
  SchemaLexer lexer_;
  size_t lastEnd_ = 0; // end offset of the last consumed token
  size_t depth_ = 0;   // the NestingGuards alive
  Token consume() {
    Token token = lexer_.next();
    lastEnd_ = token.offset + token.text.size();
    return token;
  }
};

} // namespace

bool Parser::failAt(size_t offset, size_t length, std::string reason) {
  if (!error)
    error.emplace(std::move(reason), source_, offset, std::max<size_t>(length, 1));
  return false;
}

bool Parser::fail(const Token &token, std::string reason, size_t length) {
  if (token.kind == TokenKind::Invalid && token.error.size())
    return failAt(token.offset, token.text.size(), token.error);
  return failAt(token.offset, length ? length : token.text.size(),
                std::move(reason));
}

/// Turns a lexical error in the current token into a parse error.
bool Parser::checkToken() {
  if (current().kind == TokenKind::Invalid)
    return fail(current(), current().error);
  return true;
}

bool Parser::expectPunct(std::string_view punct, const std::string &context) {
  if (!checkToken())
    return false;
  if (!current().is(punct))
    return fail(current(), "expected '" + std::string(punct) + "' " + context +
                               ", but found " + current().describe());
  consume();
  return true;
}

bool Parser::expectEnd(const char *what) {
  if (!checkToken())
    return false;
  if (current().kind != TokenKind::End)
    return fail(current(), std::string("unexpected ") + current().describe() +
                               " after the end of the " + what);
  return true;
}

bool Parser::parseName(OperatorName &name) {
  if (!checkToken())
    return false;
  if (current().kind != TokenKind::Identifier)
    return fail(current(), "expected an operator name, but found " +
                               current().describe());
  name.name = std::string(consume().text);
  if (current().is("::")) {
    consume();
    if (!checkToken())
      return false;
    if (current().kind != TokenKind::Identifier)
      return fail(current(), "expected an operator name after '" + name.name +
                                 "::', but found " + current().describe());
    name.name += "::" + std::string(consume().text);
  } else if (current().kind == TokenKind::Invalid && current().text == ":") {
    return failAt(current().offset, 1,
                  "expected '::' between namespace and name");
  }
  if (current().is(".")) {
    consume();
    if (!checkToken())
      return false;
    if (current().kind != TokenKind::Identifier)
      return fail(current(), "expected an overload name after '.', but found " +
                                 current().describe());
    Token overload = consume();
    if (overload.text == "default")
      return fail(overload, "'default' is not a legal overload name: it "
                            "stands for the overload with no name");
    if (overload.text.substr(0, 2) == "__")
      return fail(overload, "overload name '" + std::string(overload.text) +
                                "' must not begin with '__'");
    name.overloadName = std::string(overload.text);
  }
  return true;
}

bool Parser::parseDeclaration(std::optional<OperatorName> &name,
                              std::optional<FunctionSchema> &schema) {
  if (!checkToken())
    return false;
  OperatorName parsedName;
  if (current().kind == TokenKind::End)
    return fail(current(), "expected an operator name or '(', but found end "
                           "of input");
  if (!current().is("(")) {
    if (!parseName(parsedName))
      return false;
    if (current().kind == TokenKind::End) {
      name = std::move(parsedName);
      return true;
    }
  }
  if (!parseSchemaBody(std::move(parsedName), schema))
    return false;
  return expectEnd("schema");
}

bool Parser::parseSchemaBody(OperatorName name,
                             std::optional<FunctionSchema> &out) {
  std::string context =
      name.name.empty() ? "to start the argument list"
                        : "after operator name '" + name.str() + "'";
  if (!expectPunct("(", context))
    return false;
  std::vector<Argument> arguments, returns;
  std::vector<Token> argumentNames, returnNames;
  bool isVararg = false, isVarret = false;
  if (!parseArguments(arguments, argumentNames, isVararg))
    return false;
  if (!expectPunct("->", "after the argument list"))
    return false;
  if (!parseReturns(returns, returnNames, isVarret))
    return false;
  if (!validate(arguments, argumentNames, returns, returnNames, isVararg))
    return false;
  out.emplace(std::move(name), std::move(arguments), std::move(returns),
              isVararg, isVarret);
  return true;
}

bool Parser::parseArguments(std::vector<Argument> &arguments,
                            std::vector<Token> &nameTokens, bool &isVararg) {
  bool kwargOnly = false;
  std::optional<Token> star;
  if (current().is(")")) {
    consume();
    return true;
  }
  while (true) {
    if (!checkToken())
      return false;
    if (isVararg)
      return fail(current(), "'...' must be the last argument");
    if (current().is("*")) {
      if (kwargOnly)
        return fail(current(), "'*' may appear only once in an argument list");
      star = consume();
      kwargOnly = true;
    } else if (current().is("...")) {
      consume();
      isVararg = true;
    } else {
      if (!parseArgument(kwargOnly, arguments, nameTokens))
        return false;
      star.reset();
    }
    if (!checkToken())
      return false;
    if (current().is(")")) {
      if (star)
        return fail(*star, "'*' must be followed by at least one "
                           "keyword-only argument");
      consume();
      return true;
    }
    if (!current().is(","))
      return fail(current(), "expected ',' or ')' after an argument, but "
                             "found " + current().describe());
    consume();
  }
}

bool Parser::parseArgument(bool kwargOnly, std::vector<Argument> &arguments,
                           std::vector<Token> &nameTokens) {
  TypePtr type;
  if (!parseType(type, /*isArgument=*/true))
    return false;
  if (!checkToken())
    return false;
  if (current().kind != TokenKind::Identifier)
    return fail(current(), "expected an argument name after type '" +
                               type->str() + "', but found " +
                               current().describe());
  Token nameToken = consume();
  std::string name(nameToken.text);
  std::optional<DefaultValue> defaultValue;
  if (current().is("=")) {
    consume();
    Literal literal;
    if (!parseLiteral(literal))
      return false;
    DefaultValue value;
    if (!convertDefault(literal, type, name, value))
      return false;
    defaultValue = std::move(value);
  }
  arguments.emplace_back(std::move(name), std::move(type),
                         std::move(defaultValue), kwargOnly);
  nameTokens.push_back(nameToken);
  return true;
}

bool Parser::parseReturns(std::vector<Argument> &returns,
                          std::vector<Token> &nameTokens, bool &isVarret) {
  if (!checkToken())
    return false;
  if (current().is("...")) {
    consume();
    isVarret = true;
    return true;
  }
  if (!current().is("("))
    return parseReturn(returns, nameTokens);
  consume();
  if (current().is(")")) {
    consume();
    return true;
  }
  while (true) {
    if (!checkToken())
      return false;
    if (isVarret)
      return fail(current(), "'...' must be the last return");
    if (current().is("...")) {
      consume();
      isVarret = true;
    } else if (!parseReturn(returns, nameTokens)) {
      return false;
    }
    if (!checkToken())
      return false;
    if (current().is(")")) {
      consume();
      return true;
    }
    if (!current().is(","))
      return fail(current(), "expected ',' or ')' after a return, but found " +
                                 current().describe());
    consume();
  }
}

bool Parser::parseReturn(std::vector<Argument> &returns,
                         std::vector<Token> &nameTokens) {
  TypePtr type;
  if (!parseType(type, /*isArgument=*/false))
    return false;
  std::string name;
  Token nameToken = current();
  if (current().kind == TokenKind::Identifier)
    name = std::string(consume().text);
  if (current().is("="))
    return fail(current(), "a return cannot have a default value");
  returns.emplace_back(std::move(name), std::move(type));
  nameTokens.push_back(nameToken);
  return true;
}

bool Parser::parseStandaloneType(TypePtr &type) {
  return parseType(type, /*isArgument=*/true) && expectEnd("type");
}

bool Parser::parseType(TypePtr &type, bool isArgument) {
  NestingGuard nesting(*this);
  if (!nesting.ok())
    return fail(current(), "types nest deeper than " +
                               std::to_string(SchemaType::kMaxNesting) + " levels");
  if (!parseTypeAtom(type))
    return false;
  if (current().is("(") || current().is("!")) {
    if (!parseAliasAnnotation(type))
      return false;
  }
  // Each `?` and `[]` wraps the type once more: they count as nesting too
  // (printing and freeing a type recurse through its wrappers).
  size_t wraps = 0;
  auto tooDeep = [&] {
    return depth_ + ++wraps > static_cast<size_t>(SchemaType::kMaxNesting);
  };
  while (true) {
    if ((current().is("?") || current().is("[")) && tooDeep())
      return fail(current(), "types nest deeper than " +
                                 std::to_string(SchemaType::kMaxNesting) + " levels");
    if (current().is("?")) {
      if (type->isOptional())
        return fail(current(), "type '" + type->str() +
                                   "' is already optional");
      consume();
      type = SchemaType::optional(type);
      continue;
    }
    if (!current().is("["))
      return true;
    Token open = consume();
    if (current().is("]")) {
      consume();
      type = SchemaType::list(type);
      if (current().is("(") && !parseAliasAnnotation(type))
        return false;
      continue;
    }
    if (current().kind != TokenKind::Number)
      return fail(current(), "expected ']' or a list size after '[', but "
                             "found " + current().describe());
    if (!isArgument)
      return fail(current(), "a list size ('[N]') is only allowed on "
                             "argument types, not on returns");
    Token size = consume();
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(size.text.data(),
                                     size.text.data() + size.text.size(), n);
    if (ec != std::errc() || ptr != size.text.data() + size.text.size() ||
        n < 1 || n > SchemaType::kMaxListSize)
      return fail(size, "list size must be an integer from 1 to " +
                            std::to_string(SchemaType::kMaxListSize) + ", but found " +
                            size.describe());
    if (type->isOptional() || type->isList())
      return fail(open, "a sized list must have a plain element type, not '" +
                            type->str() + "'",
                  size.text.size() + 1);
    if (!expectPunct("]", "after the list size"))
      return false;
    type = SchemaType::list(type, n);
    if (current().is("(") && !parseAliasAnnotation(type))
      return false;
    if (current().is("?")) {
      consume();
      type = SchemaType::optional(type);
    }
    if (current().is("["))
      return fail(current(), "a sized list like '" + type->str() +
                                 "' cannot be the element of another list");
    return true;
  }
}

bool Parser::parseTypeAtom(TypePtr &type) {
  if (!checkToken())
    return false;
  Token token = current();
  if (token.is("(")) {
    consume();
    std::vector<TypePtr> elements;
    if (current().is(")"))
      return fail(current(), "a tuple type needs at least one element");
    while (true) {
      TypePtr element;
      if (!parseType(element, /*isArgument=*/false))
        return false;
      elements.push_back(std::move(element));
      if (current().is(")")) {
        consume();
        break;
      }
      if (!expectPunct(",", "between tuple element types"))
        return false;
    }
    type = SchemaType::tuple(std::move(elements));
    return true;
  }
  if (token.kind != TokenKind::Identifier)
    return fail(token, "expected a type, but found " + token.describe());
  consume();
  if (token.text == "Dict") {
    TypePtr key, value;
    if (!expectPunct("(", "after 'Dict'") || !parseType(key, false) ||
        !expectPunct(",", "between the key and value types of Dict") ||
        !parseType(value, false) ||
        !expectPunct(")", "to close the Dict type"))
      return false;
    type = SchemaType::dict(std::move(key), std::move(value));
    return true;
  }
  if (std::optional<TypeKind> kind = lookupContainerType(token.text)) {
    // Union(A, B, ...), Future(T), RRef(T), Await(T).
    std::string name(token.text);
    std::vector<TypePtr> elements;
    if (!expectPunct("(", "after '" + name + "'"))
      return false;
    do {
      if (!elements.empty())
        consume(); // ','
      TypePtr element;
      if (!parseType(element, false))
        return false;
      elements.push_back(std::move(element));
    } while (*kind == TypeKind::Union && current().is(","));
    if (!expectPunct(")", "to close the " + name + " type"))
      return false;
    type = SchemaType::container(*kind, std::move(elements));
    return true;
  }
  if (std::optional<TypeKind> kind = lookupBaseType(token.text)) {
    type = SchemaType::get(*kind);
    return true;
  }
  static constexpr std::string_view kUnsupported[] = {"Quantizer",
                                                      "ConstQuantizerPtr"};
  for (std::string_view name : kUnsupported)
    if (token.text == name)
      return fail(token, "type '" + std::string(name) +
                             "' is not supported by opal");
  // `__torch__.torch.classes.ns.Name`: a custom class.
  if (token.text == "__torch__") {
    std::string name(token.text);
    do {
      if (!expectPunct(".", "in the class name '" + name + "'"))
        return false;
      if (current().kind != TokenKind::Identifier)
        return fail(current(), "expected a name after '" + name +
                                   ".', but found " + current().describe());
      name += "." + std::string(consume().text);
    } while (current().is("."));
    type = SchemaType::named(TypeKind::Class, std::move(name));
    return true;
  }
  std::string reason = "unknown type '" + std::string(token.text) + "'";
  bool lowerCase = std::islower(static_cast<unsigned char>(token.text[0]));
  // A lower-case identifier is a type variable (`t`, as in TorchScript's
  // `aten::append.t(t[](a!) self, t(c -> *) el)`), unless it is a near miss
  // of a type name (`tensor`, `flaot`).
  size_t maxDistance =
      !lowerCase ? 2 : token.text.size() < 3 ? 0 : token.text.size() < 6 ? 1 : 2;
  std::string_view best = closestBaseType(token.text, maxDistance);
  if (lowerCase && best.empty()) {
    type = SchemaType::named(TypeKind::TypeVar, std::string(token.text));
    return true;
  }
  if (!best.empty())
    return fail(token, reason + "; did you mean '" + std::string(best) + "'?");
  std::string names;
  for (std::string_view candidate : allBaseTypeNames())
    names += (names.empty() ? "" : ", ") + std::string(candidate);
  return fail(token, reason + "; expected one of " + names +
                         ", Dict(K, V) or a tuple");
}

bool Parser::parseAliasAnnotation(TypePtr &type) {
  Token open = current();
  if (open.is("!")) {
    if (type->kind() != TypeKind::Tensor)
      return fail(open, "'!' without a set name is only allowed right after "
                        "'Tensor'");
    consume();
    type = type->withAlias(AliasInfo::freshWrite());
    return true;
  }
  consume(); // '('
  std::vector<std::string> before, after;
  if (!parseAliasSets(before))
    return false;
  bool isWrite = false;
  if (current().is("!")) {
    consume();
    isWrite = true;
  }
  if (current().is("->")) {
    consume();
    if (!parseAliasSets(after))
      return false;
  } else {
    after = before;
  }
  if (!expectPunct(")", "to close the alias annotation"))
    return false;
  type = type->withAlias(AliasInfo(std::move(before), isWrite, std::move(after)));
  return true;
}

bool Parser::parseAliasSets(std::vector<std::string> &sets) {
  while (true) {
    if (!checkToken())
      return false;
    if (current().is("*")) {
      consume();
      sets.push_back(AliasInfo::kWildcard);
    } else if (current().kind == TokenKind::Identifier) {
      sets.emplace_back(consume().text);
    } else {
      return fail(current(), "expected an alias set name (like 'a') or '*', "
                             "but found " + current().describe());
    }
    if (!current().is("|"))
      return true;
    consume();
  }
}

//===----------------------------------------------------------------------===//
// Default values
//===----------------------------------------------------------------------===//

bool Parser::parseNumber(const Token &token, bool negative, Literal &literal) {
  std::string text = (negative ? "-" : "") + std::string(token.text);
  bool imaginary = text.back() == 'j';
  if (imaginary)
    text.pop_back();
  bool isFloat = text.find_first_of(".eE") != std::string::npos;
  if (!isFloat && !imaginary) {
    int64_t value = 0;
    auto [ptr, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size())
      return fail(token, "integer literal " + text + " is out of range for "
                         "a 64-bit int");
    literal.kind = Literal::Kind::Int;
    literal.intValue = value;
    return true;
  }
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (std::isinf(value))
    return fail(token, "float literal " + text + " is out of range");
  literal.kind = imaginary ? Literal::Kind::Complex : Literal::Kind::Double;
  literal.doubleValue = value;
  return true;
}

bool Parser::parseLiteral(Literal &literal) {
  NestingGuard nesting(*this);
  if (!nesting.ok())
    return fail(current(), "default values nest deeper than " +
                               std::to_string(SchemaType::kMaxNesting) + " levels");
  if (!checkToken())
    return false;
  Token token = current();
  literal.token = token;
  size_t start = token.offset;
  auto finish = [&] {
    literal.length = lastEnd_ - start;
    return true;
  };
  if (token.is("[")) {
    consume();
    literal.kind = Literal::Kind::List;
    if (current().is("]")) {
      consume();
      return finish();
    }
    while (true) {
      Literal element;
      if (!parseLiteral(element))
        return false;
      if (element.kind == Literal::Kind::List)
        return fail(element.token, "nested lists are not allowed as defaults");
      literal.elements.push_back(std::move(element));
      if (current().is("]")) {
        consume();
        return finish();
      }
      if (!expectPunct(",", "or ']' in the list"))
        return false;
    }
  }
  if (token.is("-")) {
    consume();
    Token next = current();
    if (next.kind == TokenKind::Number) {
      consume();
      return parseNumber(next, /*negative=*/true, literal) && finish();
    }
    if (next.isIdentifier("inf")) {
      consume();
      literal.kind = Literal::Kind::Double;
      literal.doubleValue = -std::numeric_limits<double>::infinity();
      return finish();
    }
    return fail(next, "expected a number after '-', but found " +
                          next.describe());
  }
  if (token.kind == TokenKind::Number) {
    consume();
    return parseNumber(token, /*negative=*/false, literal) && finish();
  }
  if (token.kind == TokenKind::String) {
    consume();
    literal.kind = Literal::Kind::String;
    literal.text = unquoteString(token.text);
    return finish();
  }
  if (token.kind == TokenKind::Identifier) {
    consume();
    if (token.text == "None") {
      literal.kind = Literal::Kind::None;
    } else if (token.text == "True" || token.text == "False") {
      literal.kind = Literal::Kind::Bool;
      literal.boolValue = token.text == "True";
    } else if (token.text == "inf" || token.text == "nan") {
      literal.kind = Literal::Kind::Double;
      literal.doubleValue = token.text == "inf"
                                ? std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::quiet_NaN();
    } else {
      literal.kind = Literal::Kind::Named;
      literal.text = std::string(token.text);
    }
    return finish();
  }
  return fail(token, "expected a default value, but found " + token.describe());
}

bool Parser::defaultMismatch(const Literal &literal, const SchemaType &type,
                             const std::string &argName,
                             const std::string &expected) {
  return failAt(literal.token.offset, literal.length,
                "invalid default for argument '" + argName + "' of type " +
                    type.str() + ": expected " + expected + ", but found " +
                    literal.spelling(source_));
}

bool Parser::convertScalar(const Literal &literal, const SchemaType &type,
                           const std::string &argName, DefaultValue &value) {
  using K = Literal::Kind;
  switch (type.kind()) {
  case TypeKind::Bool:
  case TypeKind::SymBool:
    if (literal.kind != K::Bool)
      return defaultMismatch(literal, type, argName, "True or False");
    value = DefaultValue::fromBool(literal.boolValue);
    return true;
  case TypeKind::Int:
  case TypeKind::SymInt:
  case TypeKind::ScalarType:
  case TypeKind::Layout:
  case TypeKind::MemoryFormat: {
    if (literal.kind == K::Int) {
      value = DefaultValue::fromInt(literal.intValue);
      return true;
    }
    if (literal.kind == K::Named) {
      for (const NamedConstant &constant : kNamedConstants) {
        if (constant.name == literal.text && constant.type == type.kind()) {
          value = DefaultValue::fromInt(constant.value);
          return true;
        }
      }
    }
    std::string expected = "an integer";
    if (type.kind() == TypeKind::ScalarType)
      expected = "a dtype (float, long, complex) or an integer";
    else if (type.kind() == TypeKind::Layout)
      expected = "strided or an integer";
    else if (type.kind() == TypeKind::MemoryFormat)
      expected = "contiguous_format or an integer";
    else if (type.kind() == TypeKind::Int)
      expected = "an integer (or Mean)";
    return defaultMismatch(literal, type, argName, expected);
  }
  case TypeKind::Float:
  case TypeKind::SymFloat:
    if (literal.kind == K::Int)
      value = DefaultValue::fromDouble(static_cast<double>(literal.intValue));
    else if (literal.kind == K::Double)
      value = DefaultValue::fromDouble(literal.doubleValue);
    else
      return defaultMismatch(literal, type, argName, "a number");
    return true;
  case TypeKind::Complex:
    if (literal.kind == K::Int)
      value = DefaultValue::fromComplex(static_cast<double>(literal.intValue));
    else if (literal.kind == K::Double)
      value = DefaultValue::fromComplex(literal.doubleValue);
    else if (literal.kind == K::Complex)
      value = DefaultValue::fromComplex({0.0, literal.doubleValue});
    else
      return defaultMismatch(literal, type, argName, "a number");
    return true;
  case TypeKind::Scalar:
    if (literal.kind == K::Int)
      value = DefaultValue::fromInt(literal.intValue);
    else if (literal.kind == K::Double)
      value = DefaultValue::fromDouble(literal.doubleValue);
    else if (literal.kind == K::Complex)
      value = DefaultValue::fromComplex({0.0, literal.doubleValue});
    else if (literal.kind == K::Bool)
      value = DefaultValue::fromBool(literal.boolValue);
    else
      return defaultMismatch(literal, type, argName, "a number");
    return true;
  case TypeKind::Str:
  case TypeKind::Dimname:
  case TypeKind::Device:
    if (literal.kind != K::String)
      return defaultMismatch(literal, type, argName, "a string literal");
    value = DefaultValue::fromString(literal.text);
    return true;
  default:
    return defaultMismatch(literal, type, argName, "None");
  }
}

bool Parser::convertDefault(const Literal &literal, const TypePtr &type,
                            const std::string &argName, DefaultValue &value) {
  using K = Literal::Kind;
  if (literal.kind == K::None) {
    if (type->isOptional() || type->kind() == TypeKind::None ||
        type->kind() == TypeKind::Any) {
      value = DefaultValue::none();
      return true;
    }
    return failAt(literal.token.offset, literal.length,
                  "argument '" + argName + "' of type " + type->str() +
                      " cannot default to None; declare it as '" +
                      type->str() + "?'");
  }
  const SchemaType *target = type.get();
  if (target->isOptional()) {
    target = target->element().get();
    // PyTorch keeps an int literal of a `float?` an int (prims::var's
    // `float? correction=1` prints as 1).
    if (literal.kind == K::Int &&
        (target->kind() == TypeKind::Float || target->kind() == TypeKind::SymFloat)) {
      value = DefaultValue::fromInt(literal.intValue);
      return true;
    }
  }

  if (!target->isList()) {
    if (literal.kind == K::List)
      return defaultMismatch(literal, *target, argName, "a single value");
    if (target->kind() == TypeKind::Tuple || target->kind() == TypeKind::Dict)
      return defaultMismatch(literal, *target, argName, "None");
    return convertScalar(literal, *target, argName, value);
  }

  const SchemaType &element = *target->element();
  TypeKind elementKind = element.kind();
  bool intLike = elementKind == TypeKind::Int || elementKind == TypeKind::SymInt;
  if (!intLike && elementKind != TypeKind::Float &&
      elementKind != TypeKind::Bool && elementKind != TypeKind::Complex)
    return failAt(literal.token.offset, literal.length,
                  "invalid default for argument '" + argName + "' of type " +
                      target->str() + ": list defaults are only supported "
                      "for int, float, bool and complex lists");

  std::vector<Literal> items;
  std::optional<int64_t> size = target->fixedSize();
  if (literal.kind == K::List) {
    items = literal.elements;
    // As in PyTorch, the size of `int[N]` is a hint: `int[1] dim=[-2, -1]`
    // (aten::fft_fft2) and `int[2] stride=[]` (max_pool2d) are legal.
  } else if (size) {
    items.assign(*size, literal); // `int[2] stride=1` means [1, 1]
  } else {
    return defaultMismatch(literal, *target, argName,
                           "a list like [0, 1] (a single value is only "
                           "allowed for sized lists like int[2])");
  }

  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<bool> bools;
  std::vector<std::complex<double>> complexes;
  for (const Literal &item : items) {
    DefaultValue converted;
    if (!convertScalar(item, element, argName, converted))
      return false;
    switch (converted.kind()) {
    case DefaultValue::Kind::Int:
      ints.push_back(converted.toInt());
      break;
    case DefaultValue::Kind::Double:
      doubles.push_back(converted.toDouble());
      break;
    case DefaultValue::Kind::Bool:
      bools.push_back(converted.toBool());
      break;
    default:
      complexes.push_back(converted.toComplex());
      break;
    }
  }
  if (intLike)
    value = DefaultValue::fromIntList(std::move(ints));
  else if (elementKind == TypeKind::Float)
    value = DefaultValue::fromDoubleList(std::move(doubles));
  else if (elementKind == TypeKind::Bool)
    value = DefaultValue::fromBoolList(std::move(bools));
  else
    value = DefaultValue::fromComplexList(std::move(complexes));
  return true;
}

//===----------------------------------------------------------------------===//
// Whole-schema checks
//===----------------------------------------------------------------------===//

bool Parser::validate(const std::vector<Argument> &arguments,
                      const std::vector<Token> &argumentNames,
                      const std::vector<Argument> &returns,
                      const std::vector<Token> &returnNames, bool isVararg) {
  bool seenDefault = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Argument &argument = arguments[i];
    for (size_t j = 0; j < i; ++j)
      if (arguments[j].name() == argument.name())
        return fail(argumentNames[i],
                    "duplicate argument name '" + argument.name() + "'");
    if (argument.defaultValue()) {
      if (isVararg)
        return fail(argumentNames[i], "argument '" + argument.name() +
                                          "' has a default, but a schema "
                                          "with '...' cannot have defaults");
      seenDefault = true;
      continue;
    }
    // PyTorch allows non-optional lists without default here for backwards
    // compatibility.
    if (seenDefault && !argument.kwargOnly() && !argument.type()->isList())
      return fail(argumentNames[i],
                  "non-default argument '" + argument.name() +
                      "' follows an argument with a default; give it a "
                      "default or make it keyword-only (after '*')");
  }
  for (size_t i = 0; i < returns.size(); ++i) {
    if (returns[i].name().empty())
      continue;
    for (size_t j = 0; j < i; ++j)
      if (returns[j].name() == returns[i].name())
        return fail(returnNames[i],
                    "duplicate return name '" + returns[i].name() + "'");
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

ParseResult<std::variant<OperatorName, FunctionSchema>>
opal::parseSchemaOrName(std::string_view text) {
  Parser parser(text);
  std::optional<OperatorName> name;
  std::optional<FunctionSchema> schema;
  if (!parser.parseDeclaration(name, schema))
    return makeUnexpected(*parser.error);
  if (schema)
    return std::variant<OperatorName, FunctionSchema>(std::move(*schema));
  return std::variant<OperatorName, FunctionSchema>(std::move(*name));
}

ParseResult<FunctionSchema> opal::parseSchema(std::string_view text) {
  auto result = parseSchemaOrName(text);
  if (!result)
    return makeUnexpected(result.error());
  if (auto *schema = std::get_if<FunctionSchema>(&*result))
    return std::move(*schema);
  return makeUnexpected(SchemaParseError(
      "expected '(' after the operator name: only the operator name was "
      "given, but a schema needs '(arguments) -> returns'",
      std::string(text), text.size(), 1));
}

ParseResult<OperatorName> opal::parseOperatorName(std::string_view text) {
  Parser parser(text);
  OperatorName name;
  if (!parser.parseName(name))
    return makeUnexpected(*parser.error);
  if (parser.current().is("(")) {
    SchemaParseError error("expected only an operator name, but a full "
                           "schema was given",
                           std::string(text), parser.current().offset, 1);
    return makeUnexpected(std::move(error));
  }
  if (!parser.expectEnd("operator name"))
    return makeUnexpected(*parser.error);
  return name;
}

ParseResult<TypePtr> opal::parseType(std::string_view text) {
  Parser parser(text);
  TypePtr type;
  if (!parser.parseStandaloneType(type))
    return makeUnexpected(*parser.error);
  return type;
}
