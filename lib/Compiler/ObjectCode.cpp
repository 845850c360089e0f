//===- ObjectCode.cpp - LLVM-dialect modules to loaded host code ----------===//

#include "opal/Compiler/ObjectCode.h"

#include "opal/Compiler/LoopHints.h"
#include "opal/Compiler/MinMaxReductions.h"
#include "opal/Compiler/ModuleSplit.h"
#include "opal/JIT/CompileAhead.h"
#include "opal/JIT/ObjectLoader.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/DeadArgumentElimination.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/IPO/SCCP.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <chrono>
#include <mutex>

using namespace mlir;
using namespace opal::ir;

namespace {

/// LLVM settings for opal's kernels that PassBuilder takes no parameter for:
/// LLVM's global command-line options, set once per process.
struct LlvmSetting {
  const char *name;
  const char *value;
};
constexpr LlvmSetting kLlvmSettings[] = {
    // With 512-bit vectors the loop vectorizer adds a second, narrower
    // vector loop for each loop's remainder: as much code again to optimize
    // and compile for at most 15 elements.
    {"enable-epilogue-vectorization", "false"},
};

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto &options = llvm::cl::getRegisteredOptions();
    for (const LlvmSetting &setting : kLlvmSettings) {
      auto found = options.find(setting.name);
      // An option given already (by a program that parsed LLVM's command
      // line before loading opal) is left as it was given.
      if (found != options.end() && found->second->getNumOccurrences() == 0)
        (void)found->second->addOccurrence(0, setting.name, setting.value);
    }
  });
}

llvm::orc::JITTargetMachineBuilder hostMachineBuilder() {
  initializeNativeTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    llvm::report_fatal_error(llvm::Twine("opal JIT: cannot describe the host CPU: ") +
                             llvm::toString(builder.takeError()));
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return std::move(*builder);
}

/// `void _opal_packed_<name>(void **slots)`: loads each argument of `name`
/// from its slot and calls it.
llvm::Function *addPackedEntryPoint(llvm::Module &module, llvm::Function *function,
                                    const std::string &name) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {pointer}, false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &argument : function->args()) {
    llvm::Value *slot = b.CreateConstGEP1_64(pointer, wrapper->getArg(0), argument.getArgNo());
    llvm::Value *address = b.CreateLoad(pointer, slot);
    arguments.push_back(b.CreateLoad(argument.getType(), address));
  }
  b.CreateCall(function, arguments);
  b.CreateRetVoid();
  return wrapper;
}

/// LLVM's O2 pipeline (the issue asks for O2 or above: the throughput
/// benchmarks ran as fast as at O3, and LLVM is most of a compile), without
/// partial and runtime loop unrolling: the vectorizer interleaves the loops
/// that gain from it, and unrolling the register tiles' k loops and the
/// remainders of vectorized loops cost a third of the optimization and code
/// generation time for no measured speed. Right before the loop
/// vectorizer, loops but light reductions are marked to step one vector at
/// a time (HintLoops, LoopHints.h).
void optimizeModule(llvm::Module &module, llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  // The parallel nests of a graph that repeats a step (an RNN's time steps,
  // a transformer's layers) become parts that are the same function but
  // for their name: merged, one copy of the code serves every step, compiled
  // once and warm in the instruction cache after the first.
  tuning.MergeFunctions = true;
  llvm::PassBuilder builder(machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  builder.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(opal::ir::FlagNanInMinMaxReductions());
        passes.addPass(opal::ir::HintLoops());
      });
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, modules);
}

/// Parts that are the same function before optimization (a transformer's
/// layers, a CNN's repeated blocks) are merged first, so that O2 optimizes
/// one of them rather than each (the pipeline's own MergeFunctions, at its
/// end, merges what optimizing made the same). opal-outline-nests merges
/// most of them already; this catches what lowering made equal (before it
/// existed: ViT-tiny's graph 298 -> 164 functions, its O2 3.1 -> 2.3 s).
/// Before a split (ModuleSplit.h), so that equal parts merge across it.
void mergeFunctions(llvm::Module &module) {
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder().registerModuleAnalyses(modules);
  llvm::ModulePassManager first;
  first.addPass(llvm::MergeFunctionsPass());
  first.run(module, modules);
}

