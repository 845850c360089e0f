//===- IValue.cpp - Boxed values of schema types --------------------------===//

#include "opal/Dispatch/IValue.h"

#include "opal/Schema/DefaultValue.h"
#include "opal/Schema/SchemaType.h"
#include "opal/Support/Exceptions.h"

#include <stdexcept>

using namespace opal;

template <typename T> static RefCounted *box(T value) {
  auto *boxed = new detail::Boxed<T>(std::move(value));
  boxed->retain();
  return boxed;
}

IValue::IValue(Tensor t) : tag_(Tag::None) {
  if (!t.defined()) {
    tag_ = Tag::None; // an undefined tensor is None, as for `Tensor?`
    return;
  }
  tag_ = Tag::Tensor;
  payload_.tensor = std::move(t).releaseImpl();
}

IValue::IValue(std::complex<double> v) : tag_(Tag::Complex) {
  payload_.heap = box(v);
}

IValue::IValue(const Scalar &s) : tag_(Tag::None) {
  switch (s.kind()) {
  case Scalar::Kind::Int: *this = IValue(s.toInt()); break;
  case Scalar::Kind::Double: *this = IValue(s.toDouble()); break;
  case Scalar::Kind::Bool: *this = IValue(s.toBool()); break;
  case Scalar::Kind::Complex: *this = IValue(s.toComplex()); break;
  }
}

IValue::IValue(std::string s) : tag_(Tag::String) { payload_.heap = box(std::move(s)); }
IValue::IValue(std::vector<int64_t> v) : tag_(Tag::IntList) { payload_.heap = box(std::move(v)); }
IValue::IValue(std::vector<double> v) : tag_(Tag::DoubleList) { payload_.heap = box(std::move(v)); }
IValue::IValue(std::vector<bool> v) : tag_(Tag::BoolList) { payload_.heap = box(std::move(v)); }
IValue::IValue(std::vector<Tensor> v) : tag_(Tag::TensorList) { payload_.heap = box(std::move(v)); }
IValue::IValue(std::vector<std::optional<Tensor>> v) : tag_(Tag::OptionalTensorList) {
  payload_.heap = box(std::move(v));
}

IValue IValue::tuple(std::vector<IValue> elements) {
  IValue value;
  value.tag_ = Tag::Tuple;
  value.payload_.heap = box(std::move(elements));
  return value;
}

IValue::IValue(const IValue &other) : tag_(other.tag_), payload_(other.payload_) {
  if (tag_ == Tag::Tensor)
    payload_.tensor->retain();
  else if (isHeap())
    payload_.heap->retain();
}

void IValue::releasePayload() {
  if (tag_ == Tag::Tensor)
    payload_.tensor->release();
  else
    payload_.heap->release();
}

const char *IValue::tagName() const {
  switch (tag_) {
  case Tag::None: return "None";
  case Tag::Tensor: return "Tensor";
  case Tag::Int: return "int";
  case Tag::Double: return "float";
  case Tag::Bool: return "bool";
  case Tag::Complex: return "complex";
  case Tag::String: return "str";
  case Tag::Device: return "Device";
  case Tag::IntList: return "List[int]";
  case Tag::DoubleList: return "List[float]";
  case Tag::BoolList: return "List[bool]";
  case Tag::TensorList: return "List[Tensor]";
  case Tag::OptionalTensorList: return "List[Optional[Tensor]]";
  case Tag::Tuple: return "Tuple";
  }
  return "?";
}

void IValue::assertTag(Tag expected) const {
  if (tag_ == expected)
    return;
  IValue probe;
  probe.tag_ = expected;
  std::string wanted = probe.tagName();
  probe.tag_ = Tag::None;
  throw std::logic_error("expected an IValue holding " + wanted +
                         ", but it holds " + tagName());
}

Tensor IValue::toTensor() const & {
  if (isNone())
    return Tensor();
  assertTag(Tag::Tensor);
  return Tensor(IntrusivePtr<TensorImpl>(payload_.tensor));
}

Tensor IValue::toTensor() && {
  if (isNone())
    return Tensor();
  assertTag(Tag::Tensor);
  tag_ = Tag::None;
  return Tensor::adopt(payload_.tensor);
}

int64_t IValue::toInt() const {
  assertTag(Tag::Int);
  return payload_.i;
}

double IValue::toDouble() const {
  assertTag(Tag::Double);
  return payload_.d;
}

bool IValue::toBool() const {
  assertTag(Tag::Bool);
  return payload_.b;
}

std::complex<double> IValue::toComplex() const {
  return heapValue<std::complex<double>>(Tag::Complex);
}

