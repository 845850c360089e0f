//===- Boxing.h - Between C++ arguments and IValue stacks -------*- C++ -*-===//
//
// Private to the dispatcher's templates. Converts C++ kernel arguments and
// returns to and from IValues, and infers the schema a C++ signature stands
// for (checked against the op's schema at registration).
//
// Supported C++ types: Tensor, int64_t, double, bool, std::string, Scalar,
// ScalarType, Device, std::optional<T>, std::vector<int64_t|double|bool|
// Tensor|std::optional<Tensor>>; returns may also be void or std::tuple<...>.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_DETAIL_BOXING_H
#define OPAL_DISPATCH_DETAIL_BOXING_H

#include "opal/Dispatch/IValue.h"
#include "opal/Dispatch/detail/FunctionTraits.h"
#include "opal/Schema/FunctionSchema.h"

#include <string>
#include <tuple>
#include <utility>

namespace opal::detail {

template <typename T> struct AlwaysFalse : std::false_type {};

//===----------------------------------------------------------------------===//
// IValue → C++
//===----------------------------------------------------------------------===//

template <typename T> struct FromIValue {
  static_assert(AlwaysFalse<T>::value,
                "unsupported C++ type in a kernel signature; use Tensor, "
                "int64_t, double, bool, std::string, Scalar, ScalarType, "
                "Device, std::optional<T> or std::vector<T>");
};
template <> struct FromIValue<Tensor> {
  static Tensor convert(const IValue &v) { return v.toTensor(); }
  static Tensor convert(IValue &&v) { return std::move(v).toTensor(); }
};
template <> struct FromIValue<int64_t> {
  static int64_t convert(const IValue &v) { return v.toInt(); }
};
template <> struct FromIValue<double> {
  static double convert(const IValue &v) {
    return v.isInt() ? static_cast<double>(v.toInt()) : v.toDouble();
  }
};
template <> struct FromIValue<bool> {
  static bool convert(const IValue &v) { return v.toBool(); }
};
template <> struct FromIValue<std::string> {
  static std::string convert(const IValue &v) { return v.toStringRef(); }
};
template <> struct FromIValue<Scalar> {
  static Scalar convert(const IValue &v) { return v.toScalar(); }
};
template <> struct FromIValue<ScalarType> {
  static ScalarType convert(const IValue &v) { return v.toScalarType(); }
};
template <> struct FromIValue<Device> {
  static Device convert(const IValue &v) { return v.toDevice(); }
};
template <typename T> struct FromIValue<std::optional<T>> {
  static std::optional<T> convert(const IValue &v) {
    if (v.isNone())
      return std::nullopt;
    return FromIValue<T>::convert(v);
  }
};
template <> struct FromIValue<std::vector<int64_t>> {
  static std::vector<int64_t> convert(const IValue &v) { return v.toIntList(); }
};
template <> struct FromIValue<std::vector<double>> {
  static std::vector<double> convert(const IValue &v) { return v.toDoubleList(); }
};
template <> struct FromIValue<std::vector<bool>> {
  static std::vector<bool> convert(const IValue &v) { return v.toBoolList(); }
};
template <> struct FromIValue<std::vector<Tensor>> {
  static std::vector<Tensor> convert(const IValue &v) { return v.toTensorList(); }
};
template <> struct FromIValue<std::vector<std::optional<Tensor>>> {
  static std::vector<std::optional<Tensor>> convert(const IValue &v) {
    return v.toOptionalTensorList();
  }
};

template <typename T> std::decay_t<T> fromIValue(const IValue &v) {
  return FromIValue<std::decay_t<T>>::convert(v);
}
/// Converts and may steal from `v` (the boxed wrappers pop their arguments).
template <typename T> std::decay_t<T> fromIValue(IValue &&v) {
  return FromIValue<std::decay_t<T>>::convert(std::move(v));
}

//===----------------------------------------------------------------------===//
// Returns: C++ ↔ stack
//===----------------------------------------------------------------------===//

template <typename R> struct ReturnBoxing {
  static constexpr size_t count = 1;
  static void push(Stack &stack, R &&value) {
    stack.emplace_back(IValue(std::move(value)));
  }
  static R pop(Stack &stack) {
    R value = fromIValue<R>(std::move(stack.back()));
    stack.pop_back();
    return value;
  }
};
template <> struct ReturnBoxing<void> {
  static constexpr size_t count = 0;
  static void pop(Stack &) {}
};
template <typename... Ts> struct ReturnBoxing<std::tuple<Ts...>> {
  static constexpr size_t count = sizeof...(Ts);
  static void push(Stack &stack, std::tuple<Ts...> &&values) {
    std::apply(
        [&](auto &&...v) { (stack.emplace_back(IValue(std::move(v))), ...); },
        std::move(values));
  }
  static std::tuple<Ts...> pop(Stack &stack) {
    auto first = stack.end() - sizeof...(Ts);
    std::tuple<Ts...> result = popImpl(first, std::index_sequence_for<Ts...>{});
    stack.erase(first, stack.end());
    return result;
  }

private:
  template <size_t... I>
  static std::tuple<Ts...> popImpl(Stack::iterator first,
                                   std::index_sequence<I...>) {
    return std::tuple<Ts...>(fromIValue<Ts>(std::move(*(first + I)))...);
  }
};

//===----------------------------------------------------------------------===//
// Schema inference
//===----------------------------------------------------------------------===//

template <typename T> struct SchemaTypeOf {
  static_assert(AlwaysFalse<T>::value, "unsupported C++ type in a kernel signature");
};
#define OPAL_SCHEMA_TYPE_OF(CppType, Kind)                                     \
  template <> struct SchemaTypeOf<CppType> {                                   \
    static TypePtr get() { return SchemaType::get(TypeKind::Kind); }           \
  };
OPAL_SCHEMA_TYPE_OF(Tensor, Tensor)
OPAL_SCHEMA_TYPE_OF(int64_t, Int)
OPAL_SCHEMA_TYPE_OF(double, Float)
OPAL_SCHEMA_TYPE_OF(bool, Bool)
OPAL_SCHEMA_TYPE_OF(std::string, Str)
OPAL_SCHEMA_TYPE_OF(Scalar, Scalar)
OPAL_SCHEMA_TYPE_OF(ScalarType, ScalarType)
OPAL_SCHEMA_TYPE_OF(Device, Device)
#undef OPAL_SCHEMA_TYPE_OF
template <typename T> struct SchemaTypeOf<std::optional<T>> {
  static TypePtr get() { return SchemaType::optional(SchemaTypeOf<T>::get()); }
};
template <typename T> struct SchemaTypeOf<std::vector<T>> {
  static TypePtr get() { return SchemaType::list(SchemaTypeOf<T>::get()); }
};

template <typename T> TypePtr schemaTypeOf() {
  return SchemaTypeOf<std::decay_t<T>>::get();
}

template <typename R> struct InferReturns {
  static std::vector<Argument> get() {
    return {Argument("_0", schemaTypeOf<R>())};
  }
};
template <> struct InferReturns<void> {
  static std::vector<Argument> get() { return {}; }
};
template <typename... Ts> struct InferReturns<std::tuple<Ts...>> {
  static std::vector<Argument> get() {
    std::vector<Argument> returns;
    (returns.emplace_back("_" + std::to_string(returns.size()), schemaTypeOf<Ts>()),
     ...);
    return returns;
  }
};

/// The schema a kernel signature `R(Args...)` (without a DispatchKeySet)
/// implies: arguments `_0, _1, ...`, as PyTorch's inference names them.
template <typename Sig> struct InferSchema;
template <typename R, typename... Args> struct InferSchema<R(Args...)> {
  static FunctionSchema get() {
    std::vector<Argument> arguments;
    (arguments.emplace_back("_" + std::to_string(arguments.size()),
                            schemaTypeOf<Args>()),
     ...);
    return FunctionSchema(OperatorName{}, std::move(arguments),
                          InferReturns<std::decay_t<R>>::get());
  }
};

//===----------------------------------------------------------------------===//
// Dispatch keys of unboxed arguments
//===----------------------------------------------------------------------===//

inline DispatchKeySet keysOf(const Tensor &t) { return t.keySet(); }
inline DispatchKeySet keysOf(const std::optional<Tensor> &t) {
  return t ? t->keySet() : DispatchKeySet();
}
inline DispatchKeySet keysOf(const std::vector<Tensor> &ts) {
  DispatchKeySet keys;
  for (const Tensor &t : ts)
    keys = keys | t.keySet();
  return keys;
}
inline DispatchKeySet keysOf(const std::vector<std::optional<Tensor>> &ts) {
  DispatchKeySet keys;
  for (const auto &t : ts)
    keys = keys | keysOf(t);
  return keys;
}
template <typename T> DispatchKeySet keysOf(const T &) { return DispatchKeySet(); }

template <typename... Args> DispatchKeySet collectKeys(const Args &...args) {
  return (DispatchKeySet() | ... | keysOf(args));
}

} // namespace opal::detail

#endif // OPAL_DISPATCH_DETAIL_BOXING_H
