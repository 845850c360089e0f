//===- KernelDescription.cpp - A compiled kernel's metadata as text -------===//
//
// Ahead-of-time op libraries carry, beside each kernel's code, the facts the
// runtime needs to call it (CompiledKernel.h): written by the library
// compiler, read back when the library is loaded.
//
//===----------------------------------------------------------------------===//

#include "opal/JIT/CompiledKernel.h"

#include "opal/Schema/SchemaParser.h"
#include "opal/Support/Decimal.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace opal;
using namespace opal::jit;

namespace {

constexpr std::pair<ShapeCheck::Kind, const char *> kCheckKindNames[] = {
    {ShapeCheck::Kind::Broadcast, "broadcast"},
    {ShapeCheck::Kind::Matmul, "matmul"},
    {ShapeCheck::Kind::Batch, "batch"},
    {ShapeCheck::Kind::Expect, "expect"},
    {ShapeCheck::Kind::Numel, "numel"},
    {ShapeCheck::Kind::NumelDivides, "numel_divides"}};

constexpr std::pair<ShapeCheck::Relation, const char *> kRelationNames[] = {
    {ShapeCheck::Relation::Eq, "eq"}, {ShapeCheck::Relation::Ne, "ne"},
    {ShapeCheck::Relation::Lt, "lt"}, {ShapeCheck::Relation::Le, "le"},
    {ShapeCheck::Relation::Gt, "gt"}, {ShapeCheck::Relation::Ge, "ge"}};

/// A message as one word of the description: bytes other than letters,
/// digits and `()[]*=.:'_-` as %XX.
std::string encodeMessage(const std::string &message) {
  static const char *hex = "0123456789ABCDEF";
  std::string text;
  for (unsigned char c : message) {
    if (std::isalnum(c) || (c && std::strchr("()[]*=.:'_-", c))) {
      text += static_cast<char>(c);
      continue;
    }
    text += '%';
    text += hex[c >> 4];
    text += hex[c & 15];
  }
  return text;
}

bool decodeMessage(const std::string &text, std::string &message) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      message += text[i];
      continue;
    }
    if (i + 2 >= text.size())
      return false;
    int high = digit(text[i + 1]), low = digit(text[i + 2]);
    if (high < 0 || low < 0)
      return false;
    message += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return true;
}

std::string describeSizeRef(const SizeRef &size) {
  if (size.constant)
    return std::to_string(size.value);
  if (size.dim == SizeRef::kArgumentValue)
    return "a" + std::to_string(size.argument) + ".value";
  return "a" + std::to_string(size.argument) + "." + std::to_string(size.dim);
}

std::string describeShape(const std::vector<SizeRef> &shape) {
  if (shape.empty())
    return "-";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + describeSizeRef(shape[i]);
  return text;
}

/// Splits `text` at every `separator` (empty pieces kept).
std::vector<std::string> splitAt(const std::string &text, char separator) {
  std::vector<std::string> pieces(1);
  for (char c : text) {
    if (c == separator)
      pieces.emplace_back();
    else
      pieces.back() += c;
  }
  return pieces;
}

} // namespace

std::string jit::describeShapeChecks(const std::vector<ShapeCheck> &checks) {
  std::string text;
  for (const ShapeCheck &check : checks) {
    if (!text.empty())
      text += " ";
    for (auto [kind, name] : kCheckKindNames)
      if (kind == check.kind)
        text += name;
    if (check.kind == ShapeCheck::Kind::Expect) {
      for (auto [relation, name] : kRelationNames)
        if (relation == check.relation)
          text += std::string(",") + check.op + "," + name;
      text += "," + describeSizeRef(check.lhs) + "," + describeSizeRef(check.rhs) + "," +
              encodeMessage(check.message) + ",";
      for (size_t i = 0; i < check.values.size(); ++i)
        text += (i ? "/" : "") + describeShape(check.values[i]);
      continue;
    }
    if (check.kind == ShapeCheck::Kind::Numel || check.kind == ShapeCheck::Kind::NumelDivides) {
      text += "," + check.op + "," + describeShape(check.lhsShape) + "," +
              describeShape(check.rhsShape) + ",";
      for (size_t i = 0; i < check.values.size(); ++i)
        text += (i ? "/" : "") + describeShape(check.values[i]);
      continue;
    }
    text += "," + check.op + "," + std::to_string(check.dim) + "," + describeSizeRef(check.lhs) +
            "," + describeSizeRef(check.rhs);
    if (check.kind != ShapeCheck::Kind::Broadcast)
      text += "," + describeShape(check.lhsShape) + "," + describeShape(check.rhsShape);
  }
  return text;
}

