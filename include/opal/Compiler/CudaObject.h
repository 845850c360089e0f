//===- CudaObject.h - A kernel compiled for CUDA, as one blob ---*- C++ -*-===//
//
// What the CUDA pipeline leaves is host code with one gpu.binary: the JIT
// takes the device image out (takeDeviceCode), emits the host code as an
// object like a CPU kernel's, and keeps both, with the kernel names the host
// code launches by index, as one CudaKernelObject: one disk cache entry.
// Also here: the options the JIT compiles a device's kernels with, and what
// of the toolkit goes into the cache key.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_CUDAOBJECT_H
#define OPAL_COMPILER_CUDAOBJECT_H

#include "opal/Compiler/CudaPipeline.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace opal::ir {

struct CudaKernelObject {
  std::string host;  ///< the host code's object (or text, see ObjectOptions)
  std::string image; ///< the cubin or PTX
  bool ptx = false;
  std::vector<std::string> kernels; ///< kernel names, by launch index
};

/// Takes the device code out of `module` (after --opal-jit-cuda): the
/// image of its gpu.binary and the kernel names of `opal.gpu_kernels`; the
/// gpu.binary and the GPU attributes are removed, so that the rest is
/// plain host code in the LLVM dialect. Fails with `error` if the module
/// has no binary or one with several objects.
mlir::LogicalResult takeDeviceCode(mlir::ModuleOp module, CudaKernelObject &into,
                                   std::string &error);

/// One blob for the disk cache, and back (false if `blob` is damaged).
std::string serializeCudaObject(const CudaKernelObject &object);
bool parseCudaObject(const std::string &blob, CudaKernelObject &into);

/// Sets the JIT's options for a device of compute capability `capability`
/// (90 for sm_90): a cubin when the toolkit has ptxas, else PTX; the knob
/// OPAL_CUDA_FORMAT (bin or isa) overrides.
void setJitCudaOptions(int capability, CudaPipelineOptions &options);

/// "cuda sm_90 bin, ptxas <version>": the device target of a cache key.
std::string cudaTargetDescription(const CudaPipelineOptions &options);

} // namespace opal::ir

#endif // OPAL_COMPILER_CUDAOBJECT_H
