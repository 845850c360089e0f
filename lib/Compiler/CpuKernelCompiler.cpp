//===- CpuKernelCompiler.cpp - The JIT's compiler for the host CPU --------===//
//
// Installed into libopal when libopal_compiler loads. One compile at a time
// (one MLIRContext); the context and the pass managers are reused across
// compiles and rebuilt when an op library is added.
//
//===----------------------------------------------------------------------===//

#include "opal/Compiler/AotCompiler.h"
#include "opal/CUDA/Launch.h"
#include "opal/Compiler/CpuPipeline.h"
#include "opal/Compiler/CudaObject.h"
#include "opal/Compiler/CacheKey.h"
#include "opal/JIT/CompileAhead.h"
#include "opal/JIT/DiskCache.h"
#include "opal/Compiler/KernelBuilder.h"
#include "opal/Compiler/ObjectCode.h"
#include "opal/Compiler/OpByOpPlan.h"
#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/JIT/ObjectLoader.h"
#include "opal/Support/Environment.h"
#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <mutex>
#include <sstream>
#include <sys/stat.h>

using namespace mlir;
using namespace opal;
using namespace opal::ir;

namespace {

/// The threads of the compiler's MLIR contexts (one pool for all of them,
/// as many as the compile threads; it outlives every context).
llvm::ThreadPoolInterface &compilePool() {
  static auto *pool = new llvm::DefaultThreadPool(
      llvm::hardware_concurrency(static_cast<unsigned>(jit::compileThreads())));
  return *pool;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string printed(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module->print(stream, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  return text;
}

/// Collects the diagnostics MLIR reports while alive, one per line (with
/// their locations: file, line and column of a parsed text).
struct DiagnosticCollector {
  DiagnosticCollector(MLIRContext *context, bool withLocations = false)
      : handler(context, [this, withLocations](Diagnostic &diagnostic) {
          llvm::raw_string_ostream stream(text);
          stream << "\n  ";
          if (withLocations)
            stream << diagnostic.getLocation() << ": ";
          stream << diagnostic;
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};

/// Writes each stage's IR under OPAL_DUMP_DIR/<n>-<op>/.
class StageDumper {
public:
  StageDumper(const std::string &op) {
    static const std::optional<std::string> root = readKnob("OPAL_DUMP_DIR");
    static int counter = 0;
    if (!root || root->empty())
      return;
    ::mkdir(root->c_str(), 0755);
    std::string name = op;
    for (char &c : name)
      if (c == ':' || c == '/')
        c = '_';
    dir_ = *root + "/" + std::to_string(counter++) + "-" + name;
    ::mkdir(dir_.c_str(), 0755);
  }
  void dump(const std::string &stage, const std::string &text) const {
    if (dir_.empty())
      return;
    std::ofstream(dir_ + "/" + stage, std::ios::binary) << text;
  }
  /// The kernel's object code: 4-kernel.o, or for a kernel split across
  /// threads one file per object of its group (4-kernel.<i>.o).
  void dumpObject(const std::string &blob) const {
    if (dir_.empty())
      return;
    auto objects = jit::unpackObjectGroup(blob);
    if (!objects || objects->size() == 1)
      return dump("4-kernel.o", blob);
    for (size_t i = 0; i < objects->size(); ++i)
      dump("4-kernel." + std::to_string(i) + ".o", (*objects)[i]);
  }
  void dump(const std::string &stage, ModuleOp module) const {
    if (dir_.empty())
      return;
    std::string text;
    llvm::raw_string_ostream stream(text);
    module->print(stream);
    dump(stage, text);
  }

private:
  std::string dir_;
};

class CpuKernelCompiler final : public jit::KernelCompiler {
public:
  Expected<std::shared_ptr<const jit::CompiledKernel>> compile(const jit::CallSpec &spec,
                                                               DispatchKey key) override {
    std::unique_lock<std::mutex> lock(mutex_);
    Front front(spec);
    if (!buildFront(spec, key, front))
      return makeUnexpected(Error(front.refused ? front.error : "opal JIT: " + front.error));
    if (front.opByOp || front.refused)
      return std::shared_ptr<const jit::CompiledKernel>(std::move(front.kernel));
    const std::string &op = front.op;
    auto fail = [&](const std::string &message) {
      return makeUnexpected(Error("opal JIT: " + message));
    };
    jit::CompiledKernel &kernel = *front.kernel;
    kernel.label = front.label;
    Target target = targetOf(spec);
    if (!target.problem.empty())
      return fail(front.label + " cannot be compiled for CUDA: " + target.problem);
    std::string cacheKey = entryKey(front, target);
    kernel.cacheKey = cacheKey;
    double lowerMs = 0, llvmMs = 0, loadMs = 0;
    ObjectTimings llvmSteps;
    std::string manifestText;
    std::optional<std::string> object = jit::diskCache().load(cacheKey, &manifestText);
    // The checks keep calls inside the inputs: an entry whose checks do not
    // read is compiled afresh.
    auto checks = jit::readShapeChecks(object ? jit::fieldOf(manifestText, "checks") : "");
    if (object && !checks) {
      if (logEnabled(LogTopic::Cache))
        logLine(LogTopic::Cache, "disk entry " + cacheKey + ": " + checks.error().message() +
                                     "; compiling afresh");
      object.reset();
    }
    if (object) {
      kernel.fromDisk = true;
      kernel.shapeChecks = std::move(*checks);
      // A damaged line costs only the shortcut: `shapes` computes the sizes.
      if (auto sources = jit::readSizeSources(jit::fieldOf(manifestText, "sizes")))
        kernel.sizeSources = std::move(*sources);
    } else {
      ObjectOptions objectOptions;
      objectOptions.timings = &llvmSteps;
      if (target.cuda)
        objectOptions.exportedGlobals.push_back("opal_gpu_module"); // set by link()
      auto lowered = lowerToLlvm(front, objectOptions, lowerMs, target);
      if (!lowered)
        return fail(lowered.error().message());
      // LLVM's half (O2 and code generation, most of a compile) runs
      // without the lock: another thread lowers its kernel meanwhile
      // (jit::compileAhead). The module goes first, with the context it
      // lives in.
      front.module = nullptr;
      lock.unlock();
      auto emitted = emitLowered(*lowered, front, objectOptions);
      if (!emitted)
        return fail(emitted.error().message());
      object = std::move(*emitted);
      jit::diskCache().store(cacheKey, *object, manifest(spec, key, kernel, target));
    }
    front.stage(llvmMs);
    std::string error;
    if (failed(link(*object, front, target, kernel, error)))
      return fail(front.label + ": " + error);
    front.stage(loadMs);
    kernel.compileMilliseconds = millisecondsSince(front.start);
    if (logEnabled(LogTopic::JIT)) {
      std::ostringstream line;
      line << (kernel.fromDisk ? "loaded " : "compiled ") << op << spec.str() << " for "
           << toString(key) << " in " << std::fixed << std::setprecision(1)
           << kernel.compileMilliseconds << " ms" << (kernel.fromDisk ? " from disk" : "")
           << " (decompose " << front.decomposeMs << ", MLIR passes " << lowerMs << ", LLVM "
           << llvmMs;
      if (!kernel.fromDisk)
        line << " [translate " << llvmSteps.translateMs << ", O2 " << llvmSteps.optimizeMs
             << ", codegen " << llvmSteps.codegenMs
             << (llvmSteps.modules > 1
                     ? ", in " + std::to_string(llvmSteps.modules) + " modules on as many threads"
                     : std::string())
             << "]";
      line << ", load " << loadMs << ")"
           << " [" << cacheKey.substr(0, 16) << "]; reached:";
      for (const OperatorName &name : kernel.reached)
        line << " " << name.str();
      logLine(LogTopic::JIT, line.str());
    }
    return std::shared_ptr<const jit::CompiledKernel>(std::move(front.kernel));
  }

  /// The ahead-of-time half (compileKernelObject).
  Expected<KernelObject> compileObject(const jit::CallSpec &spec, DispatchKey key,
                                       const ObjectOptions &options) {
    std::lock_guard<std::mutex> lock(mutex_);
    Front front(spec);
    if (!buildFront(spec, key, front) || front.refused)
      return makeUnexpected(Error(front.error));
    if (front.opByOp)
      return makeUnexpected(Error(
          front.op + spec.str() + " cannot be compiled ahead of time: it reaches an op whose " +
          toString(key) + " kernel is not defined in MLIR, so it runs op by op"));
    double lowerMs = 0;
    Target target = targetOf(spec, options.cudaFormat, options.machine);
    if (!target.problem.empty())
      return makeUnexpected(Error(front.label + " cannot be compiled for CUDA: " +
                                  target.problem));
    ObjectOptions objectOptions = options;
    if (target.cuda)
      objectOptions.exportedGlobals.push_back("opal_gpu_module");
    auto lowered = lowerToLlvm(front, objectOptions, lowerMs, target);
    if (!lowered)
      return makeUnexpected(lowered.error());
    auto object = emitLowered(*lowered, front, objectOptions);
    if (!object)
      return makeUnexpected(object.error());
    KernelObject result;
    result.object = std::move(*object);
    result.description = jit::describeKernel(*front.kernel);
    result.hasShapes = front.entryPoints.size() > 1;
    return result;
  }

  Expected<bool> checkLibraryText(const std::string &name, const std::string &text) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!prepare(std::nullopt))
      return makeUnexpected(Error("opal JIT: " + setupError_));
    std::string problem = parseProblem(name, text);
    if (!problem.empty())
      return makeUnexpected(Error(problem));
    return true;
  }

  Expected<std::string> cacheKeyOf(const jit::CallSpec &spec, DispatchKey key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Front front(spec);
    if (!buildFront(spec, key, front))
      return makeUnexpected(Error(front.error));
    if (front.refused)
      return makeUnexpected(Error(front.label + " is refused: " + front.error));
    if (front.opByOp)
      return makeUnexpected(Error(front.label + " runs op by op"));
    Target target = targetOf(spec);
    if (!target.problem.empty())
      return makeUnexpected(Error(target.problem));
    return entryKey(front, target);
  }

  Expected<std::string> deriveBackward(const OperatorName &op) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!prepare(op))
      return makeUnexpected(Error("opal JIT: " + setupError_));
    auto handle = Dispatcher::singleton().findSchema(op);
    if (!handle)
      return makeUnexpected(Error(op.str() + " is not defined"));
    uint64_t generation = 0;
    std::vector<OwningOpRef<ModuleOp>> parsed;
    ParserConfig config(context_.get());
    for (auto [name, text] : ir::builtinLibraries())
      parsed.push_back(parseSourceString<ModuleOp>(text, config, name));
    for (const auto &[name, text] : jit::opLibraryTexts(generation))
      parsed.push_back(parseSourceString<ModuleOp>(text, config, name));
    SmallVector<ModuleOp> libraries;
    for (auto &library : parsed)
      if (library)
        libraries.push_back(*library);
    std::string problem;
    auto text = ir::deriveBackward(libraries, handle->schema(), problem);
    if (failed(text))
      return makeUnexpected(Error(problem));
    return std::move(*text);
  }

private:
  /// A call's kernel after decomposition: its module with the entry points,
  /// and what the runtime needs to know of it.
  struct Front {
    explicit Front(const jit::CallSpec &spec)
        : op(spec.op.str()), label(op + spec.str()), start(std::chrono::steady_clock::now()),
          dumper(op) {}
    std::string op;
    std::string label; ///< "ns::op(float32[?], float)", for messages
    std::chrono::steady_clock::time_point start;
    double stageStart = 0, decomposeMs = 0;
    StageDumper dumper;
    OwningOpRef<ModuleOp> module;
    std::shared_ptr<jit::CompiledKernel> kernel;
    std::vector<std::string> entryPoints;
    std::string decomposed; ///< the decomposed IR, printed (the disk cache key)
    bool opByOp = false;    ///< `kernel` is a plan: nothing to compile
    /// An opal.check refused the call: `error` is its message, and `kernel`
    /// (if set) only raises it, with the call's sizes.
    bool refused = false;
    std::string error;
    /// Stores the time since the last stage in `into`.
    void stage(double &into) {
      double now = millisecondsSince(start);
      into = now - stageStart;
      stageStart = now;
    }
  };

  /// The op's own check refused the call: a kernel that only checks (with
  /// the call's sizes in its message) where the refusal reads as a check,
  /// else the refusal's message as the error.
  bool refuse(const jit::CallSpec &spec, const Refusal &refusal, Front &front) {
    front.error = refusal.message;
    front.refused = true;
    auto kernel = std::make_shared<jit::CompiledKernel>();
    kernel->label = front.label;
    for (const jit::ArgSpec &arg : spec.args)
      kernel->argKinds.push_back(arg.kind);
    auto checks = readFunctionShapeChecks(refusal.check, kernel->argKinds);
    if (refusal.check.empty() || !checks || checks->empty())
      return false;
    kernel->shapeChecks = std::move(*checks);
    front.kernel = std::move(kernel);
    return true;
  }

  /// Builds and decomposes the call's module and splits its entry points;
  /// a composite that reaches an opaque kernel becomes an op-by-op plan.
  /// False (with `front.error`) on failure.
  bool buildFront(const jit::CallSpec &spec, DispatchKey key, Front &front) {
    const std::string &op = front.op;
    auto handle = Dispatcher::singleton().findSchema(spec.op);
    if (!handle) {
      front.error = op + " is not defined";
      return false;
    }
    if (!prepare(spec.op)) {
      front.error = setupError_;
      return false;
    }
    std::string error;
    DiagnosticCollector diagnostics(context_.get());
    auto module = buildCallModule(context_.get(), handle->schema(), spec, error);
    if (failed(module)) {
      front.error = error;
      return false;
    }
    front.module = std::move(*module);
    ModuleOp moduleOp = *front.module;
    front.dumper.dump("0-call.mlir", moduleOp);
    double buildMs = 0;
    front.stage(buildMs);
    if (failed(decompose_->run(moduleOp))) {
      if (const std::optional<Refusal> &refusal = lastRefusal())
        return refuse(spec, *refusal, front);
      front.error = "cannot decompose " + op + spec.str() + ":" + diagnostics.text;
      return false;
    }
    front.dumper.dump("1-decomposed.mlir", moduleOp);
    std::vector<OperatorName> reached = reachedOps(moduleOp);
    std::string opaque = opaqueOp(reached, spec.op, key);
    if (!opaque.empty() || spec.opByOp) {
      std::string why = !opaque.empty() ? "it reaches " + opaque + ", whose " + toString(key) +
                                              " kernel is not defined in MLIR"
                                        : "a dispatch mode is active";
      auto plan = planOpByOp(spec, key, handle->schema(), std::move(reached), why,
                             front.start, front.dumper);
      if (!plan) {
        front.error = plan.error().message();
        return false;
      }
      front.kernel = std::const_pointer_cast<jit::CompiledKernel>(*plan);
      front.opByOp = true;
      return true;
    }
    front.decomposed = printed(moduleOp);
    // Conditions on the data (integer divisors) become results checked
    // after the call.
    if (failed(dataChecks_->run(moduleOp))) {
      front.error = "cannot derive the data checks of " + op + spec.str() + ":" +
                    diagnostics.text;
      return false;
    }
    front.stage(front.decomposeMs);

    front.kernel = std::make_shared<jit::CompiledKernel>();
    jit::CompiledKernel &kernel = *front.kernel;
    kernel.reached = std::move(reached);
    for (const jit::ArgSpec &arg : spec.args)
      kernel.argKinds.push_back(arg.kind);
    auto function = moduleOp.lookupSymbol<func::FuncOp>(kKernelName);
    if (auto text = function->getAttrOfType<StringAttr>(kDataChecksAttrName)) {
      auto checks = jit::readDataChecks(text.str());
      if (!checks) {
        front.error = op + spec.str() + ": " + checks.error().message();
        return false;
      }
      kernel.dataChecks = std::move(*checks);
    }
    if (auto streams = function->getAttrOfType<IntegerAttr>(kRandomStreamsAttrName))
      kernel.randomStreams = static_cast<uint32_t>(streams.getInt());
    // CUDA outputs come from cuMemAlloc: aligned for 128-bit stores.
    unsigned outputAlignment = spec.device == DeviceType::CUDA ? jit::kVectorAlignment : 0;
    auto outputs = splitEntryPoints(moduleOp, outputAlignment, error);
    if (failed(outputs)) {
      front.error = op + spec.str() + ": " + error;
      return false;
    }
    kernel.outputs = std::move(*outputs);
    // Non-contiguous inputs read in place: part of the disk cache's key.
    kernel.readsInPlace = readStridedInputsInPlace(moduleOp, spec);
    if (kernel.readsInPlace)
      front.decomposed += "\n// read in place (schema arguments): " +
                          std::to_string(kernel.readsInPlace);
    front.entryPoints = {kKernelName};
    if (moduleOp.lookupSymbol(kShapesName))
      front.entryPoints.push_back(kShapesName);
    return true;
  }

  /// What a kernel is compiled for: the pass pipeline and the target's
  /// description, both parts of the disk cache key.
  struct Target {
    bool cuda = false;
    std::string pipeline;
    /// A prefix of `pipeline` run by a pass manager kept across compiles
    /// (jitCpuReusablePipelineText); "" for none.
    std::string reusable;
    std::string description;
    std::string problem; ///< why the CUDA options cannot work ("" if they can)
  };
  static Target targetOf(const jit::CallSpec &spec, const std::string &cudaFormat = "",
                         const llvm::TargetMachine *machine = nullptr) {
    Target target;
    if (spec.device != DeviceType::CUDA) {
      bool scalef = scalesExponents(machine);
      target.pipeline = jitCpuPipelineText(scalef);
      target.reusable = jitCpuReusablePipelineText(scalef);
      target.description = hostTargetDescription();
      return target;
    }
    target.cuda = true;
    CudaPipelineOptions options;
    setJitCudaOptions(spec.cudaCapability, options);
    if (!cudaFormat.empty())
      options.format = cudaFormat;
    if (options.format != "bin" && options.format != "isa")
      target.problem = "OPAL_CUDA_FORMAT must be bin or isa, got '" + options.format + "'";
    else
      target.problem = cudaPipelineOptionsProblem(options);
    target.pipeline = jitCudaPipelineText(options);
    target.reusable = bufferizationPipelineText(/*recomputeElementwise=*/true);
    target.description = cudaTargetDescription(options) + "; host " + hostTargetDescription();
    return target;
  }

  /// The disk cache key of the kernel of `front` for `target`. The op is
  /// part of it: two ops may decompose to the same IR (aten::mm and
  /// prims::mm), but their manifests differ (the op a check names, the ops a
  /// kernel reached).
  static std::string entryKey(const Front &front, const Target &target) {
    return diskCacheKey({compilerIdentity(), target.pipeline, target.description, front.op,
                         front.decomposed});
  }

  /// A kernel lowered to LLVM IR, with its CUDA device code.
  struct Lowered {
    LlvmKernel host;
    std::optional<CudaKernelObject> device;
  };

  /// Lowers the front's module to LLVM IR (the half of a compile that uses
  /// the MLIR context); for CUDA, takes its device code too.
  Expected<Lowered> lowerToLlvm(Front &front, const ObjectOptions &options, double &lowerMs,
                                const Target &target) {
    DiagnosticCollector diagnostics(context_.get());
    ModuleOp module = *front.module;
    front.dumper.dump("2-entry-points.mlir", module);
    auto fail = [&] {
      return makeUnexpected(Error("cannot lower " + front.label +
                                  (target.cuda ? " for CUDA:" : " to LLVM:") + diagnostics.text));
    };
    std::string rest = target.pipeline;
    if (!target.reusable.empty()) {
      PassManager *reusable = reusablePassManager(target.reusable);
      if (!reusable || target.pipeline.compare(0, target.reusable.size() + 1,
                                               target.reusable + ",") != 0)
        return makeUnexpected(Error("internal error: the JIT's pass pipeline does not parse"));
      if (failed(reusable->run(module)))
        return fail();
      front.kernel->sizeSources = sizeSourcesOf(module, front.kernel->argKinds);
      auto checks = shapeChecksOf(module, front.kernel->argKinds);
      if (!checks)
        return makeUnexpected(Error(front.label + ": " + checks.error().message()));
      front.kernel->shapeChecks = std::move(*checks);
      rest = target.pipeline.substr(target.reusable.size() + 1);
    }
    // The rest gets a fresh pass manager per compile: some upstream passes
    // (e.g. convert-math-to-funcs) keep state from their previous run.
    PassManager lower(context_.get());
    // The IR is verified once, after the pipeline, instead of after each of
    // its ~30 passes (a sixth of their time).
    lower.enableVerifier(false);
    if (failed(parsePassPipeline(rest, lower)))
      return makeUnexpected(Error("internal error: the JIT's pass pipeline does not parse"));
    if (failed(lower.run(module)) || failed(verify(module)))
      return fail();
    front.stage(lowerMs);
    front.dumper.dump("3-llvm.mlir", module);
    std::string error;
    Lowered lowered;
    if (target.cuda) {
      lowered.device.emplace();
      if (failed(takeDeviceCode(module, *lowered.device, error)))
        return makeUnexpected(Error(front.label + ": " + error));
    }
    auto translated = translateKernel(module, front.entryPoints, options, error);
    if (failed(translated))
      return makeUnexpected(Error(front.label + ": " + error));
    lowered.host = std::move(*translated);
    return lowered;
  }

  /// The object code of a lowered kernel (the LLVM half: no MLIR context,
  /// so on any thread); for CUDA, the host code's object and the device
  /// code as one blob.
  static Expected<std::string> emitLowered(Lowered &lowered, const Front &front,
                                           const ObjectOptions &options) {
    std::string error;
    auto emitted = compileKernel(lowered.host, options, error);
    if (failed(emitted))
      return makeUnexpected(Error(front.label + ": " + error));
    front.dumper.dumpObject(*emitted);
    if (!lowered.device)
      return std::move(*emitted);
    CudaKernelObject &device = *lowered.device;
    front.dumper.dump(device.ptx ? "5-device.ptx" : "5-device.cubin", device.image);
    device.host = std::move(*emitted);
    return serializeCudaObject(device);
  }

  /// The pass manager for `pipeline` kept for this context (built on first
  /// use); null if the text does not parse.
  PassManager *reusablePassManager(const std::string &pipeline) {
    std::unique_ptr<PassManager> &manager = reusable_[pipeline];
    if (!manager) {
      auto created = std::make_unique<PassManager>(context_.get());
      created->enableVerifier(false);
      if (failed(parsePassPipeline(pipeline, *created)))
        return nullptr;
      manager = std::move(created);
    }
    return manager.get();
  }

  /// Links a compiled (or cached) object into the process and fills in the
  /// kernel's entry points; for CUDA, its device code too.
  LogicalResult link(const std::string &object, const Front &front, const Target &target,
                     jit::CompiledKernel &kernel, std::string &error) {
    CudaKernelObject device;
    if (target.cuda && !parseCudaObject(object, device)) {
      error = "internal error: the CUDA kernel object is damaged";
      return failure();
    }
    std::vector<std::string> symbols;
    if (target.cuda)
      symbols.push_back("opal_gpu_module");
    auto loaded = loadObject(target.cuda ? device.host : object, front.entryPoints, error,
                             symbols, front.label);
    if (failed(loaded))
      return failure();
    kernel.run = reinterpret_cast<jit::CompiledKernel::PackedFunction>(loaded->addresses[0]);
    if (front.entryPoints.size() > 1)
      kernel.shapes =
          reinterpret_cast<jit::CompiledKernel::PackedFunction>(loaded->addresses[1]);
    if (!target.cuda)
      return success();
    kernel.gpuModule = std::make_shared<cuda::KernelModule>(
        std::move(device.image),
        device.ptx ? cuda::KernelModule::Format::Ptx : cuda::KernelModule::Format::Cubin,
        std::move(device.kernels));
    *static_cast<void **>(loaded->symbols[0]) = kernel.gpuModule.get();
    return success();
  }

  /// The first op (other than `top`) among `reached` whose kernel for
  /// `key` is opaque (not an MLIR kernel), as "ns::op (a <kind> kernel)";
  /// "" if every reached op is defined in MLIR.
  std::string opaqueOp(const std::vector<OperatorName> &reached, const OperatorName &top,
                       DispatchKey key) {
    for (const OperatorName &name : reached) {
      if (name == top)
        continue;
      auto handle = Dispatcher::singleton().findOp(name);
      if (!handle)
        continue;
      if (jit::isOpaqueKernel(handle->entry().tableEntry(key)))
        return name.str();
    }
    return "";
  }

  /// The composite decomposed one level and planned op by op.
  Expected<std::shared_ptr<const jit::CompiledKernel>>
  planOpByOp(const jit::CallSpec &spec, DispatchKey key, const FunctionSchema &schema,
             std::vector<OperatorName> reached, const std::string &why,
             std::chrono::steady_clock::time_point start, const StageDumper &dumper) {
    std::string op = spec.op.str(), error;
    auto fail = [&](const std::string &message) {
      return makeUnexpected(Error(op + spec.str() + " runs op by op (" + why + "); but " +
                                  message));
    };
    DiagnosticCollector diagnostics(context_.get());
    auto module = buildCallModule(context_.get(), schema, spec, error);
    if (failed(module))
      return fail(error);
    // One level: every op but this one is legal.
    OpalDecomposeOptions options;
    std::string self = schemaOpName(schema);
    for (const auto &[mlirName, name] : opNames_)
      if (mlirName != self)
        options.legalOps.push_back(mlirName);
    PassManager decompose(context_.get());
    decompose.addPass(createOpalDecompose(options));
    if (failed(decompose.run(**module)))
      return fail("its decomposition fails:" + diagnostics.text);
    dumper.dump("1-op-by-op.mlir", **module);
    auto kernel = std::make_shared<jit::CompiledKernel>();
    kernel->reached = std::move(reached);
    for (const jit::ArgSpec &arg : spec.args)
      kernel->argKinds.push_back(arg.kind);
    auto function = (*module)->lookupSymbol<func::FuncOp>(kKernelName);
    if (failed(buildOpByOpPlan(function, spec, opNames_, *kernel, error)))
      return fail(error);
    kernel->compileMilliseconds = millisecondsSince(start);
    if (logEnabled(LogTopic::JIT))
      logLine(LogTopic::JIT, op + spec.str() + " runs op by op (" +
                                 std::to_string(kernel->plan.size()) + " steps): " + why);
    return std::shared_ptr<const jit::CompiledKernel>(std::move(kernel));
  }

  /// Why `text` does not parse and verify in the current context ("" if it
  /// does).
  std::string parseProblem(const std::string &name, const std::string &text) {
    DiagnosticCollector diagnostics(context_.get(), /*withLocations=*/true);
    ParserConfig config(context_.get());
    if (parseSourceString<ModuleOp>(text, config, name))
      return "";
    return name + ": invalid op-library text:" + diagnostics.text;
  }

  /// (Re)creates the context and pass managers when op libraries were
  /// added or `op` is not in the context yet (defined since, e.g. from
  /// Python): the schema dialects hold every op the dispatcher defines.
  bool prepare(const std::optional<OperatorName> &op) {
    uint64_t generation = 0, removals = 0;
    auto texts = jit::opLibraryTexts(generation, &removals);
    if (context_ && generation == generation_ && (!op || knownOps_.count(op->str())))
      return true;
    if (logEnabled(LogTopic::JIT)) {
      // (Which texts: each context names its own reason, so that a run
      // that adds libraries one by one says what each context is for.)
      std::string added;
      for (size_t i = addedTexts_; i < texts.size() && removals == removals_; ++i)
        added += (added.empty() ? "" : ", ") + texts[i].first;
      logLine(LogTopic::JIT, std::string("creating the MLIR context: ") +
                                 (!context_                   ? "the first compile"
                                  : removals != removals_     ? "op-library texts were removed"
                                  : generation != generation_ ? "op-library texts were added (" +
                                                                    added + ")"
                                                              : op->str() + " is new"));
    }
    // A text taken back (its Library destroyed): the decompositions start
    // again from the texts still added.
    if (removals != removals_) {
      clearOpLibraryTexts();
      addedTexts_ = 0;
      removals_ = removals;
    }
    static std::once_flag once;
    std::call_once(once, [] {
      registerTransformsPasses();
      registerOpalPasses();
    });
    std::vector<FunctionSchema> schemas;
    knownOps_.clear();
    Dispatcher &dispatcher = Dispatcher::singleton();
    for (const OperatorName &name : dispatcher.allOpNames()) {
      auto handle = dispatcher.findSchema(name);
      if (!handle || !schemaOpProblem(handle->schema()).empty())
        continue;
      schemas.push_back(handle->schema());
      knownOps_.insert(name.str());
    }
    opNames_.clear();
    for (const FunctionSchema &schema : schemas)
      opNames_.emplace(schemaOpName(schema), schema.operatorName());

    DialectRegistry registry;
    registry.insert<OpalDialect, affine::AffineDialect, arith::ArithDialect,
                    bufferization::BufferizationDialect, cf::ControlFlowDialect,
                    func::FuncDialect, LLVM::LLVMDialect, linalg::LinalgDialect,
                    math::MathDialect, memref::MemRefDialect, omp::OpenMPDialect,
                    scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect>();
    registerSchemaDialects(registry, schemas);
    registerCpuPipeline(registry);
    registerCudaPipeline(registry);
    auto context = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
    // The passes nested in func.func run on several functions at once (a
    // whole model's nests, lowered to LLVM), on the compile threads.
    context->setThreadPool(compilePool());
    context->loadAllAvailableDialects();

    auto decompose = std::make_unique<PassManager>(context.get());
    decompose->addPass(createOpalDecompose());
    decompose_ = std::move(decompose);
    auto dataChecks = std::make_unique<PassManager>(context.get());
    dataChecks->addNestedPass<func::FuncOp>(createOpalBindRandomStreams());
    dataChecks->addNestedPass<func::FuncOp>(createOpalDeriveDataChecks());
    dataChecks_ = std::move(dataChecks);
    reusable_.clear(); // (pass managers of the old context go before it)
    context_ = std::move(context);
    // Texts that do not parse (an op they use was removed since) are left
    // out, so that one bad library cannot break every compile.
    for (size_t i = addedTexts_; i < texts.size(); ++i) {
      std::string problem = parseProblem(texts[i].first, texts[i].second);
      if (problem.empty())
        addOpLibraryText(texts[i].first, texts[i].second);
      else if (logEnabled(LogTopic::JIT))
        logLine(LogTopic::JIT, "ignoring " + problem);
    }
    addedTexts_ = texts.size();
    generation_ = generation;
    return true;
  }

  /// The schema ops left after decomposition (prims, ops in legal-ops) and
  /// the composites the decomposition went through.
  std::vector<OperatorName> reachedOps(ModuleOp module) {
    std::map<std::string, OperatorName> found;
    module->walk([&](Operation *op) {
      auto it = opNames_.find(op->getName().getStringRef().str());
      if (it != opNames_.end())
        found.emplace(it->first, it->second);
    });
    for (const std::string &name : lastDecomposedOps())
      if (auto it = opNames_.find(name); it != opNames_.end())
        found.emplace(it->first, it->second);
    std::vector<OperatorName> names;
    for (auto &[mlirName, name] : found)
      names.push_back(name);
    return names;
  }

  std::string manifest(const jit::CallSpec &spec, DispatchKey key,
                       const jit::CompiledKernel &kernel, const Target &target) {
    std::ostringstream text;
    text << "op: " << spec.op.str() << "\n"
         << "specialization: " << spec.str() << "\n"
         << "dispatch key: " << toString(key) << "\n"
         << "target: " << target.description << "\n"
         << "compiler: " << compilerIdentity() << "\n"
         << "pipeline: " << target.pipeline << "\n";
    // Read back on a disk hit (the sizes are found while lowering).
    if (!kernel.sizeSources.empty())
      text << "sizes: " << jit::describeSizeSources(kernel.sizeSources) << "\n";
    if (!kernel.shapeChecks.empty())
      text << "checks: " << jit::describeShapeChecks(kernel.shapeChecks) << "\n";
    text << "reached:";
    for (const OperatorName &name : kernel.reached)
      text << " " << name.str();
    text << "\n";
    return text.str();
  }

  std::mutex mutex_;
  std::unique_ptr<MLIRContext> context_;
  std::unique_ptr<PassManager> decompose_;
  std::unique_ptr<PassManager> dataChecks_;
  std::map<std::string, std::unique_ptr<PassManager>> reusable_;
  std::map<std::string, OperatorName> opNames_;
  std::set<std::string> knownOps_;
  uint64_t generation_ = ~uint64_t(0);
  size_t addedTexts_ = 0;
  uint64_t removals_ = 0;
  std::string setupError_;
};

/// The process's compiler, installed when libopal_compiler is loaded.
CpuKernelCompiler *theCompiler() {
  static CpuKernelCompiler *compiler = new CpuKernelCompiler();
  return compiler;
}
struct Installer {
  Installer() { jit::installKernelCompiler(theCompiler()); }
} installer;

} // namespace

Expected<KernelObject> opal::ir::compileKernelObject(const jit::CallSpec &spec, DispatchKey key,
                                                     const ObjectOptions &options) {
  return theCompiler()->compileObject(spec, key, options);
}
