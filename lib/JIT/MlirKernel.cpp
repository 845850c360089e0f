//===- MlirKernel.cpp - The kernel kind of ops defined in MLIR ------------===//

#include "opal/JIT/MlirKernel.h"

#include "opal/Autograd/AutogradMeta.h"

#include "opal/JIT/CompileProgress.h"
#include "opal/JIT/DerivedGradients.h"
#include "opal/JIT/WarmStart.h"

#include "opal/CUDA/Device.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Runtime/ScalarElement.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

using namespace opal;
using namespace opal::jit;

namespace {

struct Counters {
  std::atomic<uint64_t> misses{0}, compiles{0}, plans{0}, diskHits{0}, stale{0},
      precompiled{0};
  std::atomic<uint64_t> compileMicroseconds{0}, planMicroseconds{0};
  /// Hits of threads that have exited.
  std::atomic<uint64_t> retiredHits{0};
};
Counters counters;

/// A compile of one key in flight with its kernel's mutex released: the
/// key is in `compiling` from construction until destruction, which (with
/// the mutex held again) wakes the calls that wait for it.
class Flight {
public:
  Flight(std::vector<std::vector<uint64_t>> &compiling, std::condition_variable &landed,
         std::unique_lock<std::mutex> &lock, std::vector<uint64_t> words)
      : compiling_(compiling), landed_(landed), lock_(lock), words_(std::move(words)) {
    compiling_.push_back(words_);
    lock_.unlock();
  }
  Flight(const Flight &) = delete;
  Flight &operator=(const Flight &) = delete;
  void relock() {
    if (!lock_.owns_lock())
      lock_.lock();
  }
  ~Flight() {
    relock();
    auto found = std::find(compiling_.begin(), compiling_.end(), words_);
    if (found != compiling_.end())
      compiling_.erase(found);
    landed_.notify_all();
  }

private:
  std::vector<std::vector<uint64_t>> &compiling_;
  std::condition_variable &landed_;
  std::unique_lock<std::mutex> &lock_;
  std::vector<uint64_t> words_;
};

/// The hit path's per-thread state: its key buffer and its hit count. A hit
/// writes only its own thread's count (no shared cache line, no locked
/// instruction); jitStats sums the counts of all threads.
struct ThreadState {
  std::vector<uint64_t> words;
  std::atomic<uint64_t> hits{0};
  ThreadState();
  ~ThreadState();
};

std::mutex &threadsMutex() {
  static std::mutex *mutex = new std::mutex(); // outlives thread exits
  return *mutex;
}
std::vector<ThreadState *> &threads() {
  static auto *all = new std::vector<ThreadState *>();
  return *all;
}

// The hit path reads this thread's state through a plain pointer: a
// thread_local with a constructor would cost a guard check through
// __tls_get_addr on every call; initial-exec makes this one load.
__attribute__((tls_model("initial-exec"))) thread_local ThreadState *currentState = nullptr;

ThreadState::ThreadState() {
  std::lock_guard<std::mutex> lock(threadsMutex());
  threads().push_back(this);
}
ThreadState::~ThreadState() {
  currentState = nullptr;
  std::lock_guard<std::mutex> lock(threadsMutex());
  counters.retiredHits += hits.load(std::memory_order_relaxed);
  auto &all = threads();
  all.erase(std::find(all.begin(), all.end(), this));
}

/// A thread's first call: makes its state (destroyed at thread exit).
[[gnu::noinline]] ThreadState &newThreadState() {
  thread_local ThreadState state;
  currentState = &state;
  return state;
}

ThreadState &threadState() {
  ThreadState *state = currentState;
  return state ? *state : newThreadState();
}

[[gnu::cold, gnu::noinline]] void throwMixedDevices(const FunctionSchema &schema, size_t i,
                                                    Device here, Device earlier) {
  throw OpalError(schema.operatorName().str() + ": expected all tensors on one device, "
                  "but argument '" + schema.arguments()[i].name() + "' is on " +
                  here.str() + " and an earlier one on " + earlier.str());
}

[[gnu::cold, gnu::noinline]] void throwOtherDevice(const FunctionSchema &schema, size_t i,
                                                   Device requested, Device inputs) {
  throw OpalError(schema.operatorName().str() + ": argument '" + schema.arguments()[i].name() +
                  "' asks for the result on " + requested.str() + ", but the inputs are on " +
                  inputs.str() + " and opal computes on its inputs' device; move them there "
                  "first (x.to('" + requested.str() + "'))");
}

/// The device of a call: that of its tensors (all must agree), or of a
/// device argument. A device argument other than the tensors' is honoured
/// where no data has to move: a meta result computes only shapes.
Device callDevice(const FunctionSchema &schema, const IValue *args) {
  std::optional<Device> device, requested;
  size_t requestedAt = 0;
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    if (args[i].isDevice()) {
      requested = args[i].toDevice();
      requestedAt = i;
    }
    if (!args[i].isTensor())
      continue;
    Device here = args[i].toTensorImpl()->device();
    if (device && *device != here)
      throwMixedDevices(schema, i, here, *device);
    device = here;
  }
  if (requested && device && *requested != *device) {
    if (!requested->isMeta())
      throwOtherDevice(schema, requestedAt, *requested, *device);
    return *requested;
  }
  if (device)
    return *device;
  return requested.value_or(Device(DeviceType::CPU));
}