std::string jit::describeDataChecks(const std::vector<DataCheck> &checks) {
  std::string text;
  for (const DataCheck &check : checks)
    text += (text.empty() ? "" : " ") + check.op + "," + std::to_string(check.words) + "," +
            encodeMessage(check.message);
  return text;
}

std::string jit::describeSizeSources(const std::vector<SizeSource> &sources) {
  std::ostringstream text;
  for (size_t i = 0; i < sources.size(); ++i)
    text << (i ? " a" : "a") << sources[i].argument << "." << sources[i].dim;
  return text.str();
}

std::string jit::describeKernel(const CompiledKernel &kernel) {
  std::ostringstream text;
  text << "outputs:";
  for (const OutputSpec &output : kernel.outputs) {
    text << " " << dtypeName(output.dtype) << "[";
    for (size_t d = 0; d < output.sizes.size(); ++d)
      text << (d ? "," : "")
           << (output.sizes[d] < 0 ? std::string("?") : std::to_string(output.sizes[d]));
    text << "]";
  }
  text << "\n";
  if (!kernel.sizeSources.empty())
    text << "sizes: " << describeSizeSources(kernel.sizeSources) << "\n";
  if (!kernel.shapeChecks.empty())
    text << "checks: " << describeShapeChecks(kernel.shapeChecks) << "\n";
  if (!kernel.dataChecks.empty())
    text << "data: " << describeDataChecks(kernel.dataChecks) << "\n";
  if (kernel.randomStreams)
    text << "random: " << kernel.randomStreams << "\n";
  if (kernel.readsInPlace) {
    text << "inplace:";
    for (unsigned i = 0; i < 64; ++i)
      if (kernel.readsInPlace >> i & 1)
        text << " " << i;
    text << "\n";
  }
  text << "reached:";
  for (const OperatorName &name : kernel.reached)
    text << " " << name.str();
  text << "\n";
  return text.str();
}

