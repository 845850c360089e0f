//===- DriverApiTest.cpp - The CUDA driver table --------------------------===//

#include "opal/CUDA/Device.h"
#include "opal/CUDA/DriverApi.h"

#include <gtest/gtest.h>

#include <type_traits>

#ifdef OPAL_HAVE_CUDA_H
#include <cuda.h>

namespace {
using namespace opal::cuda;

// opal's declarations have cuda.h's ABI, entry point by entry point.
static_assert(sizeof(opal::cuda::CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(opal::cuda::CUresult) == sizeof(::CUresult));
static_assert(sizeof(opal::cuda::CUdevice) == sizeof(::CUdevice));
static_assert(static_cast<int>(kMaxThreadsPerBlock) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
static_assert(static_cast<int>(kMultiprocessorCount) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
static_assert(static_cast<int>(kComputeCapabilityMajor) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
static_assert(static_cast<int>(kComputeCapabilityMinor) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));

/// The parameter count and sizes of a function type.
template <typename F> struct Shape;
template <typename R, typename... A> struct Shape<R (*)(A...)> {
  static constexpr size_t count = sizeof...(A);
  static constexpr size_t bytes = (size_t(0) + ... + sizeof(A));
};

// Each entry point of the table exists in cuda.h under that exact name and
// takes as many parameters, of the same sizes.
#define OPAL_CUDA_SYMBOL(name, parameters)                                                 \
  static_assert(Shape<decltype(DriverApi::name)>::count ==                                 \
                    Shape<decltype(&::name)>::count,                                        \
                #name ": parameter count differs from cuda.h");                             \
  static_assert(Shape<decltype(DriverApi::name)>::bytes == Shape<decltype(&::name)>::bytes, \
                #name ": parameter sizes differ from cuda.h");
#include "opal/CUDA/DriverSymbols.def"
} // namespace
#endif

namespace {

TEST(DriverApi, ErrorsAreNamedEvenWithoutADriver) {
  EXPECT_EQ(opal::cuda::describeError(2), "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
  EXPECT_EQ(opal::cuda::describeError(34),
            "CUDA_ERROR_STUB_LIBRARY: CUDA driver is a stub library");
  EXPECT_EQ(opal::cuda::describeError(12345), "CUresult 12345");
  EXPECT_EQ(opal::cuda::describeError(716).rfind("CUDA_ERROR_MISALIGNED_ADDRESS: misaligned "
                                                 "address (a kernel's fault, ",
                                                 0),
            0u);
}

TEST(DriverApi, KernelFaultsAreTheStickyErrors) {
  for (opal::cuda::CUresult error : {700, 710, 714, 715, 716, 717, 718, 719})
    EXPECT_TRUE(opal::cuda::isStickyError(error)) << error;
  for (opal::cuda::CUresult error : {0, 1, 2, 200, 209, 500, 701, 999})
    EXPECT_FALSE(opal::cuda::isStickyError(error)) << error;
}

TEST(DriverApi, CheckThrowsWithTheCallAndTheError) {
  EXPECT_NO_THROW(opal::cuda::check(0, "cuInit"));
  try {
    opal::cuda::check(700, "cuLaunchKernel");
    FAIL() << "no exception";
  } catch (const std::exception &error) {
    EXPECT_STREQ(error.what(), "CUDA error in cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS: an "
                               "illegal memory access was encountered (a kernel's fault, which "
                               "CUDA reports at the first call after it, so it may come from a "
                               "kernel launched earlier; the device cannot be used again in "
                               "this process)");
  }
}

TEST(DriverApi, WithoutADriverCudaCallsSayWhy) {
  std::string whyNot;
  if (opal::cuda::driver(&whyNot))
    GTEST_SKIP() << "a CUDA driver is installed";
  EXPECT_FALSE(whyNot.empty());
  EXPECT_EQ(opal::cuda::deviceCount(), 0);
  try {
    opal::cuda::allocate(0, 16);
    FAIL() << "no exception";
  } catch (const std::exception &error) {
    EXPECT_EQ(std::string(error.what()), "CUDA is not available: " + whyNot);
  }
}

} // namespace
