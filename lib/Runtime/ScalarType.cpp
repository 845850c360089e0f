//===- ScalarType.cpp - Element types of tensors --------------------------===//

#include "opal/Runtime/ScalarType.h"

#include <string>

using namespace opal;

namespace {
struct DTypeInfo {
  ScalarType type;
  size_t size;
  const char *name;  // PyTorch's printed name
  const char *alias; // the other name torch accepts (torch.float, torch.long)
};
constexpr DTypeInfo kDTypes[] = {
    {ScalarType::Byte, 1, "uint8", ""},
    {ScalarType::Char, 1, "int8", ""},
    {ScalarType::Short, 2, "int16", "short"},
    {ScalarType::Int, 4, "int32", "int"},
    {ScalarType::Long, 8, "int64", "long"},
    {ScalarType::Half, 2, "float16", "half"},
    {ScalarType::Float, 4, "float32", "float"},
    {ScalarType::Double, 8, "float64", "double"},
    {ScalarType::ComplexHalf, 4, "complex32", "chalf"},
    {ScalarType::ComplexFloat, 8, "complex64", "cfloat"},
    {ScalarType::ComplexDouble, 16, "complex128", "cdouble"},
    {ScalarType::Bool, 1, "bool", ""},
    {ScalarType::BFloat16, 2, "bfloat16", ""},
};

const DTypeInfo *find(ScalarType type) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == type)
      return &info;
  return nullptr;
}
} // namespace

size_t opal::elementSize(ScalarType type) {
  const DTypeInfo *info = find(type);
  return info ? info->size : 0;
}

const char *opal::dtypeName(ScalarType type) {
  const DTypeInfo *info = find(type);
  return info ? info->name : "undefined";
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
