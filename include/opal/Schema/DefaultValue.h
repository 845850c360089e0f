//===- DefaultValue.h - Default values of schema arguments ------*- C++ -*-===//
//
// The constant a schema argument defaults to: None, a bool, an int, a float,
// a complex, a string, or a list of ints, floats, bools or complexes. Printing
// follows PyTorch's IValue printer, so `1.0` prints as `1.` and `1e-5` as
// `1.0000000000000001e-05`.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SCHEMA_DEFAULTVALUE_H
#define OPAL_SCHEMA_DEFAULTVALUE_H

#include <complex>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace opal {

class DefaultValue {
public:
  enum class Kind {
    None,
    Bool,
    Int,
    Double,
    Complex,
    String,
    IntList,
    DoubleList,
    BoolList,
    ComplexList
  };

  DefaultValue() = default; // None
  static DefaultValue none() { return DefaultValue(); }
  static DefaultValue fromBool(bool v) { return DefaultValue(Storage(v)); }
  static DefaultValue fromInt(int64_t v) { return DefaultValue(Storage(v)); }
  static DefaultValue fromDouble(double v) { return DefaultValue(Storage(v)); }
  static DefaultValue fromComplex(std::complex<double> v) {
    return DefaultValue(Storage(v));
  }
  static DefaultValue fromString(std::string v) {
    return DefaultValue(Storage(std::move(v)));
  }
  static DefaultValue fromIntList(std::vector<int64_t> v) {
    return DefaultValue(Storage(std::move(v)));
  }
  static DefaultValue fromDoubleList(std::vector<double> v) {
    return DefaultValue(Storage(std::move(v)));
  }
  static DefaultValue fromBoolList(std::vector<bool> v) {
    return DefaultValue(Storage(std::move(v)));
  }
  static DefaultValue fromComplexList(std::vector<std::complex<double>> v) {
    return DefaultValue(Storage(std::move(v)));
  }

  Kind kind() const { return static_cast<Kind>(storage_.index()); }
  bool isNone() const { return kind() == Kind::None; }
  bool toBool() const { return std::get<bool>(storage_); }
  int64_t toInt() const { return std::get<int64_t>(storage_); }
  double toDouble() const { return std::get<double>(storage_); }
  std::complex<double> toComplex() const {
    return std::get<std::complex<double>>(storage_);
  }
  const std::string &toString() const { return std::get<std::string>(storage_); }
  const std::vector<int64_t> &toIntList() const {
    return std::get<std::vector<int64_t>>(storage_);
  }
  const std::vector<double> &toDoubleList() const {
    return std::get<std::vector<double>>(storage_);
  }
  const std::vector<bool> &toBoolList() const {
    return std::get<std::vector<bool>>(storage_);
  }
  const std::vector<std::complex<double>> &toComplexList() const {
    return std::get<std::vector<std::complex<double>>>(storage_);
  }

  /// The value as a schema would print it.
  std::string str() const;

  bool operator==(const DefaultValue &other) const;
  bool operator!=(const DefaultValue &other) const { return !(*this == other); }

private:
  // The order matches Kind.
  using Storage =
      std::variant<std::monostate, bool, int64_t, double, std::complex<double>,
                   std::string, std::vector<int64_t>, std::vector<double>,
                   std::vector<bool>, std::vector<std::complex<double>>>;
  explicit DefaultValue(Storage storage) : storage_(std::move(storage)) {}
  Storage storage_;
};

/// PyTorch's printing of a double: integral values as `1.`, others with 17
/// significant digits, `inf`, `-inf` and `nan`.
std::string formatDouble(double value);
/// A string literal in double quotes with C escapes.
std::string quoteString(const std::string &value);

} // namespace opal

#endif // OPAL_SCHEMA_DEFAULTVALUE_H