/// The compute capability of CUDA device `ordinal` (90 for sm_90), read
/// from the driver once per device.
int cudaCapabilityOf(int ordinal) {
  constexpr int kCached = 64;
  static std::atomic<int> cached[kCached] = {};
  if (ordinal >= 0 && ordinal < kCached)
    if (int known = cached[ordinal].load(std::memory_order_relaxed))
      return known;
  cuda::DeviceProperties properties = cuda::deviceProperties(ordinal);
  int capability = properties.major * 10 + properties.minor;
  if (ordinal >= 0 && ordinal < kCached)
    cached[ordinal].store(capability, std::memory_order_relaxed);
  return capability;
}

/// Key words are short: an inline loop beats a call to memcmp.
bool sameWords(const std::vector<uint64_t> &a, const std::vector<uint64_t> &b) {
  size_t size = a.size();
  if (size != b.size())
    return false;
  const uint64_t *x = a.data(), *y = b.data();
  for (size_t i = 0; i < size; ++i)
    if (x[i] != y[i])
      return false;
  return true;
}

/// A call's key words; throws for arguments that cannot be compiled.
void appendCallWords(const FunctionSchema &schema, const IValue *args, DeviceType device,
                     int cudaCapability, bool staticShapes, bool opByOp,
                     std::vector<uint64_t> &words) {
  auto ok = appendKeyWords(schema, args, device, staticShapes, words, cudaCapability, opByOp);
  if (!ok)
    throw OpalError(ok.error().message());
}

/// Where a call's kernel runs: CUDA's on a CUDA device, else the CPU's
/// (meta calls use the CPU kernel's shape computation).
struct CallTarget {
  Device device;
  DeviceType type;
  DispatchKey key;
  int capability;
};
CallTarget callTarget(const FunctionSchema &schema, const IValue *args) {
  Device device = callDevice(schema, args);
  if (!device.isCUDA())
    return {device, DeviceType::CPU, DispatchKey::CPU, 0};
  return {device, DeviceType::CUDA, DispatchKey::CUDA,
          cudaCapabilityOf(cuda::ordinalOf(device))};
}

/// Whether a call this kernel takes at `keys` records autograd. The Python
/// key is still in the call's keys only above it: this kernel runs at an
/// Autograd key (a CompositeImplicitAutograd decomposition) and a dispatch
/// mode waits below, which must see the decomposed calls, as in PyTorch.
bool recordsAt(DispatchKeySet keys, const FunctionSchema &schema, const IValue *args) {
  return !keys.has(DispatchKey::Python) &&
         keys.hasAny(DispatchKeySet(DispatchKey::AutogradFunctionality)) &&
         autograd::recordsCall(schema, args);
}

} // namespace

KernelFunction MlirKernel::make() {
  return KernelFunction::makeFromBoxedFunctor(IntrusivePtr<OperatorKernel>(new MlirKernel()),
                                              &MlirKernel::boxedCall);
}

