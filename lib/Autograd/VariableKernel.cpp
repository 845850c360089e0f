//===- VariableKernel.cpp - The kernels at the Autograd keys --------------===//

#include "opal/Autograd/VariableKernel.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Autograd/Functions.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Dispatch/Dispatcher.h"

#include <algorithm>

using namespace opal;
using namespace opal::autograd;

namespace {

class VariableKernel : public OperatorKernel {
public:
  VariableKernel(const FunctionSchema &schema, std::shared_ptr<const Formula> formula,
                 KernelFunction composite)
      : formula(std::move(formula)), composite(std::move(composite)), numArguments(schema.arguments().size()),
        opName(schema.operatorName().ns() == "aten"
                   ? std::string(schema.operatorName().baseName())
                   : schema.operatorName().str()) {
    const auto &arguments = schema.arguments();
    for (uint32_t i = 0; i < arguments.size(); ++i) {
      if (isSingleTensor(*arguments[i].type()))
        tensorArguments.push_back(i);
      else if (arguments[i].type()->isTensorLike())
        listArguments.push_back(i);
    }
    for (const Argument &result : schema.returns())
      resultIsView.push_back(result.aliasInfo() && !result.isWrite());
    if (std::find(resultIsView.begin(), resultIsView.end(), true) != resultIsView.end() &&
        !tensorArguments.empty())
      viewSource = static_cast<int32_t>(tensorArguments.front());
  }

  static void call(OperatorKernel *functor, const OperatorHandle &op, DispatchKeySet keys,
                   Stack *stack);
  /// Whether a call with `args` records (grad mode on, an input requiring
  /// grad).
  bool records(const IValue *args) const {
    if (!GradMode::isEnabled())
      return false;
    for (uint32_t i : tensorArguments)
      if (args[i].isTensor() && requiresGrad(args[i].toTensorImpl()))
        return true;
    for (uint32_t i : listArguments)
      if (anyRequiresGrad(args[i]))
        return true;
    return false;
  }
  void record(const OperatorHandle &op, DispatchKeySet below, Stack *stack) const;
  /// Records `viewed` as the base of the op's view results.
  void markViews(Stack *stack, const Tensor &viewed) const;

