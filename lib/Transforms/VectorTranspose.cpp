//===- VectorTranspose.cpp - Square tiles transposed in registers ---------===//

#include "VectorTranspose.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// `rows` after one round of two-vector shuffles: for each pair (i, i +
/// distance) (i with no `distance` bit), next[i] = shuffle(rows[i], rows[i +
/// distance], first) and next[i + distance] = shuffle(..., second).
SmallVector<Value> shuffleRound(OpBuilder &b, Location loc, const SmallVector<Value> &rows,
                                int64_t distance, ArrayRef<int64_t> first,
                                ArrayRef<int64_t> second) {
  SmallVector<Value> next(rows);
  for (int64_t i = 0; i < static_cast<int64_t>(rows.size()); ++i) {
    if ((i & distance) != 0)
      continue;
    next[i] = vector::ShuffleOp::create(b, loc, rows[i], rows[i + distance], first);
    next[i + distance] = vector::ShuffleOp::create(b, loc, rows[i], rows[i + distance], second);
  }
  return next;
}

/// Masks that interleave, within every group of four elements, elements
/// `from` and `from + 1` (width 1: unpcklps/unpckhps) or the pairs at
/// `from` (width 2: unpcklpd/unpckhpd) of two vectors of `lanes`.
SmallVector<int64_t> interleave(int64_t lanes, int64_t from, int64_t width) {
  SmallVector<int64_t> mask;
  for (int64_t group = 0; group < lanes; group += 4) {
    for (int64_t e = 0; e < 2; e += width)
      for (int64_t side = 0; side < 2; ++side)
        for (int64_t w = 0; w < width; ++w)
          mask.push_back(side * lanes + group + from + e + w);
  }
  return mask;
}

/// The mask that takes the even (`odd` false) or odd groups of four of
/// two vectors of `lanes`, the first's then the second's (shuff32x4,
/// vperm2f128).
SmallVector<int64_t> groups(int64_t lanes, bool odd) {
  SmallVector<int64_t> mask;
  for (int64_t side = 0; side < 2; ++side)
    for (int64_t group = odd ? 4 : 0; group < lanes; group += 8)
      for (int64_t e = 0; e < 4; ++e)
        mask.push_back(side * lanes + group + e);
  return mask;
}

} // namespace

SmallVector<Value> opal::ir::detail::transposeRows(OpBuilder &b, Location loc,
                                                   SmallVector<Value> rows) {
  int64_t lanes = static_cast<int64_t>(rows.size());
  if (lanes >= 4) {
    // Within groups of four elements, as x86's unpack instructions do
    // (each shuffle one instruction): rows 2i and 2i+1 interleaved element
    // by element, then rows 4i+j and 4i+j+2 pair by pair; each group of
    // four of row r then holds a 4x4 block's column. The groups move into
    // place in log2(lanes / 4) rounds of whole groups.
    rows = shuffleRound(b, loc, rows, 1, interleave(lanes, 0, 1), interleave(lanes, 2, 1));
    rows = shuffleRound(b, loc, rows, 2, interleave(lanes, 0, 2), interleave(lanes, 2, 2));
    // (The second round leaves the rows of each four in the order 4i,
    // 4i+2, 4i+1, 4i+3: the middle two swap back.)
    for (int64_t i = 0; i < lanes; i += 4)
      std::swap(rows[i + 1], rows[i + 2]);
    for (int64_t distance = 4; distance < lanes; distance *= 2)
      rows = shuffleRound(b, loc, rows, distance, groups(lanes, false), groups(lanes, true));
    return rows;
  }
  for (int64_t h = lanes / 2; h >= 1; h /= 2) {
    SmallVector<int64_t> low(lanes), high(lanes);
    for (int64_t j = 0; j < lanes; ++j) {
      bool second = (j & h) != 0;
      low[j] = second ? lanes + j - h : j;  // row i: its own left, row i+h's left
      high[j] = second ? lanes + j : j + h; // row i+h: row i's right, its own right
    }
    rows = shuffleRound(b, loc, rows, h, low, high);
  }
  return rows;
}