bool MlirKernel::isMlirKernel(const KernelFunction &kernel) {
  return kernel.isBoxedFunction(&MlirKernel::boxedCall);
}

MlirKernel::~MlirKernel() = default;

namespace {
std::mutex equivalentMutex;
std::set<const OperatorKernel *> &equivalentKernels() {
  static std::set<const OperatorKernel *> kernels;
  return kernels;
}
} // namespace

void jit::declareEquivalentToMlir(const KernelFunction &kernel) {
  std::lock_guard<std::mutex> lock(equivalentMutex);
  equivalentKernels().insert(kernel.functor());
}

namespace {
std::mutex elementScalarMutex;
std::map<std::string, size_t> &elementScalars() {
  static std::map<std::string, size_t> arguments;
  return arguments;
}
} // namespace

void jit::declareElementScalar(const OperatorName &op, size_t argument) {
  std::lock_guard<std::mutex> lock(elementScalarMutex);
  elementScalars()[op.str()] = argument;
}

namespace {
std::mutex staticShapesMutex;
std::set<std::string> &staticShapeOps() {
  static std::set<std::string> ops;
  return ops;
}
bool declaredStatic(const OperatorName &op) {
  std::lock_guard<std::mutex> lock(staticShapesMutex);
  return staticShapeOps().count(op.str()) != 0;
}
} // namespace

void jit::declareStaticShapes(const std::string &op) {
  std::lock_guard<std::mutex> lock(staticShapesMutex);
  staticShapeOps().insert(op);
}

bool jit::isDefinedByMlir(const KernelFunction &kernel) {
  if (MlirKernel::isMlirKernel(kernel))
    return true;
  std::lock_guard<std::mutex> lock(equivalentMutex);
  return kernel.functor() && equivalentKernels().count(kernel.functor());
}

bool jit::isOpaqueKernel(const KernelFunction &kernel) {
  return kernel.isValid() && !kernel.isFallthrough() && !isDefinedByMlir(kernel);
}

bool MlirKernel::Entry::current() const {
  for (const OperatorEntry *entry : reached)
    if (entry->epoch() > epoch)
      return false;
  return true;
}

const CompiledKernel *MlirKernel::find(const std::vector<uint64_t> &words) const {
  const Entry *entry = findEntry(words);
  return entry ? entry->kernel.get() : nullptr;
}

const MlirKernel::Entry *MlirKernel::findEntry(const std::vector<uint64_t> &words) const {
  const Table *table = table_.load(std::memory_order_acquire);
  if (!table)
    return nullptr;
  // (A table holds one entry per key.)
  for (const Entry &entry : table->entries)
    if (sameWords(entry.words, words))
      return entry.current() ? &entry : nullptr;
  return nullptr;
}