/// Drops the arguments of the kernel's nest functions that every call
/// passes the same constant, or that the function never reads. A nest
/// takes each buffer as a memref descriptor (allocated and aligned
/// pointer, offset, sizes, strides: 3 + 2 x rank values), and its sizes
/// and strides are the same constants at every call; the caller builds
/// each descriptor from its parts and takes it apart again at each call
/// (ConvNeXt-tiny's entry point: 16,000 instructions, 9 in 10 of them
/// insertvalue and extractvalue, around 1,800 calls of 25-40 arguments).
/// Simplifying the callers first (their extractvalues of insertvalues)
/// shows the constants; interprocedural constant propagation binds them in
/// the callees and dead-argument elimination removes them from both sides.
/// Before a split (ModuleSplit.h): the nests are internal until then, and
/// a split makes them global symbols whose signatures no longer change.
/// On ConvNeXt-tiny's kernel this costs ~10 ms and saves a fifth of O2 and
/// code generation (the calls' argument passing, the nests' prologues).
void dropConstantArguments(llvm::Module &module) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::InstSimplifyPass()));
  passes.addPass(llvm::IPSCCPPass());
  passes.addPass(llvm::DeadArgumentEliminationPass());
  passes.run(module, modules);
}

/// Whether kernels use 512-bit vectors: on CPUs with AVX-512F. LLVM's own
/// preference for these CPUs is 256 bits (to spare other code the lower
/// clock of wide vectors); for opal's kernels 512 bits made compute-bound
/// math 1.5x faster (exp, gelu and softplus on 1M floats).
bool prefersWideVectors(llvm::StringRef features) {
  return llvm::is_contained(llvm::split(features, ','), "+avx512f");
}

} // namespace

std::string opal::ir::packedName(const std::string &name) { return "_opal_packed_" + name; }

bool opal::ir::scalesExponents(const llvm::TargetMachine *machine) {
  static const bool host = prefersWideVectors(hostMachineBuilder().getFeatures().getString());
  return machine ? prefersWideVectors(machine->getTargetFeatureString()) : host;
}

const std::string &opal::ir::hostTargetDescription() {
  static const std::string description = [] {
    auto builder = hostMachineBuilder();
    std::string features = builder.getFeatures().getString();
    std::string text = builder.getTargetTriple().str() + " " + builder.getCPU() + " " + features;
    if (prefersWideVectors(features))
      text += " prefer-vector-width=512";
    return text;
  }();
  return description;
}

namespace {

/// Host target machines for compileKernel, one per compile at a time (a
/// TargetMachine is not for concurrent code generation): taken from the
/// pool and given back after use.
class HostMachines {
public:
  static HostMachines &get() {
    static HostMachines *machines = new HostMachines(); // (outlives exit's threads)
    return *machines;
  }
  /// One machine for the caller alone (error set and null if none can be
  /// made).
  std::unique_ptr<llvm::TargetMachine> take(std::string &error) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<llvm::TargetMachine> machine = std::move(free_.back());
        free_.pop_back();
        return machine;
      }
    }
    auto created = hostMachineBuilder().createTargetMachine();
    if (!created) {
      error = "cannot create the host target machine: " + llvm::toString(created.takeError());
      return nullptr;
    }
    return std::move(*created);
  }
  void giveBack(std::unique_ptr<llvm::TargetMachine> machine) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(machine));
  }

private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> free_;
};

/// A host machine for the length of a scope (or `given`, the caller's).
class MachineLease {
public:
  MachineLease(llvm::TargetMachine *given, std::string &error) : machine_(given) {
    if (!machine_) {
      owned_ = HostMachines::get().take(error);
      machine_ = owned_.get();
    }
  }
  ~MachineLease() {
    if (owned_)
      HostMachines::get().giveBack(std::move(owned_));
  }
  llvm::TargetMachine *get() const { return machine_; }

private:
  llvm::TargetMachine *machine_;
  std::unique_ptr<llvm::TargetMachine> owned_;
};

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

} // namespace

LlvmKernel::LlvmKernel() = default;
LlvmKernel::LlvmKernel(LlvmKernel &&) = default;
LlvmKernel &LlvmKernel::operator=(LlvmKernel &&) = default;
LlvmKernel::~LlvmKernel() {
  module.reset(); // (before its context)
}

