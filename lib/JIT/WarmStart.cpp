//===- WarmStart.cpp - Kernels from disk without the compiler -------------===//

#include "opal/JIT/WarmStart.h"

#include "opal/JIT/DiskCache.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/JIT/ObjectLoader.h"
#include "opal/JIT/Specialization.h"
#include "opal/Library/BuiltinOperators.h"
#include "opal/Schema/SchemaParser.h"
#include "opal/Support/BuildId.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Sha256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <map>
#include <sstream>

using namespace opal;
using namespace opal::jit;

namespace {

constexpr const char *kFormat = "opal-warm-start 2";
constexpr const char *kKernelSymbol = "_opal_packed_opal_kernel";
constexpr const char *kShapesSymbol = "_opal_packed_opal_kernel_shapes";

/// What the index key holds besides the call: the code that compiles and
/// runs kernels, the CPU and the knobs; fixed for the process. "" when
/// something cannot be known (the index is then not used).
const std::string &processPart() {
  static const std::string part = [] {
    std::string compiler = buildIdOfFile(compilerLibraryPath());
    std::string cpu = cpuSignature();
    if (compiler.empty() || cpu.empty())
      return std::string();
    std::string text = std::string(kFormat) + "\nlibopal " +
                       buildIdOf(reinterpret_cast<const void *>(&warmStart)) +
                       "\nlibopal_compiler " + compiler + "\ncpu " + cpu + "\n";
    for (const EnvironmentKnob &knob : environmentKnobs())
      if (knob.affectsKernelCache) {
        std::optional<std::string> value = readKnob(knob.name);
        text += std::string(knob.name) + (value ? "=" + *value : " unset") + "\n";
      }
    return text;
  }();
  return part;
}

/// A hash of processPart(), written into each index file: `opal.cache
/// verify` checks the files of its own build, CPU and knobs.
const std::string &processHash() {
  static const std::string hash = [] {
    Sha256 hasher;
    hasher.update(processPart());
    auto digest = hasher.finish();
    return toHex(digest.data(), digest.size());
  }();
  return hash;
}

bool indexUsable() {
  static const bool usable = [] {
    std::optional<std::string> dump = readKnob("OPAL_DUMP_DIR");
    return diskCache().enabled() && (!dump || dump->empty()) && !processPart().empty();
  }();
  return usable;
}

std::string indexKey(const OperatorHandle &op, DispatchKey key,
                     const std::vector<uint64_t> &words) {
  Sha256 hasher;
  hasher.update(processPart());
  hasher.update(op.operatorName().str() + "\n" + toString(key) + "\n");
  hasher.update(std::string_view(reinterpret_cast<const char *>(words.data()),
                                 words.size() * sizeof(uint64_t)));
  auto digest = hasher.finish();
  return toHex(digest.data(), digest.size());
}

/// Reads the kernel description an index file ends with into `kernel`.
Expected<bool> readIndexDescription(const std::string &text, CompiledKernel &kernel) {
  size_t description = text.find("\noutputs: ");
  if (description == std::string::npos)
    return makeUnexpected(Error("no kernel description"));
  return readKernelDescription(text.substr(description + 1), kernel);
}

/// The reached ops that a user's op-library text defines (a user's op, or
/// a built-in one it redefines), each as "ns::op[.overload]=<hash>" of its
/// schema and text (addedDefinitionHash), space-separated; nullopt when a
/// reached op has a kernel the index cannot pin (a Python or C++ kernel
/// other than opal's built-in one).
std::optional<std::string> pinnedDefinitions(const std::vector<OperatorName> &reached) {
  std::string pinned;
  for (const OperatorName &op : reached) {
    if (changedBuiltinOp({op}).empty())
      continue;
    auto handle = Dispatcher::singleton().findOp(op);
    std::string hash = addedDefinitionHash(op);
    if (!handle || hash.empty() ||
        !MlirKernel::isMlirKernel(handle->entry().tableEntry(DispatchKey::CPU)))
      return std::nullopt;
    pinned += (pinned.empty() ? "" : " ") + op.str() + "=" + hash;
  }
  return pinned;
}

/// Why the definitions an index pinned (its "pinned:" field) are not this
/// process's ("" if they are, and every other reached op is opal's
/// built-in one).
std::string changedDefinition(const std::vector<OperatorName> &reached,
                              const std::string &pinned) {
  std::map<std::string, std::string> hashes;
  std::istringstream words(pinned);
  for (std::string word; words >> word;)
    if (size_t equals = word.find('='); equals != std::string::npos)
      hashes[word.substr(0, equals)] = word.substr(equals + 1);
  for (const OperatorName &op : reached) {
    auto it = hashes.find(op.str());
    if (it == hashes.end()) {
      if (std::string changed = changedBuiltinOp({op}); !changed.empty())
        return changed + " now";
      continue;
    }
    auto handle = Dispatcher::singleton().findOp(op);
    if (!handle || !MlirKernel::isMlirKernel(handle->entry().tableEntry(DispatchKey::CPU)))
      return op.str() + " has no MLIR kernel now";
    if (addedDefinitionHash(op) != it->second)
      return op.str() + " is defined otherwise now";
  }
  return "";
}

/// An index file's first lines: its format, the call and what it was
/// written under (the process part's hash, the pinned definitions).
std::string indexHeader(const OperatorHandle &op, const CallSpec &spec,
                        const std::string &pinned) {
  return std::string(kFormat) + "\nop: " + op.operatorName().str() +
         "\nspecialization: " + spec.str() + "\nprocess: " + processHash() +
         "\npinned: " + pinned + "\n";
}

void logCache(const std::string &line) {
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, line);
}

} // namespace

