//===- Node.cpp - A function of the backward graph ------------------------===//

#include "opal/Autograd/Node.h"

#include "AtenCalls.h"

#include "opal/Support/Exceptions.h"

#include <atomic>

using namespace opal;
using namespace opal::autograd;

namespace {
std::atomic<uint64_t> nextSequenceNr{0};
} // namespace

Node::Node() : sequenceNr_(nextSequenceNr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() {
  // The derived node's saved tensors are gone by now; the edges are what
  // keeps the rest of the graph alive. Their nodes are handed to the
  // outermost ~Node on this thread, which frees them one by one: each
  // hands its own edges over in turn instead of freeing them inside it.
  thread_local std::vector<std::shared_ptr<Node>> pending;
  thread_local bool draining = false;
  for (Edge &edge : next_)
    if (edge.function)
      pending.push_back(std::move(edge.function));
  next_.clear();
  if (draining)
    return;
  draining = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> node = std::move(pending.back());
    pending.pop_back();
    node.reset(); // may push more
  }
  draining = false;
}

Tensor GradHooks::run(Tensor grad) const {
  // (A copy: a hook may register or remove hooks.)
  auto current = hooks;
  for (const auto &[id, hook] : current) {
    Tensor replaced = hook(grad);
    if (!replaced.defined())
      continue;
    if (!(replaced.sizes() == grad.sizes()))
      throw OpalError("hook 'hook' has changed the size of value");
    grad = std::move(replaced);
  }
  return grad;
}

uint32_t Node::addInput(const Tensor &output) {
  inputs_.push_back(InputMetadata{DimVector(output.sizes()),
                                  output.dtype(), output.device()});
  return static_cast<uint32_t>(inputs_.size() - 1);
}

Tensor autograd::fitGradient(Tensor grad, const InputMetadata &metadata, const Node &producer,
                             uint32_t outputIndex) {
  IntArrayRef have = grad.sizes();
  IntArrayRef want = metadata.sizes;
  if (!(have == want)) {
    // The forward broadcast `want` to `have`: sum the leading dims it
    // added and the size-1 dims it stretched.
    bool expandable = want.size() <= have.size();
    std::vector<int64_t> lead, stretched;
    size_t extra = have.size() - std::min(have.size(), want.size());
    for (size_t d = 0; expandable && d < have.size(); ++d) {
      if (d < extra) {
        lead.push_back(static_cast<int64_t>(d));
        continue;
      }
      int64_t w = want[d - extra];
      if (w == have[d])
        continue;
      if (w == 1)
        stretched.push_back(static_cast<int64_t>(d));
      else
        expandable = false;
    }
    if (!expandable)
      throw OpalError("Function " + producer.name() + " returned an invalid gradient at index " +
                      std::to_string(outputIndex) + " - got " + sizesText(have) +
                      " but expected shape compatible with " + sizesText(want));
    if (!stretched.empty())
      grad = autograd::detail::sum(grad, stretched, /*keepdim=*/true);
    if (!lead.empty())
      grad = autograd::detail::sum(grad, lead, /*keepdim=*/false);
  }
  if (grad.dtype() != metadata.dtype)
    grad = grad.to(metadata.dtype);
  return grad;
}
