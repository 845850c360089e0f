//===- TypeDirectedImpl.h - Shared by the type-directed expansions -*- C++ -*-===//
//
// Private to lib/Transforms: the helpers and expansion functions of
// TypeDirected.cpp (the table and the conditions), Promotion.cpp (dtypes),
// ShapeDirected.cpp (broadcasting, dims and shapes) and Checks.cpp (list
// conditions, the reduction-dims check).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_TYPEDIRECTEDIMPL_H
#define OPAL_LIB_TRANSFORMS_TYPEDIRECTEDIMPL_H

#include "TypeDirected.h"

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace opal::ir::detail {

using Expanded = mlir::FailureOr<llvm::SmallVector<mlir::Value>>;

/// PyTorch's type categories: 0 for bool, 1 for integers, 2 for floats.
int category(mlir::Type type);
/// `b` if `a` is null, `a` if `b` is null, else their promotion.
mlir::Type promoteOrTake(mlir::Type a, mlir::Type b);
/// The group of higher priority, unless the lower one has a higher category.
mlir::Type combineGroups(mlir::Type higher, mlir::Type lower);
mlir::Value constantI64(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
/// An `opal.list` of i64 values.
mlir::Value i64List(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange elements);
/// An `opal.list` of i64 constants.
mlir::Value constantList(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> values);
/// `prims.broadcast_in_dim` of `input` to `shape` (its sizes as the i64 list
/// `shapeList`), input dimension i going to result dimension `dims[i]`.
mlir::Value broadcastInDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                           mlir::Value shapeList, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<int64_t> dims);
/// Creates the prim `name` with `operands` and one result of `type`.
mlir::Value createPrim(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                       mlir::ValueRange operands, mlir::Type type);
/// The size of dimension `d` of `tensor` as an i64 value (a constant when
/// static, a tensor.dim otherwise).
mlir::Value sizeOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor, int64_t d);
/// Fails with `reason` as the problem.
Expanded expansionFailure(std::string &problem, std::string reason);
/// Fails because the use is invalid for its arguments (a dim out of range):
/// opal-decompose refuses the use with `message` as an opal.check does (the
/// call raises it), instead of reporting a problem of the body.
Expanded expansionRefusal(std::string &problem, std::string message);
/// "[2, ?, 3]".
std::string shapeString(llvm::ArrayRef<int64_t> shape);
/// The operand's ranked type, or null with the problem set.
mlir::RankedTensorType rankedOperand(mlir::Value value, std::string &problem);
/// The constant dims a dims operand names (an int, an int list or None),
/// normalized for `rank`; None and [] mean all unless `allIfEmpty` is false.
mlir::FailureOr<llvm::SmallVector<int64_t>>
normalizedDims(mlir::Value dims, int64_t rank, std::string &problem, bool allIfEmpty = true);

// The expansions, by file; each takes the op, its operands as instantiated
// for the use, and sets `problem` on failure.
#define OPAL_EXPANDER(name)                                                                        \
  Expanded name(mlir::OpBuilder &b, mlir::Operation *op, mlir::ValueRange operands,                \
                std::string &problem)
// Promotion.cpp
OPAL_EXPANDER(expandPromote);
OPAL_EXPANDER(expandToDtype);
OPAL_EXPANDER(expandDtypeOf);
// ShapeDirected.cpp
OPAL_EXPANDER(expandBroadcast);
OPAL_EXPANDER(expandBroadcastTo);
OPAL_EXPANDER(expandSumTo);
OPAL_EXPANDER(expandNormalizeDims);
OPAL_EXPANDER(expandKeepDims);
OPAL_EXPANDER(expandCount);
OPAL_EXPANDER(expandTransposePerm);
OPAL_EXPANDER(expandShapeOf);
OPAL_EXPANDER(expandTrailingDims);
OPAL_EXPANDER(expandInferShape);
OPAL_EXPANDER(expandDimSize);
OPAL_EXPANDER(expandBatchMatmul);
// Checks.cpp
OPAL_EXPANDER(expandListEq);
OPAL_EXPANDER(expandEndsWith);
OPAL_EXPANDER(expandListLen);
OPAL_EXPANDER(expandFirstNegative);
OPAL_EXPANDER(expandSizesWithin);
OPAL_EXPANDER(expandSizeAt);
OPAL_EXPANDER(expandListItem);
OPAL_EXPANDER(expandCheckReductionDims);
OPAL_EXPANDER(expandCheckPadding);
OPAL_EXPANDER(expandCheckRepeats);
OPAL_EXPANDER(expandCheckEdgePadding);
OPAL_EXPANDER(expandConvParams);
OPAL_EXPANDER(expandDimsExcept);
// TypeDirected.cpp (conditions for opal.static_if)
OPAL_EXPANDER(expandIsNone);
OPAL_EXPANDER(expandIsFloating);
OPAL_EXPANDER(expandStrEq);
OPAL_EXPANDER(expandHasRank);
OPAL_EXPANDER(expandHasStaticSize);
#undef OPAL_EXPANDER

} // namespace opal::ir::detail

#endif // OPAL_LIB_TRANSFORMS_TYPEDIRECTEDIMPL_H
