//===- Dispatcher.cpp - The process-wide operator registry ----------------===//

#include "opal/Dispatch/Dispatcher.h"

#include "opal/Dispatch/SchemaCheck.h"

#include <algorithm>

using namespace opal;

Dispatcher &Dispatcher::singleton() {
  // Leaked on purpose: Libraries in other shared objects may deregister
  // during static destruction, after a function-local static would be gone.
  static Dispatcher *instance = new Dispatcher();
  return *instance;
}

Dispatcher::Dispatcher() { registerFrameworkFallbacks(); }

namespace {
constexpr const char *kFrameworkFallback = "registered at opal (framework fallback)";
} // namespace

void Dispatcher::registerFrameworkFallbacks() {
  // PyTorch 2's fallthrough fallbacks (VariableFallbackKernel.cpp,
  // BackendSelectFallbackKernel.cpp, autocast_mode.cpp, vmap modes): the
  // Autograd keys' fallbacks, which PyTorch's are only when an op has no
  // autograd kernel, are fallthroughs here too.
  static constexpr DispatchKey keys[] = {
      DispatchKey::BackendSelect, DispatchKey::ADInplaceOrView,
      DispatchKey::AutogradOther, DispatchKey::AutogradCPU,
      DispatchKey::AutogradCUDA,  DispatchKey::AutogradXLA,
      DispatchKey::AutogradMPS,   DispatchKey::AutogradXPU,
      DispatchKey::AutogradHPU,   DispatchKey::AutogradLazy,
      DispatchKey::AutogradMTIA,  DispatchKey::AutogradMAIA,
      DispatchKey::AutogradPrivateUse1, DispatchKey::AutogradMeta,
      DispatchKey::AutocastCPU,   DispatchKey::AutocastMTIA,
      DispatchKey::AutocastMAIA,  DispatchKey::AutocastXPU,
      DispatchKey::AutocastMPS,   DispatchKey::AutocastCUDA,
      DispatchKey::FuncTorchVmapMode, DispatchKey::VmapMode};
  for (DispatchKey key : keys) {
    auto handle = registerFallback(key, KernelFunction::makeFallthrough(), kFrameworkFallback);
    frameworkFallbacks_.push_back(std::move(*handle));
  }
}

//===----------------------------------------------------------------------===//
// Lookup
//===----------------------------------------------------------------------===//

OperatorEntry &Dispatcher::findOrCreate(const OperatorName &name) {
  std::string key = name.str();
  auto it = byName_.find(key);
  if (it != byName_.end())
    return *it->second;
  OperatorEntry &entry = operators_.emplace_back(name);
  entry.updateDispatchTable(*this);
  byName_.emplace(std::move(key), &entry);
  return entry;
}

std::optional<OperatorHandle> Dispatcher::findSchema(const OperatorName &name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byName_.find(name.str());
  if (it == byName_.end() || !it->second->hasSchema())
    return std::nullopt;
  return OperatorHandle(it->second);
}

OperatorHandle Dispatcher::findSchemaOrThrow(std::string_view name,
                                             std::string_view overload) {
  OperatorName opName{std::string(name), std::string(overload)};
  if (auto handle = findSchema(opName))
    return *handle;
  if (findOp(opName))
    throw OpalError("Could not find schema for " + opName.str() +
                    ": it has kernels but was never defined (def())");
  throw OpalError("Could not find schema for " + opName.str());
}

std::optional<OperatorHandle> Dispatcher::findOp(const OperatorName &name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byName_.find(name.str());
  if (it == byName_.end() ||
      (!it->second->hasSchema() && it->second->registrationCount() == 0))
    return std::nullopt;
  return OperatorHandle(it->second);
}

std::vector<OperatorName> Dispatcher::allOpNames() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<OperatorName> names;
  for (const OperatorEntry &entry : operators_)
    if (entry.hasSchema())
      names.push_back(entry.operatorName());
  std::sort(names.begin(), names.end(), [](const auto &a, const auto &b) {
    return a.str() < b.str();
  });
  return names;
}

std::vector<std::string> Dispatcher::findDanglingImpls() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> dangling;
  for (const OperatorEntry &entry : operators_) {
    if (entry.hasSchema() || entry.registrationCount() == 0)
      continue;
    for (size_t k = 0; k <= static_cast<size_t>(DispatchKey::EndOfAliasKeys); ++k)
      for (const AnnotatedKernel &kernel : entry.kernelsAt(static_cast<DispatchKey>(k)))
        dangling.push_back(entry.operatorName().str() + ": " +
                           toString(static_cast<DispatchKey>(k)) + " kernel " +
                           kernel.debug);
  }
  return dangling;
}

