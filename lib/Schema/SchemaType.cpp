//===- SchemaType.cpp - Types of schema arguments and returns -------------===//

#include "opal/Schema/SchemaType.h"

#include <array>
#include <cassert>

using namespace opal;

namespace {
struct BaseTypeInfo {
  TypeKind kind;
  const char *name;       // schema spelling
  const char *pythonName; // PyTorch's Python-typing spelling
};
} // namespace

// One row per base type, in the order of TypeKind.
static constexpr std::array<BaseTypeInfo, 25> kBaseTypes = {{
    {TypeKind::Tensor, "Tensor", "Tensor"},
    {TypeKind::Int, "int", "int"},
    {TypeKind::SymInt, "SymInt", "SymInt"},
    {TypeKind::Float, "float", "float"},
    {TypeKind::SymFloat, "SymFloat", "SymFloat"},
    {TypeKind::Bool, "bool", "bool"},
    {TypeKind::SymBool, "SymBool", "SymBool"},
    {TypeKind::Str, "str", "str"},
    {TypeKind::Complex, "complex", "complex"},
    {TypeKind::Scalar, "Scalar", "number"},
    {TypeKind::ScalarType, "ScalarType", "ScalarType"},
    {TypeKind::Layout, "Layout", "Layout"},
    {TypeKind::MemoryFormat, "MemoryFormat", "MemoryFormat"},
    {TypeKind::Device, "Device", "Device"},
    {TypeKind::Generator, "Generator", "Generator"},
    {TypeKind::Dimname, "Dimname", "str"},
    {TypeKind::Storage, "Storage", "Storage"},
    {TypeKind::Stream, "Stream", "Stream"},
    {TypeKind::QScheme, "QScheme", "QScheme"},
    {TypeKind::Any, "Any", "Any"},
    {TypeKind::None, "NoneType", "NoneType"},
    {TypeKind::AnyClassType, "AnyClassType", "AnyClassType"},
    {TypeKind::AnyEnumType, "AnyEnumType", "AnyEnumType"},
    {TypeKind::Capsule, "Capsule", "Capsule"},
    {TypeKind::PyObject, "PyObject", "PyObject"},
}};

/// The spelling of a TorchScript container kind.
static const char *containerName(TypeKind kind) {
  switch (kind) {
  case TypeKind::Dict: return "Dict";
  case TypeKind::Union: return "Union";
  case TypeKind::Future: return "Future";
  case TypeKind::RRef: return "RRef";
  case TypeKind::Await: return "Await";
  default: return nullptr;
  }
}

std::optional<TypeKind> opal::lookupContainerType(std::string_view name) {
  for (TypeKind kind : {TypeKind::Dict, TypeKind::Union, TypeKind::Future,
                        TypeKind::RRef, TypeKind::Await})
    if (name == containerName(kind))
      return kind;
  return std::nullopt;
}

const char *opal::baseTypeName(TypeKind kind) {
  assert(static_cast<size_t>(kind) < kBaseTypes.size() && "not a base type");
  return kBaseTypes[static_cast<size_t>(kind)].name;
}

std::optional<TypeKind> opal::lookupBaseType(std::string_view name) {
  for (const BaseTypeInfo &info : kBaseTypes)
    if (name == info.name)
      return info.kind;
  if (name == "None")
    return TypeKind::None;
  return std::nullopt;
}

std::vector<std::string_view> opal::allBaseTypeNames() {
  std::vector<std::string_view> names;
  for (const BaseTypeInfo &info : kBaseTypes)
    names.push_back(info.name);
  return names;
}

TypePtr SchemaType::get(TypeKind baseKind) {
  assert(static_cast<size_t>(baseKind) < kBaseTypes.size() &&
         "not a base type");
  // One immortal instance per base type.
  static const std::array<TypePtr, kBaseTypes.size()> instances = [] {
    std::array<TypePtr, kBaseTypes.size()> result;
    for (size_t i = 0; i < kBaseTypes.size(); ++i)
      result[i] = TypePtr(new SchemaType(kBaseTypes[i].kind));
    return result;
  }();
  return instances[static_cast<size_t>(baseKind)];
}

TypePtr SchemaType::optional(TypePtr element) {
  auto type = std::shared_ptr<SchemaType>(new SchemaType(TypeKind::Optional));
  type->contained_.push_back(std::move(element));
  return type;
}

TypePtr SchemaType::list(TypePtr element, std::optional<int64_t> size) {
  auto type = std::shared_ptr<SchemaType>(new SchemaType(TypeKind::List));
  type->contained_.push_back(std::move(element));
  type->size_ = size;
  return type;
}

