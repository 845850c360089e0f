//===- AutogradBindings.cpp - requires_grad, .grad, backward, grad_fn -----===//

#include "Bindings.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Autograd/Engine.h"
#include "opal/Autograd/Functions.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Support/Exceptions.h"

#include <pybind11/stl.h>

#include <sstream>

namespace py = pybind11;
using namespace opal;
using namespace opal::autograd;

namespace {

/// Python's None becomes an undefined tensor.
std::vector<Tensor> tensorsOrNone(const py::sequence &items) {
  std::vector<Tensor> result;
  for (py::handle item : items)
    result.push_back(item.is_none() ? Tensor() : item.cast<Tensor>());
  return result;
}

py::object tensorOrNone(const Tensor &t) { return t.defined() ? py::cast(t) : py::none(); }

/// A Python gradient hook as a GradHook: called (and released) with the
/// GIL held; its None keeps the gradient.
GradHook pythonHook(py::function fn) {
  std::shared_ptr<py::function> held(new py::function(std::move(fn)), [](py::function *f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
  return [held](const Tensor &grad) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object result = (*held)(grad);
    if (result.is_none())
      return Tensor();
    if (!py::isinstance<Tensor>(result))
      throw OpalError("a gradient hook must return a Tensor or None, got " +
                      std::string(py::str(py::type::of(result).attr("__name__"))));
    Tensor replaced = result.cast<Tensor>();
    if (!(replaced.sizes() == grad.sizes()))
      throw OpalError("hook '" +
                      std::string(py::str(py::getattr(*held, "__name__", py::str("hook")))) +
                      "' has changed the size of value");
    return replaced;
  };
}

/// The backward of an op registered with opal.library.register_autograd:
/// a Python function from the gradients of the op's tensor results to
/// those of its tensor arguments.
class PythonBackward : public Node {
public:
  PythonBackward(std::string name, py::function backward)
      : name_(std::move(name)), backward_(std::move(backward)) {}
  ~PythonBackward() override {
    py::gil_scoped_acquire gil;
    backward_ = py::function();
  }
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override {
    py::gil_scoped_acquire gil;
    if (!backward_)
      throw OpalError("Trying to backward through the graph a second time (or directly access "
                      "saved tensors after they have already been freed). Saved intermediate "
                      "values of the graph are freed when you call .backward() or "
                      "autograd.grad(). Specify retain_graph=True if you need to backward "
                      "through the graph a second time or if you need to access saved tensors "
                      "after calling backward.");
    py::list values;
    for (uint32_t i = 0; i < grads.size(); ++i) {
      // PyTorch materializes the gradients of results nothing reached.
      const Tensor &grad = grads[i];
      if (grad.defined()) {
        values.append(py::cast(grad));
        continue;
      }
      const InputMetadata &metadata = inputMetadata(i);
      Tensor zeros = Tensor::empty(metadata.sizes, metadata.dtype, metadata.device);
      zeros.fill(0.0);
      values.append(py::cast(zeros));
    }
    py::object result = backward_(values);
    std::vector<Tensor> out;
    for (py::handle item : result)
      out.push_back(item.is_none() ? Tensor() : item.cast<Tensor>());
    if (out.size() != nextEdges().size())
      throw OpalError(name_ + ": the backward gave " + std::to_string(out.size()) +
                      " gradients for " + std::to_string(nextEdges().size()) + " tensor inputs");
    return out;
  }
  std::string name() const override { return name_; }
  void releaseVariables() override {
    py::gil_scoped_acquire gil;
    backward_ = py::function();
  }

private:
  std::string name_;
  py::function backward_;
};

} // namespace

void opal::python::bindAutograd(py::module_ &m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node",
                                          "A function of the backward graph (a grad_fn).")
      .def("name", &Node::name)
      .def_property_readonly("next_functions",
                             [](const Node &node) {
                               py::list edges;
                               for (const Edge &edge : node.nextEdges())
                                 edges.append(py::make_tuple(
                                     edge.function ? py::cast(edge.function) : py::none(),
                                     edge.inputNr));
                               return py::tuple(edges);
                             })
      .def_property_readonly("variable",
                             [](const Node &node) -> py::object {
                               if (auto *accumulate = dynamic_cast<const AccumulateGrad *>(&node))
                                 return py::cast(accumulate->variable());
                               throw py::attribute_error("'" + node.name() +
                                                         "' object has no attribute 'variable'");
                             })
      .def("__repr__", [](const Node &node) {
        std::ostringstream text;
        text << "<" << node.name() << " object at " << static_cast<const void *>(&node) << ">";
        return text.str();
      });