const AnnotatedKernel *Dispatcher::backendFallback(DispatchKey key) const {
  const auto &fallback = fallbacks_[getDispatchTableIndexForDispatchKey(key)];
  return fallback ? &*fallback : nullptr;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

Expected<RegistrationHandleRAII>
Dispatcher::registerDef(FunctionSchema schema, std::string debug,
                        AliasAnalysisKind kind, bool kindIsDefault) {
  std::lock_guard<std::mutex> lock(mutex_);
  OperatorEntry &entry = findOrCreate(schema.operatorName());
  if (entry.hasSchema())
    return makeUnexpected(
        Error(duplicateDefinitionMessage(schema, debug, entry.schemaDebug())));
  if (auto ok = entry.checkSchemaAgainstKernels(schema); !ok)
    return makeUnexpected(ok.error());
  entry.registerSchema(std::move(schema), std::move(debug), kind, kindIsDefault);
  entry.addRegistration();
  OperatorEntry *target = &entry;
  return RegistrationHandleRAII([this, target] {
    std::lock_guard<std::mutex> lock(mutex_);
    target->deregisterSchema();
    target->removeRegistration();
  });
}

/// Why `key` cannot hold kernels, if it cannot.
static std::optional<std::string> invalidKernelKey(DispatchKey key) {
  if (isAliasDispatchKey(key) || isRuntimeDispatchKey(key))
    return std::nullopt;
  return std::string("cannot register a kernel for dispatch key ") + toString(key) +
         ": it is a functionality shared by all backends, not a key a call can "
         "reach; use a backend key such as " +
         toString(toRuntimePerBackendFunctionalityKey(key, BackendComponent::CPUBit)) +
         " or an alias key";
}

Expected<RegistrationHandleRAII> Dispatcher::registerImpl(
    OperatorName name, std::optional<DispatchKey> key, KernelFunction kernel,
    std::optional<FunctionSchema> inferredSchema,
    std::optional<CppSignature> cppSignature, std::string debug) {
  // A catch-all kernel is a CompositeImplicitAutograd kernel.
  DispatchKey target = key.value_or(DispatchKey::CompositeImplicitAutograd);
  if (target == DispatchKey::Undefined)
    target = DispatchKey::CompositeImplicitAutograd;
  if (auto problem = invalidKernelKey(target))
    return makeUnexpected(Error(*problem));

  std::unique_lock<std::mutex> lock(mutex_);
  OperatorEntry &entry = findOrCreate(name);
  AnnotatedKernel annotated{std::make_unique<KernelFunction>(std::move(kernel)),
                            std::move(inferredSchema), std::move(cppSignature),
                            std::move(debug)};
  if (auto ok = entry.checkKernel(target, annotated); !ok)
    return makeUnexpected(ok.error());
  std::optional<std::string> warning;
  auto handle = entry.registerKernel(*this, target, std::move(annotated), warning);
  entry.addRegistration();
  lock.unlock();
  OperatorEntry *op = &entry;
  RegistrationHandleRAII registration([this, op, target, handle] {
    std::lock_guard<std::mutex> lock(mutex_);
    op->deregisterKernel(*this, target, handle);
    op->removeRegistration();
  });
  // Warn outside the lock: a warning handler may take other locks (the GIL).
  // If it throws (warnings as errors), `registration` undoes the impl.
  if (warning)
    warn(*warning);
  return registration;
}

Expected<RegistrationHandleRAII>
Dispatcher::registerFallback(DispatchKey key, KernelFunction kernel, std::string debug) {
  if (key == DispatchKey::Undefined)
    return makeUnexpected(Error("a backend fallback needs a dispatch key"));
  if (auto problem = invalidKernelKey(key))
    return makeUnexpected(Error(*problem));
  std::vector<DispatchKey> keys = isAliasDispatchKey(key)
                                      ? getRuntimeDispatchKeySet(key).keys()
                                      : std::vector<DispatchKey>{key};
  std::lock_guard<std::mutex> lock(mutex_);
  for (DispatchKey k : keys)
    if (const AnnotatedKernel *existing = backendFallback(k))
      return makeUnexpected(Error(
          std::string("Tried to register multiple backend fallbacks for the same "
                      "dispatch key ") +
          toString(k) + "; previous registration " + existing->debug +
          ", new registration " + debug));
  for (DispatchKey k : keys)
    fallbacks_[getDispatchTableIndexForDispatchKey(k)] = AnnotatedKernel{
        std::make_unique<KernelFunction>(kernel), std::nullopt, std::nullopt, debug};
  for (OperatorEntry &entry : operators_)
    entry.updateDispatchTable(*this);
  return RegistrationHandleRAII([this, keys] {
    std::lock_guard<std::mutex> lock(mutex_);
    for (DispatchKey k : keys) {
      auto &slot = fallbacks_[getDispatchTableIndexForDispatchKey(k)];
      if (slot)
        retiredFallbacks_.push_back(std::move(slot->kernel));
      slot.reset();
    }
    for (OperatorEntry &entry : operators_)
      entry.updateDispatchTable(*this);
  });
}

Expected<RegistrationHandleRAII> Dispatcher::registerLibrary(std::string ns,
                                                             std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = libraries_.find(ns);
  if (it != libraries_.end())
    return makeUnexpected(Error(
        "Only a single OPAL_LIBRARY can be used to register the namespace " + ns +
        "; please put all of your definitions in a single OPAL_LIBRARY block.  "
        "If you were trying to specify implementations, consider using "
        "OPAL_LIBRARY_IMPL (which can be duplicated).  If you really intended "
        "to define operators for a single namespace in a distributed way, you "
        "can use OPAL_LIBRARY_FRAGMENT to explicitly indicate this.  Previous "
        "registration of OPAL_LIBRARY was " + it->second +
        "; latest registration was " + debug));
  libraries_.emplace(ns, debug);
  return RegistrationHandleRAII([this, ns] {
    std::lock_guard<std::mutex> lock(mutex_);
    libraries_.erase(ns);
  });
}

//===----------------------------------------------------------------------===//
// OperatorHandle
//===----------------------------------------------------------------------===//

void OperatorHandle::checkTypedAccess(const CppSignature &signature,
                                      const FunctionSchema &inferred) const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().registrationMutex());
  std::string problem;
  if (const auto &expected = entry_->cppSignature(); expected && *expected != signature)
    problem = "  correct signature: " + expected->str();
  else if (!entry_->hasSchema())
    problem = "  the operator has no schema (it was never defined)";
  else if (auto reason = findSchemaDifference(inferred, entry_->schema()))
    problem = "  schema: " + entry_->schema().str() + "\n  reason: " + *reason;
  if (!problem.empty())
    throw OpalError("Tried to access or call an operator with a wrong signature.\n"
                    "  operator: " + operatorName().str() + "\n" + problem +
                    "\n  accessed/called as: " + signature.str());
}

