//===- IValue.h - Boxed values of schema types ------------------*- C++ -*-===//
//
// An IValue holds one value of any schema type opal runs: None, Tensor, int,
// float, bool, complex, str, Device, lists of int/float/bool/Tensor/Tensor?,
// and tuples (for several returns). Scalars are stored as their kind (int,
// float, bool, complex); ScalarType, Layout and MemoryFormat as ints, as in
// PyTorch. Boxed kernels take their arguments as a stack of IValues.
//
// 16 bytes: a tag and an 8-byte payload; tensors and heap values (strings,
// lists, tuples, complex numbers) are reference counted.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_IVALUE_H
#define OPAL_DISPATCH_IVALUE_H

#include "opal/Runtime/Scalar.h"
#include "opal/Runtime/Tensor.h"

#include <complex>
#include <optional>
#include <string>
#include <vector>

namespace opal {

class IValue;
using Stack = std::vector<IValue>;

namespace detail {
/// A reference-counted heap payload of an IValue.
template <typename T> struct Boxed : RefCounted {
  explicit Boxed(T v) : value(std::move(v)) {}
  T value;
};
} // namespace detail

class IValue {
public:
  enum class Tag : uint8_t {
    None,
    Tensor,
    Int,
    Double,
    Bool,
    Complex,
    String,
    Device,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    OptionalTensorList,
    Tuple,
  };

  IValue() : tag_(Tag::None) { payload_.i = 0; }
  IValue(std::nullopt_t) : IValue() {}
  IValue(Tensor t);
  IValue(int64_t v) : tag_(Tag::Int) { payload_.i = v; }
  IValue(int v) : IValue(static_cast<int64_t>(v)) {}
  IValue(double v) : tag_(Tag::Double) { payload_.d = v; }
  IValue(bool v) : tag_(Tag::Bool) { payload_.b = v; }
  IValue(std::complex<double> v);
  IValue(const Scalar &s);
  IValue(std::string s);
  IValue(const char *s) : IValue(std::string(s)) {}
  IValue(Device d) : tag_(Tag::Device) { payload_.device = d; }
  IValue(ScalarType t) : IValue(static_cast<int64_t>(t)) {}
  IValue(std::vector<int64_t> v);
  IValue(std::vector<double> v);
  IValue(std::vector<bool> v);
  IValue(std::vector<Tensor> v);
  IValue(std::vector<std::optional<Tensor>> v);
  /// A tuple of values (several returns).
  static IValue tuple(std::vector<IValue> elements);
  template <typename T> IValue(std::optional<T> v) : IValue() {
    if (v)
      *this = IValue(std::move(*v));
  }

  IValue(const IValue &other);
  IValue(IValue &&other) noexcept : tag_(other.tag_), payload_(other.payload_) {
    other.tag_ = Tag::None;
  }
  IValue &operator=(IValue other) noexcept {
    std::swap(tag_, other.tag_);
    std::swap(payload_, other.payload_);
    return *this;
  }
  ~IValue() { destroy(); }

  Tag tag() const { return tag_; }
  /// The kind of value, for messages: "Tensor", "int", "List[int]", ...
  const char *tagName() const;

  bool isNone() const { return tag_ == Tag::None; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isComplex() const { return tag_ == Tag::Complex; }
  bool isScalar() const { return isInt() || isDouble() || isBool() || isComplex(); }
  bool isString() const { return tag_ == Tag::String; }
  bool isDevice() const { return tag_ == Tag::Device; }
  bool isIntList() const { return tag_ == Tag::IntList; }
  bool isDoubleList() const { return tag_ == Tag::DoubleList; }
  bool isBoolList() const { return tag_ == Tag::BoolList; }
  bool isTensorList() const { return tag_ == Tag::TensorList; }
  bool isOptionalTensorList() const { return tag_ == Tag::OptionalTensorList; }
  bool isTuple() const { return tag_ == Tag::Tuple; }

  /// The tensor without touching its reference count (requires isTensor()).
  TensorImpl *toTensorImpl() const { return payload_.tensor; }

  // Accessors; each requires the matching tag (checked: a mismatch throws
  // std::logic_error naming both kinds).
  Tensor toTensor() const &;
  /// Moves the tensor out, leaving None (no reference-count traffic).
  Tensor toTensor() &&;
  int64_t toInt() const;
  double toDouble() const;
  bool toBool() const;
  std::complex<double> toComplex() const;
  Scalar toScalar() const;
  ScalarType toScalarType() const;
  const std::string &toStringRef() const;
  Device toDevice() const;
  const std::vector<int64_t> &toIntList() const;
  const std::vector<double> &toDoubleList() const;
  const std::vector<bool> &toBoolList() const;
  const std::vector<Tensor> &toTensorList() const;
  const std::vector<std::optional<Tensor>> &toOptionalTensorList() const;
  const std::vector<IValue> &toTupleElements() const;

  /// The dispatch keys this value contributes to a call: a tensor's keys, or
  /// the union over a tensor list; nothing for other values.
  DispatchKeySet dispatchKeys() const;

  /// A short description: `Tensor(shape=[2], ...)`, `3`, `[1, 2]`, `None`.
  std::string str() const;

private:
  /// Inline: most values a call destroys were moved from (None).
  void destroy() {
    if (tag_ == Tag::Tensor || isHeap())
      releasePayload();
    tag_ = Tag::None;
  }
  void releasePayload();
  void assertTag(Tag expected) const;
  RefCounted *heap() const { return payload_.heap; }
  template <typename T> const T &heapValue(Tag expected) const {
    assertTag(expected);
    return static_cast<detail::Boxed<T> *>(payload_.heap)->value;
  }
  bool isHeap() const { return tag_ >= Tag::Complex && tag_ != Tag::Device; }

  Tag tag_;
  union Payload {
    int64_t i;
    double d;
    bool b;
    Device device;
    TensorImpl *tensor;
    RefCounted *heap;
    Payload() : i(0) {}
  } payload_;
};

class DefaultValue;
class SchemaType;
/// A schema default as the value of an argument of `type` (a string default
/// of a Device argument becomes a Device).
IValue defaultToIValue(const DefaultValue &value, const SchemaType &type);

} // namespace opal

#endif // OPAL_DISPATCH_IVALUE_H