std::string jit::cpuSignature() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d))
    return "";
  unsigned maxLeaf = a;
  std::ostringstream text;
  text << std::hex;
  auto leaf = [&](unsigned number, unsigned sub, bool maskApicId = false) {
    if (!__get_cpuid_count(number, sub, &a, &b, &c, &d))
      return;
    if (maskApicId)
      b &= 0x00ffffffu; // the executing core's id: not the CPU's
    text << number << "." << sub << ":" << a << "," << b << "," << c << "," << d << ";";
  };
  leaf(0, 0);
  leaf(1, 0, /*maskApicId=*/true);
  for (unsigned number : {7u, 0xdu, 0x14u, 0x19u, 0x24u})
    if (number <= maxLeaf)
      for (unsigned sub : {0u, 1u})
        leaf(number, sub);
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000001u)
    leaf(0x80000001u, 0);
  __get_cpuid(1, &a, &b, &c, &d);
  if (c & (1u << 27)) { // OSXSAVE: the register state the OS enables
    unsigned low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    text << "xcr0:" << low << "," << high << ";";
  }
  return text.str();
#else
  return "";
#endif
}

std::shared_ptr<const CompiledKernel> jit::warmStart(const OperatorHandle &op, DispatchKey key,
                                                     const IValue *args, bool staticShapes,
                                                     const std::vector<uint64_t> &words,
                                                     bool *staticShapesOnly) {
  if (key != DispatchKey::CPU || !indexUsable())
    return nullptr;
  std::string indexName = indexKey(op, key, words);
  std::optional<std::string> text = diskCache().loadIndex(indexName);
  if (!text)
    return nullptr;
  std::string opName = op.operatorName().str();
  auto drop = [&](const std::string &why) -> std::shared_ptr<const CompiledKernel> {
    logCache("warm-start index " + indexName.substr(0, 16) + " of " + opName +
             " not used: " + why);
    return nullptr;
  };
  CallSpec spec = makeCallSpec(op.schema(), args, DeviceType::CPU, staticShapes);
  bool marker = fieldOf(*text, "static-shapes-only") == "yes";
  std::string entry = fieldOf(*text, "entry");
  if (text->rfind(std::string(kFormat) + "\n", 0) != 0 || (!marker && entry.size() != 64) ||
      fieldOf(*text, "op") != opName || fieldOf(*text, "specialization") != spec.str()) {
    diskCache().removeIndex(indexName);
    return drop("it is malformed or names another call (removed)");
  }
  if (marker) { // names no kernel: the call compiles for static shapes only
    std::vector<OperatorName> reached;
    std::istringstream names(fieldOf(*text, "reached"));
    for (std::string name; names >> name;)
      if (auto parsed = parseOperatorName(name))
        reached.push_back(*parsed);
    std::string changed = changedDefinition(reached, fieldOf(*text, "pinned"));
    if (!changed.empty())
      return drop(changed);
    if (staticShapesOnly)
      *staticShapesOnly = true;
    return nullptr;
  }
  auto kernel = std::make_shared<CompiledKernel>();
  auto described = readIndexDescription(*text, *kernel);
  if (!described) {
    diskCache().removeIndex(indexName);
    return drop(described.error().message() + " (removed)");
  }
  // The caller gets the outputs that are not data-check words: as many as
  // the op has results.
  size_t checkWords = 0;
  for (const DataCheck &check : kernel->dataChecks)
    checkWords += check.words;
  if (kernel->outputs.size() != op.schema().returns().size() + checkWords) {
    diskCache().removeIndex(indexName);
    return drop("its outputs and data checks do not match the op's " +
                std::to_string(op.schema().returns().size()) + " results (removed)");
  }
  std::string changed = changedDefinition(kernel->reached, fieldOf(*text, "pinned"));
  if (!changed.empty())
    return drop(changed);
  std::optional<std::string> object = diskCache().load(entry);
  if (!object)
    return drop("its cache entry " + entry.substr(0, 16) + " is gone");
  auto symbols = loadNativeObject(*object, {}, opName + spec.str());
  if (!symbols)
    return drop(symbols.error().message());
  auto run = symbols->find(kKernelSymbol);
  if (run == symbols->end())
    return drop("the object has no " + std::string(kKernelSymbol));
  kernel->run = reinterpret_cast<CompiledKernel::PackedFunction>(run->second);
  if (auto shapes = symbols->find(kShapesSymbol); shapes != symbols->end())
    kernel->shapes = reinterpret_cast<CompiledKernel::PackedFunction>(shapes->second);
  for (const ArgSpec &arg : spec.args)
    kernel->argKinds.push_back(arg.kind);
  kernel->label = opName + spec.str();
  kernel->cacheKey = entry;
  kernel->fromDisk = true;
  return kernel;
}

