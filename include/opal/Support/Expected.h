//===- Expected.h - A value or an error, without exceptions -----*- C++ -*-===//
//
// opal's runtime core (Support, Schema, Dispatch, Runtime) does not link LLVM,
// so that `import opal` and a cached kernel call never load libLLVM. This is
// its error-as-value type: `Expected<T, E>` holds either a T or an E (by
// default `opal::Error`, a message). Errors become Python exceptions with the
// same text at the binding boundary.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_EXPECTED_H
#define OPAL_SUPPORT_EXPECTED_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace opal {

/// A plain error: one human-readable message.
class Error {
public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string &message() const { return message_; }

private:
  std::string message_;
};

/// Tag type so that `Expected<T, E>` can be built from an error unambiguously.
template <typename E> struct Unexpected {
  E error;
};
template <typename E> Unexpected<std::decay_t<E>> makeUnexpected(E &&error) {
  return {std::forward<E>(error)};
}

/// Either a value of type T or an error of type E.
template <typename T, typename E = Error> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  template <typename F>
  Expected(Unexpected<F> error)
      : storage_(std::in_place_index<1>, E(std::move(error.error))) {}

  bool hasValue() const { return storage_.index() == 0; }
  explicit operator bool() const { return hasValue(); }

  T &value() & {
    assert(hasValue() && "Expected has no value");
    return std::get<0>(storage_);
  }
  const T &value() const & {
    assert(hasValue() && "Expected has no value");
    return std::get<0>(storage_);
  }
  T &&value() && {
    assert(hasValue() && "Expected has no value");
    return std::get<0>(std::move(storage_));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const E &error() const {
    assert(!hasValue() && "Expected holds a value, not an error");
    return std::get<1>(storage_);
  }

private:
  std::variant<T, E> storage_;
};

} // namespace opal

#endif // OPAL_SUPPORT_EXPECTED_H
