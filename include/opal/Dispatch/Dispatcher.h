//===- Dispatcher.h - The process-wide operator registry --------*- C++ -*-===//
//
// The Dispatcher holds every operator (OperatorEntry), the backend fallbacks
// and the namespaces claimed by DEF libraries. Registration is serialized by
// one mutex; calls through an OperatorHandle take no lock.
//
//   auto op = Dispatcher::singleton().findSchemaOrThrow("mylib::scale", "");
//   Tensor y = op.typed<Tensor(const Tensor &, double)>().call(x, 2.0);
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_DISPATCHER_H
#define OPAL_DISPATCH_DISPATCHER_H

#include "opal/Dispatch/LocalDispatchKeySet.h"
#include "opal/Dispatch/OperatorEntry.h"

#include <functional>
#include <mutex>
#include <unordered_map>

namespace opal {

template <typename Sig> class TypedOperatorHandle;

/// A handle to an operator. Valid for the life of the process (operator
/// entries are never freed; an op whose registrations are all gone is
/// invisible until it is defined again).
class OperatorHandle {
public:
  const OperatorName &operatorName() const { return entry_->operatorName(); }
  bool hasSchema() const { return entry_->hasSchema(); }
  const FunctionSchema &schema() const { return entry_->schema(); }
  const std::string &debug() const { return entry_->schemaDebug(); }

  /// A handle for typed calls with C++ signature `Sig`; throws OpalError if
  /// `Sig` does not match the op's unboxed kernels or its schema.
  template <typename Sig> TypedOperatorHandle<Sig> typed() const;

  /// Dispatches a boxed call: the arguments are on `stack`, the returns
  /// replace them.
  void callBoxed(Stack *stack) const;
  /// The keys a call with arguments `args` (the op's, in order) dispatches
  /// on: its tensors' keys with this thread's included and excluded keys.
  DispatchKeySet callKeySet(const IValue *args) const;
  void callBoxed(Stack &stack) const { callBoxed(&stack); }
  /// Calls the kernel for `keys` as given (no TLS, no fallthrough mask).
  void redispatchBoxed(DispatchKeySet keys, Stack *stack) const;

  std::string dumpState() const;
  std::string dumpComputedTable() const;
  bool hasKernelForDispatchKey(DispatchKey key) const {
    return entry_->hasKernelForDispatchKey(key);
  }
  std::vector<std::string> checkInvariants() const;

  OperatorEntry &entry() const { return *entry_; }
  bool operator==(const OperatorHandle &other) const { return entry_ == other.entry_; }

protected:
  friend class Dispatcher;
  explicit OperatorHandle(OperatorEntry *entry) : entry_(entry) {}
  /// Throws OpalError if a typed call with this signature cannot be right.
  void checkTypedAccess(const CppSignature &signature,
                        const FunctionSchema &inferred) const;
  OperatorEntry *entry_;
};

template <typename R, typename... Args>
class TypedOperatorHandle<R(Args...)> : public OperatorHandle {
public:
  /// Computes the call's keyset from the tensor arguments and TLS, and calls
  /// the kernel of its highest key.
  R call(Args... args) const {
    DispatchKeySet keys =
        entry_->computeCallKeySet(detail::collectKeys<std::decay_t<Args>...>(args...));
    return entry_->lookup(keys).template call<R, Args...>(
        *this, keys, std::forward<Args>(args)...);
  }
  /// Calls the kernel for `keys` as given: what a kernel does to call "the
  /// next key", with `keys & DispatchKeySet(FULL_AFTER, itsKey)`.
  R redispatch(DispatchKeySet keys, Args... args) const {
    return entry_->lookup(keys).template call<R, Args...>(
        *this, keys, std::forward<Args>(args)...);
  }

private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(OperatorHandle handle) : OperatorHandle(handle) {}
};

/// Undoes one registration when destroyed.
class RegistrationHandleRAII {
public:
  RegistrationHandleRAII() = default;
  explicit RegistrationHandleRAII(std::function<void()> onDestruction)
      : onDestruction_(std::move(onDestruction)) {}
  RegistrationHandleRAII(RegistrationHandleRAII &&other) noexcept
      : onDestruction_(std::move(other.onDestruction_)) {
    other.onDestruction_ = nullptr;
  }
  RegistrationHandleRAII &operator=(RegistrationHandleRAII &&other) noexcept {
    reset();
    onDestruction_ = std::move(other.onDestruction_);
    other.onDestruction_ = nullptr;
    return *this;
  }
  ~RegistrationHandleRAII() { reset(); }
  void reset() {
    if (onDestruction_) {
      auto callback = std::move(onDestruction_);
      onDestruction_ = nullptr;
      callback();
    }
  }

private:
  std::function<void()> onDestruction_;
};

class Dispatcher {
public:
  /// The registry. Never destroyed, so static Libraries in any shared library
  /// can deregister at exit.
  static Dispatcher &singleton();

