//===- CudaPipeline.cpp - From schema ops to CUDA binaries ----------------===//

#include "opal/Compiler/CudaPipeline.h"
#include "opal/Compiler/CpuPipeline.h"
#include "opal/Support/Environment.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace mlir;

namespace {
/// Stands for a pipeline whose options were refused: fails with the reason
/// (instead of aborting the tool, as a pipeline builder cannot fail).
class RefusePass : public PassWrapper<RefusePass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RefusePass)
  explicit RefusePass(std::string reason) : reason(std::move(reason)) {}
  StringRef getArgument() const override { return "opal-refuse"; }
  void runOnOperation() override {
    getOperation().emitError() << reason;
    signalPassFailure();
  }

private:
  std::string reason;
};
} // namespace

std::string opal::ir::defaultCudaToolkit() {
  std::optional<std::string> home = opal::readKnob("CUDA_HOME");
  return home && !home->empty() ? *home : "/usr/local/cuda";
}

std::string opal::ir::cudaToolkitOf(const CudaPipelineOptions &options) {
  return options.toolkit.getValue().empty() ? defaultCudaToolkit() : options.toolkit.getValue();
}

int opal::ir::chipCapability(llvm::StringRef chip) {
  llvm::StringRef digits = chip;
  if (!digits.consume_front("sm_"))
    return 0;
  if (digits.ends_with("a") || digits.ends_with("f"))
    digits = digits.drop_back();
  if (digits.empty() || digits.size() > 4 || !llvm::all_of(digits, llvm::isDigit))
    return 0;
  int capability = 0;
  digits.getAsInteger(10, capability);
  return capability;
}

std::string opal::ir::cudaPipelineOptionsProblem(const CudaPipelineOptions &options) {
  llvm::StringRef chip = options.chip.getValue();
  if (!chipCapability(chip))
    return "chip must be sm_<capability> (sm_80, sm_90a), got '" + chip.str() + "'";
  llvm::StringRef format = options.format.getValue();
  if (format != "isa" && format != "bin" && format != "fatbin" && format != "llvm")
    return "format must be isa, bin, fatbin or llvm, got '" + format.str() + "'";
  int64_t block = options.blockSize;
  if (block < 32 || block > 1024 || block % 32 != 0)
    return "block-size must be a multiple of 32 in [32, 1024], got " + std::to_string(block);
  if (options.optLevel < 0 || options.optLevel > 3)
    return "opt-level must be 0 to 3, got " + std::to_string(options.optLevel);
  std::string toolkit = cudaToolkitOf(options);
  std::string libdevice = toolkit + "/nvvm/libdevice/libdevice.10.bc";
  if (!llvm::sys::fs::exists(libdevice))
    return "no libdevice at " + libdevice + " (set toolkit= or CUDA_HOME to a CUDA toolkit)";
  if (format == "bin" || format == "fatbin") {
    std::string ptxas = toolkit + "/bin/ptxas";
    if (!llvm::sys::fs::can_execute(ptxas))
      return "format=" + format.str() + " needs ptxas, and there is none at " + ptxas +
             " (format=isa gives PTX for the driver to compile)";
  }
  return "";
}

std::string opal::ir::ptxasVersion(const std::string &toolkit) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(toolkit);
  if (it != known.end())
    return it->second;
  std::string ptxas = toolkit + "/bin/ptxas", version = "none";
  if (llvm::sys::fs::can_execute(ptxas)) {
    std::string command = "'" + ptxas + "' --version 2>/dev/null";
    if (FILE *pipe = ::popen(command.c_str(), "r")) {
      char line[512];
      while (std::fgets(line, sizeof line, pipe)) {
        std::string text = line;
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
          text.pop_back();
        if (!text.empty())
          version = text;
      }
      ::pclose(pipe);
    }
  }
  known.emplace(toolkit, version);
  return version;
}

