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

#include "opal/JIT/CompileAhead.h"
#include "opal/Schema/SchemaParser.h"

#include <pybind11/stl.h>

#include <array>
#include <utility>

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

/// `schema` is the op's, read before the call: another thread may destroy
/// the op's Library meanwhile (the schema read stays valid; reading it
/// again would find none).
py::object callWithStack(const OperatorHandle &op, const FunctionSchema &schema, Stack &stack) {
  {
    py::gil_scoped_release release; // native kernels run without the GIL
    op.callBoxed(&stack);
  }
  return returnsToPython(schema, stack);
}

/// The error of an argument that does not fit an op's schema: a
/// RuntimeError, as torch.ops raises, that is also a TypeError, as opal's
/// eager spellings and Python's own calls raise.
PyObject *argumentErrorType() {
  static PyObject *type = [] {
    PyObject *bases = PyTuple_Pack(2, PyExc_RuntimeError, PyExc_TypeError);
    PyObject *made = PyErr_NewExceptionWithDoc(
        "opal._C.ArgumentError",
        "An argument that does not fit the op's schema (a RuntimeError, as PyTorch's "
        "torch.ops raise, and a TypeError).",
        bases, nullptr);
    Py_DECREF(bases);
    return made;
  }();
  return type;
}

[[noreturn]] void raiseArgumentError(const std::string &message) {
  PyErr_SetString(argumentErrorType(), message.c_str());
  throw py::error_already_set();
}

py::object call(const OperatorHandle &op, py::handle args, py::handle kwargs) {
  const FunctionSchema &schema = op.schema();
  Stack stack;
  stack.reserve(schema.arguments().size());
  if (auto error = parseArguments(schema, args, kwargs, stack))
    raiseArgumentError(schema.operatorName().str() + "() " + *error +
                       ". Declaration: " + schema.str());
  return callWithStack(op, schema, stack);
}

/// Turns the C++ exception in flight into a Python error, as pybind11 does
/// for bound functions (custom translators first).
void setPythonError() {
  auto &local = py::detail::get_local_internals().registered_exception_translators;
  if (py::detail::apply_exception_translators(local))
    return;
  auto &global = py::detail::get_internals().registered_exception_translators;
  if (py::detail::apply_exception_translators(global))
    return;
  PyErr_SetString(PyExc_SystemError, "opal: unknown C++ exception");
}

/// While a Python decomposition is traced (opal.library.register_decomposition),
/// op calls go to the tracer instead of the dispatcher: hook(schemas, args,
/// kwargs). Null otherwise, so calls pay one pointer test.
PyObject *traceHook = nullptr;

py::object traceCall(std::vector<FunctionSchema> schemas, py::handle args, py::handle kwargs) {
  py::object kw = kwargs ? py::reinterpret_borrow<py::object>(kwargs) : py::object(py::dict());
  return py::reinterpret_borrow<py::object>(traceHook)(schemas, args, kw);
}

