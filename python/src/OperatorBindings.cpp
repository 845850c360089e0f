//===- OperatorBindings.cpp - Calling operators from Python ---------------===//
//
// `_OpHandle` is the native base of opal.ops' OpOverload: calling it parses
// the Python arguments against the schema in C++, dispatches with the GIL
// released, and converts the returns. `_call_overloads` is the packet's call:
// the first overload whose schema accepts the arguments runs.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "PythonValues.h"

#include "opal/Schema/SchemaParser.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace opal;
using namespace opal::python;

namespace {

struct PyOpHandle {
  OperatorHandle handle;
};

OperatorHandle lookup(const std::string &name, const std::string &overload) {
  auto op = Dispatcher::singleton().findSchema(OperatorName{name, overload});
  if (!op)
    throw py::attribute_error("no operator " + OperatorName{name, overload}.str());
  return *op;
}

py::object callWithStack(const OperatorHandle &op, Stack &stack) {
  {
    py::gil_scoped_release release; // native kernels run without the GIL
    op.callBoxed(&stack);
  }
  return returnsToPython(op.schema(), stack);
}

py::object call(const OperatorHandle &op, py::args args, py::kwargs kwargs) {
  const FunctionSchema &schema = op.schema();
  Stack stack;
  stack.reserve(schema.arguments().size());
  if (auto error = parseArguments(schema, args, kwargs, stack))
    throw py::type_error(schema.operatorName().str() + "() " + *error +
                         ". Declaration: " + schema.str());
  return callWithStack(op, stack);
}

} // namespace

void opal::python::bindOperators(py::module_ &m) {
  py::class_<PyOpHandle>(m, "_OpHandle", py::dynamic_attr())
      .def(py::init([](const std::string &name, const std::string &overload) {
             return PyOpHandle{lookup(name, overload)};
           }),
           py::arg("name"), py::arg("overload"))
      .def("__call__", [](const PyOpHandle &self, py::args args, py::kwargs kwargs) {
        return call(self.handle, std::move(args), std::move(kwargs));
      })
      .def_property_readonly("_schema", [](const PyOpHandle &self) { return self.handle.schema(); })
      .def("_handle_eq", [](const PyOpHandle &a, const PyOpHandle &b) { return a.handle == b.handle; })
      .def("_call_key", [](const PyOpHandle &self, const std::string &keyName, py::args args,
                           py::kwargs kwargs) {
        // Calls the kernel of one key as resolution gives it (decompose()).
        auto key = parseDispatchKey(keyName);
        if (!key)
          throw OpalError(key.error().message());
        const FunctionSchema &schema = self.handle.schema();
        Stack stack;
        if (auto error = parseArguments(schema, args, kwargs, stack))
          throw py::type_error(schema.operatorName().str() + "() " + *error);
        py::gil_scoped_release release;
        self.handle.redispatchBoxed(DispatchKeySet(*key), &stack);
        py::gil_scoped_acquire gil;
        return returnsToPython(schema, stack);
      });

  m.def("_overload_names", [](const std::string &name) {
    // Every defined overload of `ns::op`, "" for the default one.
    std::vector<std::string> names;
    for (const OperatorName &op : Dispatcher::singleton().allOpNames())
      if (op.name == name)
        names.push_back(op.overloadName);
    return names;
  });

  m.def("_call_overloads", [](py::list overloads, py::args args, py::kwargs kwargs) {
    // A packet's call: the first overload whose schema accepts the arguments.
    std::string tried;
    for (py::handle item : overloads) {
      const OperatorHandle &op = py::cast<const PyOpHandle &>(item).handle;
      Stack stack;
      auto error = parseArguments(op.schema(), args, kwargs, stack);
      if (!error)
        return callWithStack(op, stack);
      tried += "\n  " + op.schema().str() + ": " + *error;
    }
    std::string name = overloads.empty()
                           ? std::string("operator")
                           : py::cast<const PyOpHandle &>(overloads[0]).handle.schema().name();
    throw py::type_error(name + "(): no overload accepts these arguments. Tried:" + tried);
  });
}
