//===- AotCompiler.h - Op-library files to ahead-of-time libraries -*- C++ -*-===//
//
// The compiling half of ahead-of-time op libraries (AOT/OpLibrary.h is the
// loading half): every `opal.precompile` specialization of an op-library
// file is compiled by the JIT's own front half and pipeline into a
// position-independent object with uniquely named, exported packed entry
// points; the objects go into one static archive, and a generated C file
// holds the library text, the kernels' descriptions and the initializer
// that registers it all when the shared library loads. opal-aot links the
// two into `lib<name>.so` with the system C compiler, or writes them for
// CMake's opal_add_op_library to build.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_AOTCOMPILER_H
#define OPAL_COMPILER_AOTCOMPILER_H

#include "opal/Compiler/ObjectCode.h"
#include "opal/Dispatch/DispatchKey.h"
#include "opal/JIT/Specialization.h"
#include "opal/Support/Expected.h"

#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <functional>
#include <string>
#include <vector>

namespace opal::ir {

/// One kernel compiled to object code, with what the runtime needs to call
/// it (jit::describeKernel's text).
struct KernelObject {
  std::string object;
  std::string description;
  bool hasShapes = false; ///< it has a shapes entry point
};
/// Compiles `spec` for `key` through the JIT's front half and pipeline to
/// object code (no disk cache, nothing loaded). Composites that reach an
/// opaque kernel cannot be compiled ahead of time (error).
Expected<KernelObject> compileKernelObject(const jit::CallSpec &spec, DispatchKey key,
                                           const ObjectOptions &options);

/// What opal-aot compiles for.
struct AotTarget {
  std::unique_ptr<llvm::TargetMachine> machine; ///< position-independent code
  std::string description; ///< "triple cpu"
  std::string features;    ///< every feature the code may use: "+avx2,+fma,..."
};
/// A target for `cpu`: "native" (this machine's CPU and features, the
/// default) or an LLVM CPU name ("x86-64", "x86-64-v3", "skylake", ...).
Expected<AotTarget> createAotTarget(const std::string &cpu);

struct AotOptions {
  std::string cpu = "native";
  bool fragment = false; ///< register as FRAGMENT libraries instead of DEF
  /// GPU archs to compile every specialization for as well: `sm_90` (a
  /// cubin, through ptxas) or `compute_90` (PTX, which the driver compiles
  /// at load); each runs on devices of exactly that compute capability.
  std::vector<std::string> cudaArchs;
  /// Object (a library's parts) or, for inspection, each kernel's optimized
  /// LLVM IR or assembly (AotLibraryParts::listing).
  ObjectOptions::Output output = ObjectOptions::Output::Object;
  /// Told of each kernel as its compile starts and when it is done
  /// ("ns::op(spec)" or "ns::op(spec) for sm_90"; milliseconds).
  std::function<void(const std::string &label)> onKernelStart;
  std::function<void(const std::string &label, double ms)> onKernelDone;
};

/// The two parts of an ahead-of-time library.
struct AotLibraryParts {
  std::string archive;    ///< ar archive of the kernels' objects
  std::string stubSource; ///< C source of the descriptor and initializer
  std::vector<std::string> kernels; ///< "ns::op(spec)" per compiled kernel
  std::string listing; ///< the LLVM IR or assembly of every kernel, if asked for
};
/// Compiles op-library `text` (read from `fileName`): registers its ops in
/// this process, verifies the whole text, compiles every opal.precompile
/// specialization. Errors name the file, line and column of the entry.
Expected<AotLibraryParts> compileOpLibrary(const std::string &fileName,
                                           const std::string &text,
                                           const AotOptions &options);

} // namespace opal::ir

#endif // OPAL_COMPILER_AOTCOMPILER_H
