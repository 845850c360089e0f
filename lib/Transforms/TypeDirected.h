//===- TypeDirected.h - Expanding opal.promote and friends ------*- C++ -*-===//
//
// Private to lib/Transforms: the type-directed ops of decomposition bodies
// (opal.promote, opal.broadcast_tensors) become prims once the types of a use
// are known.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_TYPEDIRECTED_H
#define OPAL_LIB_TRANSFORMS_TYPEDIRECTED_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace opal::ir::detail {

/// True for the type-directed ops (opal.promote, opal.broadcast_tensors,
/// opal.to_dtype, opal.normalize_dims, opal.keep_dims, opal.count,
/// opal.transpose_perm).
bool isTypeDirected(mlir::Operation *op);

/// Creates, at `builder`, the prims that `op` (a type-directed op of a body)
/// stands for when its operands are `operands` (concrete types), and returns
/// the values of its results. On failure, `problem` says why.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
expandTypeDirected(mlir::OpBuilder &builder, mlir::Operation *op, mlir::ValueRange operands,
                   std::string &problem);

/// PyTorch's promotion of two element types (bool < integers < floats;
/// float16 with bfloat16 gives float32).
mlir::Type promoteElementTypes(mlir::Type a, mlir::Type b);

/// The message of a refused use (expansionRefusal in TypeDirectedImpl.h:
/// the use is invalid for its arguments, and the call raises it), or
/// nullopt for a problem of the body.
std::optional<std::string> refusalMessage(const std::string &problem);

} // namespace opal::ir::detail

#endif // OPAL_LIB_TRANSFORMS_TYPEDIRECTED_H
