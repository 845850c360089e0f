//===- ScalarType.h - Element types of tensors ------------------*- C++ -*-===//
//
// PyTorch's ScalarType numbering (schema defaults print `dtype=6` for
// float32), the element size, and the names PyTorch prints.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_SCALARTYPE_H
#define OPAL_RUNTIME_SCALARTYPE_H

#include "opal/Support/Expected.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace opal {

enum class ScalarType : int8_t {
  Byte = 0,   // uint8
  Char = 1,   // int8
  Short = 2,  // int16
  Int = 3,    // int32
  Long = 4,   // int64
  Half = 5,   // float16
  Float = 6,  // float32
  Double = 7, // float64
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  BFloat16 = 15,
  Undefined = -1,
};

/// Bytes per element (0 for Undefined). Inline: every tensor access asks.
constexpr size_t elementSize(ScalarType type) {
  switch (type) {
  case ScalarType::Byte:
  case ScalarType::Char:
  case ScalarType::Bool:
    return 1;
  case ScalarType::Short:
  case ScalarType::Half:
  case ScalarType::BFloat16:
    return 2;
  case ScalarType::Int:
  case ScalarType::Float:
  case ScalarType::ComplexHalf:
    return 4;
  case ScalarType::Long:
  case ScalarType::Double:
  case ScalarType::ComplexFloat:
    return 8;
  case ScalarType::ComplexDouble:
    return 16;
  case ScalarType::Undefined:
    break;
  }
  return 0;
}
/// PyTorch's name of the dtype: "float32", "int64", "bool", ...
const char *dtypeName(ScalarType type);
/// c10's name of the dtype, as PyTorch's C++ messages print it: "Long",
/// "Float", "Bool", ...
const char *scalarTypeCppName(ScalarType type);
/// The C++ name of the dtype's element type, as PyTorch's messages print
/// it: "float", "long int", "c10::Half", ...
const char *scalarTypeElementName(ScalarType type);
/// The dtype called `name` ("float32", "float", "int64", "long", ...).
Expected<ScalarType> parseScalarType(std::string_view name);
bool isFloatingType(ScalarType type);
bool isIntegralType(ScalarType type, bool includeBool);
bool isComplexType(ScalarType type);
/// PyTorch's promoteTypes for the real and complex dtypes: the higher
/// category (bool < integer < floating < complex) wins, then the wider type;
/// uint8 with int8 is int16, float16 with bfloat16 float32, a complex with
/// float64 complex128.
ScalarType promoteTypes(ScalarType a, ScalarType b);
/// True for the ScalarType values opal defines.
bool isValidScalarType(int64_t value);

} // namespace opal

#endif // OPAL_RUNTIME_SCALARTYPE_H