const CompiledKernel &MlirKernel::compile(const OperatorHandle &op, DispatchKey key,
                                          const IValue *args, DeviceType device,
                                          int cudaCapability, std::vector<uint64_t> &words,
                                          bool underMode) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Another thread may have compiled it while this one waited, or be
  // compiling it now (single flight).
  for (;;) {
    if (const CompiledKernel *kernel = find(words))
      return *kernel;
    if (std::find(compiling_.begin(), compiling_.end(), words) == compiling_.end())
      break;
    landed_.wait(lock);
  }

  // From now on the op specializes on every size: `words` becomes the
  // call's key with its sizes.
  auto specializeSizes = [&] {
    staticShapes_.store(true);
    words.clear();
    appendCallWords(op.schema(), args, device, cudaCapability, true, underMode, words);
  };
  if (!staticShapes_.load() && declaredStatic(op.operatorName())) {
    specializeSizes(); // (declareStaticShapes)
    if (const CompiledKernel *kernel = find(words))
      return *kernel;
  }
  const Table *old = table_.load(std::memory_order_acquire);
  bool wasStale = false;
  if (old)
    for (const Entry &entry : old->entries)
      wasStale |= entry.words == words;
  bool staticShapes = staticShapes_.load();
  CallSpec spec = makeCallSpec(op.schema(), args, device, staticShapes, cudaCapability);
  spec.opByOp = underMode;
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, "miss " + spec.op.str() + spec.str() + ": " +
                                 (wasStale ? "an op it reached was registered again since "
                                             "it was compiled"
                                           : "not compiled in this process"));
  uint64_t epoch = OperatorEntry::currentEpoch();
  auto start = std::chrono::steady_clock::now();
  auto elapsedMicroseconds = [&] {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now() - start).count();
  };
  // A view's call (ArgSpec::strided) may run the kernel of the contiguous
  // form's key, from copies: one compiled ahead of time (an op library
  // needs no compiler for views), or any when there is no compiler.
  const Entry *dense = nullptr;
  if (std::any_of(spec.args.begin(), spec.args.end(),
                  [](const ArgSpec &arg) { return arg.strided; })) {
    std::vector<uint64_t> denseWords;
    if (appendKeyWords(op.schema(), args, device, staticShapes, denseWords, cudaCapability,
                       underMode, /*viewsInPlace=*/false))
      dense = findEntry(denseWords);
  }
  // A kernel on disk that the warm-start index names runs without the
  // compiler (WarmStart.h).
  std::shared_ptr<const CompiledKernel> kernel;
  std::optional<Flight> flight; // (ends after the kernel is in the table)
  if (dense && dense->precompiled)
    kernel = dense->kernel;
  else if (!underMode) {
    bool staticShapesOnly = false;
    kernel = warmStart(op, key, args, staticShapes, words, &staticShapesOnly);
    if (staticShapesOnly && !staticShapes) {
      // A process before found that the op compiles for static shapes only.
      specializeSizes();
      staticShapes = true;
      if (const CompiledKernel *found = find(words))
        return *found;
      spec = makeCallSpec(op.schema(), args, device, true, cudaCapability);
      spec.opByOp = underMode;
      kernel = warmStart(op, key, args, true, words);
    }
  }
  if (kernel && logEnabled(LogTopic::JIT)) {
    std::ostringstream line;
    line << "loaded " << kernel->label << " for " << toString(key) << " in " << std::fixed
         << std::setprecision(1) << elapsedMicroseconds() / 1000.0
         << " ms from disk without the compiler [" << kernel->cacheKey.substr(0, 16) << "]";
    logLine(LogTopic::JIT, line.str());
  }
  if (!kernel) {
    auto compiler = kernelCompiler();
    if (!compiler) {
      if (!dense)
        throw OpalError(compiler.error().message());
      kernel = dense->kernel;
    }
  }
  if (!kernel) {
    auto compiler = kernelCompiler();
    // The compiles run with mutex_ released, so that other keys of this op
    // compile meanwhile (compileAhead); a call of this key waits for them.
    flight.emplace(compiling_, landed_, lock, words);
    Expected<std::shared_ptr<const CompiledKernel>> compiled = makeUnexpected(Error(""));
    Expected<std::shared_ptr<const CompiledKernel>> retried = makeUnexpected(Error(""));
    {
      CompileProgress progress(spec.op.str() + spec.str() + " for " + toString(key));
      compiled = (*compiler)->compile(spec, key);
      if (!compiled && !staticShapes) {
        // Some decompositions need static shapes (a reshape of dynamic
        // dims): compile for this call's shapes, and from now on per shape.
        CallSpec exact = makeCallSpec(op.schema(), args, device, /*staticShapes=*/true,
                                      cudaCapability);
        exact.opByOp = underMode;
        retried = (*compiler)->compile(exact, key);
      }
    }
    flight->relock();
    if (!compiled && !staticShapes) {
      if (retried) {
        if (logEnabled(LogTopic::JIT))
          logLine(LogTopic::JIT, spec.op.str() + " compiles for static shapes only (" +
                                     compiled.error().message() + ")");
        std::vector<uint64_t> dynamicWords = std::move(words);
        specializeSizes();
        compiled = std::move(retried);
        if (!underMode)
          recordStaticShapesOnly(op, key, args, dynamicWords, **compiled);
      } else if (compiled.error().message().rfind("opal JIT: cannot decompose", 0) == 0) {
        // The retry was for the decomposition: its error says more.
        compiled = std::move(retried);
      }
    }
    if (!compiled) {
      counters.compileMicroseconds += elapsedMicroseconds();
      throw OpalError(compiled.error().message());
    }
    kernel = std::move(*compiled);
    recordWarmStart(op, key, args, staticShapes_.load(), words, *kernel);
  }
  if (kernel->runsOpByOp() && !kernel->fromDisk) {
    // A plan over the dispatcher (a composite that reaches an opaque
    // kernel): no kernel was compiled.
    counters.planMicroseconds += elapsedMicroseconds();
    ++counters.plans;
  } else {
    counters.compileMicroseconds += elapsedMicroseconds();
    ++(kernel->fromDisk ? counters.diskHits : counters.compiles);
  }
  if (wasStale)
    ++counters.stale;
  const CompiledKernel &result = *kernel;
  insert(words, std::move(kernel), epoch);
  return result;
}