namespace {

Expected<OutputSpec> readOutput(const std::string &word) {
  auto fail = [&](const std::string &why) {
    return makeUnexpected(Error("output '" + word + "': " + why));
  };
  size_t open = word.find('[');
  if (open == std::string::npos || word.back() != ']')
    return fail("expected dtype[sizes]");
  auto dtype = parseScalarType(word.substr(0, open));
  if (!dtype)
    return fail("unknown dtype");
  OutputSpec output;
  output.dtype = *dtype;
  std::string sizes = word.substr(open + 1, word.size() - open - 2);
  std::istringstream stream(sizes);
  for (std::string size; std::getline(stream, size, ',');) {
    if (size == "?") {
      output.sizes.push_back(-1);
      continue;
    }
    try {
      size_t used = 0;
      output.sizes.push_back(std::stoll(size, &used));
      if (used != size.size() || output.sizes.back() < 0)
        return fail("bad size '" + size + "'");
    } catch (const std::exception &) {
      return fail("bad size '" + size + "'");
    }
  }
  return output;
}

/// "a<argument>.<dim>".
Expected<SizeSource> readSizeSource(const std::string &word) {
  auto fail = [&] {
    return makeUnexpected(Error("size source '" + word + "': expected a<argument>.<dim>"));
  };
  size_t dot = word.find('.');
  if (word.size() < 4 || word[0] != 'a' || dot == std::string::npos)
    return fail();
  uint64_t argument = 0, dim = 0;
  if (!readDecimal(word.substr(1, dot - 1), 6, argument) ||
      !readDecimal(word.substr(dot + 1), 6, dim))
    return fail();
  return SizeSource{static_cast<uint32_t>(argument), static_cast<uint32_t>(dim)};
}

/// "a<argument>.<dim>", "a<argument>.value" or a constant of at most 18
/// digits (with a sign for a negative one).
bool readSizeRef(const std::string &word, SizeRef &size) {
  static const std::string kValueSuffix = ".value";
  if (word.size() > kValueSuffix.size() + 1 && word[0] == 'a' &&
      word.compare(word.size() - kValueSuffix.size(), kValueSuffix.size(), kValueSuffix) == 0) {
    uint64_t argument = 0;
    if (!readDecimal(word.substr(1, word.size() - kValueSuffix.size() - 1), 6, argument))
      return false;
    size.argument = static_cast<uint32_t>(argument);
    size.dim = SizeRef::kArgumentValue;
    return true;
  }
  uint64_t value = 0;
  bool negative = !word.empty() && word[0] == '-';
  if (readDecimal(negative ? word.substr(1) : word, 18, value)) {
    size.constant = true;
    size.value = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
    return true;
  }
  auto source = readSizeSource(word);
  if (!source)
    return false;
  size.argument = source->argument;
  size.dim = source->dim;
  return true;
}

bool readShape(const std::string &word, std::vector<SizeRef> &shape) {
  if (word == "-")
    return true;
  std::vector<std::string> pieces = splitAt(word, 'x');
  if (pieces.size() > 64)
    return false;
  for (const std::string &piece : pieces) {
    SizeRef size;
    if (!readSizeRef(piece, size))
      return false;
    shape.push_back(size);
  }
  return true;
}

/// Reads "<groups>": shapes separated by '/' (at most 64; none if empty).
bool readGroups(const std::string &text, std::vector<std::vector<SizeRef>> &groups) {
  if (text.empty())
    return true;
  std::vector<std::string> words = splitAt(text, '/');
  if (words.size() > 64)
    return false;
  for (const std::string &word : words) {
    groups.emplace_back();
    if (!readShape(word, groups.back()))
      return false;
  }
  return true;
}

/// The fields of an Expect check after its kind.
bool readExpectCheck(const std::vector<std::string> &fields, ShapeCheck &check) {
  if (fields.size() != 7 || fields[1].empty())
    return false;
  check.op = fields[1];
  bool known = false;
  for (auto [relation, name] : kRelationNames)
    if (fields[2] == name) {
      check.relation = relation;
      known = true;
    }
  if (!known || !readSizeRef(fields[3], check.lhs) || !readSizeRef(fields[4], check.rhs) ||
      !decodeMessage(fields[5], check.message))
    return false;
  return readGroups(fields[6], check.values);
}

/// Reads "numel[_divides],<op>,<lhsShape>,<rhsShape>,<values>".
bool readNumelCheck(const std::vector<std::string> &fields, ShapeCheck &check) {
  if (fields.size() != 5 || fields[1].empty())
    return false;
  check.op = fields[1];
  check.lhs.constant = check.rhs.constant = true;
  return readShape(fields[2], check.lhsShape) && readShape(fields[3], check.rhsShape) &&
         readGroups(fields[4], check.values);
}

Expected<ShapeCheck> readShapeCheck(const std::string &word) {
  auto fail = [&](const std::string &why) {
    return makeUnexpected(Error("shape check '" + word + "': " + why));
  };
  std::vector<std::string> fields = splitAt(word, ',');
  ShapeCheck check;
  bool known = false;
  for (auto [kind, name] : kCheckKindNames)
    if (fields[0] == name) {
      check.kind = kind;
      known = true;
    }
  if (!known)
    return fail("unknown kind '" + fields[0] + "'");
  if (check.kind == ShapeCheck::Kind::Numel || check.kind == ShapeCheck::Kind::NumelDivides)
    return readNumelCheck(fields, check) ? Expected<ShapeCheck>(std::move(check))
                                         : fail("expected " + fields[0] +
                                                ",<op>,<input shape>,<factors>,<sizes>");
  if (check.kind == ShapeCheck::Kind::Expect)
    return readExpectCheck(fields, check) ? Expected<ShapeCheck>(std::move(check))
                                          : fail("expected expect,<op>,<relation>,<lhs>,<rhs>,"
                                                 "<message>,<values>");
  size_t expected = check.kind == ShapeCheck::Kind::Broadcast ? 5 : 7;
  if (fields.size() != expected)
    return fail("expected " + std::to_string(expected) + " comma-separated fields");
  if (fields[1].empty())
    return fail("no op name");
  check.op = fields[1];
  uint64_t dim = 0;
  if (!readDecimal(fields[2], 6, dim))
    return fail("bad dim '" + fields[2] + "'");
  check.dim = static_cast<uint32_t>(dim);
  if (!readSizeRef(fields[3], check.lhs) || !readSizeRef(fields[4], check.rhs))
    return fail("expected sizes a<argument>.<dim> or constants");
  if (expected == 7 &&
      (!readShape(fields[5], check.lhsShape) || !readShape(fields[6], check.rhsShape)))
    return fail("bad shape");
  return check;
}

} // namespace

namespace {

/// Reads a space-separated list with `readOne` per word; an empty text has
/// none, and the first bad word is the error.
template <typename T>
Expected<std::vector<T>> readWords(const std::string &text,
                                   Expected<T> (*readOne)(const std::string &)) {
  std::istringstream words(text);
  std::vector<T> values;
  for (std::string word; words >> word;) {
    auto value = readOne(word);
    if (!value)
      return makeUnexpected(value.error());
    values.push_back(std::move(*value));
  }
  return values;
}

} // namespace

Expected<std::vector<ShapeCheck>> jit::readShapeChecks(const std::string &text) {
  return readWords(text, readShapeCheck);
}

