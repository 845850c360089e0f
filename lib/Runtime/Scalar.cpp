//===- Scalar.cpp - A Python number for `Scalar` arguments ----------------===//

#include "opal/Runtime/Scalar.h"

#include "opal/Schema/DefaultValue.h"

using namespace opal;

int64_t Scalar::toInt() const {
  switch (kind_) {
  case Kind::Int: return i_;
  case Kind::Double: return static_cast<int64_t>(d_);
  case Kind::Bool: return b_;
  case Kind::Complex: return static_cast<int64_t>(c_.real());
  }
  return 0;
}

double Scalar::toDouble() const {
  switch (kind_) {
  case Kind::Int: return static_cast<double>(i_);
  case Kind::Double: return d_;
  case Kind::Bool: return b_;
  case Kind::Complex: return c_.real();
  }
  return 0;
}

bool Scalar::toBool() const {
  switch (kind_) {
  case Kind::Int: return i_ != 0;
  case Kind::Double: return d_ != 0;
  case Kind::Bool: return b_;
  case Kind::Complex: return c_ != std::complex<double>();
  }
  return false;
}

std::complex<double> Scalar::toComplex() const {
  return kind_ == Kind::Complex ? c_ : std::complex<double>(toDouble());
}

std::string Scalar::str() const {
  switch (kind_) {
  case Kind::Int: return std::to_string(i_);
  case Kind::Double: return formatDouble(d_);
  case Kind::Bool: return b_ ? "True" : "False";
  case Kind::Complex: return DefaultValue::fromComplex(c_).str();
  }
  return "";
}

bool Scalar::operator==(const Scalar &other) const {
  if (kind_ != other.kind_)
    return false;
  switch (kind_) {
  case Kind::Int: return i_ == other.i_;
  case Kind::Double: return d_ == other.d_;
  case Kind::Bool: return b_ == other.b_;
  case Kind::Complex: return c_ == other.c_;
  }
  return false;
}
