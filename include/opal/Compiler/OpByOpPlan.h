//===- OpByOpPlan.h - Composites that run op by op --------------*- C++ -*-===//
//
// A composite that reaches an op whose kernel for the call's key is opaque
// (C++ or Python) is a boundary for fusion: PyTorch runs such a composite op
// by op, and so does opal. The call's IR is decomposed one level (the
// composite's own body, with its type-directed ops expanded, every other op
// kept) and turned into a plan of dispatcher calls over value slots
// (jit::PlanStep), which the runtime interprets.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_OPBYOPPLAN_H
#define OPAL_COMPILER_OPBYOPPLAN_H

#include "opal/JIT/CompiledKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <string>

namespace opal::ir {

/// Fills `kernel`'s plan from `function` (the call after a one-level
/// decomposition). `ops` maps MLIR op names to the dispatcher's names.
mlir::LogicalResult buildOpByOpPlan(mlir::func::FuncOp function, const jit::CallSpec &spec,
                                    const std::map<std::string, OperatorName> &ops,
                                    jit::CompiledKernel &kernel, std::string &error);

} // namespace opal::ir

#endif // OPAL_COMPILER_OPBYOPPLAN_H