  /// The op with this name and a schema, if defined.
  std::optional<OperatorHandle> findSchema(const OperatorName &name);
  /// As findSchema; throws OpalError naming the op if it is not defined.
  OperatorHandle findSchemaOrThrow(std::string_view name, std::string_view overload);
  /// The op with this name, with or without a schema (impl-only ops too).
  std::optional<OperatorHandle> findOp(const OperatorName &name);
  /// Every op that has a schema, sorted by name.
  std::vector<OperatorName> allOpNames();
  /// `ns::op.overload: registered at ...` for every impl whose op has no
  /// schema (PyTorch's _dispatch_find_dangling_impls).
  std::vector<std::string> findDanglingImpls();

  /// Defines an operator. Errors: a second def of the same name and
  /// overload; a schema that disagrees with kernels registered before it.
  Expected<RegistrationHandleRAII>
  registerDef(FunctionSchema schema, std::string debug,
              AliasAnalysisKind kind = AliasAnalysisKind::FROM_SCHEMA,
              bool kindIsDefault = true);
  /// Registers a kernel for `key` (none: a catch-all, stored as
  /// CompositeImplicitAutograd). The op need not be defined yet.
  Expected<RegistrationHandleRAII>
  registerImpl(OperatorName name, std::optional<DispatchKey> key,
               KernelFunction kernel, std::optional<FunctionSchema> inferredSchema,
               std::optional<CppSignature> cppSignature, std::string debug);
  /// Registers a backend fallback for every runtime key of `key`.
  Expected<RegistrationHandleRAII> registerFallback(DispatchKey key,
                                                    KernelFunction kernel,
                                                    std::string debug);
  /// Claims namespace `ns` for a DEF library.
  Expected<RegistrationHandleRAII> registerLibrary(std::string ns, std::string debug);

  /// The backend fallback of a runtime key, or null.
  const AnnotatedKernel *backendFallback(DispatchKey key) const;

  /// The lock that serializes registration; introspection takes it too.
  std::mutex &registrationMutex() { return mutex_; }

private:
  Dispatcher();
  OperatorEntry &findOrCreate(const OperatorName &name);
  void cleanup(OperatorEntry &entry);
  void registerFrameworkFallbacks();

  std::mutex mutex_;
  std::list<OperatorEntry> operators_;
  std::unordered_map<std::string, OperatorEntry *> byName_;
  std::array<std::optional<AnnotatedKernel>, kNumRuntimeEntries> fallbacks_;
  std::vector<std::unique_ptr<KernelFunction>> retiredFallbacks_;
  std::unordered_map<std::string, std::string> libraries_; // ns → debug
  std::vector<RegistrationHandleRAII> frameworkFallbacks_;
};

template <typename Sig> TypedOperatorHandle<Sig> OperatorHandle::typed() const {
  checkTypedAccess(CppSignature::make<Sig>(), detail::InferSchema<Sig>::get());
  return TypedOperatorHandle<Sig>(*this);
}

} // namespace opal

#endif // OPAL_DISPATCH_DISPATCHER_H