/// tp_call of _OpHandle (and so of OpOverload): straight from CPython to
/// the argument parser, without pybind11's overload dispatch.
PyObject *callOpHandle(PyObject *self, PyObject *args, PyObject *kwargs) {
  try {
    auto *instance = reinterpret_cast<py::detail::instance *>(self);
    auto &handle = *static_cast<PyOpHandle *>(
        instance->get_value_and_holder().value_ptr());
    if (traceHook)
      return traceCall({handle.handle.schema()}, args, kwargs).release().ptr();
    return call(handle.handle, args, kwargs).release().ptr();
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (...) {
    setPythonError();
  }
  return nullptr;
}

/// A packet's call (`opal.ops.ns.op(...)`): the first of `overloads` (the
/// packet's OpOverloads in call order) whose schema accepts the arguments
/// runs. Overloads that do not fit are passed over without their reasons;
/// the reasons are gathered only when none fits, for the error.
py::object callOverloads(py::handle overloads, py::handle args, py::handle kwargs) {
  Py_ssize_t count = PyList_GET_SIZE(overloads.ptr());
  auto handleAt = [&](Py_ssize_t i) -> const OperatorHandle & {
    return py::cast<const PyOpHandle &>(PyList_GET_ITEM(overloads.ptr(), i)).handle;
  };
  if (traceHook) {
    std::vector<FunctionSchema> schemas;
    for (Py_ssize_t i = 0; i < count; ++i)
      schemas.push_back(handleAt(i).schema());
    return traceCall(std::move(schemas), args, kwargs);
  }
  if (count == 1)
    return call(handleAt(0), args, kwargs);
  for (Py_ssize_t i = 0; i < count; ++i) {
    const OperatorHandle &op = handleAt(i);
    const FunctionSchema &schema = op.schema();
    Stack stack;
    stack.reserve(schema.arguments().size());
    if (!parseArguments(schema, args, kwargs, stack, /*explain=*/false))
      return callWithStack(op, schema, stack);
  }
  std::string tried;
  for (Py_ssize_t i = 0; i < count; ++i) {
    Stack stack;
    auto error = parseArguments(handleAt(i).schema(), args, kwargs, stack);
    tried += "\n  " + handleAt(i).schema().str() + ": " + error.value_or("accepted");
  }
  std::string name = count == 0 ? std::string("operator") : handleAt(0).schema().name();
  raiseArgumentError(name + "(): no overload accepts these arguments. Tried:" + tried);
}

/// tp_call of opal.ops' OpOverloadPacket: its `_call_list` (built by its
/// `_build_call_list()` on the first call) through callOverloads, without a
/// Python frame or pybind11's dispatch in between.
PyObject *callPacket(PyObject *self, PyObject *args, PyObject *kwargs) {
  try {
    static PyObject *listName = PyUnicode_InternFromString("_call_list");
    py::object calls = py::reinterpret_steal<py::object>(PyObject_GetAttr(self, listName));
    if (!calls)
      throw py::error_already_set();
    if (calls.is_none())
      calls = py::reinterpret_borrow<py::object>(self).attr("_build_call_list")();
    if (!PyList_Check(calls.ptr()))
      throw py::type_error("OpOverloadPacket._call_list must be a list");
    return callOverloads(calls, args, kwargs).release().ptr();
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (...) {
    setPythonError();
  }
  return nullptr;
}

/// The eager API's binary operators (`a + b`, opal/_tensor_ops.py) as C
/// methods: a tensor operand calls the op's Tensor overload, a Python int,
/// float or bool its Scalar overload, anything else the Python method they
/// replace (which takes numpy scalars and returns NotImplemented for the
/// rest). The same call as `opal.ops.aten.add.Tensor(a, b)`, without a
/// Python frame in between.
struct BinaryMethod {
  std::string name;
  std::optional<OperatorHandle> tensor, scalar;
  PyObject *fallback = nullptr;
  PyMethodDef def{};
};
constexpr int kBinaryMethods = 16;
BinaryMethod binaryMethods[kBinaryMethods];

template <int I>
PyObject *binaryMethod(PyObject *self, PyObject *const *args, Py_ssize_t count) {
  try {
    BinaryMethod &method = binaryMethods[I];
    if (count != 1) {
      PyErr_Format(PyExc_TypeError, "%s() takes exactly one argument (%zd given)",
                   method.name.c_str(), count);
      return nullptr;
    }
    PyObject *other = args[0];
    const std::optional<OperatorHandle> *op = nullptr;
    if (py::isinstance<Tensor>(other))
      op = &method.tensor;
    else if (PyFloat_CheckExact(other) || PyLong_CheckExact(other) || PyBool_Check(other))
      op = &method.scalar;
    if (!op || !*op)
      return PyObject_CallFunctionObjArgs(method.fallback, self, other, nullptr);
    py::tuple callArgs = py::make_tuple(py::handle(self), py::handle(other));
    if (traceHook)
      return traceCall({(*op)->schema()}, callArgs, nullptr).release().ptr();
    return call(**op, callArgs, py::handle()).release().ptr();
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (...) {
    setPythonError();
  }
  return nullptr;
}

template <int... I>
constexpr std::array<PyObject *(*)(PyObject *, PyObject *const *, Py_ssize_t), sizeof...(I)>
binaryFunctions(std::integer_sequence<int, I...>) {
  return {&binaryMethod<I>...};
}

/// Sets `cls.<name>` to a C method calling `tensorOp`/`scalarOp` (either
/// may be None) and `fallback` otherwise.
void installBinaryMethod(py::type cls, const std::string &name, py::object tensorOp,
                         py::object scalarOp, py::object fallback) {
  static int used = 0;
  static const auto functions = binaryFunctions(std::make_integer_sequence<int, kBinaryMethods>());
  if (used == kBinaryMethods)
    throw py::value_error("_install_binary_method: all " + std::to_string(kBinaryMethods) +
                          " slots are taken");
  BinaryMethod &method = binaryMethods[used];
  method.name = name;
  if (!tensorOp.is_none())
    method.tensor = py::cast<const PyOpHandle &>(tensorOp).handle;
  if (!scalarOp.is_none())
    method.scalar = py::cast<const PyOpHandle &>(scalarOp).handle;
  method.fallback = fallback.inc_ref().ptr();
  method.def.ml_name = method.name.c_str();
  method.def.ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(functions[used]));
  method.def.ml_flags = METH_FASTCALL;
  method.def.ml_doc = nullptr;
  PyObject *descriptor =
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject *>(cls.ptr()), &method.def);
  if (!descriptor)
    throw py::error_already_set();
  ++used;
  cls.attr(name.c_str()) = py::reinterpret_steal<py::object>(descriptor);
}

} // namespace