void jit::recordWarmStart(const OperatorHandle &op, DispatchKey key, const IValue *args,
                          bool staticShapes, const std::vector<uint64_t> &words,
                          const CompiledKernel &kernel) {
  if (key != DispatchKey::CPU || kernel.runsOpByOp() || kernel.gpuModule ||
      kernel.cacheKey.size() != 64 || !indexUsable())
    return;
  std::optional<std::string> pinned = pinnedDefinitions(kernel.reached);
  if (!pinned)
    return;
  CallSpec spec = makeCallSpec(op.schema(), args, DeviceType::CPU, staticShapes);
  diskCache().storeIndex(indexKey(op, key, words),
                         indexHeader(op, spec, *pinned) + "entry: " + kernel.cacheKey + "\n" +
                             describeKernel(kernel));
}

void jit::recordStaticShapesOnly(const OperatorHandle &op, DispatchKey key, const IValue *args,
                                 const std::vector<uint64_t> &dynamicWords,
                                 const CompiledKernel &kernel) {
  if (key != DispatchKey::CPU || kernel.gpuModule || !indexUsable())
    return;
  std::optional<std::string> pinned = pinnedDefinitions(kernel.reached);
  if (!pinned)
    return;
  std::string reached;
  for (const OperatorName &name : kernel.reached)
    reached += (reached.empty() ? "" : " ") + name.str();
  CallSpec spec = makeCallSpec(op.schema(), args, DeviceType::CPU, false);
  diskCache().storeIndex(indexKey(op, key, dynamicWords),
                         indexHeader(op, spec, *pinned) +
                             "static-shapes-only: yes\nreached: " + reached + "\n");
}

