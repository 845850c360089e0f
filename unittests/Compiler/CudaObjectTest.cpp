//===- CudaObjectTest.cpp - A CUDA kernel's disk cache blob ---------------===//

#include "opal/Compiler/CudaObject.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {
using namespace opal::ir;

CudaKernelObject sample() {
  CudaKernelObject object;
  object.host = std::string("\x7f" "ELF host\0code", 14);
  object.image = std::string("\x7f" "ELF cubin\0\0", 12);
  object.ptx = false;
  object.kernels = {"opal_kernel_kernel", "opal_kernel_kernel_0"};
  return object;
}

TEST(CudaObject, RoundTripsThroughOneBlob) {
  CudaKernelObject read;
  ASSERT_TRUE(parseCudaObject(serializeCudaObject(sample()), read));
  EXPECT_EQ(read.host, sample().host);
  EXPECT_EQ(read.image, sample().image);
  EXPECT_FALSE(read.ptx);
  EXPECT_EQ(read.kernels, sample().kernels);
  CudaKernelObject ptx = sample();
  ptx.ptx = true;
  ptx.kernels.clear();
  ASSERT_TRUE(parseCudaObject(serializeCudaObject(ptx), read));
  EXPECT_TRUE(read.ptx);
  EXPECT_TRUE(read.kernels.empty());
}

TEST(CudaObject, DamagedBlobsAreRefused) {
  std::string blob = serializeCudaObject(sample());
  CudaKernelObject read;
  for (size_t cut : {size_t(0), size_t(5), blob.size() / 2, blob.size() - 1})
    EXPECT_FALSE(parseCudaObject(blob.substr(0, cut), read)) << "cut at " << cut;
  EXPECT_FALSE(parseCudaObject(blob + "x", read));
  std::string other = blob;
  other[10] ^= 1; // inside the magic
  EXPECT_FALSE(parseCudaObject(other, read));
}

TEST(CudaObject, TheTargetNamesArchFormatAndPtxas) {
  CudaPipelineOptions options;
  setJitCudaOptions(86, options);
  EXPECT_EQ(options.chip.getValue(), "sm_86");
  std::string description = cudaTargetDescription(options);
  EXPECT_EQ(description.rfind("cuda sm_86 " + options.format.getValue() + ", ptxas ", 0), 0u)
      << description;
}

TEST(CudaObject, PtxasRunsOnEveryCoreWhereItCan) {
  // CUDA 13's ptxas takes --split-compile: cubins get it, PTX (for the
  // driver) has no ptxas to give it to; a toolkit without ptxas gets none.
  CudaPipelineOptions options;
  options.format = "bin";
  std::string version = ptxasVersion(cudaToolkitOf(options));
  size_t at = version.find("cuda_");
  bool splits = at != std::string::npos && std::atoi(version.c_str() + at + 5) >= 13;
  EXPECT_EQ(jitCudaPipelineText(options).find("opts=--split-compile=0") != std::string::npos,
            splits)
      << version;
  options.format = "isa";
  EXPECT_EQ(jitCudaPipelineText(options).find("split-compile"), std::string::npos);
  options.format = "bin";
  options.toolkit = "/nonexistent/cuda";
  EXPECT_EQ(ptxasVersion("/nonexistent/cuda"), "none");
  EXPECT_EQ(jitCudaPipelineText(options).find("split-compile"), std::string::npos);
}

} // namespace
