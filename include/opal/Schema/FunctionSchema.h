//===- FunctionSchema.h - Operator schemas ----------------------*- C++ -*-===//
//
// A parsed operator schema, `ns::name.overload(args) -> returns`, with
// PyTorch's canonical printing.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SCHEMA_FUNCTIONSCHEMA_H
#define OPAL_SCHEMA_FUNCTIONSCHEMA_H

#include "opal/Schema/DefaultValue.h"
#include "opal/Schema/SchemaType.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opal {

/// `ns::name.overload`. The overload is empty for the default overload.
struct OperatorName {
  std::string name; // qualified, "ns::name", or unqualified as written
  std::string overloadName;

  /// The namespace, or "" if the name is unqualified.
  std::string_view ns() const;
  /// The name without namespace.
  std::string_view baseName() const;
  /// `ns::name` or `ns::name.overload`.
  std::string str() const;

  bool operator==(const OperatorName &other) const {
    return name == other.name && overloadName == other.overloadName;
  }
  bool operator!=(const OperatorName &other) const { return !(*this == other); }
};

/// One argument or return of a schema.
class Argument {
public:
  Argument(std::string name, TypePtr type)
      : name_(std::move(name)), type_(std::move(type)) {}
  Argument(std::string name, TypePtr type, std::optional<DefaultValue> defaultValue,
           bool kwargOnly = false)
      : name_(std::move(name)), type_(std::move(type)),
        defaultValue_(std::move(defaultValue)), kwargOnly_(kwargOnly) {}

  const std::string &name() const { return name_; }
  const TypePtr &type() const { return type_; }
  const std::optional<DefaultValue> &defaultValue() const {
    return defaultValue_;
  }
  bool kwargOnly() const { return kwargOnly_; }

  /// The argument's alias annotation: the one on its (non-optional) type, or,
  /// for a list, the one on its elements (`Tensor(a!)[]`). Null if none.
  const AliasInfo *aliasInfo() const;
  /// True if the argument is annotated as written (`!`).
  bool isWrite() const;
  /// PyTorch's `is_out`: a kwarg-only argument that is written.
  bool isOut() const { return kwargOnly_ && isWrite(); }
  /// The `N` of `int[N]`, if given.
  std::optional<int64_t> fixedSize() const;

  /// The argument as written in a canonical schema: `Tensor(a!)? x=None`.
  std::string str() const;

  bool operator==(const Argument &other) const;
  bool operator!=(const Argument &other) const { return !(*this == other); }

private:
  std::string name_;
  TypePtr type_;
  std::optional<DefaultValue> defaultValue_;
  bool kwargOnly_ = false;
};

class FunctionSchema {
public:
  FunctionSchema(OperatorName name, std::vector<Argument> arguments,
                 std::vector<Argument> returns, bool isVararg = false,
                 bool isVarret = false)
      : name_(std::move(name)), arguments_(std::move(arguments)),
        returns_(std::move(returns)), isVararg_(isVararg),
        isVarret_(isVarret) {}

  const OperatorName &operatorName() const { return name_; }
  /// The name as written, `ns::name` (no overload).
  const std::string &name() const { return name_.name; }
  const std::string &overloadName() const { return name_.overloadName; }
  std::string_view ns() const { return name_.ns(); }
  std::string_view baseName() const { return name_.baseName(); }

  const std::vector<Argument> &arguments() const { return arguments_; }
  const std::vector<Argument> &returns() const { return returns_; }
  bool isVararg() const { return isVararg_; }
  bool isVarret() const { return isVarret_; }

  /// True if any argument is written (`!`).
  bool isMutable() const;
  /// The position of the argument called `name`, if there is one.
  std::optional<size_t> argumentIndex(std::string_view name) const;

  /// A copy with another name (used when a library prefixes its namespace).
  FunctionSchema withName(OperatorName name) const;

  /// PyTorch's canonical text of the schema.
  std::string str() const;

  bool operator==(const FunctionSchema &other) const;
  bool operator!=(const FunctionSchema &other) const {
    return !(*this == other);
  }

private:
  OperatorName name_;
  std::vector<Argument> arguments_;
  std::vector<Argument> returns_;
  bool isVararg_;
  bool isVarret_;
};

/// The error every tool gives for a second definition of an op (PyTorch's
/// words): `duplicate` and `original` say where each came from.
std::string duplicateDefinitionMessage(const FunctionSchema &schema,
                                       const std::string &duplicate,
                                       const std::string &original);

} // namespace opal

#endif // OPAL_SCHEMA_FUNCTIONSCHEMA_H
