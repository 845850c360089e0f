//===- ScalarType.cpp - Element types of tensors --------------------------===//

#include "opal/Runtime/ScalarType.h"

#include <string>

using namespace opal;

namespace {
struct DTypeInfo {
  ScalarType type;
  const char *name;  // PyTorch's printed name
  const char *alias; // the other name torch accepts (torch.float, torch.long)
  const char *cpp;   // c10's name, in PyTorch's C++ messages ("Long")
  const char *ctype; // the C++ element type's name ("long int")
};
constexpr DTypeInfo kDTypes[] = {
    {ScalarType::Byte, "uint8", "", "Byte", "unsigned char"},
    {ScalarType::Char, "int8", "", "Char", "signed char"},
    {ScalarType::Short, "int16", "short", "Short", "short int"},
    {ScalarType::Int, "int32", "int", "Int", "int"},
    {ScalarType::Long, "int64", "long", "Long", "long int"},
    {ScalarType::Half, "float16", "half", "Half", "c10::Half"},
    {ScalarType::Float, "float32", "float", "Float", "float"},
    {ScalarType::Double, "float64", "double", "Double", "double"},
    {ScalarType::ComplexHalf, "complex32", "chalf", "ComplexHalf", "c10::complex<c10::Half>"},
    {ScalarType::ComplexFloat, "complex64", "cfloat", "ComplexFloat", "c10::complex<float>"},
    {ScalarType::ComplexDouble, "complex128", "cdouble", "ComplexDouble", "c10::complex<double>"},
    {ScalarType::Bool, "bool", "", "Bool", "bool"},
    {ScalarType::BFloat16, "bfloat16", "", "BFloat16", "c10::BFloat16"},
};

const DTypeInfo *find(ScalarType type) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == type)
      return &info;
  return nullptr;
}
} // namespace

const char *opal::dtypeName(ScalarType type) {
  const DTypeInfo *info = find(type);
  return info ? info->name : "undefined";
}

const char *opal::scalarTypeCppName(ScalarType type) {
  const DTypeInfo *info = find(type);
  return info ? info->cpp : "Undefined";
}

const char *opal::scalarTypeElementName(ScalarType type) {
  const DTypeInfo *info = find(type);
  return info ? info->ctype : "undefined";
}

Expected<ScalarType> opal::parseScalarType(std::string_view name) {
  for (const DTypeInfo &info : kDTypes)
    if (name == info.name || (*info.alias && name == info.alias))
      return info.type;
  std::string known;
  for (const DTypeInfo &info : kDTypes)
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  return makeUnexpected(Error("unknown dtype '" + std::string(name) +
                              "'; expected one of " + known));
}

bool opal::isFloatingType(ScalarType type) {
  return type == ScalarType::Half || type == ScalarType::Float ||
         type == ScalarType::Double || type == ScalarType::BFloat16;
}

bool opal::isComplexType(ScalarType type) {
  return type == ScalarType::ComplexHalf || type == ScalarType::ComplexFloat ||
         type == ScalarType::ComplexDouble;
}

bool opal::isIntegralType(ScalarType type, bool includeBool) {
  switch (type) {
  case ScalarType::Byte:
  case ScalarType::Char:
  case ScalarType::Short:
  case ScalarType::Int:
  case ScalarType::Long:
    return true;
  case ScalarType::Bool:
    return includeBool;
  default:
    return false;
  }
}

bool opal::isValidScalarType(int64_t value) {
  for (const DTypeInfo &info : kDTypes)
    if (static_cast<int64_t>(info.type) == value)
      return true;
  return false;
}

ScalarType opal::promoteTypes(ScalarType a, ScalarType b) {
  if (a == b)
    return a;
  auto category = [](ScalarType t) {
    return t == ScalarType::Bool ? 0 : isIntegralType(t, false) ? 1 : isFloatingType(t) ? 2 : 3;
  };
  int ca = category(a), cb = category(b);
  if (ca != cb) {
    ScalarType high = ca > cb ? a : b, low = ca > cb ? b : a;
    if (high == ScalarType::ComplexFloat && low == ScalarType::Double)
      return ScalarType::ComplexDouble;
    if (high == ScalarType::ComplexHalf && isFloatingType(low) && low != ScalarType::Half)
      return low == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
    return high;
  }
  if (ca == 1 && ((a == ScalarType::Byte && b == ScalarType::Char) ||
                  (a == ScalarType::Char && b == ScalarType::Byte)))
    return ScalarType::Short;
  if (elementSize(a) == elementSize(b)) // float16 and bfloat16
    return ScalarType::Float;
  return elementSize(a) > elementSize(b) ? a : b;
}
