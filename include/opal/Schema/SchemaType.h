//===- SchemaType.h - Types of schema arguments and returns -----*- C++ -*-===//
//
// The types of PyTorch's schema grammar: base types (`Tensor`, `int`,
// `Scalar`, ...), `T?`, `T[]` and `T[N]`, `Dict(K, V)` and tuples `(A, B)`.
// Types are immutable and shared; an alias annotation belongs to the type node
// it follows (`Tensor(a!)[]` is a list of annotated tensors).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SCHEMA_SCHEMATYPE_H
#define OPAL_SCHEMA_SCHEMATYPE_H

#include "opal/Schema/AliasInfo.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opal {

enum class TypeKind : uint8_t {
  // Base types.
  Tensor,
  Int,
  SymInt,
  Float,
  SymFloat,
  Bool,
  SymBool,
  Str,
  Complex,
  Scalar,
  ScalarType,
  Layout,
  MemoryFormat,
  Device,
  Generator,
  Dimname,
  Storage,
  Stream,
  QScheme,
  Any,
  None,
  AnyClassType,
  AnyEnumType,
  Capsule,
  PyObject,
  // Composite types.
  Optional,
  List,
  Tuple,
  Dict,
  Union,  // TorchScript-only containers, parsed for fidelity with PyTorch
  Future,
  RRef,
  Await,
  // Named types.
  TypeVar, // a lower-case identifier such as `t` (TorchScript builtins)
  Class,   // `__torch__.torch.classes.ns.Name`
};

/// The spelling of a base type in a schema (`Tensor`, `int`, ...).
const char *baseTypeName(TypeKind kind);
/// The base type spelled `name`, if there is one.
std::optional<TypeKind> lookupBaseType(std::string_view name);
/// The container kind spelled `name` (`Dict`, `Union`, `Future`, `RRef`,
/// `Await`), if there is one.
std::optional<TypeKind> lookupContainerType(std::string_view name);
/// Every base type name, in the order of TypeKind.
std::vector<std::string_view> allBaseTypeNames();

class SchemaType;
using TypePtr = std::shared_ptr<const SchemaType>;

class SchemaType {
public:
  /// The largest `N` of a sized list `T[N]`. A scalar default of a sized
  /// list stands for N copies (`int[2] stride=1` is [1, 1]), so the parser
  /// refuses larger sizes rather than build them (PyTorch's operators use
  /// sizes up to 6).
  static constexpr int64_t kMaxListSize = 1024;
  /// How deeply the parser lets types (tuples, containers, lists) and list
  /// defaults nest: deeper schemas are refused (PyTorch's nest at most 3).
  static constexpr int64_t kMaxNesting = 128;

  /// The shared instance of a base type, without annotation.
  static TypePtr get(TypeKind baseKind);
  static TypePtr optional(TypePtr element);
  static TypePtr list(TypePtr element, std::optional<int64_t> size = {});
  static TypePtr tuple(std::vector<TypePtr> elements);
  static TypePtr dict(TypePtr key, TypePtr value);
  /// Dict, Union, Future, RRef or Await of `elements`.
  static TypePtr container(TypeKind kind, std::vector<TypePtr> elements);
  /// A type variable (`t`) or a custom class (`__torch__.torch.classes.X`).
  static TypePtr named(TypeKind kind, std::string name);
  /// This type with `alias` attached to its outermost node.
  TypePtr withAlias(AliasInfo alias) const;
  /// This type without any alias annotation, at any depth.
  TypePtr withoutAlias() const;

  TypeKind kind() const { return kind_; }
  bool isBase() const { return kind_ < TypeKind::Optional; }
  bool isOptional() const { return kind_ == TypeKind::Optional; }
  bool isList() const { return kind_ == TypeKind::List; }

  /// The element of an Optional or a List.
  const TypePtr &element() const { return contained_.front(); }
  /// Tuple elements, Dict key and value, or the single element.
  const std::vector<TypePtr> &containedTypes() const { return contained_; }
  /// The `N` of `T[N]`.
  std::optional<int64_t> fixedSize() const { return size_; }
  const std::optional<AliasInfo> &aliasInfo() const { return alias_; }
  /// The name of a TypeVar or Class type.
  const std::string &name() const { return name_; }

  /// The type written in a schema: `Tensor(a!)?`, `int[2]`, `Dict(str, int)`.
  std::string str() const;
  /// The Python-typing spelling PyTorch uses in messages: `Optional[Tensor]`,
  /// `List[int]`, `number` for Scalar.
  std::string pythonStr() const;

  /// PyTorch's "fake" type: ScalarType, Layout, MemoryFormat and SymInt are
  /// ints at run time. Composite types are mapped element-wise.
  TypePtr fakeType() const;

  /// True for Tensor, Tensor?, Tensor[] and Tensor?[]: the argument types
  /// whose values contribute dispatch keys to a call.
  bool isTensorLike() const;

  /// Structural equality, annotations included.
  bool operator==(const SchemaType &other) const;
  bool operator!=(const SchemaType &other) const { return !(*this == other); }

private:
  explicit SchemaType(TypeKind kind) : kind_(kind) {}

  TypeKind kind_;
  std::vector<TypePtr> contained_;
  std::optional<int64_t> size_;
  std::optional<AliasInfo> alias_;
  std::string name_;
};

} // namespace opal

#endif // OPAL_SCHEMA_SCHEMATYPE_H