Scalar IValue::toScalar() const {
  switch (tag_) {
  case Tag::Int: return Scalar(payload_.i);
  case Tag::Double: return Scalar(payload_.d);
  case Tag::Bool: return Scalar(payload_.b);
  case Tag::Complex: return Scalar(toComplex());
  default:
    throw std::logic_error(std::string("expected an IValue holding a number, "
                                       "but it holds ") + tagName());
  }
}

ScalarType IValue::toScalarType() const {
  return static_cast<ScalarType>(toInt());
}

const std::string &IValue::toStringRef() const {
  return heapValue<std::string>(Tag::String);
}

Device IValue::toDevice() const {
  assertTag(Tag::Device);
  return payload_.device;
}

const std::vector<int64_t> &IValue::toIntList() const {
  return heapValue<std::vector<int64_t>>(Tag::IntList);
}
const std::vector<double> &IValue::toDoubleList() const {
  return heapValue<std::vector<double>>(Tag::DoubleList);
}
const std::vector<bool> &IValue::toBoolList() const {
  return heapValue<std::vector<bool>>(Tag::BoolList);
}
const std::vector<Tensor> &IValue::toTensorList() const {
  return heapValue<std::vector<Tensor>>(Tag::TensorList);
}
const std::vector<std::optional<Tensor>> &IValue::toOptionalTensorList() const {
  return heapValue<std::vector<std::optional<Tensor>>>(Tag::OptionalTensorList);
}
const std::vector<IValue> &IValue::toTupleElements() const {
  return heapValue<std::vector<IValue>>(Tag::Tuple);
}

DispatchKeySet IValue::dispatchKeys() const {
  switch (tag_) {
  case Tag::Tensor:
    return payload_.tensor->keySet();
  case Tag::TensorList: {
    DispatchKeySet keys;
    for (const Tensor &t : toTensorList())
      keys = keys | t.keySet();
    return keys;
  }
  case Tag::OptionalTensorList: {
    DispatchKeySet keys;
    for (const std::optional<Tensor> &t : toOptionalTensorList())
      if (t)
        keys = keys | t->keySet();
    return keys;
  }
  default:
    return DispatchKeySet();
  }
}

template <typename T, typename F>
static std::string listStr(const std::vector<T> &values, F format) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + format(values[i]);
  return out + "]";
}

std::string IValue::str() const {
  switch (tag_) {
  case Tag::None: return "None";
  case Tag::Tensor: return toTensor().str();
  case Tag::Int:
  case Tag::Double:
  case Tag::Bool:
  case Tag::Complex: return toScalar().str();
  case Tag::String: return "'" + toStringRef() + "'";
  case Tag::Device: return toDevice().str();
  case Tag::IntList:
    return listStr(toIntList(), [](int64_t v) { return std::to_string(v); });
  case Tag::DoubleList:
    return listStr(toDoubleList(), [](double v) { return Scalar(v).str(); });
  case Tag::BoolList:
    return listStr(toBoolList(), [](bool v) { return std::string(v ? "True" : "False"); });
  case Tag::TensorList:
    return listStr(toTensorList(), [](const Tensor &t) { return t.str(); });
  case Tag::OptionalTensorList:
    return listStr(toOptionalTensorList(), [](const std::optional<Tensor> &t) {
      return t ? t->str() : std::string("None");
    });
  case Tag::Tuple: {
    std::string out = "(";
    const auto &elements = toTupleElements();
    for (size_t i = 0; i < elements.size(); ++i)
      out += (i ? ", " : "") + elements[i].str();
    return out + (elements.size() == 1 ? ",)" : ")");
  }
  }
  return "?";
}

IValue opal::defaultToIValue(const DefaultValue &value, const SchemaType &type) {
  switch (value.kind()) {
  case DefaultValue::Kind::None: return IValue();
  case DefaultValue::Kind::Bool: return IValue(value.toBool());
  case DefaultValue::Kind::Int: return IValue(value.toInt());
  case DefaultValue::Kind::Double: return IValue(value.toDouble());
  case DefaultValue::Kind::Complex: return IValue(value.toComplex());
  case DefaultValue::Kind::String: {
    const SchemaType &plain = type.isOptional() ? *type.element() : type;
    if (plain.kind() == TypeKind::Device)
      if (auto device = Device::parse(value.toString()))
        return IValue(*device);
    return IValue(value.toString());
  }
  case DefaultValue::Kind::IntList: return IValue(value.toIntList());
  case DefaultValue::Kind::DoubleList: return IValue(value.toDoubleList());
  case DefaultValue::Kind::BoolList: return IValue(value.toBoolList());
  case DefaultValue::Kind::ComplexList: break;
  }
  throw OpalError("complex list defaults are not supported in opal calls");
}