FailureOr<LlvmKernel> opal::ir::translateKernel(ModuleOp module,
                                                const std::vector<std::string> &entryPoints,
                                                const ObjectOptions &options,
                                                std::string &error) {
  Clock::time_point start = Clock::now();
  MachineLease machine(options.machine, error);
  if (!machine.get())
    return failure();

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // Parallel nests (opal-parallelize): omp.parallel becomes calls of libomp.
  registerOpenMPDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  LlvmKernel kernel;
  kernel.context = std::make_unique<llvm::LLVMContext>();
  kernel.module = translateModuleToLLVMIR(module, *kernel.context);
  if (!kernel.module) {
    error = "cannot translate the kernel to LLVM IR";
    return failure();
  }
  llvm::Module *llvmModule = kernel.module.get();
  std::vector<llvm::GlobalValue *> exported;
  for (size_t i = 0; i < entryPoints.size(); ++i) {
    const std::string &name = entryPoints[i];
    llvm::Function *function = llvmModule->getFunction(name);
    if (!function || !function->getReturnType()->isVoidTy()) {
      error = "internal error: entry point " + name + " is missing or returns a value";
      return failure();
    }
    // An entry point's buffers never overlap one it writes (inputs are only
    // read, outputs are fresh: KernelBuilder.h), so loops need no runtime
    // alias checks. (convert-func-to-llvm drops the memrefs' llvm.noalias;
    // every pointer argument is a memref's.)
    // The functions of its nests (opal-parallelize's parts and
    // opal-outline-nests' functions: `<entry>_part`, `<entry>_part_<n>`)
    // take whole buffers of the entry point (arguments, allocations,
    // globals; never a view of another), so the same holds.
    auto markNoAlias = [](llvm::Function &f) {
      for (llvm::Argument &argument : f.args())
        if (argument.getType()->isPointerTy())
          argument.addAttr(llvm::Attribute::NoAlias);
    };
    markNoAlias(*function);
    // Each part is called twice or more (from the parallel region and from
    // the path that runs the nest on the caller's thread; from each layer
    // whose nest it is): kept out of line, its loops are optimized,
    // vectorized and compiled once, not once per call site (a call per
    // nest costs nanoseconds).
    for (llvm::Function &part : *llvmModule)
      if (!part.isDeclaration() && part.getName().starts_with(name + "_part")) {
        markNoAlias(part);
        part.addFnAttr(llvm::Attribute::NoInline);
      }
    // Inlined into its packed entry point before LLVM simplifies anything:
    // otherwise the O2 pipeline simplifies the body once on its own and
    // once more inlined (twice the optimization time).
    function->addFnAttr(llvm::Attribute::AlwaysInline);
    exported.push_back(addPackedEntryPoint(
        *llvmModule, function,
        options.exportPrefix.empty() ? packedName(name) : options.exportPrefix + name));
  }
  for (const std::string &name : options.exportedGlobals)
    if (llvm::GlobalVariable *global = llvmModule->getGlobalVariable(name)) {
      if (!options.exportPrefix.empty())
        global->setName(options.exportPrefix + name);
      exported.push_back(global);
    }
  // Only the packed entry points (and the named globals) are reached from
  // outside: the entry points themselves are inlined into them and vanish,
  // instead of being optimized and compiled twice.
  for (llvm::GlobalValue &global : llvmModule->global_values())
    if (!global.isDeclaration() && !global.getName().starts_with("llvm.") &&
        std::find(exported.begin(), exported.end(), &global) == exported.end())
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
  // The functions OpenMP's translation outlined for the parallel regions
  // (`<kernel>..omp_par`, one per nest) hold a few calls: each thread's
  // part of a fork. Left unoptimized (and compiled by the fast
  // instruction selector), they cost a fork nanoseconds and a compile
  // much less: each was a fifth of an elementwise kernel's LLVM time.
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration() && function.getName().contains(".omp_par")) {
      function.addFnAttr(llvm::Attribute::NoInline);
      function.addFnAttr(llvm::Attribute::OptimizeNone);
    }
  llvmModule->setDataLayout(machine.get()->createDataLayout());
  llvmModule->setTargetTriple(machine.get()->getTargetTriple());
  // Host CPU and features on every function, so the vectorizers use them.
  for (llvm::Function &function : *llvmModule) {
    if (function.isDeclaration())
      continue;
    function.addFnAttr("target-cpu", machine.get()->getTargetCPU());
    function.addFnAttr("target-features", machine.get()->getTargetFeatureString());
    if (prefersWideVectors(machine.get()->getTargetFeatureString()))
      function.addFnAttr("prefer-vector-width", "512");
  }
  if (options.timings)
    options.timings->translateMs = millisecondsSince(start);
  return kernel;
}

namespace {

/// O2 and code generation of one module, for `machine`; the time of each
/// added to `optimizeMs` and `codegenMs`.
FailureOr<std::string> optimizeAndEmit(llvm::Module &module, llvm::TargetMachine *machine,
                                       ObjectOptions::Output output, double &optimizeMs,
                                       double &codegenMs, std::string &error) {
  Clock::time_point start = Clock::now();
  optimizeModule(module, machine);
  optimizeMs += millisecondsSince(start);
  if (output == ObjectOptions::Output::LLVMIR) {
    std::string text;
    llvm::raw_string_ostream out(text);
    module.print(out, nullptr);
    return text;
  }
  start = Clock::now();
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, stream, nullptr,
                                   output == ObjectOptions::Output::Assembly
                                       ? llvm::CodeGenFileType::AssemblyFile
                                       : llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit object files";
    return failure();
  }
  passes.run(module);
  codegenMs += millisecondsSince(start);
  return std::string(object.begin(), object.end());
}

