//===- Outlining.h - Moving a nest into a function of its own ---*- C++ -*-===//
//
// Private to lib/Transforms: what opal-parallelize and opal-outline-nests
// share when a loop nest moves into a function.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_OUTLINING_H
#define OPAL_LIB_TRANSFORMS_OUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SetVector.h"

namespace opal::ir::detail {

/// An op that makes a view of a buffer (or reads its size): cloned into the
/// function with what it views, never passed.
bool isBufferView(mlir::Operation *op);

/// Splits the values a nest uses (defined outside it) into those the
/// function it moves into takes as arguments (`passed`) and the constants
/// and views it clones (`cloned`, in an order that defines before use), so
/// that every buffer it takes is a whole one, never a view of another.
void splitUsedValues(llvm::ArrayRef<mlir::Value> used, llvm::SetVector<mlir::Value> &passed,
                     llvm::SetVector<mlir::Operation *> &cloned);

/// A function for a nest of `kernel`, made at `b`'s insertion point: private,
/// marked `opal.parallel_part`, named `<kernel>_part` (`_part_<n>` when that is
/// taken in `symbols`), taking `leading` and then one argument per value of
/// `passed`. In its entry block `mapping` maps `passed` to those arguments and
/// the ops of `cloned` are cloned there; `b` is left after them.
mlir::func::FuncOp createPart(mlir::OpBuilder &b, mlir::SymbolTable &symbols,
                              mlir::func::FuncOp kernel, mlir::Location loc,
                              mlir::TypeRange leading, llvm::ArrayRef<mlir::Value> passed,
                              llvm::ArrayRef<mlir::Operation *> cloned, mlir::IRMapping &mapping);

} // namespace opal::ir::detail

#endif // OPAL_LIB_TRANSFORMS_OUTLINING_H
