//===- MlirKernel.h - The kernel kind of ops defined in MLIR ----*- C++ -*-===//
//
// An MlirKernel is what the dispatcher calls for an op whose kernel is an
// MLIR definition: a decomposition (registered under
// CompositeImplicitAutograd, as every aten composite is) or a prim's
// lowering (CompositeExplicitAutograd). On a call it computes the call's
// specialization key (Specialization.h), looks it up in its own in-memory
// cache without locks, and on a miss compiles once (single flight: threads
// that miss on the same op wait for the compile and then hit).
//
// A compiled kernel remembers the registration epoch of every op its
// compilation reached; a registration on any of them after the compile
// makes the kernel stale, and the next call recompiles.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_MLIRKERNEL_H
#define OPAL_JIT_MLIRKERNEL_H

#include "opal/Dispatch/KernelFunction.h"
#include "opal/JIT/CompiledKernel.h"

#include <atomic>
#include <condition_variable>
#include <optional>
#include <mutex>

namespace opal {
class OperatorEntry;
}

namespace opal::jit {

class MlirKernel : public OperatorKernel {
public:
  /// The dispatcher's kernel for an op defined in MLIR.
  static KernelFunction make();
  /// True if `kernel` is an MLIR kernel.
  static bool isMlirKernel(const KernelFunction &kernel);

  ~MlirKernel() override;

  /// Installs `compiled`, a kernel compiled ahead of time, into `kernel` (an
  /// MLIR kernel already registered for an op with `schema`) for the calls
  /// that `sampleArgs` stands for (parseSpecialization). It stays current
  /// until an op it reached is registered again, as a JIT-compiled one.
  /// A CUDA kernel serves calls on devices of compute capability
  /// `cudaCapability`.
  static Expected<bool> addPrecompiled(const KernelFunction &kernel,
                                       const FunctionSchema &schema,
                                       const std::vector<IValue> &sampleArgs,
                                       std::shared_ptr<const CompiledKernel> compiled,
                                       DeviceType device = DeviceType::CPU,
                                       int cudaCapability = 0);

  /// What compiling a call's kernel ahead of the call takes (planAhead).
  struct Ahead {
    MlirKernel *kernel = nullptr;
    DispatchKey key = DispatchKey::CPU;
    DeviceType device = DeviceType::CPU;
    int cudaCapability = 0;
    std::vector<uint64_t> words; ///< the call's specialization key
  };
  /// For a call of `op` with `args` that dispatches to `kernel` (an MLIR
  /// kernel) at `keys`: what compileAhead needs, computed on the calling
  /// thread (its grad mode decides whether the call records autograd).
  /// nullopt when the call runs no kernel of this op's own (it records
  /// autograd, or a dispatch mode is active) or its kernel is in memory.
  static std::optional<Ahead> planAhead(const KernelFunction &kernel, const OperatorHandle &op,
                                        DispatchKeySet keys, const IValue *args);
  /// Compiles (or loads from disk) the kernel `ahead` names, as the call
  /// would, without running it; on any thread. False if it was in memory
  /// already. Throws the call's error.
  static bool compileAhead(const OperatorHandle &op, const IValue *args, Ahead &ahead);

private:
  struct Entry {
    std::vector<uint64_t> words;
    std::shared_ptr<const CompiledKernel> kernel;
    uint64_t epoch; ///< OperatorEntry::currentEpoch() before the compile
    std::vector<const OperatorEntry *> reached;
    bool precompiled = false; ///< from addPrecompiled (an op library)
    bool current() const;
  };
  /// An immutable snapshot; a compile publishes a new one.
  struct Table {
    std::vector<Entry> entries;
  };

  static void boxedCall(OperatorKernel *functor, const OperatorHandle &op,
                        DispatchKeySet keys, Stack *stack);
  const CompiledKernel *find(const std::vector<uint64_t> &words) const;
  const Entry *findEntry(const std::vector<uint64_t> &words) const;
  /// `underMode`: a dispatch mode is active above this kernel, which then
  /// runs its decomposition op by op (CallSpec::opByOp).
  const CompiledKernel &compile(const OperatorHandle &op, DispatchKey key, const IValue *args,
                                DeviceType device, int cudaCapability,
                                std::vector<uint64_t> &words, bool underMode);
  void insert(std::vector<uint64_t> words, std::shared_ptr<const CompiledKernel> kernel,
              uint64_t epoch, bool precompiled = false);

  std::atomic<const Table *> table_{nullptr};
  /// Set once a shape-polymorphic compile of this op failed and a compile
  /// for static shapes worked: later calls specialize on every size.
  std::atomic<bool> staticShapes_{false};
  /// The argument declareElementScalar named for this kernel's op, looked
  /// up at its first call (-1: none).
  std::once_flag elementScalarOnce_;
  int elementScalar_ = -1;
  mutable std::mutex mutex_;
  /// The keys being compiled now, each by one thread with mutex_ released
  /// (the compiler's LLVM half runs in parallel); a call that misses on one
  /// of them waits for `landed_`.
  std::vector<std::vector<uint64_t>> compiling_;
  std::condition_variable landed_;
  std::vector<std::unique_ptr<const Table>> tables_; ///< every snapshot, freed with the kernel
};

/// Declares a native kernel equivalent to its op's MLIR definition (the
/// built-in aten view kernels: they return views where the MLIR definition
/// computes copies, which no composite can tell apart). Composites compile
/// through such ops instead of treating them as fusion boundaries.
void declareEquivalentToMlir(const KernelFunction &kernel);
/// Declares that argument `argument` of `op` (a Scalar) is written into
/// the op's result (aten::fill's value, full's fill_value): before the
/// kernel runs, a call checks that the number fits the result's dtype, as
/// PyTorch checks it ("value cannot be converted to type int8_t without
/// overflow"); inside the kernel it is converted unchecked.
void declareElementScalar(const OperatorName &op, size_t argument);

/// Declares that the kernels of `op` ("ns::name", or "ns::name.overload")
/// specialize on every size from its first call, with no shape-polymorphic
/// compile tried first: an op made for one set of shapes (a torch.compile
/// graph whose sizes Dynamo made static, named by what it computes, its
/// shapes included), for which a kernel of any shape would be compiled in
/// vain.
void declareStaticShapes(const std::string &op);

/// True for MLIR kernels and kernels declared equivalent to them.
bool isDefinedByMlir(const KernelFunction &kernel);
/// True for a kernel a compiled kernel cannot fuse through (a native C++
/// or Python kernel, not a fallthrough): a kernel that reaches it runs op by
/// op.
bool isOpaqueKernel(const KernelFunction &kernel);

/// The JIT's counters (opal.jit.stats()).
struct JitStats {
  uint64_t hits = 0;       ///< calls that found their kernel in memory
  uint64_t misses = 0;     ///< calls that did not (compiled or loaded from disk)
  uint64_t compiles = 0;   ///< kernels compiled
  uint64_t plans = 0;      ///< composites planned to run op by op (nothing compiled)
  uint64_t diskHits = 0;   ///< kernels loaded from the disk cache
  uint64_t stale = 0;      ///< kernels dropped by a later registration
  uint64_t precompiled = 0; ///< kernels installed from ahead-of-time libraries
  double compileMilliseconds = 0; ///< time spent compiling (and loading)
  double planMilliseconds = 0;    ///< time spent planning op-by-op runs
};
JitStats jitStats();
void resetJitStats();

} // namespace opal::jit

#endif // OPAL_JIT_MLIRKERNEL_H