/// Compiles in LLVM's half now (compileKernel), across all threads: a
/// kernel splits across the threads the others leave.
std::atomic<int> compilesInLlvm{0};

/// How many modules a JIT kernel splits into: one per compile thread that
/// no other compile is using.
unsigned splitCount(const ObjectOptions &options) {
  if (options.machine || !options.exportPrefix.empty() ||
      options.output != ObjectOptions::Output::Object)
    return 1; // (ahead-of-time libraries and text stay one module)
  int free = static_cast<int>(opal::jit::compileThreads()) - compilesInLlvm.load() + 1;
  return static_cast<unsigned>(std::clamp(free, 1, 8));
}

} // namespace

FailureOr<std::string> opal::ir::compileKernel(LlvmKernel &kernel, const ObjectOptions &options,
                                               std::string &error) {
  MachineLease machine(options.machine, error);
  if (!machine.get())
    return failure();
  ++compilesInLlvm;
  struct Leave {
    ~Leave() { --compilesInLlvm; }
  } leave;
  double optimizeMs = 0, codegenMs = 0;
  Clock::time_point start = Clock::now();
  mergeFunctions(*kernel.module);
  dropConstantArguments(*kernel.module);
  optimizeMs += millisecondsSince(start);
  // A large kernel's nests go to modules of their own, each optimized and
  // compiled on a thread of its own, from a context of its own.
  struct Part {
    std::string bitcode, object, error; ///< (an empty object: it failed)
    double optimizeMs = 0, codegenMs = 0;
  };
  std::vector<Part> parts;
  for (std::string &bitcode : splitModule(*kernel.module, splitCount(options)))
    parts.push_back({std::move(bitcode), "", "", 0, 0});
  std::vector<std::thread> threads;
  for (Part &part : parts)
    threads.emplace_back([&options, &part] {
      llvm::LLVMContext context;
      auto parsed =
          llvm::parseBitcodeFile(llvm::MemoryBufferRef(part.bitcode, "opal-kernel-part"), context);
      if (!parsed) {
        part.error = "internal error: a split kernel's module does not read back: " +
                     llvm::toString(parsed.takeError());
        return;
      }
      MachineLease own(nullptr, part.error);
      if (!own.get())
        return;
      auto object = optimizeAndEmit(**parsed, own.get(), options.output, part.optimizeMs,
                                    part.codegenMs, part.error);
      if (succeeded(object))
        part.object = std::move(*object);
    });
  auto first = optimizeAndEmit(*kernel.module, machine.get(), options.output, optimizeMs,
                               codegenMs, error);
  for (std::thread &thread : threads)
    thread.join();
  std::vector<std::string> objects(1);
  for (Part &part : parts) {
    optimizeMs += part.optimizeMs;
    codegenMs += part.codegenMs;
    if (part.object.empty() && succeeded(first)) {
      error = part.error;
      return failure();
    }
    objects.push_back(std::move(part.object));
  }
  if (options.timings) {
    options.timings->optimizeMs = optimizeMs;
    options.timings->codegenMs = codegenMs;
    options.timings->modules = static_cast<unsigned>(objects.size());
  }
  if (failed(first))
    return failure();
  objects[0] = std::move(*first);
  return opal::jit::packObjectGroup(objects);
}

FailureOr<LoadedObject> opal::ir::loadObject(const std::string &object,
                                             const std::vector<std::string> &entryPoints,
                                             std::string &error,
                                             const std::vector<std::string> &symbols,
                                             const std::string &label) {
  // opal's own linker, as for kernels loaded from disk without the compiler
  // (JIT/ObjectLoader.h); it binds opal's runtime functions by address.
  auto linked = jit::loadNativeObject(object, {}, label);
  if (!linked) {
    error = linked.error().message();
    return failure();
  }
  LoadedObject loaded;
  auto lookup = [&](const std::string &name, std::vector<void *> &into) {
    auto found = linked->find(name);
    if (found == linked->end()) {
      error = "cannot link the kernel's object code: it does not define " + name;
      return false;
    }
    into.push_back(found->second);
    return true;
  };
  for (const std::string &name : entryPoints)
    if (!lookup(packedName(name), loaded.addresses))
      return failure();
  for (const std::string &name : symbols)
    if (!lookup(name, loaded.symbols))
      return failure();
  return loaded;
}
