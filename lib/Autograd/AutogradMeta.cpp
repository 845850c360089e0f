//===- AutogradMeta.cpp - A tensor's part in autograd ---------------------===//

#include "opal/Autograd/AutogradMeta.h"

#include <algorithm>

#include "opal/Autograd/Functions.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::autograd;

AutogradMeta *autograd::autogradMeta(const Tensor &tensor) {
  if (!tensor.defined())
    return nullptr;
  return static_cast<AutogradMeta *>(tensor.impl()->autogradMeta());
}

AutogradMeta &autograd::materializeAutogradMeta(const Tensor &tensor) {
  if (!tensor.defined())
    throw OpalError("autograd: an undefined tensor has no autograd state");
  if (AutogradMeta *meta = autogradMeta(tensor))
    return *meta;
  auto meta = std::make_unique<AutogradMeta>();
  AutogradMeta &result = *meta;
  tensor.impl()->setAutogradMeta(std::move(meta));
  return result;
}

namespace {

/// A stale view's history rebuilt: the base's current history, viewed.
void refreshViewHistory(const Tensor &view, AutogradMeta &meta) {
  if (!meta.viewBase.defined() || meta.viewVersion == view.version())
    return;
  meta.viewVersion = view.version();
  if (!requiresGrad(meta.viewBase))
    return;
  auto node = std::make_shared<ViewOfBaseBackward>(meta.viewBase, view);
  node->addNextEdge(gradientEdge(meta.viewBase));
  meta.gradFn = std::move(node);
  meta.outputNr = meta.gradFn->addInput(view);
  meta.requiresGrad = false;
  if (meta.hooks)
    meta.gradFn->gradHooks.emplace_back(meta.outputNr, meta.hooks);
  if (meta.retained)
    meta.gradFn->retainedGrads.emplace_back(meta.outputNr, meta.retained);
}

} // namespace

const std::shared_ptr<Node> &autograd::gradFn(const Tensor &tensor) {
  static const std::shared_ptr<Node> none;
  AutogradMeta *meta = autogradMeta(tensor);
  if (!meta)
    return none;
  refreshViewHistory(tensor, *meta);
  return meta->gradFn;
}

void autograd::setViewBase(const Tensor &view, const Tensor &input) {
  const Tensor &base = viewBaseOf(input);
  AutogradMeta &meta = materializeAutogradMeta(view);
  meta.isView = true;
  meta.viewBase = base.defined() ? base : input;
  meta.viewVersion = view.version();
}

const Tensor &autograd::viewBaseOf(const Tensor &tensor) {
  static const Tensor none;
  AutogradMeta *meta = autogradMeta(tensor);
  return meta ? meta->viewBase : none;
}

void autograd::setRequiresGrad(const Tensor &tensor, bool requiresGrad) {
  if (!isLeaf(tensor))
    throw OpalError("you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().");
  if (requiresGrad && !isFloatingType(tensor.dtype()) && !isComplexType(tensor.dtype()))
    throw OpalError("only Tensors of floating point dtype can require gradients");
  if (!requiresGrad && !autogradMeta(tensor))
    return;
  materializeAutogradMeta(tensor).requiresGrad = requiresGrad;
}

Edge autograd::gradientEdge(const Tensor &tensor) {
  AutogradMeta *meta = autogradMeta(tensor);
  if (!meta)
    return {};
  refreshViewHistory(tensor, *meta);
  if (meta->gradFn)
    return {meta->gradFn, meta->outputNr};
  if (!meta->requiresGrad)
    return {};
  std::shared_ptr<Node> accumulator = meta->gradAccumulator.lock();
  if (!accumulator) {
    accumulator = std::make_shared<AccumulateGrad>(tensor);
    meta->gradAccumulator = accumulator;
  }
  return {accumulator, 0};
}

void autograd::retainGrad(const Tensor &tensor) {
  AutogradMeta *meta = autogradMeta(tensor);
  if (!meta || !meta->gradFn) {
    if (!requiresGrad(tensor))
      throw OpalError("can't retain_grad on Tensor that has requires_grad=False");
    return; // a leaf keeps its .grad anyway
  }
  if (meta->retained)
    return;
  meta->retained = std::make_shared<RetainedGrad>();
  meta->gradFn->retainedGrads.emplace_back(meta->outputNr, meta->retained);
}

int64_t autograd::registerHook(const Tensor &tensor, GradHook hook) {
  if (!requiresGrad(tensor))
    throw OpalError("cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta &meta = materializeAutogradMeta(tensor);
  if (!meta.hooks) {
    meta.hooks = std::make_shared<GradHooks>();
    if (meta.gradFn)
      meta.gradFn->gradHooks.emplace_back(meta.outputNr, meta.hooks);
  }
  int64_t id = meta.hooks->nextId++;
  meta.hooks->hooks.emplace_back(id, std::move(hook));
  return id;
}

void autograd::removeHook(const Tensor &tensor, int64_t id) {
  AutogradMeta *meta = autogradMeta(tensor);
  if (!meta || !meta->hooks)
    return;
  auto &hooks = meta->hooks->hooks;
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(),
                             [id](const auto &entry) { return entry.first == id; }),
              hooks.end());
}

Tensor autograd::gradOf(const Tensor &tensor) {
  AutogradMeta *meta = autogradMeta(tensor);
  if (!meta)
    return Tensor();
  if (meta->gradFn)
    return meta->retained ? meta->retained->grad : Tensor();
  return meta->grad;
}

void autograd::setGrad(const Tensor &tensor, Tensor grad) {
  AutogradMeta &meta = materializeAutogradMeta(tensor);
  if (meta.gradFn && meta.retained)
    meta.retained->grad = std::move(grad);
  else
    meta.grad = std::move(grad);
}

void autograd::setHistory(const Tensor &tensor, std::shared_ptr<Node> fn, uint32_t outputNr) {
  AutogradMeta &meta = materializeAutogradMeta(tensor);
  meta.gradFn = std::move(fn);
  meta.outputNr = outputNr;
  meta.requiresGrad = false;
  meta.viewVersion = tensor.version();
}

Tensor autograd::detach(const Tensor &tensor) {
  return tensor.asStrided(DimVector(tensor.sizes()),
                          DimVector(tensor.strides()),
                          tensor.storageOffset());
}

bool autograd::anyRequiresGrad(const IValue &value) {
  if (value.isTensor())
    return requiresGrad(value.toTensorImpl());
  if (value.isTensorList())
    for (const Tensor &t : value.toTensorList())
      if (requiresGrad(t))
        return true;
  if (value.isOptionalTensorList())
    for (const auto &t : value.toOptionalTensorList())
      if (t && requiresGrad(*t))
        return true;
  return false;
}

bool autograd::recordsCall(const FunctionSchema &schema, const IValue *args) {
  if (!GradMode::isEnabled())
    return false;
  for (size_t i = 0; i < schema.arguments().size(); ++i)
    if (anyRequiresGrad(args[i]))
      return true;
  return false;
}

std::string autograd::typeDescription(const Tensor &tensor) {
  return std::string("[opal.") + scalarTypeCppName(tensor.dtype()) + "Tensor " +
         sizesText(tensor.sizes()) + "]";
}
