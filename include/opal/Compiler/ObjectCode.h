//===- ObjectCode.h - LLVM-dialect modules to loaded host code --*- C++ -*-===//
//
// The last steps of the CPU JIT: an LLVM-dialect module becomes LLVM IR,
// gets a packed entry point (`void _opal_packed_<f>(void **slots)`) per
// function the runtime calls, is optimized at O2 for the host CPU (its
// features included) and emitted as an ELF object. The object is what the
// disk cache stores; loading one (fresh or from disk) links it into the
// process with opal's own loader (JIT/ObjectLoader.h).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_OBJECTCODE_H
#define OPAL_COMPILER_OBJECTCODE_H

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}

namespace opal::ir {

/// "triple cpu +feature,..." of the host: what an object is compiled for.
const std::string &hostTargetDescription();

/// Whether kernels for `machine` (the host's when null) scale f32 exp by
/// 2^n with llvm.intr.ldexp (opal-approximate-math{scalef}): on AVX-512F,
/// where it is one vscalefps.
bool scalesExponents(const llvm::TargetMachine *machine = nullptr);

/// Where translateKernel's and compileKernel's time went, in milliseconds
/// (for OPAL_LOG=jit).
struct ObjectTimings {
  double translateMs = 0; ///< LLVM dialect to LLVM IR, packed entry points
  double optimizeMs = 0;  ///< LLVM's O2 pipeline
  double codegenMs = 0;   ///< instruction selection to the object file
  /// The modules a large kernel was split into, each optimized and compiled
  /// on its own thread (ModuleSplit.h); the times above are their sums.
  unsigned modules = 1;
};

struct ObjectOptions {
  /// The machine to compile for; null for the host (the JIT's).
  llvm::TargetMachine *machine = nullptr;
  /// When given, the packed entry point of entry point `f` is named
  /// `<exportPrefix>f`, so that many kernels link into one shared library
  /// (opal-aot). Every definition but the packed entry points and
  /// `exportedGlobals` becomes internal.
  std::string exportPrefix;
  /// Globals that stay exported (renamed `<exportPrefix>name` under a
  /// prefix): CUDA host code's `opal_gpu_module`.
  std::vector<std::string> exportedGlobals;
  /// For a CUDA kernel: `bin` (a cubin) or `isa` (PTX); empty: what the JIT
  /// uses (CudaObject.h).
  std::string cudaFormat;
  /// What compileKernel returns: an ELF object, or (for lit tests and
  /// opal-aot --emit) the optimized LLVM IR or the assembly, as text.
  enum class Output { Object, LLVMIR, Assembly } output = Output::Object;
  /// When set, receives the time of each step.
  ObjectTimings *timings = nullptr;
};

/// A kernel as LLVM IR in an LLVMContext of its own, ready for O2 and code
/// generation: the half of a compile that needs no MLIR context, so that
/// it may run on any thread while the next kernel is lowered.
struct LlvmKernel {
  LlvmKernel();
  LlvmKernel(LlvmKernel &&);
  LlvmKernel &operator=(LlvmKernel &&);
  ~LlvmKernel();
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};
/// `module` (LLVM dialect) as LLVM IR with packed entry points for
/// `entryPoints`, each of which must return nothing. Uses `module`'s MLIR
/// context (callers hold the compile lock).
mlir::FailureOr<LlvmKernel> translateKernel(mlir::ModuleOp module,
                                            const std::vector<std::string> &entryPoints,
                                            const ObjectOptions &options, std::string &error);
/// `kernel` optimized at O2 and emitted as `options.output` says. Safe to
/// call from several threads at once when `options.machine` is null (each
/// call takes a host target machine of its own). A large JIT kernel is
/// split across the compile threads other compiles leave free (ModuleSplit.h):
/// its object is then a group (JIT/ObjectLoader.h, packObjectGroup).
mlir::FailureOr<std::string> compileKernel(LlvmKernel &kernel, const ObjectOptions &options,
                                           std::string &error);


/// An object linked into the process; `addresses` are its packed entry
/// points in the order asked for, `symbols` the addresses of the other
/// symbols asked for (globals the runtime sets). Loaded code stays for the
/// process's life; `label` names it for perf and gdb. The object may call
/// opal's CUDA runtime (CUDA/Launch.h).
struct LoadedObject {
  std::vector<void *> addresses;
  std::vector<void *> symbols;
};
mlir::FailureOr<LoadedObject> loadObject(const std::string &object,
                                         const std::vector<std::string> &entryPoints,
                                         std::string &error,
                                         const std::vector<std::string> &symbols = {},
                                         const std::string &label = "");

/// The name of the packed entry point of function `name`.
std::string packedName(const std::string &name);

} // namespace opal::ir

#endif // OPAL_COMPILER_OBJECTCODE_H
