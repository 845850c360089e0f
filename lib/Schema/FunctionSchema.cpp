//===- FunctionSchema.cpp - Operator schemas ------------------------------===//

#include "opal/Schema/FunctionSchema.h"

using namespace opal;

//===----------------------------------------------------------------------===//
// OperatorName
//===----------------------------------------------------------------------===//

std::string_view OperatorName::ns() const {
  size_t pos = name.find("::");
  if (pos == std::string::npos)
    return {};
  return std::string_view(name).substr(0, pos);
}

std::string_view OperatorName::baseName() const {
  size_t pos = name.find("::");
  if (pos == std::string::npos)
    return name;
  return std::string_view(name).substr(pos + 2);
}

std::string OperatorName::str() const {
  if (overloadName.empty())
    return name;
  return name + "." + overloadName;
}

//===----------------------------------------------------------------------===//
// Argument
//===----------------------------------------------------------------------===//

const AliasInfo *Argument::aliasInfo() const {
  const SchemaType *type = type_.get();
  if (type->isOptional())
    type = type->element().get();
  if (type->aliasInfo())
    return &*type->aliasInfo();
  if (type->isList()) {
    const SchemaType *element = type->element().get();
    if (element->isOptional())
      element = element->element().get();
    if (element->aliasInfo())
      return &*element->aliasInfo();
  }
  return nullptr;
}

bool Argument::isWrite() const {
  const AliasInfo *info = aliasInfo();
  return info && info->isWrite();
}

std::optional<int64_t> Argument::fixedSize() const {
  const SchemaType *type = type_.get();
  if (type->isOptional())
    type = type->element().get();
  if (type->isList())
    return type->fixedSize();
  return std::nullopt;
}

/// True if a default prints as one value, as PyTorch 2 prints it: a list
/// of `int` (not SymInt, which prints as the list) with two or more
/// elements, all the same (`int[2] stride=1`), where that reads back as the
/// same list: on a sized list of that size. (PyTorch also collapses
/// `int[] x=[1, 1]` to `x=1`, which its own parser refuses; no schema it
/// registers has one.)
static bool printsAsOneValue(const Argument &argument, const DefaultValue &value) {
  const SchemaType &type = *argument.type();
  const SchemaType *list = type.isOptional() ? type.element().get() : &type;
  if (!list->isList() || list->element()->str() != "int" ||
      value.kind() != DefaultValue::Kind::IntList)
    return false;
  const std::vector<int64_t> &values = value.toIntList();
  std::optional<int64_t> size = argument.fixedSize();
  if (values.size() < 2 || !size || static_cast<int64_t>(values.size()) != *size)
    return false;
  for (int64_t v : values)
    if (v != values.front())
      return false;
  return true;
}

std::string Argument::str() const {
  std::string out = type_->str();
  if (!name_.empty())
    out += " " + name_;
  if (defaultValue_) {
    out += "=";
    if (printsAsOneValue(*this, *defaultValue_))
      out += std::to_string(defaultValue_->toIntList().front());
    else
      out += defaultValue_->str();
  }
  return out;
}

bool Argument::operator==(const Argument &other) const {
  return name_ == other.name_ && *type_ == *other.type_ &&
         defaultValue_ == other.defaultValue_ &&
         kwargOnly_ == other.kwargOnly_;
}

//===----------------------------------------------------------------------===//
// FunctionSchema
//===----------------------------------------------------------------------===//

bool FunctionSchema::isMutable() const {
  for (const Argument &argument : arguments_)
    if (argument.isWrite())
      return true;
  return false;
}

std::optional<size_t>
FunctionSchema::argumentIndex(std::string_view name) const {
  for (size_t i = 0; i < arguments_.size(); ++i)
    if (arguments_[i].name() == name)
      return i;
  return std::nullopt;
}

FunctionSchema FunctionSchema::withName(OperatorName name) const {
  FunctionSchema copy = *this;
  copy.name_ = std::move(name);
  return copy;
}

std::string FunctionSchema::str() const {
  std::string out = name_.str();
  out += "(";
  bool seenKwargOnly = false;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    if (i)
      out += ", ";
    if (arguments_[i].kwargOnly() && !seenKwargOnly) {
      out += "*, ";
      seenKwargOnly = true;
    }
    out += arguments_[i].str();
  }
  if (isVararg_)
    out += arguments_.empty() ? "..." : ", ...";
  out += ") -> ";

  // One return prints bare, unless its text itself starts with '(' (a tuple
  // type); `...` alone prints bare too.
  bool parenthesize = !((returns_.size() == 1 && !isVarret_) ||
                        (returns_.empty() && isVarret_));
  if (returns_.size() == 1 && !isVarret_ &&
      returns_.front().type()->str().front() == '(')
    parenthesize = true; // a lone tuple-typed return: `-> ((int, t)[])`
  if (parenthesize)
    out += "(";
  for (size_t i = 0; i < returns_.size(); ++i) {
    if (i)
      out += ", ";
    out += returns_[i].str();
  }
  if (isVarret_)
    out += returns_.empty() ? "..." : ", ...";
  if (parenthesize)
    out += ")";
  return out;
}

bool FunctionSchema::operator==(const FunctionSchema &other) const {
  return name_ == other.name_ && arguments_ == other.arguments_ &&
         returns_ == other.returns_ && isVararg_ == other.isVararg_ &&
         isVarret_ == other.isVarret_;
}

std::string opal::duplicateDefinitionMessage(const FunctionSchema &schema,
                                             const std::string &duplicate,
                                             const std::string &original) {
  return "Tried to register an operator (" + schema.str() +
         ") with the same name and overload name multiple times. Each overload's schema "
         "should only be registered with a single call to def(). Duplicate registration: " +
         duplicate + ". Original registration: " + original;
}
