//===- KernelRuntimeTest.cpp - The functions compiled kernels call --------===//

#include "opal/JIT/KernelRuntime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace opal;

namespace {

/// A rank-2 memref descriptor as MLIR passes one: allocated, aligned,
/// offset, sizes, strides.
struct Descriptor2 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

struct Unranked {
  int64_t rank;
  void *descriptor;
};

// memref.copy of a non-contiguous view (what finalize-memref-to-llvm calls
// memrefCopy for): kernels find it in the runtime, with MLIR's ABI.
TEST(KernelRuntimeTest, MemrefCopyCopiesStridedViews) {
  using Copy = void (*)(int64_t, Unranked *, Unranked *);
  auto copy = reinterpret_cast<Copy>(jit::kernelRuntimeSymbol("memrefCopy"));
  ASSERT_NE(copy, nullptr);
  // Source: the transpose of a 3 x 2 buffer (a 2 x 3 view, strides 1, 2),
  // starting one element in.
  std::vector<float> source = {-1, 0, 1, 2, 3, 4, 5};
  std::vector<float> target(2 * 4, -7); // 2 x 3 into rows of 4 (stride 4)
  Descriptor2 from{source.data(), source.data(), 1, {2, 3}, {1, 2}};
  Descriptor2 to{target.data(), target.data(), 0, {2, 3}, {4, 1}};
  Unranked fromRef{2, &from}, toRef{2, &to};
  copy(sizeof(float), &fromRef, &toRef);
  EXPECT_EQ(target, (std::vector<float>{0, 2, 4, -7, 1, 3, 5, -7}));
  // An empty view copies nothing.
  from.sizes[0] = 0;
  std::vector<float> before = target;
  copy(sizeof(float), &fromRef, &toRef);
  EXPECT_EQ(target, before);
}

} // namespace
