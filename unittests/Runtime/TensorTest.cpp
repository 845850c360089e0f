//===- TensorTest.cpp - Tensors, views, copies, factories, the allocator --===//

#include "opal/Runtime/Allocator.h"
#include "opal/Runtime/Factories.h"
#include "opal/Runtime/Half.h"
#include "opal/Support/Exceptions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace opal;

namespace {

std::vector<float> values(const Tensor &t) {
  Tensor c = t.contiguous().to(ScalarType::Float);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

Tensor iota(std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return arange(0, static_cast<double>(n), 1).view(sizes);
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}

TEST(Tensor, EmptyIsAlignedAndContiguous) {
  Tensor t = Tensor::empty({3, 4}, ScalarType::Double);
  EXPECT_EQ(t.numel(), 12);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{4, 1}));
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.dataPtr()) % 64, 0u);
  Tensor meta = Tensor::empty({3, 4}, ScalarType::Float, Device(DeviceType::Meta));
  EXPECT_EQ(meta.dataPtr(), nullptr);
  EXPECT_EQ(meta.str(), "Tensor(shape=[3, 4], dtype=float32, device=meta)");
  EXPECT_EQ(Tensor::empty({}).numel(), 1);
  EXPECT_EQ(Tensor::empty({0, 5}).numel(), 0);
}

