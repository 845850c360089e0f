//===- SchemaErrorTest.cpp - Invalid schemas and their messages -----------===//

#include "opal/Schema/SchemaParser.h"

#include <gtest/gtest.h>

using namespace opal;

namespace {

struct ErrorCase {
  const char *input;
  const char *reason;
  size_t column;
};

// Every schema PyTorch rejects, and those opal rejects on top (see
// docs/schemas.md), with the reason and the 1-based column of the caret.
const ErrorCase kErrors[] = {
    {"f(Tensor x)", "expected '->' after the argument list, but found end of input", 12},
    {"f(Tensor x) ->", "expected a type, but found end of input", 15},
    {"f(Tensor x", "expected ',' or ')' after an argument, but found end of input", 11},
    {"ns::op", "expected '(' after the operator name: only the operator name was given, but a schema needs '(arguments) -> returns'", 7},
    {"", "expected an operator name or '(', but found end of input", 1},
    {"f(Tensr x) -> ()", "unknown type 'Tensr'; did you mean 'Tensor'?", 3},
    {"f(Widget x) -> ()", "unknown type 'Widget'; expected one of Tensor, int, SymInt, float, SymFloat, bool, SymBool, str, complex, Scalar, ScalarType, Layout, MemoryFormat, Device, Generator, Dimname, Storage, Stream, QScheme, Any, NoneType, AnyClassType, AnyEnumType, Capsule, PyObject, Dict(K, V) or a tuple", 3},
    {"f(Tensor x, Tensor x) -> ()", "duplicate argument name 'x'", 20},
    {"f(Tensor x) -> (Tensor a, Tensor a)", "duplicate return name 'a'", 34},
    {"f(Tensor x, int y=1, int z) -> ()", "non-default argument 'z' follows an argument with a default; give it a default or make it keyword-only (after '*')", 26},
    {"ns::op.default(Tensor x) -> Tensor", "'default' is not a legal overload name: it stands for the overload with no name", 8},
    {"ns::op.__init__(Tensor x) -> Tensor", "overload name '__init__' must not begin with '__'", 8},
    {"f(Tensor x=1) -> ()", "invalid default for argument 'x' of type Tensor: expected None, but found 1", 12},
    {"f(Tensor x=None) -> ()", "argument 'x' of type Tensor cannot default to None; declare it as 'Tensor?'", 12},
    {"f(int x=1.5) -> ()", "invalid default for argument 'x' of type int: expected an integer (or Mean), but found 1.5", 9},
    {"f(bool b=1) -> ()", "invalid default for argument 'b' of type bool: expected True or False, but found 1", 10},
    {"f(float x=\"a\") -> ()", "invalid default for argument 'x' of type float: expected a number, but found \"a\"", 11},
    {"f(str s=3) -> ()", "invalid default for argument 's' of type str: expected a string literal, but found 3", 9},
    {"f(int[] x=1) -> ()", "invalid default for argument 'x' of type int[]: expected a list like [0, 1] (a single value is only allowed for sized lists like int[2]), but found 1", 11},
    {"f(tensor x) -> ()", "unknown type 'tensor'; did you mean 'Tensor'?", 3},
    {"f(flaot x) -> ()", "unknown type 'flaot'; did you mean 'float'?", 3},
    {"f(__torch__ x) -> ()", "expected '.' in the class name '__torch__', but found 'x'", 13},
    {"f(str[] x=[\"a\"]) -> ()", "invalid default for argument 'x' of type str[]: list defaults are only supported for int, float, bool and complex lists", 11},
    {"f(int[2] x=[1, [2]]) -> ()", "nested lists are not allowed as defaults", 16},
    {"f(ScalarType d=strided) -> ()", "invalid default for argument 'd' of type ScalarType: expected a dtype (float, long, complex) or an integer, but found strided", 16},
    {"f(int x=99999999999999999999) -> ()", "integer literal 99999999999999999999 is out of range for a 64-bit int", 9},
    {"f(Tensor x, *) -> ()", "'*' must be followed by at least one keyword-only argument", 13},
    {"f(*, Tensor x, *, int y) -> ()", "'*' may appear only once in an argument list", 16},
    {"f(..., Tensor x) -> ()", "'...' must be the last argument", 8},
    {"f(Tensor x, int y=1, ...) -> ()", "argument 'y' has a default, but a schema with '...' cannot have defaults", 17},
    {"f(Tensor x) -> (..., Tensor)", "'...' must be the last return", 22},
    {"f(\"abc) -> ()", "unterminated string literal", 3},
    {"f(Tensor @x) -> ()", "unexpected character '@'", 10},
    {"f(int x=12ab) -> ()", "malformed number '12ab'", 9},
    {"f(Tensor x) -> Tensor y z", "unexpected 'z' after the end of the schema", 25},
    {"f(Tensor x) -> Tensor y=1", "a return cannot have a default value", 24},
    {"f(int[0] x) -> ()", "list size must be an integer from 1 to 1024, but found number 0", 7},
    {"f(int[1025] x=1) -> ()", "list size must be an integer from 1 to 1024, but found number 1025", 7},
    {"f(int[2][] x) -> ()", "a sized list like 'int[2]' cannot be the element of another list", 9},
    {"f(int[]?[3] x) -> ()", "a sized list must have a plain element type, not 'int[]?'", 9},
    {"f(Tensor x) -> Tensor[2]", "a list size ('[N]') is only allowed on argument types, not on returns", 23},
    {"f(Tensor?? x) -> ()", "type 'Tensor?' is already optional", 10},
    {"f(Tensor(a)(b) x) -> ()", "expected an argument name after type 'Tensor(a)', but found '('", 12},
    {"f(Tensor() x) -> ()", "expected an alias set name (like 'a') or '*', but found ')'", 10},
    {"f(Tensor(a x) -> ()", "expected ')' to close the alias annotation, but found 'x'", 12},
    {"f(Quantizer q) -> ()", "type 'Quantizer' is not supported by opal", 3},
    {"f(Union(int, float x) -> ()", "expected ')' to close the Union type, but found 'x'", 20},
    {"f(Tensor) -> ()", "expected an argument name after type 'Tensor', but found ')'", 9},
    {"ns:op(Tensor x) -> ()", "expected '::' between namespace and name", 3},
    {"ns::(Tensor x) -> ()", "expected an operator name after 'ns::', but found '('", 5},
    {"f(float x=-) -> ()", "expected a number after '-', but found ')'", 12},
    {"f(Tensor x) -> (Tensor", "expected ',' or ')' after a return, but found end of input", 23},
    {"f(Dict(str) d) -> ()", "expected ',' between the key and value types of Dict, but found ')'", 11},
};

TEST(SchemaErrors, ReasonAndColumn) {
  for (const ErrorCase &c : kErrors) {
    SCOPED_TRACE(c.input);
    ParseResult<FunctionSchema> result = parseSchema(c.input);
    ASSERT_FALSE(result) << "parsed: " << result->str();
    EXPECT_EQ(result.error().reason(), c.reason);
    EXPECT_EQ(result.error().column(), c.column);
    EXPECT_EQ(result.error().source(), c.input);
  }
}

TEST(SchemaErrors, CorpusSize) {
  EXPECT_GE(sizeof(kErrors) / sizeof(kErrors[0]), 15u);
}

TEST(SchemaErrors, MessageHasCaretLine) {
  ParseResult<FunctionSchema> result = parseSchema("f(Tensr x) -> ()");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message(),
            "unknown type 'Tensr'; did you mean 'Tensor'? (column 3)\n"
            "  f(Tensr x) -> ()\n"
            "    ^~~~~");
}

