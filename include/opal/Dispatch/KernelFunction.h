//===- KernelFunction.h - What a dispatch-table entry calls -----*- C++ -*-===//
//
// A KernelFunction is a kernel in one of these forms:
//  - unboxed C++ (functions, lambdas, functors): called directly by typed
//    calls, and through a generated boxing wrapper by boxed calls;
//  - boxed: takes the arguments as an IValue stack (Python kernels, generic
//    fallbacks, and later the MLIR kernel kind);
//  - fallthrough: a marker; the dispatcher skips its functionality and never
//    calls it;
//  - the ambiguous-AutogradOther marker, which raises when called.
// An invalid (default) KernelFunction marks a missing table entry.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_KERNELFUNCTION_H
#define OPAL_DISPATCH_KERNELFUNCTION_H

#include "opal/Dispatch/detail/Boxing.h"

#include <string>
#include <typeindex>

namespace opal {

class OperatorHandle;

/// Base of kernel state (a functor's captures, a Python callable, ...).
class OperatorKernel : public RefCounted {};

/// The C++ signature of an unboxed kernel, `R(Args...)`, for checking that
/// every unboxed kernel of an op and every typed call agree.
class CppSignature {
public:
  template <typename Sig> static CppSignature make() {
    return CppSignature(typeid(Sig), InferSchema<Sig>::get().str());
  }
  bool operator==(const CppSignature &other) const { return type_ == other.type_; }
  bool operator!=(const CppSignature &other) const { return type_ != other.type_; }
  /// The signature in schema notation, e.g. `(Tensor _0, float _1) -> Tensor _0`.
  const std::string &str() const { return text_; }

private:
  template <typename Sig> using InferSchema = detail::InferSchema<Sig>;
  CppSignature(std::type_index type, std::string text)
      : type_(type), text_(std::move(text)) {}
  std::type_index type_;
  std::string text_;
};

class KernelFunction {
public:
  using BoxedFunction = void (*)(OperatorKernel *functor, const OperatorHandle &op,
                                 DispatchKeySet keys, Stack *stack);

  /// A missing kernel.
  KernelFunction() = default;

  static KernelFunction makeFallthrough();
  static KernelFunction makeAmbiguousAutogradOther();
  /// A boxed kernel with state; `fn` receives `functor`.
  static KernelFunction makeFromBoxedFunctor(IntrusivePtr<OperatorKernel> functor,
                                            BoxedFunction fn) {
    KernelFunction kernel;
    kernel.functor_ = std::move(functor);
    kernel.boxed_ = fn;
    return kernel;
  }
  /// A stateless boxed kernel.
  static KernelFunction
  makeFromBoxedFunction(void (*fn)(const OperatorHandle &, DispatchKeySet, Stack *));

  /// An unboxed kernel from any callable. The callable may take the call's
  /// DispatchKeySet as its first parameter (to redispatch).
  template <typename F> static KernelFunction makeFromUnboxedCallable(F &&callable);

  bool isValid() const { return boxed_ != nullptr; }
  bool isFallthrough() const;
  bool isAmbiguousAutogradOther() const;
  bool hasUnboxed() const { return unboxed_ != nullptr; }
  /// True if this is a boxed kernel made from `fn` (how the JIT recognizes
  /// its own MLIR kernels).
  bool isBoxedFunction(BoxedFunction fn) const { return boxed_ == fn && !unboxed_; }
  OperatorKernel *functor() const { return functor_.get(); }
  /// PyTorch's dumpState: "boxed " and/or "unboxed ".
  std::string dumpState() const;

  void callBoxed(const OperatorHandle &op, DispatchKeySet keys, Stack *stack) const {
    boxed_(functor_.get(), op, keys, stack);
  }

  /// Calls with C++ arguments: directly if the kernel is unboxed with this
  /// signature, else by boxing the arguments.
  template <typename R, typename... Args>
  R call(const OperatorHandle &op, DispatchKeySet keys, Args... args) const {
    if (unboxed_) {
      using Unboxed = R (*)(OperatorKernel *, DispatchKeySet, Args...);
      return reinterpret_cast<Unboxed>(unboxed_)(functor_.get(), keys,
                                                 std::forward<Args>(args)...);
    }
    Stack stack;
    stack.reserve(sizeof...(Args));
    (stack.emplace_back(IValue(args)), ...);
    boxed_(functor_.get(), op, keys, &stack);
    return detail::ReturnBoxing<std::decay_t<R>>::pop(stack);
  }

private:
  template <typename F> struct Functor : OperatorKernel {
    explicit Functor(F f) : callable(std::move(f)) {}
    F callable;
  };

  template <typename F, bool TakesKeys, typename R, typename... Args>
  struct Wrappers {
    static R unboxed(OperatorKernel *functor, DispatchKeySet keys, Args... args) {
      auto &callable = static_cast<Functor<F> *>(functor)->callable;
      if constexpr (TakesKeys)
        return callable(keys, std::forward<Args>(args)...);
      else
        return callable(std::forward<Args>(args)...);
    }
    static void boxed(OperatorKernel *functor, const OperatorHandle &,
                      DispatchKeySet keys, Stack *stack) {
      constexpr size_t n = sizeof...(Args);
      auto first = stack->end() - n;
      if constexpr (std::is_void_v<R>) {
        invoke(functor, keys, first, std::index_sequence_for<Args...>{});
        stack->erase(first, stack->end());
      } else {
        R result = invoke(functor, keys, first, std::index_sequence_for<Args...>{});
        stack->erase(first, stack->end());
        detail::ReturnBoxing<std::decay_t<R>>::push(*stack, std::move(result));
      }
    }
    template <size_t... I>
    static R invoke(OperatorKernel *functor, DispatchKeySet keys,
                    Stack::iterator first, std::index_sequence<I...>) {
      // Converted values live until the kernel returns, so reference
      // parameters bind to them.
      std::tuple<std::decay_t<Args>...> values(
          detail::fromIValue<Args>(std::move(*(first + I)))...);
      return unboxed(functor, keys, std::get<I>(values)...);
    }
  };

  template <typename F, bool TakesKeys, typename Sig> struct WrappersFor;
  template <typename F, bool TakesKeys, typename R, typename... Args>
  struct WrappersFor<F, TakesKeys, R(Args...)> {
    using type = Wrappers<F, TakesKeys, R, Args...>;
  };

  IntrusivePtr<OperatorKernel> functor_;
  BoxedFunction boxed_ = nullptr;
  void *unboxed_ = nullptr;
};

template <typename F>
KernelFunction KernelFunction::makeFromUnboxedCallable(F &&callable) {
  using Decayed = std::decay_t<F>;
  using Traits = detail::CallableTraits<Decayed>;
  using Strip = detail::StripKeySet<typename Traits::Signature>;
  using W = typename WrappersFor<Decayed, Strip::takesKeySet,
                                 typename Strip::type>::type;
  KernelFunction kernel;
  kernel.functor_ = IntrusivePtr<OperatorKernel>(
      new Functor<Decayed>(std::forward<F>(callable)));
  kernel.boxed_ = &W::boxed;
  kernel.unboxed_ = reinterpret_cast<void *>(&W::unboxed);
  return kernel;
}

/// The C++ signature (without a leading DispatchKeySet) of a callable.
template <typename F>
using KernelSignature = typename detail::StripKeySet<
    typename detail::CallableTraits<std::decay_t<F>>::Signature>::type;

} // namespace opal

#endif // OPAL_DISPATCH_KERNELFUNCTION_H