void OperatorHandle::callBoxed(Stack *stack) const {
  if (!entry_->hasSchema())
    throw OpalError("Cannot call " + operatorName().str() +
                    ": it has no schema (it was never defined, or the Library that defined it "
                    "was destroyed)");
  size_t count = entry_->numArguments();
  if (stack->size() < count)
    throw OpalError(operatorName().str() + " expects " + std::to_string(count) +
                    " arguments, but the stack holds " +
                    std::to_string(stack->size()));
  DispatchKeySet keys = callKeySet(stack->data() + (stack->size() - count));
  entry_->lookup(keys).callBoxed(*this, keys, stack);
}

DispatchKeySet OperatorHandle::callKeySet(const IValue *args) const {
  DispatchKeySet keys;
  for (uint32_t index : entry_->tensorArguments()) {
    const IValue &value = args[index];
    keys = keys | (value.isTensor() ? value.toTensorImpl()->keySet()
                                    : value.dispatchKeys());
  }
  return entry_->computeCallKeySet(keys);
}

void OperatorHandle::redispatchBoxed(DispatchKeySet keys, Stack *stack) const {
  entry_->lookup(keys).callBoxed(*this, keys, stack);
}

std::string OperatorHandle::dumpState() const {
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().registrationMutex());
  return entry_->dumpState();
}

std::string OperatorHandle::dumpComputedTable() const {
  Dispatcher &dispatcher = Dispatcher::singleton();
  std::lock_guard<std::mutex> lock(dispatcher.registrationMutex());
  return entry_->dumpComputedTable(dispatcher);
}

std::vector<std::string> OperatorHandle::checkInvariants() const {
  Dispatcher &dispatcher = Dispatcher::singleton();
  std::lock_guard<std::mutex> lock(dispatcher.registrationMutex());
  return entry_->checkInvariants(dispatcher);
}
