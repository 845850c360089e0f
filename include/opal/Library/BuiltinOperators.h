//===- BuiltinOperators.h - The operators opal ships ------------*- C++ -*-===//
//
// The built-in op-library files (lib/Library/prims.opal.mlir and
// aten.opal.mlir) are embedded in libopal. Their schemas are defined in the
// dispatcher when libopal loads, as PyTorch's operators are: `aten::add.Tensor`
// exists for every program and Python (`opal.ops.aten.add.Tensor`), and a
// library may IMPL kernels for it. The compiler (libopal_compiler) reads the
// same texts for their MLIR ops and decompositions.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIBRARY_BUILTINOPERATORS_H
#define OPAL_LIBRARY_BUILTINOPERATORS_H

#include "opal/Schema/FunctionSchema.h"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opal {

/// (file name, text) of every built-in op library.
const std::vector<std::pair<std::string_view, std::string_view>> &builtinLibraryTexts();
/// Every schema the built-in libraries define, in file order.
const std::vector<FunctionSchema> &builtinOperatorSchemas();
/// True if built-in op `op` still resolves, for the CPU key, to the kernel
/// opal's built-in library registered (no kernel of a user's took over):
/// ahead-of-time kernels compiled through its definition still stand.
bool isBuiltinCpuKernelCurrent(const OperatorName &op);
/// Why a kernel compiled through `reached` with opal's built-in
/// definitions would not be the kernel compiled now: the first op (an
/// `exempt` one aside) whose CPU kernel is no longer the built-in one, or
/// that an added op-library text decomposes, as "ns::op[.overload] has
/// ..."; "" if none. A precompiled kernel or a warm-start index entry
/// stands only while this is "".
std::string changedBuiltinOp(const std::vector<OperatorName> &reached,
                             const std::function<bool(const OperatorName &)> &exempt = {});

} // namespace opal

#endif // OPAL_LIBRARY_BUILTINOPERATORS_H
