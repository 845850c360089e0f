//===- Formula.cpp - Derivative formulas as ops ---------------------------===//

#include "opal/Autograd/Formula.h"

#include <cctype>

using namespace opal;
using namespace opal::autograd;

std::string autograd::nodeNameFor(const OperatorName &op) {
  std::string name;
  auto camel = [&](std::string_view text) {
    bool upper = true;
    for (char c : text) {
      if (c == '_') {
        upper = true;
        continue;
      }
      name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
  };
  if (op.ns() != "aten")
    camel(op.ns());
  camel(op.baseName());
  return name + "Backward0";
}

namespace {

std::optional<OperatorHandle> findOp(const std::string &ns, std::string_view base,
                                     const std::string &overload) {
  return Dispatcher::singleton().findSchema(
      OperatorName{ns + "::" + std::string(base), overload});
}

/// Binds the arguments of formula op `op` to the forward op's values.
Expected<FormulaOp> bind(const OperatorHandle &op, const FunctionSchema &forward,
                         Formula &formula) {
  const FunctionSchema &schema = op.schema();
  const auto &arguments = forward.arguments();
  const auto &results = forward.returns();
  auto fail = [&](const std::string &what) {
    return makeUnexpected(Error("the derivative " + schema.operatorName().str() + " of " +
                                forward.operatorName().str() + ": " + what));
  };
  auto resultNamed = [&](std::string_view name, std::string_view prefix,
                         const std::string &single) -> std::optional<uint32_t> {
    if (results.size() == 1 && name == single)
      return 0;
    for (uint32_t i = 0; i < results.size(); ++i) {
      if (!results[i].name().empty() && name == std::string(prefix) + results[i].name())
        return i;
      if (name == single + std::to_string(i))
        return i;
    }
    return std::nullopt;
  };
  FormulaOp bound{op, {}, {}};
  for (const Argument &argument : schema.arguments()) {
    const std::string &name = argument.name();
    if (auto r = resultNamed(name, "grad_", "grad")) {
      bound.arguments.push_back({FormulaBinding::Grad, *r});
      continue;
    }
    if (auto r = resultNamed(name, "", "result")) {
      bound.arguments.push_back({FormulaBinding::Result, *r});
      formula.savesResult[*r] = true;
      continue;
    }
    bool found = false;
    for (uint32_t i = 0; i < arguments.size() && !found; ++i)
      if (arguments[i].name() == name) {
        bound.arguments.push_back({FormulaBinding::Argument, i});
        formula.savesArgument[i] = true;
        found = true;
      }
    if (!found)
      return fail("its argument `" + name +
                  "` names neither grad, a result nor an argument of the op");
  }
  return bound;
}

} // namespace

bool autograd::isSingleTensor(const SchemaType &type) {
  return type.kind() == TypeKind::Tensor ||
         (type.isOptional() && type.element()->kind() == TypeKind::Tensor);
}

bool autograd::isTensorList(const SchemaType &type) {
  return type.isList() && type.element()->kind() == TypeKind::Tensor;
}

namespace {

bool isDifferentiable(const SchemaType &type) { return isSingleTensor(type) || isTensorList(type); }

std::optional<uint32_t> tensorArgumentNamed(const FunctionSchema &forward, std::string_view name) {
  const auto &arguments = forward.arguments();
  for (uint32_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name() == name && isDifferentiable(*arguments[i].type()))
      return i;
  return std::nullopt;
}

} // namespace

Expected<std::optional<Formula>> autograd::findFormula(const OperatorHandle &forwardOp) {
  const FunctionSchema &forward = forwardOp.schema();
  const OperatorName &name = forward.operatorName();
  std::string ns = std::string(name.ns()) + "_backward";
  Formula formula;
  formula.nodeName = nodeNameFor(name);
  formula.savesArgument.assign(forward.arguments().size(), false);
  formula.savesResult.assign(forward.returns().size(), false);
  formula.differentiable.assign(forward.arguments().size(), false);
  auto fail = [&](const OperatorHandle &op, const std::string &what) {
    return makeUnexpected(Error("the derivative " + op.schema().operatorName().str() + " of " +
                                name.str() + ": " + what));
  };

  if (auto joint = findOp(ns, name.baseName(), name.overloadName)) {
    auto bound = bind(*joint, forward, formula);
    if (!bound)
      return makeUnexpected(bound.error());
    for (const Argument &result : joint->schema().returns()) {
      auto input = tensorArgumentNamed(forward, result.name());
      if (!input)
        return fail(*joint, "its result `" + result.name() +
                                "` must be named after a Tensor argument of the op");
      bound->gradientOf.push_back(*input);
      formula.differentiable[*input] = true;
    }
    formula.joint = true;
    formula.ops.push_back(std::move(*bound));
    return std::optional<Formula>(std::move(formula));
  }

  const auto &arguments = forward.arguments();
  for (uint32_t i = 0; i < arguments.size(); ++i) {
    if (!isDifferentiable(*arguments[i].type()))
      continue;
    std::string overload = name.overloadName.empty()
                               ? arguments[i].name()
                               : name.overloadName + "_" + arguments[i].name();
    auto op = findOp(ns, name.baseName(), overload);
    if (!op)
      continue;
    if (op->schema().returns().size() != 1)
      return fail(*op, "a derivative for one input returns one tensor");
    auto bound = bind(*op, forward, formula);
    if (!bound)
      return makeUnexpected(bound.error());
    bound->gradientOf.push_back(i);
    formula.differentiable[i] = true;
    formula.ops.push_back(std::move(*bound));
  }
  if (formula.ops.empty())
    return std::optional<Formula>();
  return std::optional<Formula>(std::move(formula));
}