void MlirKernel::insert(std::vector<uint64_t> words, std::shared_ptr<const CompiledKernel> kernel,
                        uint64_t epoch, bool precompiled) {
  Entry entry{std::move(words), std::move(kernel), epoch, {}, precompiled};
  for (const OperatorName &name : entry.kernel->reached)
    if (auto handle = Dispatcher::singleton().findOp(name))
      entry.reached.push_back(&handle->entry());
  const Table *old = table_.load(std::memory_order_acquire);
  auto table = std::make_unique<Table>();
  if (old)
    for (const Entry &existing : old->entries)
      if (existing.words != entry.words)
        table->entries.push_back(existing);
  table->entries.push_back(std::move(entry));
  table_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
}

Expected<bool> MlirKernel::addPrecompiled(const KernelFunction &kernel,
                                          const FunctionSchema &schema,
                                          const std::vector<IValue> &sampleArgs,
                                          std::shared_ptr<const CompiledKernel> compiled,
                                          DeviceType device, int cudaCapability) {
  if (!isMlirKernel(kernel) || sampleArgs.size() != schema.arguments().size())
    return makeUnexpected(Error("internal error: " + schema.operatorName().str() +
                                ": a precompiled kernel needs the op's MLIR kernel"));
  auto &self = *static_cast<MlirKernel *>(kernel.functor());
  std::vector<uint64_t> words;
  auto ok = appendKeyWords(schema, sampleArgs.data(), device, false, words, cudaCapability);
  if (!ok)
    return makeUnexpected(ok.error());
  std::lock_guard<std::mutex> lock(self.mutex_);
  self.insert(std::move(words), std::move(compiled), OperatorEntry::currentEpoch(),
              /*precompiled=*/true);
  ++counters.precompiled;
  return true;
}

namespace {
/// PyTorch's checked conversion of a Scalar argument written into a result
/// of `dtype`.
void checkElementScalar(const IValue &value, ScalarType dtype) {
  std::optional<Scalar> number;
  if (value.isInt())
    number = Scalar(value.toInt());
  else if (value.isDouble())
    number = Scalar(value.toDouble());
  if (!number)
    return;
  if (std::string problem = elementOverflowProblem(*number, dtype); !problem.empty())
    throw OpalError(problem);
}
} // namespace

