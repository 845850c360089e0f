//===- CudaPipeline.h - From schema ops to CUDA binaries --------*- C++ -*-===//
//
// The CUDA compile path's passes, after the same front half as the CPU's
// (opal-decompose and the split into entry points): lowering to linalg,
// fusion, one-shot bufferization into the output arguments, then
// opal-map-to-gpu (one gpu.launch per linalg op, device temporaries),
// kernel outlining into one gpu.module, NVVM for the chosen compute
// capability (math through libdevice), gpu-module-to-binary: a cubin
// through ptxas (`bin`), PTX for the driver to JIT (`isa`), or a fatbin;
// last, the host code to the LLVM dialect with launches and allocations as
// calls into opal's CUDA runtime (opal-gpu-host-to-llvm).
// opal-opt exposes it as --opal-jit-cuda so lit tests check the PTX.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_CUDAPIPELINE_H
#define OPAL_COMPILER_CUDAPIPELINE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace opal::ir {

/// Options of the CUDA pipeline.
struct CudaPipelineOptions : public mlir::PassPipelineOptions<CudaPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("the compute capability (sm_80, sm_90a, ...)"),
                           llvm::cl::init("sm_80")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features (+ptx80); empty: the backend's default"),
                               llvm::cl::init("")};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("isa (PTX), bin (cubin through ptxas), fatbin or llvm"),
                             llvm::cl::init("bin")};
  Option<int> optLevel{*this, "opt-level", llvm::cl::desc("LLVM and ptxas optimization level"),
                       llvm::cl::init(3)};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("threads per block"),
                            llvm::cl::init(256)};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("the CUDA toolkit (ptxas, libdevice); empty: "
                                             "$CUDA_HOME, else /usr/local/cuda"),
                              llvm::cl::init("")};
  Option<bool> lowerHost{*this, "lower-host",
                         llvm::cl::desc("lower the host code to the LLVM dialect and opal's CUDA "
                                        "runtime (opal-gpu-host-to-llvm); false keeps "
                                        "gpu.launch_func, for reading the launches"),
                         llvm::cl::init(true)};
};

/// The CUDA toolkit to compile with: $CUDA_HOME, else /usr/local/cuda.
std::string defaultCudaToolkit();
/// The toolkit `options` compile with: toolkit=, else defaultCudaToolkit().
std::string cudaToolkitOf(const CudaPipelineOptions &options);

/// The last line `ptxas --version` prints for `toolkit` ("Build
/// cuda_13.0.r13.0/compiler.36424714_0"), or "none"; asked once per toolkit.
std::string ptxasVersion(const std::string &toolkit);

/// The compute capability a chip names (90 for sm_90 and sm_90a), or 0 if
/// it is not sm_<digits>[a|f].
int chipCapability(llvm::StringRef chip);

/// The text of the pipeline for `options` (what --opal-jit-cuda runs).
std::string jitCudaPipelineText(const CudaPipelineOptions &options);

/// Checks the options: a chip named sm_<digits>[a|f], a known format, a
/// block size that is a multiple of 32 in [32, 1024], a toolkit with
/// libdevice (and ptxas for bin and fatbin). Returns the problem or "" if
/// there is none.
std::string cudaPipelineOptionsProblem(const CudaPipelineOptions &options);

/// Adds what the pipeline needs to `registry` (the NVVM target and the
/// translations to LLVM IR) and registers --opal-jit-cuda and the upstream
/// passes it names.
void registerCudaPipeline(mlir::DialectRegistry &registry);

} // namespace opal::ir

#endif // OPAL_COMPILER_CUDAPIPELINE_H