namespace {

Expected<DataCheck> readDataCheck(const std::string &word) {
  std::vector<std::string> fields = splitAt(word, ',');
  DataCheck check;
  uint64_t words = 0;
  if (fields.size() != 3 || fields[0].empty() || !readDecimal(fields[1], 2, words) ||
      words < 1 || words > 16 || !decodeMessage(fields[2], check.message))
    return makeUnexpected(Error("data check '" + word + "': expected <op>,<words>,<message>"));
  check.op = fields[0];
  check.words = static_cast<uint32_t>(words);
  return check;
}

} // namespace

Expected<std::vector<DataCheck>> jit::readDataChecks(const std::string &text) {
  return readWords(text, readDataCheck);
}

Expected<std::vector<SizeSource>> jit::readSizeSources(const std::string &text) {
  return readWords(text, readSizeSource);
}

Expected<bool> jit::readKernelDescription(const std::string &text, CompiledKernel &kernel) {
  std::istringstream lines(text);
  bool sawOutputs = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty())
      continue;
    size_t colon = line.find(':');
    std::string field = line.substr(0, colon);
    std::istringstream words(colon == std::string::npos ? "" : line.substr(colon + 1));
    std::vector<std::string> values;
    for (std::string word; words >> word;)
      values.push_back(word);
    if (field == "outputs") {
      sawOutputs = true;
      for (const std::string &word : values) {
        auto output = readOutput(word);
        if (!output)
          return makeUnexpected(Error("kernel description: " + output.error().message()));
        kernel.outputs.push_back(std::move(*output));
      }
    } else if (field == "sizes") {
      auto sources = readSizeSources(line.substr(colon + 1));
      if (!sources)
        return makeUnexpected(Error("kernel description: " + sources.error().message()));
      kernel.sizeSources = std::move(*sources);
    } else if (field == "checks") {
      auto checks = readShapeChecks(line.substr(colon + 1));
      if (!checks)
        return makeUnexpected(Error("kernel description: " + checks.error().message()));
      kernel.shapeChecks = std::move(*checks);
    } else if (field == "data") {
      auto checks = readDataChecks(line.substr(colon + 1));
      if (!checks)
        return makeUnexpected(Error("kernel description: " + checks.error().message()));
      kernel.dataChecks = std::move(*checks);
    } else if (field == "random" && values.size() == 1) {
      char *end = nullptr;
      unsigned long long streams = std::strtoull(values[0].c_str(), &end, 10);
      if (values[0].empty() || *end || values[0][0] == '-' || streams == 0 ||
          streams > 1u << 20)
        return makeUnexpected(Error("kernel description: bad random stream count '" +
                                    values[0] + "'"));
      kernel.randomStreams = static_cast<uint32_t>(streams);
    } else if (field == "inplace" && !values.empty()) {
      for (const std::string &word : values) {
        char *end = nullptr;
        unsigned long argument = std::strtoul(word.c_str(), &end, 10);
        if (word.empty() || *end || word[0] == '-' || argument >= 64 ||
            (kernel.readsInPlace >> argument & 1))
          return makeUnexpected(Error("kernel description: bad in-place argument '" + word +
                                      "' (expected distinct argument numbers below 64)"));
        kernel.readsInPlace |= uint64_t(1) << argument;
      }
    } else if (field == "reached") {
      for (const std::string &word : values) {
        auto name = parseOperatorName(word);
        if (!name)
          return makeUnexpected(Error("kernel description: bad op name '" + word + "'"));
        kernel.reached.push_back(std::move(*name));
      }
    } else {
      return makeUnexpected(Error("kernel description: unexpected line '" + line + "'"));
    }
  }
  if (!sawOutputs)
    return makeUnexpected(Error("kernel description: an 'outputs:' line is required"));
  size_t dynamic = 0;
  for (const OutputSpec &output : kernel.outputs)
    dynamic += std::count(output.sizes.begin(), output.sizes.end(), int64_t(-1));
  size_t checkWords = 0;
  for (const DataCheck &check : kernel.dataChecks)
    checkWords += check.words;
  if (checkWords > kernel.outputs.size())
    return makeUnexpected(Error("kernel description: more data check words than outputs"));
  for (size_t i = kernel.outputs.size() - checkWords; i < kernel.outputs.size(); ++i) {
    const OutputSpec &output = kernel.outputs[i];
    if (output.dtype != ScalarType::Long || !output.sizes.empty())
      return makeUnexpected(
          Error("kernel description: a data check's words must be 0-d int64 outputs"));
  }
  if (!kernel.sizeSources.empty() && kernel.sizeSources.size() != dynamic)
    return makeUnexpected(Error("kernel description: " + std::to_string(kernel.sizeSources.size()) +
                                " size sources for " + std::to_string(dynamic) +
                                " dynamic output sizes"));
  return true;
}