void opal::python::bindOperators(py::module_ &m) {
  m.attr("ArgumentError") = py::handle(argumentErrorType());
  m.def("_install_binary_method", &installBinaryMethod, py::arg("cls"), py::arg("name"),
        py::arg("tensor_op"), py::arg("scalar_op"), py::arg("fallback"),
        "Makes cls.<name>(other) a C method: tensor_op for a tensor, scalar_op for a "
        "Python number, fallback(self, other) for anything else.");
  py::class_<PyOpHandle>(m, "_OpHandle", py::dynamic_attr())
      .def(py::init([](const std::string &name, const std::string &overload) {
             return PyOpHandle{lookup(name, overload)};
           }),
           py::arg("name"), py::arg("overload"))
      .def("__call__", [](const PyOpHandle &self, py::args args, py::kwargs kwargs) {
        return call(self.handle, args, kwargs);
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
          raiseArgumentError(schema.operatorName().str() + "() " + *error);
        py::gil_scoped_release release;
        self.handle.redispatchBoxed(DispatchKeySet(*key), &stack);
        py::gil_scoped_acquire gil;
        return returnsToPython(schema, stack);
      });

  m.def(
      "_jit_compile_ahead",
      [](py::list calls, std::optional<unsigned> threads) {
        // Each (op, args, kwargs): arguments that do not parse are that
        // call's failure, as compiling it would be.
        std::vector<jit::AheadCall> parsed;
        std::vector<std::optional<std::string>> refused;
        for (py::handle item : calls) {
          auto call = py::cast<py::tuple>(item);
          if (call.size() != 3)
            throw py::value_error("_jit_compile_ahead takes (op, args, kwargs) triples");
          const OperatorHandle &op = py::cast<const PyOpHandle &>(call[0]).handle;
          jit::AheadCall ahead{op, {}};
          auto problem = parseArguments(op.schema(), py::cast<py::tuple>(call[1]),
                                        py::cast<py::dict>(call[2]), ahead.args);
          refused.push_back(problem ? std::optional<std::string>(
                                          op.schema().operatorName().str() + "() " + *problem)
                                    : std::nullopt);
          if (!refused.back())
            parsed.push_back(std::move(ahead));
        }
        std::vector<jit::AheadOutcome> outcomes;
        {
          py::gil_scoped_release release;
          outcomes = jit::compileAhead(parsed, threads.value_or(jit::compileThreads()));
        }
        static const char *names[] = {"compiled", "in memory", "no kernel", "failed"};
        py::list results;
        size_t next = 0;
        for (const std::optional<std::string> &problem : refused) {
          if (problem) {
            results.append(py::make_tuple("failed", *problem));
            continue;
          }
          const jit::AheadOutcome &outcome = outcomes[next++];
          results.append(
              py::make_tuple(names[static_cast<int>(outcome.result)], outcome.error));
        }
        return results;
      },
      py::arg("calls"), py::arg("threads") = py::none(),
      "Compiles the kernels that calls of (op, args, kwargs) will run, several at once, "
      "without running them; returns (what happened, error) per call.");

  // `op(...)` bypasses pybind11's dispatcher: opal.ops installs this
  // tp_call on OpOverload once the class exists (a subclass created later
  // would otherwise take the slower `__call__` of the base).
  m.def("_install_fast_call", [](py::type cls) {
    if (!PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(cls.ptr()),
                          reinterpret_cast<PyTypeObject *>(
                              py::module_::import("opal._C").attr("_OpHandle").ptr())))
      throw py::type_error("_install_fast_call needs a subclass of _OpHandle");
    reinterpret_cast<PyTypeObject *>(cls.ptr())->tp_call = &callOpHandle;
    PyType_Modified(reinterpret_cast<PyTypeObject *>(cls.ptr()));
  });

  m.def("_set_trace_hook", [](py::object hook) {
    Py_XDECREF(traceHook);
    traceHook = hook.is_none() ? nullptr : hook.inc_ref().ptr();
  }, py::arg("hook"), "Routes op calls to `hook(schemas, args, kwargs)` (None: to the dispatcher).");

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
    return callOverloads(overloads, args, kwargs);
  });

  // `packet(...)` straight to callOverloads: opal.ops installs this tp_call
  // on OpOverloadPacket once the class exists.
  m.def("_install_packet_call", [](py::type cls) {
    reinterpret_cast<PyTypeObject *>(cls.ptr())->tp_call = &callPacket;
    PyType_Modified(reinterpret_cast<PyTypeObject *>(cls.ptr()));
  });
}