TEST(Tensor, ViewsShareStorage) {
  Tensor t = iota({2, 3});
  Tensor tt = t.transpose(0, 1);
  EXPECT_EQ(tt.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(tt.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(tt.isContiguous());
  EXPECT_EQ(values(tt), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  tt.select(0, 1).fill(9); // writes through to t
  EXPECT_EQ(values(t), (std::vector<float>{0, 9, 2, 3, 9, 5}));
  EXPECT_EQ(values(t.slice(1, 0, 3, 2)), (std::vector<float>{0, 2, 3, 5}));
  EXPECT_EQ(values(t.slice(1, -2, 100)), (std::vector<float>{9, 2, 9, 5}));
  EXPECT_EQ(t.unsqueeze(0).sizes(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(t.unsqueeze(-1).sizes(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(t.unsqueeze(0).squeeze().sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.unsqueeze(1).squeeze(1).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.squeeze(0).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(t.permute({1, 0})), values(tt));
}

TEST(Tensor, ViewAndReshape) {
  Tensor t = iota({2, 3, 4});
  EXPECT_EQ(t.view({6, -1}).sizes(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(t.view({-1}).numel(), 24);
  Tensor tt = t.transpose(0, 2); // (4, 3, 2), not viewable flat
  EXPECT_EQ(errorOf([&] { tt.view({24}); }),
            "view size is not compatible with input tensor's size and stride (at least "
            "one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor flat = tt.reshape({24});
  EXPECT_TRUE(flat.isContiguous());
  EXPECT_EQ(values(flat)[1], 12.f);
  EXPECT_EQ(errorOf([&] { t.view({5, 5}); }), "shape '[5, 5]' is invalid for input of size 24");
  EXPECT_EQ(errorOf([&] { t.view({-1, -1}); }), "only one dimension can be inferred");
  // Splitting a dimension of a transposed tensor is a view.
  Tensor split = t.transpose(1, 2).view({2, 2, 2, 3});
  EXPECT_EQ(split.strides(), (std::vector<int64_t>{12, 2, 1, 4}));
}

TEST(Tensor, Expand) {
  Tensor t = iota({3, 1});
  Tensor e = t.expand({2, 3, 4});
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(values(e.select(0, 1).select(0, 2)), (std::vector<float>{2, 2, 2, 2}));
  EXPECT_EQ(t.expand({-1, 5}).sizes(), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(errorOf([&] { t.expand({4, 2}); }),
            "The expanded size of the tensor (4) must match the existing size (3) at "
            "non-singleton dimension 0.  Target sizes: [4, 2].  Tensor sizes: [3, 1]");
}

TEST(Tensor, DimensionErrors) {
  Tensor t = iota({2, 3});
  EXPECT_EQ(errorOf([&] { t.transpose(0, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(errorOf([&] { t.select(1, 3); }),
            "select(): index 3 out of range for tensor of size [2, 3] at dimension 1");
  EXPECT_EQ(errorOf([&] { t.permute({0, 0}); }), "permute(): duplicate dims are not allowed.");
}

TEST(Tensor, CopiesConvertDtypes) {
  Tensor d = arange(-2, 3, 1, {ScalarType::Double});
  EXPECT_EQ(values(d.to(ScalarType::Long)), (std::vector<float>{-2, -1, 0, 1, 2}));
  EXPECT_EQ(values(d.to(ScalarType::Bool)), (std::vector<float>{1, 1, 0, 1, 1}));
  EXPECT_EQ(values(d.to(ScalarType::Half)), (std::vector<float>{-2, -1, 0, 1, 2}));
  Tensor f = full({2}, 0.1, {ScalarType::Float});
  EXPECT_FLOAT_EQ(f.data<float>()[0], 0.1f);
  Tensor noncontiguous = iota({3, 4}).transpose(0, 1);
  Tensor target = zeros({4, 3}, {ScalarType::Int});
  target.copyFrom(noncontiguous);
  EXPECT_EQ(values(target), values(noncontiguous));
  Tensor row = arange(0, 3, 1);
  Tensor broadcast = zeros({2, 3});
  broadcast.copyFrom(row);
  EXPECT_EQ(values(broadcast), (std::vector<float>{0, 1, 2, 0, 1, 2}));
  Tensor cloned = row.clone();
  EXPECT_NE(cloned.dataPtr(), row.dataPtr());
}

TEST(Tensor, CopiesRowsDenseOnBothSidesWhole) {
  // t[n][f][p] = n*12 + f*4 + p; rows of 4 dense on both sides of each
  // copy (copied a row at a time), checked element by element.
  Tensor t = iota({2, 3, 4});
  Tensor swapped = t.transpose(0, 1).contiguous(); // [3, 2, 4]
  ASSERT_TRUE(swapped.isContiguous());
  const float *out = swapped.data<float>();
  for (int f = 0; f < 3; ++f)
    for (int n = 0; n < 2; ++n)
      for (int p = 0; p < 4; ++p)
        EXPECT_EQ(out[(f * 2 + n) * 4 + p], static_cast<float>(n * 12 + f * 4 + p));
  Tensor middle = t.slice(1, 1, 3).contiguous(); // [2, 2, 4]
  const float *rows = middle.data<float>();
  for (int n = 0; n < 2; ++n)
    for (int f = 0; f < 2; ++f)
      for (int p = 0; p < 4; ++p)
        EXPECT_EQ(rows[(n * 2 + f) * 4 + p], static_cast<float>(n * 12 + (f + 1) * 4 + p));
  Tensor into = zeros({2, 3, 4}, {ScalarType::Float});
  into.slice(2, 1, 3).copyFrom(t.slice(2, 2, 4)); // rows of 2, strided on both sides
  const float *partial = into.data<float>();
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(partial[r * 4 + 0], 0.0f);
    EXPECT_EQ(partial[r * 4 + 1], static_cast<float>(r * 4 + 2));
    EXPECT_EQ(partial[r * 4 + 2], static_cast<float>(r * 4 + 3));
    EXPECT_EQ(partial[r * 4 + 3], 0.0f);
  }
  Tensor scalar = full({}, 3.5, {ScalarType::Float});
  EXPECT_EQ(scalar.clone().data<float>()[0], 3.5f);
}

TEST(Tensor, HalfAndBFloat16) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.1f})
    EXPECT_EQ(Half::toFloat(Half::fromFloat(v)), static_cast<float>(Half(v))) << v;
  EXPECT_EQ(static_cast<float>(Half(0.1f)), 0.0999755859375f);
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(70000.f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(NAN))));
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16(0.1f)), 0.10009765625f);
}

TEST(Tensor, Factories) {
  EXPECT_EQ(values(ones({2, 2})), (std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(values(arange(0, 1, 0.25)), (std::vector<float>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(arange(5, 0, -2).numel(), 3);
}

TEST(Allocator, ReusesFreedBlocks) {
  auto &allocator = CPUCachingAllocator::singleton();
  EXPECT_EQ(CPUCachingAllocator::sizeClass(1), 64u);
  EXPECT_EQ(CPUCachingAllocator::sizeClass(65), 128u);
  EXPECT_EQ(CPUCachingAllocator::sizeClass((1 << 20) + 1), size_t(2) << 20);
  void *first;
  {
    Tensor t = Tensor::empty({1000});
    first = t.dataPtr();
  }
  AllocatorStats before = allocator.stats();
  Tensor again = Tensor::empty({1000});
  EXPECT_EQ(again.dataPtr(), first);
  EXPECT_EQ(allocator.stats().cacheHits, before.cacheHits + 1);
}

} // namespace

TEST(Tensor, SizeArithmeticIsChecked) {
  auto message = [](const std::function<void()> &make) {
    try {
      make();
    } catch (const OpalError &error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { Tensor::empty({int64_t(1) << 62}, ScalarType::Float, Device(DeviceType::CPU)); }),
            "Storage size calculation overflowed with sizes=[4611686018427387904]");
  EXPECT_EQ(message([] { Tensor::empty({2, -1}, ScalarType::Float, Device(DeviceType::CPU)); }),
            "Trying to create tensor with negative dimension -1: [2, -1]");
  Tensor one = ones({1});
  EXPECT_EQ(message([&] { one.expand({int64_t(1) << 40, int64_t(1) << 40}); }),
            "numel: integer multiplication overflow");
  Tensor four = ones({4});
  EXPECT_EQ(message([&] { four.asStrided(DimVector(IntArrayRef{5}), DimVector(IntArrayRef{1}), 0); }),
            "setStorage: sizes [5], strides [1], storage offset 0, and itemsize 4 requiring a "
            "storage size of 20 are out of bounds for storage of size 16");
  EXPECT_EQ(message([&] { four.asStrided(DimVector(IntArrayRef{2}), DimVector(IntArrayRef{int64_t(1) << 62}), 0); }),
            "Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]");
  EXPECT_EQ(message([&] { four.asStrided(DimVector(IntArrayRef{2}), DimVector(IntArrayRef{-1}), 1); }),
            "as_strided: Negative strides are not supported at the moment, got strides: [-1]");
  EXPECT_EQ(storageBytesFor({2, 3}, {3, 1}, 1, 4), std::optional<size_t>(28));
  EXPECT_EQ(storageBytesFor({0, 3}, {3, 1}, 0, 4), std::optional<size_t>(0));
  EXPECT_EQ(storageBytesFor({int64_t(1) << 62}, {1}, 0, 8), std::nullopt);
  EXPECT_EQ(message([] { arange(0, 1e30, 1, {}); }), "invalid size, possible overflow?");
  EXPECT_EQ(message([] { full({2}, 1e20, {ScalarType::Long, Device(DeviceType::CPU)}); }),
            "value cannot be converted to type int64_t without overflow");
  EXPECT_EQ(message([] { full({2}, 300, {ScalarType::Byte, Device(DeviceType::CPU)}); }),
            "value cannot be converted to type uint8_t without overflow");
}

TEST(Tensor, OverlappingWritesAreRefused) {
  Tensor expanded = zeros({1}).expand({int64_t(1) << 40});
  expanded.fill(1); // one element written, once
  EXPECT_EQ(expanded.data<float>()[0], 1.0f);
  EXPECT_THROW(zeros({1}).expand({4}).copyFrom(ones({4})), OpalError);
  Tensor square = arange(0, 4, 1, {}).view({2, 2});
  EXPECT_THROW(square.copyFrom(square.t()), OpalError);
  square.copyFrom(square); // the same elements: allowed
  EXPECT_EQ(square.data<float>()[3], 3.0f);
}
