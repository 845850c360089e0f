//===- MessageTemplate.cpp - Error messages with {i} placeholders ---------===//

#include "opal/Support/MessageTemplate.h"

#include "opal/Runtime/ScalarType.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace opal;

namespace {

/// Walks `message`, calling `text(c)` for each literal character and
/// `placeholder(i, spec)` for each `{i}`, `{i:dtype}`, `{i:ctype}` or
/// `{i:double}` (spec "", "dtype", "ctype" or "double"); returns the first
/// problem, or "".
template <typename Text, typename Placeholder>
std::string walk(const std::string &message, Text text, Placeholder placeholder) {
  for (size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    if ((c == '{' || c == '}') && i + 1 < message.size() && message[i + 1] == c) {
      text(c);
      ++i;
      continue;
    }
    if (c == '}')
      return "an unmatched '}' at " + std::to_string(i) + " (write '}}' for a brace)";
    if (c != '{') {
      text(c);
      continue;
    }
    size_t close = message.find('}', i);
    std::string inside =
        message.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
    size_t colon = inside.find(':');
    std::string digits = inside.substr(0, colon);
    std::string spec = colon == std::string::npos ? "" : inside.substr(colon + 1);
    if (close == std::string::npos || digits.empty() || digits.size() > 3 ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        (colon != std::string::npos && spec != "dtype" && spec != "ctype" &&
         spec != "double"))
      return "a '{' at " + std::to_string(i) + " that does not start a placeholder {N} or " +
             "{N:dtype} (write '{{' for a brace)";
    placeholder(static_cast<size_t>(std::stoul(digits)), spec);
    i = close;
  }
  return "";
}

/// The double whose bits are the int64 `value` (decimal text), as C++'s
/// streams print it (PyTorch's messages: "1.5", "nan", "1e+20").
std::string doubleText(const std::string &value) {
  char *end = nullptr;
  errno = 0;
  long long bits = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end || errno)
    return value;
  double number;
  std::memcpy(&number, &bits, sizeof number);
  std::ostringstream out;
  out << number;
  return out.str();
}

} // namespace

std::string opal::messageTemplateProblem(const std::string &message, size_t values) {
  size_t highest = 0;
  bool any = false;
  std::string problem = walk(
      message, [](char) {},
      [&](size_t index, const std::string &) {
        highest = std::max(highest, index);
        any = true;
      });
  if (!problem.empty())
    return problem;
  if (any && highest >= values)
    return "a placeholder {" + std::to_string(highest) + "} but " + std::to_string(values) +
           " value" + (values == 1 ? "" : "s");
  return "";
}

std::string opal::fillMessage(const std::string &message, const std::vector<std::string> &values) {
  std::string filled;
  std::string problem = walk(
      message, [&](char c) { filled += c; },
      [&](size_t index, const std::string &spec) {
        if (index >= values.size()) {
          filled += "?";
          return;
        }
        const std::string &value = values[index];
        if (spec == "double") {
          filled += doubleText(value);
          return;
        }
        if (spec.empty() || value.empty() ||
            value.find_first_not_of("0123456789") != std::string::npos || value.size() > 3 ||
            !isValidScalarType(std::stoll(value))) {
          filled += value;
          return;
        }
        auto type = static_cast<ScalarType>(std::stoll(value));
        filled += spec == "dtype" ? scalarTypeCppName(type) : scalarTypeElementName(type);
      });
  return problem.empty() ? filled : message;
}
