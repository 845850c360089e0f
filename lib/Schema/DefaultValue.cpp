//===- DefaultValue.cpp - Default values of schema arguments --------------===//

#include "opal/Schema/DefaultValue.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace opal;

std::string opal::formatDouble(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  // Integral values print as `1.` (and `-0.` for negative zero), as
  // PyTorch's IValue printer does.
  if (std::abs(value) < 1e10) {
    auto integral = static_cast<int64_t>(value);
    if (static_cast<double>(integral) == value) {
      if (integral == 0 && std::signbit(value))
        return "-0.";
      return std::to_string(integral) + ".";
    }
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g",
                std::numeric_limits<double>::max_digits10, value);
  return buffer;
}

static std::string formatComplex(std::complex<double> value) {
  if (value.imag() == 0)
    return formatDouble(value.real());
  std::string imag = formatDouble(value.imag()) + "j";
  if (value.real() == 0)
    return imag;
  return formatDouble(value.real()) + (value.imag() < 0 ? "" : "+") + imag;
}

std::string opal::quoteString(const std::string &value) {
  // The escapes of PyTorch's printQuotedString: C escapes, `\'` and `\"`,
  // and octal for other unprintable bytes.
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
    case '\\': out += "\\\\"; break;
    case '\'': out += "\\'"; break;
    case '"': out += "\\\""; break;
    case '\a': out += "\\a"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\v': out += "\\v"; break;
    default:
      if (c >= 0x20 && c < 0x7f) {
        out += static_cast<char>(c);
      } else {
        char octal[5];
        std::snprintf(octal, sizeof(octal), "\\%03o", c);
        out += octal;
      }
    }
  }
  return out + "\"";
}

template <typename T, typename F>
static std::string formatList(const std::vector<T> &values, F format) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      out += ", ";
    out += format(values[i]);
  }
  return out + "]";
}

static std::string formatBool(bool value) { return value ? "True" : "False"; }

std::string DefaultValue::str() const {
  switch (kind()) {
  case Kind::None:
    return "None";
  case Kind::Bool:
    return formatBool(toBool());
  case Kind::Int:
    return std::to_string(toInt());
  case Kind::Double:
    return formatDouble(toDouble());
  case Kind::Complex:
    return formatComplex(toComplex());
  case Kind::String:
    return quoteString(toString());
  case Kind::IntList:
    return formatList(toIntList(),
                      [](int64_t v) { return std::to_string(v); });
  case Kind::DoubleList:
    return formatList(toDoubleList(), formatDouble);
  case Kind::BoolList:
    return formatList(toBoolList(), formatBool);
  case Kind::ComplexList:
    return formatList(toComplexList(), formatComplex);
  }
  return "";
}

// Doubles compare by bits so that nan defaults equal themselves.
static bool sameDouble(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

bool DefaultValue::operator==(const DefaultValue &other) const {
  if (kind() != other.kind())
    return false;
  switch (kind()) {
  case Kind::Double:
    return sameDouble(toDouble(), other.toDouble());
  case Kind::DoubleList: {
    const auto &a = toDoubleList(), &b = other.toDoubleList();
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!sameDouble(a[i], b[i]))
        return false;
    return true;
  }
  default:
    return storage_ == other.storage_;
  }
}
