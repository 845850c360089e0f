//===- LaunchTest.cpp - Kernel modules and the launch ABI -----------------===//

#include "opal/CUDA/Launch.h"

#include "opal/Support/Exceptions.h"

#include <gtest/gtest.h>

namespace {
using namespace opal::cuda;

TEST(KernelModule, KeepsItsImageAndNamesAndEndsPtxWithANul) {
  KernelModule ptx(".version 8.0\n.target sm_90\n", KernelModule::Format::Ptx, {"a", "b"});
  EXPECT_EQ(ptx.image().back(), '\0');
  EXPECT_EQ(ptx.kernelNames(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ptx.loadCount(), 0);
  KernelModule cubin(std::string("\x7f" "ELF\0\1", 6), KernelModule::Format::Cubin, {"k"});
  EXPECT_EQ(cubin.image().size(), 6u); // binary images are kept as they are
}

TEST(KernelModule, RefusesDevicesBeyondItsTable) {
  KernelModule module("x", KernelModule::Format::Cubin, {"k"});
  try {
    module.functions(64);
    FAIL() << "expected an error";
  } catch (const opal::OpalError &error) {
    EXPECT_STREQ(error.what(), "CUDA device 64 is beyond the 64 devices opal supports");
  }
}

TEST(KernelModule, WithoutADriverLoadingSaysWhy) {
  if (isAvailable())
    GTEST_SKIP() << "a CUDA driver is installed";
  KernelModule module("x", KernelModule::Format::Cubin, {"k"});
  try {
    module.functions(0);
    FAIL() << "expected an error";
  } catch (const opal::OpalError &error) {
    EXPECT_EQ(std::string(error.what()).rfind("CUDA is not available: ", 0), 0u) << error.what();
  }
  EXPECT_EQ(module.loadCount(), 0);
}

TEST(LaunchAbi, CallsOutsideAScopeDoNothing) {
  // Host code only runs inside a LaunchScope; stray calls neither launch
  // nor allocate, and a free of an unknown pointer is ignored.
  uint64_t before = launchCount();
  opal_cuda_launch(nullptr, 0, 1, 1, 1, 1, 1, 1, 0, nullptr);
  EXPECT_EQ(launchCount(), before);
  EXPECT_EQ(opal_cuda_alloc(16), nullptr);
  opal_cuda_free(reinterpret_cast<void *>(0x1000));
}

} // namespace