  py::class_<Tensor> tensor = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  tensor
      .def_property(
          "requires_grad", [](const Tensor &t) { return requiresGrad(t); },
          [](const Tensor &t, bool value) { setRequiresGrad(t, value); })
      .def(
          "requires_grad_",
          [](const Tensor &t, bool value) {
            setRequiresGrad(t, value);
            return t;
          },
          py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor &t) { return tensorOrNone(gradOf(t)); },
          [](const Tensor &t, py::object grad) {
            if (grad.is_none()) {
              if (autogradMeta(t))
                setGrad(t, Tensor());
              return;
            }
            Tensor value = grad.cast<Tensor>();
            if (value.dtype() != t.dtype() || !(value.sizes() == t.sizes()))
              throw py::value_error("assigned grad has data of a different type or size: "
                                    "expected " + std::string(dtypeName(t.dtype())) +
                                    sizesText(t.sizes()) + ", got " +
                                    dtypeName(value.dtype()) + sizesText(value.sizes()));
            setGrad(t, value);
          })
      .def("_register_hook",
           [](const Tensor &t, py::function fn) { return registerHook(t, pythonHook(fn)); })
      .def("_remove_hook", [](const Tensor &t, int64_t id) { removeHook(t, id); })
      .def("retain_grad", [](const Tensor &t) { retainGrad(t); },
           "Keeps the gradient backward computes for this non-leaf tensor in .grad.")
      .def_property_readonly("retains_grad",
                             [](const Tensor &t) {
                               AutogradMeta *meta = autogradMeta(t);
                               return meta && meta->gradFn && meta->retained != nullptr;
                             })
      .def_property_readonly("grad_fn",
                             [](const Tensor &t) -> py::object {
                               const auto &fn = gradFn(t);
                               return fn ? py::cast(fn) : py::none();
                             })
      .def_property_readonly("is_leaf", [](const Tensor &t) { return isLeaf(t); })
      .def_property_readonly("_version", [](const Tensor &t) { return t.version(); })
      .def("detach", [](const Tensor &t) { return detach(t); },
           "A new tensor over the same data, outside the graph (requires_grad False).");

  m.def(
      "_record_python_node",
      [](const std::string &name, const py::sequence &inputs, const py::sequence &outputs,
         py::function backward) {
        auto node = std::make_shared<PythonBackward>(name, std::move(backward));
        for (const Tensor &input : tensorsOrNone(inputs))
          node->addNextEdge(input.defined() ? gradientEdge(input) : Edge{});
        for (const Tensor &output : tensorsOrNone(outputs)) {
          if (!output.defined() ||
              (!isFloatingType(output.dtype()) && !isComplexType(output.dtype())))
            continue;
          setHistory(output, node, node->addInput(output));
        }
        return std::shared_ptr<Node>(node);
      },
      py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::arg("backward"),
      "Makes `outputs` the results of a node whose backward is the Python "
      "function `backward` (opal.library.register_autograd).");
  m.def("is_grad_enabled", [] { return GradMode::isEnabled(); },
        "Whether ops record for autograd on this thread.");
  m.def("_set_grad_enabled", [](bool enabled) { GradMode::setEnabled(enabled); });
  m.def(
      "_autograd_backward",
      [](const py::sequence &tensors, const py::sequence &grads, bool retainGraph) {
        std::vector<Tensor> roots = tensorsOrNone(tensors), seeds = tensorsOrNone(grads);
        py::gil_scoped_release release;
        backward(roots, seeds, retainGraph);
      },
      py::arg("tensors"), py::arg("grads"), py::arg("retain_graph"));
  m.def(
      "_autograd_grad",
      [](const py::sequence &outputs, const py::sequence &inputs, const py::sequence &grads,
         bool retainGraph, bool allowUnused) {
        std::vector<Tensor> outs = tensorsOrNone(outputs), ins = tensorsOrNone(inputs),
                            seeds = tensorsOrNone(grads);
        std::vector<Tensor> result;
        {
          py::gil_scoped_release release;
          result = grad(outs, ins, seeds, retainGraph, allowUnused);
        }
        py::list values;
        for (const Tensor &t : result)
          values.append(tensorOrNone(t));
        return py::tuple(values);
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("retain_graph"),
      py::arg("allow_unused"));
}
