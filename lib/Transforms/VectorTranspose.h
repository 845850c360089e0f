//===- VectorTranspose.h - Square tiles transposed in registers -*- C++ -*-===//
//
// Shared by opal-vectorize-transposes and opal-tile-matmul's packing of a
// transposed operand.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_VECTORTRANSPOSE_H
#define OPAL_LIB_TRANSFORMS_VECTORTRANSPOSE_H

#include "mlir/IR/Builders.h"

namespace opal::ir::detail {

/// The rows of the transpose of the square tile whose rows are `rows`
/// (N vectors of N elements, N a power of 2): log2(N) rounds of
/// two-vector `vector.shuffle`s, round h swapping the h x h off-diagonal
/// blocks of every 2h x 2h block, one shuffle per row.
llvm::SmallVector<mlir::Value> transposeRows(mlir::OpBuilder &b, mlir::Location loc,
                                             llvm::SmallVector<mlir::Value> rows);

} // namespace opal::ir::detail

#endif
