//===- VectorTranspose.cpp - Square tiles transposed in registers ---------===//

#include "VectorTranspose.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

SmallVector<Value> opal::ir::detail::transposeRows(OpBuilder &b, Location loc,
                                                   SmallVector<Value> rows) {
  int64_t lanes = static_cast<int64_t>(rows.size());
  for (int64_t h = lanes / 2; h >= 1; h /= 2) {
    SmallVector<int64_t> low(lanes), high(lanes);
    for (int64_t j = 0; j < lanes; ++j) {
      bool second = (j & h) != 0;
      low[j] = second ? lanes + j - h : j;  // row i: its own left, row i+h's left
      high[j] = second ? lanes + j : j + h; // row i+h: row i's right, its own right
    }
    SmallVector<Value> next(rows);
    for (int64_t i = 0; i < lanes; ++i) {
      if ((i & h) != 0)
        continue;
      next[i] = vector::ShuffleOp::create(b, loc, rows[i], rows[i + h], low);
      next[i + h] = vector::ShuffleOp::create(b, loc, rows[i], rows[i + h], high);
    }
    rows = std::move(next);
  }
  return rows;
}
