//===- Outlining.h - Moving a nest into a function of its own ---*- C++ -*-===//
//
// Private to lib/Transforms: what opal-parallelize and opal-outline-nests
// share when a loop nest moves into a function.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_OUTLINING_H
#define OPAL_LIB_TRANSFORMS_OUTLINING_H

#include "mlir/IR/Operation.h"
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

} // namespace opal::ir::detail

#endif // OPAL_LIB_TRANSFORMS_OUTLINING_H
