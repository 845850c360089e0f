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
/// two-vector `vector.shuffle`s, one shuffle per row and round. For N >= 4
/// the shuffles are the ones x86 has as single instructions (unpack by
/// elements and by pairs within groups of four, then whole groups of four
/// moved: vunpcklps, vunpcklpd, vshuff32x4/vperm2f128), which LLVM selects
/// quickly; for N = 2, one round swapping the off-diagonal elements.
llvm::SmallVector<mlir::Value> transposeRows(mlir::OpBuilder &b, mlir::Location loc,
                                             llvm::SmallVector<mlir::Value> rows);

} // namespace opal::ir::detail

#endif