TypePtr SchemaType::tuple(std::vector<TypePtr> elements) {
  auto type = std::shared_ptr<SchemaType>(new SchemaType(TypeKind::Tuple));
  type->contained_ = std::move(elements);
  return type;
}

TypePtr SchemaType::dict(TypePtr key, TypePtr value) {
  return container(TypeKind::Dict, {std::move(key), std::move(value)});
}

TypePtr SchemaType::container(TypeKind kind, std::vector<TypePtr> elements) {
  assert(containerName(kind) && "not a container kind");
  auto type = std::shared_ptr<SchemaType>(new SchemaType(kind));
  type->contained_ = std::move(elements);
  return type;
}

TypePtr SchemaType::named(TypeKind kind, std::string name) {
  assert((kind == TypeKind::TypeVar || kind == TypeKind::Class) &&
         "not a named type kind");
  auto type = std::shared_ptr<SchemaType>(new SchemaType(kind));
  type->name_ = std::move(name);
  return type;
}

TypePtr SchemaType::withAlias(AliasInfo alias) const {
  auto type = std::shared_ptr<SchemaType>(new SchemaType(*this));
  type->alias_ = std::move(alias);
  return type;
}

TypePtr SchemaType::withoutAlias() const {
  if (isBase())
    return get(kind_);
  auto type = std::shared_ptr<SchemaType>(new SchemaType(*this));
  type->alias_.reset();
  for (TypePtr &element : type->contained_)
    element = element->withoutAlias();
  return type;
}

static std::string joinTypes(const std::vector<TypePtr> &types,
                             std::string (SchemaType::*print)() const) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i)
      out += ", ";
    out += ((*types[i]).*print)();
  }
  return out;
}

std::string SchemaType::str() const {
  std::string out;
  switch (kind_) {
  case TypeKind::Optional:
    // The annotation of an optional value sits before the `?`.
    return element()->str() + "?";
  case TypeKind::List:
    out = element()->str() + "[";
    if (size_)
      out += std::to_string(*size_);
    out += "]";
    break;
  case TypeKind::Tuple:
    out = "(" + joinTypes(contained_, &SchemaType::str) + ")";
    break;
  case TypeKind::Dict:
  case TypeKind::Union:
  case TypeKind::Future:
  case TypeKind::RRef:
  case TypeKind::Await:
    out = std::string(containerName(kind_)) + "(" +
          joinTypes(contained_, &SchemaType::str) + ")";
    break;
  case TypeKind::TypeVar:
  case TypeKind::Class:
    out = name_;
    break;
  default:
    out = baseTypeName(kind_);
    break;
  }
  if (alias_)
    out += alias_->str();
  return out;
}

std::string SchemaType::pythonStr() const {
  switch (kind_) {
  case TypeKind::Optional:
    return "Optional[" + element()->pythonStr() + "]";
  case TypeKind::List:
    return "List[" + element()->pythonStr() + "]";
  case TypeKind::Tuple:
    return "Tuple[" + joinTypes(contained_, &SchemaType::pythonStr) + "]";
  case TypeKind::Dict:
  case TypeKind::Union:
  case TypeKind::Future:
  case TypeKind::RRef:
  case TypeKind::Await:
    return std::string(containerName(kind_)) + "[" +
           joinTypes(contained_, &SchemaType::pythonStr) + "]";
  case TypeKind::TypeVar:
  case TypeKind::Class:
    return name_;
  default:
    return kBaseTypes[static_cast<size_t>(kind_)].pythonName;
  }
}

TypePtr SchemaType::fakeType() const {
  switch (kind_) {
  case TypeKind::SymInt:
  case TypeKind::ScalarType:
  case TypeKind::Layout:
  case TypeKind::MemoryFormat:
    return get(TypeKind::Int);
  case TypeKind::SymFloat:
    return get(TypeKind::Float);
  case TypeKind::SymBool:
    return get(TypeKind::Bool);
  default:
    break;
  }
  if (isBase())
    return get(kind_);
  auto type = std::shared_ptr<SchemaType>(new SchemaType(*this));
  for (TypePtr &element : type->contained_)
    element = element->fakeType();
  return type;
}

bool SchemaType::isTensorLike() const {
  const SchemaType *type = this;
  if (type->isList())
    type = type->element().get();
  if (type->isOptional())
    type = type->element().get();
  return type->kind_ == TypeKind::Tensor;
}

bool SchemaType::operator==(const SchemaType &other) const {
  if (kind_ != other.kind_ || size_ != other.size_ || alias_ != other.alias_ ||
      name_ != other.name_ ||
      contained_.size() != other.contained_.size())
    return false;
  for (size_t i = 0; i < contained_.size(); ++i)
    if (*contained_[i] != *other.contained_[i])
      return false;
  return true;
}
