//===- CompileAhead.h - Compiling the kernels of calls before them -*- C++ -*-===//
//
// A graph run op by op (a torch.compile graph that calls a native kernel)
// knows its calls before the first one runs: their ops and the types,
// shapes and strides of their arguments. compileAhead compiles the kernels
// those calls will run, several at once (the compiler lowers one kernel at
// a time and gives LLVM's half, most of a compile, to each thread), so the
// first run finds them in memory. Nothing runs: a call's arguments need
// their metadata only (the data of their tensors is never read).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_COMPILEAHEAD_H
#define OPAL_JIT_COMPILEAHEAD_H

#include "opal/Dispatch/Dispatcher.h"

#include <string>
#include <vector>

namespace opal::jit {

/// One call to compile ahead: an op and its arguments, as a call passes them.
struct AheadCall {
  OperatorHandle op;
  Stack args;
};

/// What compileAhead did for one call.
enum class AheadResult {
  Compiled,   ///< its kernel was compiled (or loaded from disk) now
  InMemory,   ///< its kernel was in memory already (or an earlier call's)
  NoKernel,   ///< it runs no MLIR kernel of its own: nothing to compile
  Failed,     ///< its compile failed (the call raises the error itself)
};
struct AheadOutcome {
  AheadResult result = AheadResult::NoKernel;
  std::string error; ///< for Failed, the compile's error
};

/// Compiles the kernels `calls` will run, on up to `threads` threads at
/// once. Dispatch keys are computed on the calling thread (with its
/// thread-local key sets and grad mode), the compiles on the workers.
std::vector<AheadOutcome> compileAhead(std::vector<AheadCall> &calls, unsigned threads);

/// The threads compileAhead uses by default: OPAL_COMPILE_THREADS, else the
/// cores in the process's affinity mask (at most 16).
unsigned compileThreads();

} // namespace opal::jit

#endif // OPAL_JIT_COMPILEAHEAD_H
