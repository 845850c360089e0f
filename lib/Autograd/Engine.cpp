//===- Engine.cpp - Runs the backward graph -------------------------------===//

#include "opal/Autograd/Engine.h"

#include "AtenCalls.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Autograd/Functions.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Support/Exceptions.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

using namespace opal;
using namespace opal::autograd;

namespace {

/// The node the engine starts from: its edges lead to the roots' grad_fns
/// and it hands them the seed gradients.
class GraphRoot : public Node {
public:
  explicit GraphRoot(std::vector<Tensor> grads) : grads_(std::move(grads)) {}
  std::vector<Tensor> apply(std::vector<Tensor> &&) override { return std::move(grads_); }
  std::string name() const override { return "GraphRoot"; }

private:
  std::vector<Tensor> grads_;
};

/// A gradient grad() returns: the one flowing into input `inputNr` of `node`.
struct Capture {
  const Node *node;
  uint32_t inputNr;
};

std::string sizeText(const Tensor &t) { return "opal.Size(" + sizesText(t.sizes()) + ")"; }

/// The root node for `tensors` seeded with `grads` (PyTorch's checks).
std::shared_ptr<Node> makeRoot(const std::vector<Tensor> &tensors,
                               const std::vector<Tensor> &grads) {
  if (tensors.size() != grads.size())
    throw OpalError("got " + std::to_string(grads.size()) + " gradients for " +
                    std::to_string(tensors.size()) + " tensors");
  std::vector<Tensor> seeds;
  std::vector<Edge> edges;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor &t = tensors[i];
    Edge edge = gradientEdge(t);
    if (!edge.valid())
      throw OpalError("element " + std::to_string(i) +
                      " of tensors does not require grad and does not have a grad_fn");
    Tensor seed = grads[i];
    if (!seed.defined()) {
      if (t.numel() != 1)
        throw OpalError("grad can be implicitly created only for scalar outputs");
      seed = Tensor::empty(t.sizes(), t.dtype(), t.device());
      seed.fill(1.0);
    } else if (!(seed.sizes() == t.sizes())) {
      throw OpalError("Mismatch in shape: grad_output[" + std::to_string(i) +
                      "] has a shape of " + sizeText(seed) + " and output[" + std::to_string(i) +
                      "] has a shape of " + sizeText(t) + ".");
    }
    seeds.push_back(std::move(seed));
    edges.push_back(std::move(edge));
  }
  auto root = std::make_shared<GraphRoot>(std::move(seeds));
  for (Edge &edge : edges)
    root->addNextEdge(std::move(edge));
  return root;
}

struct NewestFirst {
  bool operator()(const Node *a, const Node *b) const { return a->sequenceNr() < b->sequenceNr(); }
};

