//===- PackingTest.cpp - Panels of a transposed B for the products --------===//

#include "opal/Runtime/Packing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

/// Packs the panel of B's rows jj .. jj + columns (B is n x k, rows
/// `rowStride` apart, `offset` elements into its buffer) into a panel of
/// `lanes` lanes at `start`, and checks every element against B, zeros
/// past the panel's columns, and nothing written outside the panel.
template <typename T, typename Pack>
void checkPanel(Pack pack, int64_t n, int64_t k, int64_t rowStride, int64_t offset, int64_t jj,
                int64_t columns, int64_t k0, int64_t kEnd, int64_t lanes) {
  std::vector<T> b(offset + n * rowStride);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = T(int64_t(i) % 1000 - 500) / T(8);
  int64_t start = 3;
  int64_t rows = kEnd - k0;
  std::vector<T> packed(start + rows * lanes + 5, T(-7));
  pack(b.data(), b.data(), offset, n, k, rowStride, 1, jj, columns, k0, kEnd, packed.data(),
       packed.data(), 0, int64_t(packed.size()), 1, start, lanes);
  for (int64_t i = 0; i < start; ++i)
    EXPECT_EQ(packed[i], T(-7));
  for (int64_t kk = k0; kk < kEnd; ++kk)
    for (int64_t c = 0; c < lanes; ++c) {
      T expected = c < columns ? b[offset + (jj + c) * rowStride + kk] : T(0);
      ASSERT_EQ(packed[start + (kk - k0) * lanes + c], expected)
          << "k " << kk << ", column " << c << " (jj " << jj << ", columns " << columns
          << ", lanes " << lanes << ")";
    }
  for (size_t i = start + rows * lanes; i < packed.size(); ++i)
    EXPECT_EQ(packed[i], T(-7));
}

TEST(PackingTest, FloatPanelsOfWholeAndPartialSquares) {
  // Whole squares (k a multiple of 16), a remainder of k, a block that
  // starts past 0, a partial panel, a row stride wider than k.
  for (int64_t lanes : {16, 8, 4})
    for (auto [k0, kEnd] : {std::pair<int64_t, int64_t>{0, 32}, {0, 37}, {16, 53}, {5, 9}})
      for (int64_t columns : {lanes, lanes - 1, int64_t(1)}) {
        checkPanel<float>(opal_pack_panel_f32, 40, 64, 64, 0, 16, columns, k0, kEnd, lanes);
        checkPanel<float>(opal_pack_panel_f32, 40, 64, 70, 11, 3, columns, k0, kEnd, lanes);
      }
}

TEST(PackingTest, DoublePanelsOfWholeAndPartialSquares) {
  for (int64_t lanes : {8, 4})
    for (auto [k0, kEnd] : {std::pair<int64_t, int64_t>{0, 16}, {0, 21}, {8, 29}, {2, 3}})
      for (int64_t columns : {lanes, lanes - 1, int64_t(1)}) {
        checkPanel<double>(opal_pack_panel_f64, 20, 32, 32, 0, 8, columns, k0, kEnd, lanes);
        checkPanel<double>(opal_pack_panel_f64, 20, 32, 35, 7, 1, columns, k0, kEnd, lanes);
      }
}

TEST(PackingTest, AnEmptyRangeOfKWritesNothing) {
  checkPanel<float>(opal_pack_panel_f32, 16, 16, 16, 0, 0, 16, 7, 7, 16);
}

} // namespace
