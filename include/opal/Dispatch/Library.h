//===- Library.h - Registering operators and kernels ------------*- C++ -*-===//
//
// A Library registers ops and kernels for one namespace and owns what it
// registered: destroying it removes all of it, and older registrations come
// back. Kinds, as in PyTorch:
//  - DEF: defines ops (`def`) and may give kernels; one per namespace;
//  - FRAGMENT: like DEF, any number per namespace;
//  - IMPL: kernels only (`impl`, and `fallback` in namespace `_`), optionally
//    for one dispatch key.
//
//   OPAL_LIBRARY(mylib, m) {
//     m.def("scale(Tensor x, float factor) -> Tensor");
//   }
//   OPAL_LIBRARY_IMPL(mylib, CPU, m) {
//     m.impl("scale", [](const Tensor &x, double factor) { ... });
//   }
//
// Errors throw OpalError with PyTorch's wording; nothing is half-registered.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_LIBRARY_H
#define OPAL_DISPATCH_LIBRARY_H

#include "opal/Dispatch/Dispatcher.h"

namespace opal {

/// A kernel for Library::impl: any C++ callable, a boxed function, a
/// fallthrough, or a prepared KernelFunction (Python kernels).
class CppFunction {
public:
  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, CppFunction> &&
                                        !std::is_same_v<std::decay_t<F>, KernelFunction>>>
  CppFunction(F &&callable)
      : kernel_(KernelFunction::makeFromUnboxedCallable(std::forward<F>(callable))),
        inferredSchema_(detail::InferSchema<KernelSignature<F>>::get()),
        cppSignature_(CppSignature::make<KernelSignature<F>>()) {}

  static CppFunction makeFallthrough() {
    return CppFunction(KernelFunction::makeFallthrough());
  }
  static CppFunction
  makeFromBoxedFunction(void (*fn)(const OperatorHandle &, DispatchKeySet, Stack *)) {
    return CppFunction(KernelFunction::makeFromBoxedFunction(fn));
  }
  /// A boxed KernelFunction with no inferred schema (e.g. a Python kernel).
  static CppFunction makeFromKernelFunction(KernelFunction kernel) {
    return CppFunction(std::move(kernel));
  }

  const std::optional<FunctionSchema> &inferredSchema() const { return inferredSchema_; }

private:
  friend class Library;
  explicit CppFunction(KernelFunction kernel) : kernel_(std::move(kernel)) {}

  KernelFunction kernel_;
  std::optional<FunctionSchema> inferredSchema_;
  std::optional<CppSignature> cppSignature_;
};

class Library {
public:
  enum Kind { DEF, IMPL, FRAGMENT };

  /// Throws OpalError for a namespace or key its kind does not allow, and for
  /// a second DEF library of a namespace.
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key,
          const char *file, uint32_t line);
  Library(Library &&) = default;
  Library &operator=(Library &&) = default;
  /// Removes everything this library registered, newest first.
  ~Library();

  /// Defines an op from a schema (`"foo(Tensor x) -> Tensor"`; the namespace
  /// defaults to the library's).
  Library &def(std::string_view schema);
  Library &def(std::string_view schema, AliasAnalysisKind kind);
  /// Defines an op and registers `f` as its catch-all kernel
  /// (CompositeImplicitAutograd). A bare name takes its schema from `f`.
  Library &def(std::string_view nameOrSchema, CppFunction f);
  /// Registers a kernel for the library's dispatch key (a catch-all if none).
  Library &impl(std::string_view name, CppFunction f);
  Library &impl(std::string_view name, DispatchKey key, CppFunction f);
  /// Registers a backend fallback for the library's dispatch key (IMPL
  /// libraries of namespace `_` only).
  Library &fallback(CppFunction f);

  Kind kind() const { return kind_; }
  const std::string &ns() const { return ns_; }
  std::optional<DispatchKey> dispatchKey() const { return key_; }
  /// "registered at file:line".
  const std::string &debug() const { return debug_; }

private:
  OperatorName qualify(std::string_view name, const char *what) const;
  void keep(Expected<RegistrationHandleRAII> handle);

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string debug_;
  std::vector<RegistrationHandleRAII> handles_;
};