/// Runs the graph below `root`. With `captures`, runs only the nodes on a
/// path to a captured input and returns the gradients flowing into those,
/// never running AccumulateGrad; otherwise runs every node.
std::vector<Tensor> execute(const std::shared_ptr<Node> &root, bool retainGraph,
                            const std::vector<Capture> *captures) {
  NoGradGuard noGrad;
  // How many edges lead into each node.
  std::unordered_map<const Node *, uint32_t> dependencies;
  std::vector<Node *> reached{root.get()};
  std::unordered_set<const Node *> seen{root.get()};
  for (size_t k = 0; k < reached.size(); ++k)
    for (const Edge &edge : reached[k]->nextEdges()) {
      if (!edge.valid())
        continue;
      ++dependencies[edge.function.get()];
      if (seen.insert(edge.function.get()).second)
        reached.push_back(edge.function.get());
    }

  // With captures: a node runs only if a gradient it sends is needed,
  // decided children first (the reverse of a topological order).
  std::unordered_set<const Node *> needed, runs;
  if (captures) {
    for (const Capture &capture : *captures)
      needed.insert(capture.node);
    std::unordered_map<const Node *, uint32_t> remaining = dependencies;
    std::vector<Node *> topological{root.get()};
    for (size_t k = 0; k < topological.size(); ++k)
      for (const Edge &edge : topological[k]->nextEdges())
        if (edge.valid() && --remaining[edge.function.get()] == 0)
          topological.push_back(edge.function.get());
    for (auto it = topological.rbegin(); it != topological.rend(); ++it)
      for (const Edge &edge : (*it)->nextEdges())
        if (edge.valid() && needed.count(edge.function.get())) {
          runs.insert(*it);
          needed.insert(*it);
          break;
        }
  }

  std::vector<Tensor> captured(captures ? captures->size() : 0);
  std::unordered_map<const Node *, std::vector<Tensor>> buffers;
  std::priority_queue<Node *, std::vector<Node *>, NewestFirst> ready;
  ready.push(root.get());
  while (!ready.empty()) {
    Node *node = ready.top();
    ready.pop();
    std::vector<Tensor> inputs = std::move(buffers[node]);
    buffers.erase(node);
    inputs.resize(node->numInputs());
    // Gradient hooks: a result's on its grad_fn's input, a leaf's on its
    // AccumulateGrad's, before anything reads the gradient.
    for (const auto &[inputNr, hooks] : node->gradHooks)
      if (inputNr < inputs.size() && inputs[inputNr].defined())
        inputs[inputNr] = hooks->run(std::move(inputs[inputNr]));
    if (auto *accumulate = dynamic_cast<AccumulateGrad *>(node))
      if (AutogradMeta *meta = autogradMeta(accumulate->variable());
          meta && meta->hooks && !inputs.empty() && inputs[0].defined())
        inputs[0] = meta->hooks->run(std::move(inputs[0]));
    if (captures)
      for (size_t c = 0; c < captures->size(); ++c)
        if ((*captures)[c].node == node)
          captured[c] = inputs[(*captures)[c].inputNr];
    if (captures && !runs.count(node))
      continue;
    // retain_grad(): the gradients of non-leaf results, as they arrive
    // (backward only; autograd.grad leaves .grad alone, as PyTorch does).
    if (!captures)
      for (const auto &[inputNr, weak] : node->retainedGrads)
        if (auto holder = weak.lock(); holder && inputNr < inputs.size() &&
                                       inputs[inputNr].defined()) {
          const Tensor &grad = inputs[inputNr];
          holder->grad = holder->grad.defined() ? autograd::detail::add(holder->grad, grad) : grad.clone();
        }
    std::vector<Tensor> outputs = node->apply(std::move(inputs));
    if (!retainGraph)
      node->releaseVariables();
    const auto &edges = node->nextEdges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge &edge = edges[i];
      if (!edge.valid())
        continue;
      Node *next = edge.function.get();
      if (i < outputs.size() && outputs[i].defined()) {
        Tensor grad = fitGradient(std::move(outputs[i]), next->inputMetadata(edge.inputNr),
                                  *node, static_cast<uint32_t>(i));
        std::vector<Tensor> &buffer = buffers[next];
        buffer.resize(next->numInputs());
        Tensor &slot = buffer[edge.inputNr];
        slot = slot.defined() ? autograd::detail::add(slot, grad) : std::move(grad);
      }
      if (--dependencies[next] == 0)
        ready.push(next);
    }
  }
  return captured;
}

} // namespace

void autograd::backward(const std::vector<Tensor> &tensors, const std::vector<Tensor> &grads,
                        bool retainGraph) {
  execute(makeRoot(tensors, grads), retainGraph, nullptr);
}

std::vector<Tensor> autograd::grad(const std::vector<Tensor> &outputs,
                                   const std::vector<Tensor> &inputs,
                                   const std::vector<Tensor> &gradOutputs, bool retainGraph,
                                   bool allowUnused) {
  std::shared_ptr<Node> root = makeRoot(outputs, gradOutputs);
  std::vector<Capture> captures;
  std::vector<std::shared_ptr<Node>> keepAlive;
  for (const Tensor &input : inputs) {
    if (!requiresGrad(input))
      throw OpalError("One of the differentiated Tensors does not require grad");
    Edge edge = gradientEdge(input);
    captures.push_back({edge.function.get(), edge.inputNr});
    keepAlive.push_back(std::move(edge.function));
  }
  std::vector<Tensor> result = execute(root, retainGraph, &captures);
  for (size_t i = 0; i < result.size(); ++i)
    if (!result[i].defined() && !allowUnused)
      throw OpalError("The differentiated Tensor at index " + std::to_string(i) +
                      " appears to not have been used in the graph. Set allow_unused=True if "
                      "this is the desired behavior.");
  return result;
}
