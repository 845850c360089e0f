//===- OperatorEntry.cpp - One operator's kernels and table ---------------===//

#include "opal/Dispatch/OperatorEntry.h"

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Dispatch/SchemaCheck.h"

using namespace opal;

const char *opal::toString(AliasAnalysisKind kind) {
  switch (kind) {
  case AliasAnalysisKind::CONSERVATIVE: return "CONSERVATIVE";
  case AliasAnalysisKind::FROM_SCHEMA: return "FROM_SCHEMA";
  case AliasAnalysisKind::PURE_FUNCTION: return "PURE_FUNCTION";
  }
  return "?";
}

namespace {
const KernelFunction kMissingKernel;
const KernelFunction &ambiguousKernel() {
  static const KernelFunction kernel = KernelFunction::makeAmbiguousAutogradOther();
  return kernel;
}
const std::string kNoDebug;
const std::string kAmbiguousDebug = "ambiguous_autogradother";
} // namespace

OperatorEntry::OperatorEntry(OperatorName name) : name_(std::move(name)) {
  for (auto &entry : table_)
    entry.store(&kMissingKernel, std::memory_order_relaxed);
  for (auto &mask : nonFallthroughKeys_)
    mask.store(DispatchKeySet(DispatchKeySet::FULL).raw(), std::memory_order_relaxed);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

DispatchKeySet OperatorEntry::computeCallKeySet(DispatchKeySet argumentKeys) const {
  const PODLocalDispatchKeySet &tls = tlsLocalDispatchKeySet();
  // The fallthrough mask comes from the tensors' backend, before TLS.
  DispatchKeySet mask(DispatchKeySet::RAW,
                      nonFallthroughKeys_[argumentKeys.backendIndex()].load(
                          std::memory_order_relaxed));
  return ((argumentKeys | tls.included()) - tls.excluded()) & mask;
}

void OperatorEntry::reportError(DispatchKey key) const {
  const std::string name = name_.str();
  Dispatcher &dispatcher = Dispatcher::singleton();
  std::unique_lock<std::mutex> lock(dispatcher.registrationMutex());
  std::string table = dumpComputedTable(dispatcher);
  std::string available = listAllDispatchKeys();
  lock.unlock();
  if (key == DispatchKey::Undefined)
    throw NotImplementedError(
        "There were no tensor arguments to this function (e.g., you passed an "
        "empty list of Tensors), but no fallback function is registered for "
        "schema " + name + ".  This usually means that this function requires "
        "a non-empty list of Tensors, or that you (the operator writer) forgot "
        "to register a fallback function.  Available functions are " +
        available + ".\n\n" + table);
  throw NotImplementedError(
      "Could not run '" + name + "' with arguments from the '" + toString(key) +
      "' backend. This could be because the operator doesn't exist for this "
      "backend. '" + name + "' is only available for these backends: " +
      available + ".\n\n" + table);
}

void OperatorEntry::logCall(DispatchKeySet callKeys, DispatchKey key) const {
  Dispatcher &dispatcher = Dispatcher::singleton();
  std::unique_lock<std::mutex> lock(dispatcher.registrationMutex());
  ComputedEntry entry = computeEntry(dispatcher, key);
  lock.unlock();
  logLine(LogTopic::Dispatch, name_.str() + " keys=" + callKeys.str() + " -> " +
                                  toString(key) + ": " + *entry.debug + " [" +
                                  entry.provenance + "]");
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

Expected<bool>
OperatorEntry::checkSchemaAgainstKernels(const FunctionSchema &schema) const {
  for (const auto &kernels : kernels_) {
    for (const AnnotatedKernel &kernel : kernels) {
      if (!kernel.inferredSchema)
        continue;
      if (auto reason = findSchemaDifference(*kernel.inferredSchema, schema))
        return makeUnexpected(Error(schemaMismatchMessage(
            name_.str(), schema, "(the schema being defined)",
            *kernel.inferredSchema, kernel.debug, *reason)));
    }
  }
  return true;
}

void OperatorEntry::registerSchema(FunctionSchema schema, std::string debug,
                                   AliasAnalysisKind kind, bool kindIsDefault) {
  tensorArguments_.clear();
  numArguments_ = schema.arguments().size();
  for (uint32_t i = 0; i < numArguments_; ++i)
    if (schema.arguments()[i].type()->isTensorLike())
      tensorArguments_.push_back(i);
  schemas_.push_back(std::make_unique<SchemaEntry>(
      SchemaEntry{std::move(schema), std::move(debug), kind, kindIsDefault}));
  schema_.store(schemas_.back().get(), std::memory_order_release);
}

const OperatorEntry::SchemaEntry &OperatorEntry::schemaEntry() const {
  const SchemaEntry *entry = schema_.load(std::memory_order_acquire);
  if (!entry)
    throw OpalError("operator " + name_.str() +
                    " has no schema (it was never defined, or the Library that defined it was "
                    "destroyed)");
  return *entry;
}

void OperatorEntry::deregisterSchema() {
  // The entry itself stays in schemas_: calls in flight may hold it.
  schema_.store(nullptr, std::memory_order_release);
  tensorArguments_.clear();
  numArguments_ = 0;
}

Expected<bool> OperatorEntry::checkKernel(DispatchKey key,
                                          const AnnotatedKernel &kernel) const {
  const SchemaEntry *current = schema_.load(std::memory_order_acquire);
  if (kernel.inferredSchema && current) {
    if (auto reason = findSchemaDifference(*kernel.inferredSchema, current->schema))
      return makeUnexpected(Error(schemaMismatchMessage(name_.str(), current->schema,
                                                        current->debug, *kernel.inferredSchema,
                                                        kernel.debug, *reason)));
  }
  if (kernel.cppSignature && cppSignature_ && *kernel.cppSignature != *cppSignature_) {
    std::string firstDebug;
    for (const auto &kernels : kernels_)
      for (const AnnotatedKernel &other : kernels)
        if (other.cppSignature && firstDebug.empty())
          firstDebug = other.debug;
    return makeUnexpected(Error(
        "Mismatch in kernel C++ signatures\n  operator: " + name_.str() +
        "\n  kernel 1: " + cppSignature_->str() + "\n    " + firstDebug +
        "\n  kernel 2: " + kernel.cppSignature->str() + "\n    " + kernel.debug +
        "\n  dispatch key: " + toString(key)));
  }
  return true;
}

OperatorEntry::KernelHandle
OperatorEntry::registerKernel(const Dispatcher &dispatcher, DispatchKey key,
                              AnnotatedKernel kernel,
                              std::optional<std::string> &warning) {
  auto &kernels = kernels_[static_cast<size_t>(key)];
  const SchemaEntry *current = schema_.load(std::memory_order_acquire);
  if (!kernels.empty())
    warning = ("Overriding a previously registered kernel for the same operator and "
         "the same dispatch key\n  operator: " +
         (current ? current->schema.str() : name_.str()) + "\n    " +
         (current ? current->debug : std::string("(no schema yet)")) +
         "\n  dispatch key: " + toString(key) +
         "\n  previous kernel: " + kernels.front().debug +
         "\n       new kernel: " + kernel.debug);
  if (kernel.cppSignature && !cppSignature_)
    cppSignature_ = kernel.cppSignature;
  kernels.push_front(std::move(kernel));
  updateDispatchTable(dispatcher);
  return kernels.begin();
}

void OperatorEntry::deregisterKernel(const Dispatcher &dispatcher, DispatchKey key,
                                     KernelHandle handle) {
  auto &kernels = kernels_[static_cast<size_t>(key)];
  // Calls in flight may still hold the kernel: retire it, never free it.
  retired_.push_back(std::move(handle->kernel));
  kernels.erase(handle);
  bool anyUnboxed = false;
  for (const auto &list : kernels_)
    for (const AnnotatedKernel &k : list)
      anyUnboxed |= k.cppSignature.has_value();
  if (!anyUnboxed)
    cppSignature_.reset();
  updateDispatchTable(dispatcher);
}

namespace {
std::atomic<uint64_t> registrationCounter{1};
} // namespace

uint64_t OperatorEntry::currentEpoch() {
  return registrationCounter.load(std::memory_order_acquire);
}

void OperatorEntry::updateDispatchTable(const Dispatcher &dispatcher) {
  epoch_.store(registrationCounter.fetch_add(1, std::memory_order_acq_rel) + 1,
               std::memory_order_release);
  for (uint16_t index = 0; index < kNumRuntimeEntries; ++index) {
    DispatchKey key = getDispatchKeyForDispatchTableIndex(index);
    table_[index].store(computeEntry(dispatcher, key).kernel,
                        std::memory_order_release);
  }
  // A functionality is skipped for a call iff its entry for the call's
  // backend is a fallthrough.
  for (uint8_t b = 0; b < kNumBackends; ++b) {
    uint64_t mask = DispatchKeySet(DispatchKeySet::FULL).raw();
    for (uint16_t f = 1; f < kNumFunctionalityKeys; ++f) {
      auto functionality = static_cast<DispatchKey>(f);
      DispatchKey key = isPerBackendFunctionalityKey(functionality)
                            ? toRuntimePerBackendFunctionalityKey(
                                  functionality, static_cast<BackendComponent>(b + 1))
                            : functionality;
      const KernelFunction *kernel =
          table_[getDispatchTableIndexForDispatchKey(key)].load(std::memory_order_relaxed);
      if (kernel->isFallthrough())
        mask &= ~DispatchKeySet(functionality).raw();
    }
    nonFallthroughKeys_[b].store(mask, std::memory_order_release);
  }
}

//===----------------------------------------------------------------------===//
// Resolution
//===----------------------------------------------------------------------===//

bool OperatorEntry::hasKernelForAnyDispatchKey(DispatchKeySet keys) const {
  for (size_t k = 1; k < kNumKeys; ++k) {
    auto key = static_cast<DispatchKey>(k);
    if (!kernels_[k].empty() && !isAliasDispatchKey(key) && keys.has(key))
      return true;
  }
  return false;
}

ComputedEntry OperatorEntry::computeEntry(const Dispatcher &dispatcher,
                                          DispatchKey key) const {
  auto registered = [&](DispatchKey k) -> const AnnotatedKernel * {
    const auto &kernels = kernels_[static_cast<size_t>(k)];
    return kernels.empty() ? nullptr : &kernels.front();
  };
  auto entry = [](const AnnotatedKernel *kernel, const char *provenance) {
    return ComputedEntry{kernel->kernel.get(), &kernel->debug, provenance};
  };
  bool undefined = key == DispatchKey::Undefined;

  // 1. A kernel registered at the key itself (a fallthrough counts).
  if (const AnnotatedKernel *direct = registered(key); direct && !undefined)
    return entry(direct, "kernel");

  // 2.1, 2.2: the default backend kernels.
  for (DispatchKey alias : {DispatchKey::CompositeExplicitAutogradNonFunctional,
                            DispatchKey::CompositeExplicitAutograd}) {
    if (undefined || isIncludedInAlias(key, alias))
      if (const AnnotatedKernel *kernel = registered(alias))
        return entry(kernel, "default backend kernel");
  }

  // 2.3: does a backend behind this (autograd) key have its own kernel?
  bool hasBackendKernel =
      hasKernelForAnyDispatchKey(getBackendKeySetFromAutograd(key)) ||
      registered(DispatchKey::CompositeExplicitAutograd) != nullptr;

  // 2.4: the nested-tensor composite.
  if (!undefined &&
      isIncludedInAlias(key, DispatchKey::CompositeImplicitAutogradNestedTensor))
    if (const AnnotatedKernel *kernel =
            registered(DispatchKey::CompositeImplicitAutogradNestedTensor))
      return entry(kernel, "nested kernel");

  // 2.5: the math kernel, with the AutogradOther ambiguity first.
  if (undefined || isIncludedInAlias(key, DispatchKey::CompositeImplicitAutograd)) {
    if (const AnnotatedKernel *kernel = registered(DispatchKey::CompositeImplicitAutograd)) {
      if (key == DispatchKey::AutogradOther &&
          hasKernelForAnyDispatchKey(kAutogradOtherBackends))
        return ComputedEntry{&ambiguousKernel(), &kAmbiguousDebug,
                             "ambiguous autogradother"};
      if (!hasBackendKernel)
        return entry(kernel, "math kernel");
    }
  }

  // 2.6: the Autograd alias.
  if (isIncludedInAlias(key, DispatchKey::Autograd))
    if (const AnnotatedKernel *kernel = registered(DispatchKey::Autograd))
      return entry(kernel, "autograd kernel");

  // 2.7: the batched (vmap) decomposition.
  if (isIncludedInAlias(key, DispatchKey::FuncTorchBatchedDecomposition))
    if (const AnnotatedKernel *kernel = registered(DispatchKey::FuncTorchBatchedDecomposition))
      return entry(kernel, "batched kernel");

  // 3: the backend fallback.
  if (!undefined)
    if (const AnnotatedKernel *fallback = dispatcher.backendFallback(key))
      return entry(fallback, "backend fallback");

  // 4: missing.
  return ComputedEntry{&kMissingKernel, &kNoDebug, "missing"};
}

//===----------------------------------------------------------------------===//
// Introspection
//===----------------------------------------------------------------------===//

std::string OperatorEntry::dumpComputedTable(const Dispatcher &dispatcher) const {
  std::string out;
  for (uint16_t index = 0; index < kNumRuntimeEntries; ++index) {
    DispatchKey key = getDispatchKeyForDispatchTableIndex(index);
    ComputedEntry computed = computeEntry(dispatcher, key);
    if (!computed.kernel->isValid())
      continue;
    out += std::string(toString(key)) + ": " +
           (computed.kernel->isFallthrough() ? "fallthrough " : "") +
           *computed.debug + " [" + computed.provenance + "]\n";
  }
  return out;
}

std::string OperatorEntry::dumpState() const {
  std::string out = "name: " + name_.str() + "\n";
  if (const SchemaEntry *current = schema_.load(std::memory_order_acquire)) {
    out += "schema: " + current->schema.str() + "\n";
    out += "debug: " + current->debug + "\n";
    out += std::string("alias analysis kind: ") + toString(current->aliasAnalysis) +
           (current->aliasAnalysisIsDefault ? " (default)" : "") + "\n";
  } else {
    out += "schema: (none)\n";
  }
  for (size_t k = 0; k < kNumKeys; ++k) {
    auto key = static_cast<DispatchKey>(k);
    size_t position = 0;
    for (const AnnotatedKernel &kernel : kernels_[k]) {
      out += std::string(toString(key)) + (isAliasDispatchKey(key) ? "[alias]" : "") +
             (position++ ? " (inactive)" : "") + ": " + kernel.debug + " :: " +
             (kernel.inferredSchema ? kernel.inferredSchema->str() : "(none)") +
             " [ " + kernel.kernel->dumpState() + "]\n";
    }
  }
  return out;
}

std::string OperatorEntry::listAllDispatchKeys() const {
  std::string out = "[";
  bool first = true;
  for (uint16_t index = 1; index < kNumRuntimeEntries; ++index) {
    if (!table_[index].load(std::memory_order_acquire)->isValid())
      continue;
    out += (first ? "" : ", ") +
           std::string(toString(getDispatchKeyForDispatchTableIndex(index)));
    first = false;
  }
  return out + "]";
}

std::vector<std::string>
OperatorEntry::checkInvariants(const Dispatcher &dispatcher) const {
  std::vector<std::string> problems;
  for (uint16_t index = 0; index < kNumRuntimeEntries; ++index) {
    DispatchKey key = getDispatchKeyForDispatchTableIndex(index);
    const KernelFunction *live = table_[index].load(std::memory_order_acquire);
    const KernelFunction *computed = computeEntry(dispatcher, key).kernel;
    if (live != computed)
      problems.push_back(std::string("dispatch table entry for ") + toString(key) +
                         " of " + name_.str() +
                         " differs from the entry resolution computes");
  }
  return problems;
}

bool OperatorEntry::hasKernelForDispatchKey(DispatchKey key) const {
  return hasKernelAt(key);
}
