//===- OpalTypes.h - Types of schema values ---------------------*- C++ -*-===//

#ifndef OPAL_DIALECT_OPALTYPES_H
#define OPAL_DIALECT_OPALTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "opal/Dialect/OpalTypes.h.inc"

#endif // OPAL_DIALECT_OPALTYPES_H