TEST(SchemaErrors, CaretAtEndOfInput) {
  ParseResult<FunctionSchema> result = parseSchema("f(Tensor x)");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message(),
            "expected '->' after the argument list, but found end of input "
            "(column 12)\n"
            "  f(Tensor x)\n"
            "             ^");
}

TEST(SchemaErrors, MultiLineSchemaShowsTheLine) {
  ParseResult<FunctionSchema> result =
      parseSchema("ns::op(Tensor x,\n       Tensr y) -> ()");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message(),
            "unknown type 'Tensr'; did you mean 'Tensor'? (line 2, column 8)\n"
            "         Tensr y) -> ()\n"
            "         ^~~~~");
}

TEST(SchemaErrors, OperatorNameAndSchemaConfusion) {
  auto name = parseOperatorName("ns::op(Tensor x) -> ()");
  ASSERT_FALSE(name);
  EXPECT_EQ(name.error().reason(),
            "expected only an operator name, but a full schema was given");
  EXPECT_EQ(name.error().column(), 7u);

  auto trailing = parseOperatorName("ns::op.ovl extra");
  ASSERT_FALSE(trailing);
  EXPECT_EQ(trailing.error().reason(),
            "unexpected 'extra' after the end of the operator name");
}

// No input crashes the parser: every prefix and every single-character
// corruption of a rich schema either parses or reports an error inside the
// text.
TEST(SchemaErrors, NoCrashOnCorruptedInput) {
  const std::string base =
      "ns::op.out(Tensor(a!)[] x, int[2]? k=[1, 2], *, float e=-1e-5, "
      "str s=\"q\\\"\", Dict(str, Tensor) d, (int, float) t) -> (Tensor(a!) y, ...)";
  const std::string alphabet = "()[],*?!=.|-:>\"'a0 \\j";
  size_t errors = 0;
  auto check = [&](const std::string &text) {
    ParseResult<FunctionSchema> result = parseSchema(text);
    if (!result) {
      ++errors;
      EXPECT_LE(result.error().column(), text.size() + 1) << text;
      EXPECT_FALSE(result.error().message().empty());
    } else {
      ParseResult<FunctionSchema> again = parseSchema(result->str());
      EXPECT_TRUE(again && *again == *result) << text;
    }
  };
  for (size_t i = 0; i <= base.size(); ++i) {
    check(base.substr(0, i));
    for (char c : alphabet) {
      std::string mutated = base;
      if (i < base.size())
        mutated[i] = c;
      else
        mutated += c;
      check(mutated);
    }
  }
  EXPECT_GT(errors, 100u);
}

} // namespace
