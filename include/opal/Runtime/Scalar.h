//===- Scalar.h - A Python number for `Scalar` arguments --------*- C++ -*-===//

#ifndef OPAL_RUNTIME_SCALAR_H
#define OPAL_RUNTIME_SCALAR_H

#include <complex>
#include <cstdint>
#include <string>

namespace opal {

/// An int, float, bool or complex, keeping which one it is (`alpha=1` stays
/// an int, as in PyTorch).
class Scalar {
public:
  enum class Kind : uint8_t { Int, Double, Bool, Complex };

  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(int v) : Scalar(static_cast<int64_t>(v)) {}
  Scalar(double v) : kind_(Kind::Double), d_(v) {}
  Scalar(bool v) : kind_(Kind::Bool), b_(v) {}
  Scalar(std::complex<double> v) : kind_(Kind::Complex), c_(v) {}

  Kind kind() const { return kind_; }
  bool isIntegral() const { return kind_ == Kind::Int; }
  bool isFloatingPoint() const { return kind_ == Kind::Double; }
  bool isBoolean() const { return kind_ == Kind::Bool; }
  bool isComplex() const { return kind_ == Kind::Complex; }

  int64_t toInt() const;
  double toDouble() const;
  bool toBool() const;
  std::complex<double> toComplex() const;
  std::string str() const;

  bool operator==(const Scalar &other) const;

private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
    bool b_;
    std::complex<double> c_;
  };
};

} // namespace opal

#endif // OPAL_RUNTIME_SCALAR_H