const char *toString(Library::Kind kind);

namespace detail {

/// Runs a static library's initializer when its shared object loads.
class StaticLibrary {
public:
  StaticLibrary(Library::Kind kind, const char *ns, std::optional<DispatchKey> key,
                void (*init)(Library &), const char *file, uint32_t line);

private:
  std::optional<Library> library_;
};

/// While collecting, static registration errors are recorded instead of
/// aborting the process (opal.ops.load_library reports them).
void beginCollectingStaticRegistrationErrors();
std::vector<std::string> endCollectingStaticRegistrationErrors();
/// Records a registration error if collecting; false if not collecting.
bool collectStaticRegistrationError(const std::string &message);

} // namespace detail
} // namespace opal

#define OPAL_CONCAT_IMPL(a, b) a##b
#define OPAL_CONCAT(a, b) OPAL_CONCAT_IMPL(a, b)
#define OPAL_UID __COUNTER__

/// Defines the ops of namespace `ns`; `m` is the Library. One per namespace.
#define OPAL_LIBRARY(ns, m)                                                    \
  static void OPAL_LIBRARY_init_##ns(::opal::Library &);                       \
  static const ::opal::detail::StaticLibrary OPAL_LIBRARY_static_init_##ns(    \
      ::opal::Library::DEF, #ns, std::nullopt, &OPAL_LIBRARY_init_##ns,        \
      __FILE__, __LINE__);                                                     \
  void OPAL_LIBRARY_init_##ns(::opal::Library &m)

#define OPAL_LIBRARY_FRAGMENT_UID(ns, m, uid)                                  \
  static void OPAL_CONCAT(OPAL_LIBRARY_FRAGMENT_init_##ns##_, uid)(            \
      ::opal::Library &);                                                      \
  static const ::opal::detail::StaticLibrary OPAL_CONCAT(                      \
      OPAL_LIBRARY_FRAGMENT_static_init_##ns##_, uid)(                         \
      ::opal::Library::FRAGMENT, #ns, std::nullopt,                            \
      &OPAL_CONCAT(OPAL_LIBRARY_FRAGMENT_init_##ns##_, uid), __FILE__,         \
      __LINE__);                                                               \
  void OPAL_CONCAT(OPAL_LIBRARY_FRAGMENT_init_##ns##_, uid)(::opal::Library & m)
/// More definitions for namespace `ns`; any number of these.
#define OPAL_LIBRARY_FRAGMENT(ns, m) OPAL_LIBRARY_FRAGMENT_UID(ns, m, OPAL_UID)

#define OPAL_LIBRARY_IMPL_UID(ns, k, m, uid)                                   \
  static void OPAL_CONCAT(OPAL_LIBRARY_IMPL_init_##ns##_##k##_, uid)(          \
      ::opal::Library &);                                                      \
  static const ::opal::detail::StaticLibrary OPAL_CONCAT(                      \
      OPAL_LIBRARY_IMPL_static_init_##ns##_##k##_, uid)(                       \
      ::opal::Library::IMPL, #ns, ::opal::DispatchKey::k,                      \
      &OPAL_CONCAT(OPAL_LIBRARY_IMPL_init_##ns##_##k##_, uid), __FILE__,       \
      __LINE__);                                                               \
  void OPAL_CONCAT(OPAL_LIBRARY_IMPL_init_##ns##_##k##_, uid)(::opal::Library & m)
/// Kernels of namespace `ns` for dispatch key `k` (e.g. CPU); `_` as the
/// namespace registers backend fallbacks.
#define OPAL_LIBRARY_IMPL(ns, k, m) OPAL_LIBRARY_IMPL_UID(ns, k, m, OPAL_UID)

#endif // OPAL_DISPATCH_LIBRARY_H