  std::shared_ptr<const Formula> formula;
  KernelFunction composite;
  size_t numArguments;
  std::string opName;
  std::vector<uint32_t> tensorArguments;
  std::vector<uint32_t> listArguments; ///< Tensor[] and Tensor?[]
  std::vector<bool> resultIsView;
  /// The argument a view op's results show (its first tensor), or -1.
  int32_t viewSource = -1;
};

/// The tensors of a Tensor[] or Tensor?[] argument that require grad.
std::vector<Tensor> listTensorsRequiringGrad(const IValue &value) {
  std::vector<Tensor> found;
  if (value.isTensorList()) {
    for (const Tensor &t : value.toTensorList())
      if (requiresGrad(t))
        found.push_back(t);
  } else if (value.isOptionalTensorList()) {
    for (const auto &t : value.toOptionalTensorList())
      if (t && requiresGrad(*t))
        found.push_back(*t);
  }
  return found;
}

const DispatchKeySet kAfterAutograd(DispatchKeySet::FULL_AFTER, DispatchKey::AutogradOther);

void VariableKernel::call(OperatorKernel *functor, const OperatorHandle &op, DispatchKeySet keys,
                          Stack *stack) {
  const auto &self = *static_cast<const VariableKernel *>(functor);
  const IValue *args = stack->data() + stack->size() - self.numArguments;
  bool record = self.records(args);
  DispatchKeySet below = keys & kAfterAutograd;
  if (record) {
    self.record(op, below, stack);
    return;
  }
  if (self.composite.isValid()) {
    self.composite.callBoxed(op, keys, stack);
    return;
  }
  // A view op's results remember their base in grad mode (a later write
  // into them under autograd rebases the base's history); an integer or
  // bool base can never have one.
  Tensor viewed;
  if (self.viewSource >= 0 && GradMode::isEnabled() && args[self.viewSource].isTensor()) {
    const Tensor &input = args[self.viewSource].toTensor();
    if (isFloatingType(input.dtype()) || isComplexType(input.dtype()))
      viewed = input;
  }
  {
    // As PyTorch's kernels do, calls the op's kernels make from here do
    // not come back to autograd.
    ExcludeDispatchKeyGuard guard(kAutogradDispatchKeySet);
    op.redispatchBoxed(below, stack);
  }
  if (viewed.defined())
    self.markViews(stack, viewed);
}

void VariableKernel::markViews(Stack *stack, const Tensor &viewed) const {
  IValue *results = stack->data() + stack->size() - resultIsView.size();
  for (size_t r = 0; r < resultIsView.size(); ++r) {
    if (!resultIsView[r])
      continue;
    if (results[r].isTensor()) {
      if (!results[r].toTensor().isSame(viewed))
        setViewBase(results[r].toTensor(), viewed);
    } else if (results[r].isTensorList()) {
      for (const Tensor &t : results[r].toTensorList())
        setViewBase(t, viewed);
    }
  }
}

void VariableKernel::record(const OperatorHandle &op, DispatchKeySet below, Stack *stack) const {
  const IValue *args = stack->data() + stack->size() - numArguments;
  // The formula covers every input that requires grad, or the op's
  // backward is the not-implemented node.
  bool covered = formula != nullptr;
  for (uint32_t i : listArguments)
    if (anyRequiresGrad(args[i]))
      covered = covered && formula->differentiable[i] && args[i].isTensorList();
  for (uint32_t i : tensorArguments)
    if (args[i].isTensor() && requiresGrad(args[i].toTensorImpl()))
      covered = covered && formula->differentiable[i];

  std::shared_ptr<Node> node;
  FormulaBackward *formulaNode = nullptr;
  if (covered) {
    std::vector<FormulaBackward::Edges> edges(numArguments);
    std::vector<Edge> next;
    for (uint32_t i = 0; i < numArguments; ++i) {
      if (!formula->differentiable[i])
        continue;
      edges[i].first = static_cast<int32_t>(next.size());
      if (args[i].isTensorList()) {
        for (const Tensor &t : args[i].toTensorList())
          next.push_back(gradientEdge(t));
      } else {
        next.push_back(args[i].isTensor() ? gradientEdge(args[i].toTensor()) : Edge{});
      }
      edges[i].count = static_cast<int32_t>(next.size()) - edges[i].first;
    }
    auto backward = std::make_shared<FormulaBackward>(formula, std::move(edges));
    for (Edge &edge : next)
      backward->addNextEdge(std::move(edge));
    backward->savedTensors.resize(numArguments);
    backward->savedValues.resize(numArguments);
    for (uint32_t i = 0; i < numArguments; ++i) {
      if (!formula->savesArgument[i])
        continue;
      if (args[i].isTensor())
        // A view's gradient reads only its input's geometry.
        backward->savedTensors[i] = SavedVariable(args[i].toTensor(), /*isOutput=*/false,
                                                  /*geometryOnly=*/viewSource >= 0);
      else
        backward->savedValues[i] = args[i];
    }
    formulaNode = backward.get();
    node = std::move(backward);
  } else {
    node = std::make_shared<NotImplementedBackward>(opName);
    for (uint32_t i : tensorArguments)
      if (args[i].isTensor() && requiresGrad(args[i].toTensorImpl()))
        node->addNextEdge(gradientEdge(args[i].toTensor()));
    for (uint32_t i : listArguments)
      for (const Tensor &t : listTensorsRequiringGrad(args[i]))
        node->addNextEdge(gradientEdge(t));
  }

  std::vector<const TensorImpl *> inputs;
  for (uint32_t i : tensorArguments)
    if (args[i].isTensor())
      inputs.push_back(args[i].toTensorImpl());
  Tensor viewed;
  if (viewSource >= 0 && args[viewSource].isTensor())
    viewed = args[viewSource].toTensor();
  {
    ExcludeDispatchKeyGuard guard(kAutogradDispatchKeySet);
    op.redispatchBoxed(below, stack);
  }

  if (formulaNode)
    for (SavedVariable &saved : formulaNode->savedTensors)
      saved.refreshVersion();
  size_t numResults = resultIsView.size();
  if (formulaNode) {
    formulaNode->savedResults.resize(numResults);
    formulaNode->resultListSizes.assign(numResults, -1);
  }
  IValue *results = stack->data() + stack->size() - numResults;
  // Makes `result` (element `element` of result `r`, or -1) an output of
  // the node; returns it (a new tensor over it when the kernel returned an
  // input itself: the input keeps its own history).
  auto track = [&](Tensor result, uint32_t r, int32_t element) {
    if (std::find(inputs.begin(), inputs.end(), result.impl()) != inputs.end())
      result = detach(result);
    if (!isFloatingType(result.dtype()) && !isComplexType(result.dtype()))
      return result;
    uint32_t input = node->addInput(result);
    if (formulaNode)
      formulaNode->resultOfInput.push_back({r, element});
    if (resultIsView[r]) {
      if (viewed.defined())
        setViewBase(result, viewed);
      else
        materializeAutogradMeta(result).isView = true;
    }
    setHistory(result, node, input);
    return result;
  };
  for (uint32_t r = 0; r < numResults; ++r) {
    if (results[r].isTensorList()) {
      std::vector<Tensor> list = results[r].toTensorList();
      if (formulaNode)
        formulaNode->resultListSizes[r] = static_cast<int32_t>(list.size());
      for (size_t e = 0; e < list.size(); ++e)
        list[e] = track(list[e], r, static_cast<int32_t>(e));
      results[r] = IValue(std::move(list));
      continue;
    }
    if (!results[r].isTensor())
      continue;
    Tensor result = track(results[r].toTensor(), r, -1);
    results[r] = IValue(result);
    if (formulaNode && formula->savesResult[r])
      formulaNode->savedResults[r] = SavedVariable(result, /*isOutput=*/true);
  }
}

} // namespace

KernelFunction autograd::makeVariableKernel(const OperatorHandle &op,
                                            std::shared_ptr<const Formula> formula,
                                            KernelFunction composite) {
  return KernelFunction::makeFromBoxedFunctor(
      IntrusivePtr<OperatorKernel>(
          new VariableKernel(op.schema(), std::move(formula), std::move(composite))),
      &VariableKernel::call);
}

std::optional<PassedKernel> autograd::passThrough(const KernelFunction &kernel,
                                                  const OperatorHandle &op, DispatchKeySet keys,
                                                  const IValue *args) {
  if (!kernel.isBoxedFunction(&VariableKernel::call))
    return std::nullopt;
  const auto &self = *static_cast<const VariableKernel *>(kernel.functor());
  if (self.records(args))
    return std::nullopt;
  if (self.composite.isValid())
    return PassedKernel{self.composite, keys};
  DispatchKeySet below = keys & kAfterAutograd;
  return PassedKernel{op.entry().lookup(below), below};
}