namespace {
/// Whether the toolkit's ptxas takes --split-compile (its optimizations on
/// several threads; it cut a softmax's two kernels from 69 to 48 ms on two
/// cores): CUDA 13's does, by the build `ptxas --version` gives (which the
/// kernel cache's key reads anyway). Older releases run as before.
bool ptxasSplitsCompiles(const std::string &toolkit) {
  // The last line of `ptxas --version`: "Build cuda_13.0.r13.0/compiler...".
  std::string version = opal::ir::ptxasVersion(toolkit);
  size_t at = version.find("cuda_");
  if (at == std::string::npos)
    return false;
  return std::atoi(version.c_str() + at + 5) >= 13;
}
} // namespace

std::string opal::ir::jitCudaPipelineText(const CudaPipelineOptions &options) {
  std::string target = "chip=" + options.chip.getValue() + " O=" + std::to_string(options.optLevel);
  if (!options.features.getValue().empty())
    target += " features=" + options.features.getValue();
  std::string toolkit = cudaToolkitOf(options);
  std::string binary = "format=" + options.format.getValue() + " toolkit=" + toolkit;
  // ptxas on every core where it can (cubins only: PTX goes to the driver).
  if (options.format.getValue() != "isa" && options.format.getValue() != "llvm" &&
      ptxasSplitsCompiles(toolkit))
    binary += " opts=--split-compile=0";
  // A buffer for an elementwise result with several consumers would live
  // in device memory: each consumer computes it again instead.
  return std::string(bufferizationPipelineText(/*recomputeElementwise=*/true)) +
         // Row-wise runs (softmax, norms): one kernel, a block per row.
         ",func.func(opal-fuse-rows{shrink-temporaries=false merge-into-reductions=false merge-dense-loops=false any-row-dims=false})"
         ",func.func(opal-map-to-gpu{block-size=" + std::to_string(options.blockSize) +
         "}),canonicalize,cse,"
         // Integer powers become loops in helper functions, which outlining
         // copies into the kernels' module.
         "convert-math-to-funcs{convert-ctlz=false},"
         "gpu-launch-sink-index-computations,gpu-kernel-outlining,opal-merge-gpu-modules,"
         "nvvm-attach-target{" + target + "},"
         // all_reduce becomes shuffles and shared memory inside
         // convert-gpu-to-nvvm; math becomes libdevice calls.
         // Row kernels take subviews of their buffers (expand-strided-metadata
         // makes them descriptor arithmetic).
         "gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm,"
         // What libdevice lacks (math.trunc) as LLVM intrinsics NVPTX has.
         "convert-math-to-llvm,"
         "canonicalize,cse,reconcile-unrealized-casts),"
         "gpu-module-to-binary{" + binary + "}" +
         (options.lowerHost ? ",lower-affine,convert-scf-to-cf,expand-strided-metadata,"
                              "lower-affine,opal-gpu-host-to-llvm,reconcile-unrealized-casts"
                            : "");
}

void opal::ir::registerCudaPipeline(DialectRegistry &registry) {
  registerCpuPipeline(registry); // the shared front half's passes
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // convert-gpu-to-nvvm lowers the other dialects inside kernels through
  // their ConvertToLLVM interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry); // 128-bit accesses
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  static std::once_flag once;
  std::call_once(once, [] {
    registerGPUPasses();
    PassPipelineRegistration<CudaPipelineOptions>(
        "opal-jit-cuda",
        "the passes the JIT and opal-aot run on a kernel for CUDA after opal-decompose and the "
        "split into entry points: host code with gpu.launch_func and a gpu.binary",
        [](OpPassManager &pm, const CudaPipelineOptions &options) {
          std::string problem = cudaPipelineOptionsProblem(options);
          if (problem.empty() && failed(parsePassPipeline(jitCudaPipelineText(options), pm)))
            problem = "an upstream pass is not registered";
          if (!problem.empty())
            pm.addPass(std::make_unique<RefusePass>("opal-jit-cuda: " + problem));
        });
  });
}
