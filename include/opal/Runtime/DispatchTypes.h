//===- DispatchTypes.h - The real dtypes with their C++ types ---*- C++ -*-===//
//
// OPAL_FORALL_REAL_TYPES(_) calls _(ScalarType::X, cpp) for every real
// dtype: native kernels switch on a tensor's dtype with it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_DISPATCHTYPES_H
#define OPAL_RUNTIME_DISPATCHTYPES_H

#include "opal/Runtime/Half.h"
#include "opal/Runtime/ScalarType.h"

#include <cstdint>

#define OPAL_FORALL_REAL_TYPES(_)                                              \
  _(ScalarType::Bool, bool)                                                    \
  _(ScalarType::Byte, uint8_t)                                                 \
  _(ScalarType::Char, int8_t)                                                  \
  _(ScalarType::Short, int16_t)                                                \
  _(ScalarType::Int, int32_t)                                                  \
  _(ScalarType::Long, int64_t)                                                 \
  _(ScalarType::Half, Half)                                                    \
  _(ScalarType::BFloat16, BFloat16)                                            \
  _(ScalarType::Float, float)                                                  \
  _(ScalarType::Double, double)

#endif // OPAL_RUNTIME_DISPATCHTYPES_H
