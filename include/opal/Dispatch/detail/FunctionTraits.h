//===- FunctionTraits.h - Signatures of C++ kernels -------------*- C++ -*-===//
//
// Private to the dispatcher's templates: the return and parameter types of a
// function, function pointer, lambda or functor, and whether it takes the
// call's DispatchKeySet first (kernels that redispatch do).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_DETAIL_FUNCTIONTRAITS_H
#define OPAL_DISPATCH_DETAIL_FUNCTIONTRAITS_H

#include "opal/Dispatch/DispatchKeySet.h"

#include <tuple>
#include <type_traits>

namespace opal::detail {

template <typename... Ts> struct TypeList {};

template <typename F> struct FunctionTraits;
template <typename R, typename... Args> struct FunctionTraits<R(Args...)> {
  using Return = R;
  using Parameters = TypeList<Args...>;
  using Signature = R(Args...);
};
template <typename R, typename... Args>
struct FunctionTraits<R (*)(Args...)> : FunctionTraits<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct FunctionTraits<R (C::*)(Args...)> : FunctionTraits<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct FunctionTraits<R (C::*)(Args...) const> : FunctionTraits<R(Args...)> {};

/// Traits of any callable: plain functions, pointers, lambdas, functors.
template <typename F, typename = void>
struct CallableTraits : FunctionTraits<std::remove_pointer_t<std::decay_t<F>>> {};
template <typename F>
struct CallableTraits<F, std::void_t<decltype(&std::decay_t<F>::operator())>>
    : FunctionTraits<decltype(&std::decay_t<F>::operator())> {};

/// `R(DispatchKeySet, Args...)` → `R(Args...)`; other signatures unchanged.
template <typename Sig> struct StripKeySet {
  using type = Sig;
  static constexpr bool takesKeySet = false;
};
template <typename R, typename First, typename... Args>
struct StripKeySet<R(First, Args...)> {
  static constexpr bool takesKeySet =
      std::is_same_v<std::decay_t<First>, DispatchKeySet>;
  using type = std::conditional_t<takesKeySet, R(Args...), R(First, Args...)>;
};

} // namespace opal::detail

#endif // OPAL_DISPATCH_DETAIL_FUNCTIONTRAITS_H