void MlirKernel::boxedCall(OperatorKernel *functor, const OperatorHandle &op,
                           DispatchKeySet keys, Stack *stack) {
  auto &self = *static_cast<MlirKernel *>(functor);
  const FunctionSchema &schema = op.schema();
  size_t count = schema.arguments().size();
  IValue *args = stack->data() + stack->size() - count;
  CallTarget target = callTarget(schema, args);
  ThreadState &state = threadState();
  std::vector<uint64_t> &words = state.words;
  words.clear();
  // Under a dispatch mode the decomposition runs op by op (recordsAt).
  // When autograd records the call, the backward derived from the
  // decomposition is one node around the fused kernel (DerivedGradients.h);
  // where there is none, the ops the decomposition reaches record
  // themselves, each with its own derivative.
  bool records = recordsAt(keys, schema, args);
  if (records) {
    KernelFunction derived = derivedVariableKernel(op, functor);
    if (derived.isValid()) {
      derived.callBoxed(op, keys, stack);
      return;
    }
  }
  bool underMode = keys.has(DispatchKey::Python) || records;
  appendCallWords(schema, args, target.type, target.capability,
                  self.staticShapes_.load(std::memory_order_relaxed), underMode, words);
  const CompiledKernel *kernel = self.find(words);
  if (kernel) {
    state.hits.store(state.hits.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {
    ++counters.misses;
    kernel = &self.compile(op, target.key, args, target.type, target.capability, words,
                           underMode);
  }
  // The outputs go on the stack after the arguments (room is made first, so
  // `args` stays valid), then the arguments are erased.
  size_t base = stack->size() - count;
  stack->reserve(stack->size() + kernel->outputs.size() + 1);
  args = stack->data() + base;
  kernel->checkShapes(args, schema);
  std::call_once(self.elementScalarOnce_, [&] {
    std::lock_guard<std::mutex> lock(elementScalarMutex);
    auto it = elementScalars().find(op.operatorName().str());
    if (it != elementScalars().end() && it->second < count)
      self.elementScalar_ = static_cast<int>(it->second);
  });
  if (self.elementScalar_ >= 0 && !kernel->outputs.empty())
    checkElementScalar(args[self.elementScalar_], kernel->outputs.front().dtype);
  kernel->invoke(args, target.device, *stack);
  stack->erase(stack->begin() + static_cast<std::ptrdiff_t>(base),
               stack->begin() + static_cast<std::ptrdiff_t>(base + count));
}

std::optional<MlirKernel::Ahead> MlirKernel::planAhead(const KernelFunction &kernel,
                                                       const OperatorHandle &op,
                                                       DispatchKeySet keys,
                                                       const IValue *args) {
  if (!isMlirKernel(kernel))
    return std::nullopt;
  auto &self = *static_cast<MlirKernel *>(kernel.functor());
  const FunctionSchema &schema = op.schema();
  // As boxedCall: under a dispatch mode, or recording autograd, the call
  // runs the decomposition's ops (or a derived node), not a kernel of
  // this op's.
  if (keys.has(DispatchKey::Python) || recordsAt(keys, schema, args))
    return std::nullopt;
  CallTarget target = callTarget(schema, args);
  Ahead ahead;
  ahead.kernel = &self;
  ahead.device = target.type;
  ahead.key = target.key;
  ahead.cudaCapability = target.capability;
  appendCallWords(schema, args, ahead.device, ahead.cudaCapability,
                  self.staticShapes_.load(std::memory_order_relaxed), /*underMode=*/false,
                  ahead.words);
  return ahead;
}

bool MlirKernel::compileAhead(const OperatorHandle &op, const IValue *args, Ahead &ahead) {
  if (ahead.kernel->find(ahead.words))
    return false;
  ahead.kernel->compile(op, ahead.key, args, ahead.device, ahead.cudaCapability, ahead.words,
                        /*underMode=*/false);
  return true;
}

JitStats jit::jitStats() {
  JitStats stats;
  {
    std::lock_guard<std::mutex> lock(threadsMutex());
    stats.hits = counters.retiredHits.load();
    for (const ThreadState *thread : threads())
      stats.hits += thread->hits.load(std::memory_order_relaxed);
  }
  stats.misses = counters.misses.load();
  stats.compiles = counters.compiles.load();
  stats.plans = counters.plans.load();
  stats.diskHits = counters.diskHits.load();
  stats.stale = counters.stale.load();
  stats.precompiled = counters.precompiled.load();
  stats.compileMilliseconds = counters.compileMicroseconds.load() / 1000.0;
  stats.planMilliseconds = counters.planMicroseconds.load() / 1000.0;
  return stats;
}

void jit::resetJitStats() {
  {
    // (A thread counting a hit at this moment may keep its old count.)
    std::lock_guard<std::mutex> lock(threadsMutex());
    counters.retiredHits = 0;
    for (ThreadState *thread : threads())
      thread->hits.store(0, std::memory_order_relaxed);
  }
  counters.misses = 0;
  counters.compiles = 0;
  counters.plans = 0;
  counters.diskHits = 0;
  counters.stale = 0;
  counters.precompiled = 0;
  counters.compileMicroseconds = 0;
  counters.planMicroseconds = 0;
}
