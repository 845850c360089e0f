//===- InPlace.cpp - Whole-tensor writes under autograd -------------------===//

#include "opal/Autograd/InPlace.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Autograd/Functions.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::autograd;

namespace {

/// Whether `tensor` may cover only part of its storage (a view): writing
/// into it would change another tensor's value behind autograd's back.
bool mayBeView(const Tensor &tensor) {
  if (AutogradMeta *meta = autogradMeta(tensor); meta && meta->isView)
    return true;
  const Storage &storage = tensor.impl()->storage();
  return storage && (tensor.storageOffset() != 0 || !tensor.isContiguous() ||
                     static_cast<size_t>(tensor.numel()) * elementSize(tensor.dtype()) !=
                         storage->nbytes());
}

/// Checks a write into `self` and returns the node it records, if any.
std::shared_ptr<Node> prepareWrite(const Tensor &self, const Tensor *source, const char *op) {
  if (!GradMode::isEnabled())
    return nullptr;
  bool selfNeeds = requiresGrad(self);
  bool sourceNeeds = source && requiresGrad(*source);
  if (!selfNeeds && !sourceNeeds)
    return nullptr;
  if (selfNeeds && isLeaf(self))
    throw OpalError("a leaf Variable that requires grad is being used in an in-place operation.");
  if (mayBeView(self))
    throw OpalError(std::string(op) +
                    ": writing into a view of a tensor under autograd is not supported yet "
                    "(PyTorch rebases the base's history); compute the new value out of place "
                    "(e.g. with where or cat) or write under opal.no_grad()");
  auto node = std::make_shared<OverwriteBackward>(source ? "CopyBackwards" : "FillBackward0");
  node->addNextEdge(gradientEdge(self));
  if (source)
    node->addNextEdge(gradientEdge(*source));
  node->addInput(self);
  return node;
}

} // namespace

void autograd::copyInPlace(Tensor &self, const Tensor &source) {
  std::shared_ptr<Node> node = prepareWrite(self, &source, "copy_");
  self.copyFrom(source);
  if (node)
    setHistory(self, std::move(node), 0);
}

void autograd::fillInPlace(Tensor &self, double value) {
  std::shared_ptr<Node> node = prepareWrite(self, nullptr, "fill_");
  self.fill(value);
  if (node)
    setHistory(self, std::move(node), 0);
}
