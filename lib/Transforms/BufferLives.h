//===- BufferLives.h - Where a temporary buffer is last used ----*- C++ -*-===//
//
// Private to lib/Transforms: what opal-free-at-last-use and
// opal-plan-buffers share about the life of a buffer a block allocates.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_BUFFERLIVES_H
#define OPAL_LIB_TRANSFORMS_BUFFERLIVES_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace opal::ir::detail {

/// The op of `block` after which nothing reads or writes `buffer` (an
/// allocation in `block`) or a value that may alias it (a view, a cast, any
/// memref result of an op that takes it, followed transitively; a use
/// inside an op's regions counts as a use of that op), other than
/// `dealloc`; null when an alias may leave the ops this can see (a
/// terminator yields it, a region op forwards it into its regions).
mlir::Operation *lastUse(mlir::Value buffer, mlir::Block *block, mlir::Operation *dealloc);

} // namespace opal::ir::detail

#endif // OPAL_LIB_TRANSFORMS_BUFFERLIVES_H
