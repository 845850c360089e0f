//===- OpalOps.h - Ops of the opal dialect ----------------------*- C++ -*-===//

#ifndef OPAL_DIALECT_OPALOPS_H
#define OPAL_DIALECT_OPALOPS_H

#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/OpalTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "opal/Dialect/OpalOps.h.inc"

#endif // OPAL_DIALECT_OPALOPS_H