std::vector<IndexCheck> jit::checkWarmStartIndex(const DiskCache &cache) {
  std::vector<IndexCheck> checks;
  for (const std::string &name : cache.indexKeys()) {
    IndexCheck &check = checks.emplace_back();
    check.name = name;
    std::optional<std::string> text = cache.loadIndex(name);
    if (!text) {
      check.problem = "refused: its HMAC does not check out under this key, or it cannot be read";
      continue;
    }
    std::string opName = fieldOf(*text, "op"), specialization = fieldOf(*text, "specialization");
    check.label = opName + specialization;
    if (fieldOf(*text, "static-shapes-only") == "yes") {
      check.checked = false;
      check.problem = "not checked: it names no kernel, it says the call compiles for "
                      "static shapes only";
      continue;
    }
    if (text->rfind(std::string(kFormat) + "\n", 0) != 0) {
      check.problem = "it is not in this opal's index format";
      continue;
    }
    if (fieldOf(*text, "process") != processHash() || processPart().empty()) {
      check.checked = false; // another build, CPU or knob setting: never used here
      continue;
    }
    std::string pinned = fieldOf(*text, "pinned");
    auto parsedName = parseOperatorName(opName);
    auto handle = parsedName ? Dispatcher::singleton().findSchema(*parsedName) : std::nullopt;
    if (!handle && !pinned.empty()) {
      // A user's op (a graph of opal.torch's): defined by a text this
      // process has not added.
      check.checked = false;
      check.problem = "not checked: " + opName + ", a user's op, is not defined here";
      continue;
    }
    if (!handle) {
      check.problem = "it names " + opName + ", which is not defined";
      continue;
    }
    auto kernel = std::make_shared<CompiledKernel>();
    auto described = readIndexDescription(*text, *kernel);
    if (!described) {
      check.problem = described.error().message();
      continue;
    }
    // A registration of this process on an op the kernel reached changes
    // what the call compiles to here: the comparison would say nothing.
    if (std::string changed = changedDefinition(kernel->reached, pinned); !changed.empty()) {
      check.checked = false;
      check.problem = "not checked: " + changed + " in this process";
      continue;
    }
    auto args = parseSpecialization(handle->schema(), specialization);
    if (!args) {
      check.problem = "its specialization does not parse: " + args.error().message();
      continue;
    }
    std::optional<CallSpec> spec;
    for (bool staticShapes : {false, true}) {
      CallSpec candidate = makeCallSpec(handle->schema(), args->data(), DeviceType::CPU,
                                        staticShapes);
      if (candidate.str() == specialization) {
        spec = std::move(candidate);
        break;
      }
    }
    if (!spec) {
      check.checked = false;
      check.problem = "not checked: its call cannot be rebuilt from its specialization";
      continue;
    }
    auto compiler = kernelCompiler();
    if (!compiler) {
      check.checked = false;
      check.problem = "not checked: " + compiler.error().message();
      continue;
    }
    auto key = (*compiler)->cacheKeyOf(*spec, DispatchKey::CPU);
    if (!key) {
      check.problem = "its call no longer compiles to one kernel: " + key.error().message();
      continue;
    }
    std::string entry = fieldOf(*text, "entry");
    if (*key != entry)
      check.problem = "it names cache entry " + entry.substr(0, 16) + ", but opal's " +
                      "definitions compile " + check.label + " to entry " + key->substr(0, 16) +
                      " (it was written by a process whose registrations changed the kernel)";
  }
  return checks;
}
