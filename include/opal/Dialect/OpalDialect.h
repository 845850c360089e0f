//===- OpalDialect.h - The opal dialect -------------------------*- C++ -*-===//

#ifndef OPAL_DIALECT_OPALDIALECT_H
#define OPAL_DIALECT_OPALDIALECT_H

#include "mlir/IR/Dialect.h"

#include "opal/Dialect/OpalDialect.h.inc"

#endif // OPAL_DIALECT_OPALDIALECT_H
