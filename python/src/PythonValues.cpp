//===- PythonValues.cpp - Python objects ↔ IValues by schema type ---------===//

#include "PythonValues.h"

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace opal;
using namespace opal::python;

std::string opal::python::pythonTypeName(py::handle object) {
  PyTypeObject *type = Py_TYPE(object.ptr());
  // A class defined in Python (torch.Tensor) by its module and name: its
  // tp_name alone would say "Tensor", as opal's own does.
  if (type->tp_flags & Py_TPFLAGS_HEAPTYPE) {
    py::handle cls(reinterpret_cast<PyObject *>(type));
    if (py::hasattr(cls, "__module__") && py::hasattr(cls, "__qualname__")) {
      std::string module = py::str(cls.attr("__module__"));
      std::string name = py::str(cls.attr("__qualname__"));
      if (module != "builtins" && module.rfind("opal", 0) != 0)
        return module + "." + name;
      return name;
    }
  }
  return type->tp_name;
}

static bool isInt(py::handle object) {
  return !PyBool_Check(object.ptr()) &&
         (PyLong_Check(object.ptr()) || PyIndex_Check(object.ptr()));
}

/// A Python float or int, or a number type of another library (numpy's
/// scalars); never a tensor, whose float() is only defined for one element.
static bool isFloatLike(py::handle object) {
  return PyFloat_Check(object.ptr()) || isInt(object) ||
         (!PyBool_Check(object.ptr()) && !PyUnicode_Check(object.ptr()) &&
          Py_TYPE(object.ptr())->tp_as_number &&
          Py_TYPE(object.ptr())->tp_as_number->nb_float && !py::isinstance<Tensor>(object));
}

static bool isSequence(py::handle object) {
  return PyList_Check(object.ptr()) || PyTuple_Check(object.ptr());
}

/// Converts each element of a list or tuple with `convert`; false if any fails.
template <typename T, typename F>
static bool convertList(py::handle object, std::vector<T> &out, F convert) {
  py::sequence sequence = py::reinterpret_borrow<py::sequence>(object);
  out.reserve(sequence.size());
  for (py::handle element : sequence) {
    std::optional<T> value = convert(element);
    if (!value)
      return false;
    out.push_back(std::move(*value));
  }
  return true;
}

static std::optional<int64_t> asInt(py::handle object) {
  if (!isInt(object))
    return std::nullopt;
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(object.ptr()));
  if (!index)
    throw py::error_already_set();
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  // An int past int64 is refused as PyTorch 2 refuses it, never wrapped:
  // past uint64 Python cannot convert it; below, it fits no int64 element.
  if (overflow) {
    if (_PyLong_NumBits(index.ptr()) > 64)
      throw OpalError("int too big to convert");
    throw OpalError("value cannot be converted to type int64_t without overflow");
  }
  if (value == -1 && PyErr_Occurred())
    throw py::error_already_set();
  return static_cast<int64_t>(value);
}

static std::optional<double> asDouble(py::handle object) {
  if (!isFloatLike(object))
    return std::nullopt;
  double value = PyFloat_AsDouble(object.ptr());
  if (value == -1.0 && PyErr_Occurred()) { // its __float__ raised: not a number
    PyErr_Clear();
    return std::nullopt;
  }
  return value;
}

static std::optional<bool> asBool(py::handle object) {
  if (!PyBool_Check(object.ptr()))
    return std::nullopt;
  return object.ptr() == Py_True;
}

static std::optional<Tensor> asTensor(py::handle object) {
  // The Tensor class object, looked up once; then a type-pointer compare
  // and a direct read of the pybind11 instance's value.
  static PyTypeObject *tensorType = reinterpret_cast<PyTypeObject *>(
      py::detail::get_type_handle(typeid(Tensor), true).ptr());
  if (Py_TYPE(object.ptr()) != tensorType &&
      !PyType_IsSubtype(Py_TYPE(object.ptr()), tensorType))
    return std::nullopt;
  auto *instance = reinterpret_cast<py::detail::instance *>(object.ptr());
  return *static_cast<Tensor *>(instance->get_value_and_holder().value_ptr());
}

std::optional<IValue> opal::python::toIValue(py::handle object,
                                             const SchemaType &type,
                                             std::string &expected) {
  expected = type.pythonStr();
  switch (type.kind()) {
  case TypeKind::Optional:
    if (object.is_none())
      return IValue();
    return toIValue(object, *type.element(), expected);
  case TypeKind::Tensor:
    if (auto t = asTensor(object))
      return IValue(std::move(*t));
    return std::nullopt;
  case TypeKind::Int:
  case TypeKind::SymInt:
  case TypeKind::Layout:
  case TypeKind::MemoryFormat:
    if (auto v = asInt(object))
      return IValue(*v);
    return std::nullopt;
  case TypeKind::ScalarType:
    if (auto t = scalarTypeOf(object))
      return IValue(*t);
    if (auto v = asInt(object); v && isValidScalarType(*v))
      return IValue(*v);
    expected = "dtype";
    return std::nullopt;
  case TypeKind::Float:
    if (auto v = asDouble(object))
      return IValue(*v);
    return std::nullopt;
  case TypeKind::Bool:
    if (auto v = asBool(object))
      return IValue(*v);
    return std::nullopt;
  case TypeKind::Complex:
    if (PyComplex_Check(object.ptr()))
      return IValue(py::cast<std::complex<double>>(object));
    if (auto v = asDouble(object))
      return IValue(std::complex<double>(*v));
    return std::nullopt;
  case TypeKind::Scalar:
    if (auto v = asBool(object))
      return IValue(*v);
    if (auto v = asInt(object))
      return IValue(*v);
    if (PyComplex_Check(object.ptr()))
      return IValue(py::cast<std::complex<double>>(object));
    if (auto v = asDouble(object))
      return IValue(*v);
    return std::nullopt;
  case TypeKind::Str:
  case TypeKind::Dimname:
    if (PyUnicode_Check(object.ptr()))
      return IValue(py::cast<std::string>(object));
    return std::nullopt;
  case TypeKind::Device:
    if (py::isinstance<Device>(object))
      return IValue(py::cast<Device>(object));
    if (PyUnicode_Check(object.ptr())) {
      auto device = Device::parse(py::cast<std::string>(object));
      if (device)
        return IValue(*device);
      expected = "a device (" + device.error().message() + ")";
    }
    return std::nullopt;
  case TypeKind::List: {
    const SchemaType &element = *type.element();
    TypeKind kind = element.kind();
    bool intLike = kind == TypeKind::Int || kind == TypeKind::SymInt;
    // `int[2] stride=1` style: one int stands for all N.
    if (intLike && type.fixedSize() && isInt(object))
      return IValue(std::vector<int64_t>(*type.fixedSize(), *asInt(object)));
    if (!isSequence(object))
      return std::nullopt;
    if (intLike) {
      std::vector<int64_t> values;
      return convertList(object, values, asInt) ? std::optional<IValue>(IValue(std::move(values)))
                                                : std::nullopt;
    }
    if (kind == TypeKind::Float) {
      std::vector<double> values;
      return convertList(object, values, asDouble) ? std::optional<IValue>(IValue(std::move(values)))
                                                   : std::nullopt;
    }
    if (kind == TypeKind::Bool) {
      std::vector<bool> values;
      return convertList(object, values, asBool) ? std::optional<IValue>(IValue(std::move(values)))
                                                 : std::nullopt;
    }
    if (kind == TypeKind::Tensor) {
      std::vector<Tensor> values;
      return convertList(object, values, asTensor) ? std::optional<IValue>(IValue(std::move(values)))
                                                   : std::nullopt;
    }
    if (kind == TypeKind::Optional && element.element()->kind() == TypeKind::Tensor) {
      std::vector<std::optional<Tensor>> values;
      bool ok = convertList(object, values, [](py::handle e) -> std::optional<std::optional<Tensor>> {
        if (e.is_none())
          return std::optional<Tensor>();
        if (auto t = asTensor(e))
          return std::optional<Tensor>(std::move(*t));
        return std::nullopt;
      });
      return ok ? std::optional<IValue>(IValue(std::move(values))) : std::nullopt;
    }
    expected += " (not supported in opal calls yet)";
    return std::nullopt;
  }
  default:
    expected += " (not supported in opal calls yet)";
    return std::nullopt;
  }
}

std::optional<std::string> opal::python::parseArguments(const FunctionSchema &schema,
                                                        py::handle args,
                                                        py::handle kwargs, Stack &stack,
                                                        bool explain) {
  const std::vector<Argument> &arguments = schema.arguments();
  size_t given = PyTuple_GET_SIZE(args.ptr());
  size_t positional = 0;
  while (positional < arguments.size() && !arguments[positional].kwargOnly())
    ++positional;
  if (given > positional)
    return explain ? "expected at most " + std::to_string(positional) +
                         " argument(s) but received " + std::to_string(given) + " argument(s)"
                   : std::string();
  size_t start = stack.size();
  auto fail = [&](std::string reason) {
    stack.resize(start);
    return std::optional<std::string>(std::move(reason));
  };
  bool haveKwargs = kwargs && !kwargs.is_none() && PyDict_GET_SIZE(kwargs.ptr()) > 0;
  size_t kwargsUsed = 0;
  std::string expected;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Argument &argument = arguments[i];
    PyObject *value = nullptr;
    PyObject *keyword =
        haveKwargs ? PyDict_GetItemString(kwargs.ptr(), argument.name().c_str()) : nullptr;
    if (i < given) {
      if (keyword)
        return fail("got multiple values for argument '" + argument.name() + "'");
      value = PyTuple_GET_ITEM(args.ptr(), i);
    } else if (keyword) {
      value = keyword;
      ++kwargsUsed;
    }
    if (!value) {
      if (!argument.defaultValue())
        return fail("missing value for argument '" + argument.name() + "'");
      stack.push_back(defaultToIValue(*argument.defaultValue(), *argument.type()));
      continue;
    }
    std::optional<IValue> converted = toIValue(value, *argument.type(), expected);
    if (!converted && !explain)
      return fail(std::string());
    if (!converted) {
      // A numpy array comes in by opal.from_numpy, another library's
      // tensor (torch.Tensor, a jax or cupy array) by DLPack: both without
      // a copy.
      bool wantsTensor = expected.find("Tensor") != std::string::npos;
      const char *hint = "";
      if (wantsTensor && py::isinstance<py::array>(py::handle(value)))
        hint = " (convert it with opal.from_numpy(x), which shares its memory)";
      else if (wantsTensor && py::hasattr(py::handle(value), "__dlpack__"))
        hint = " (convert it with opal.from_dlpack(x), which shares its memory)";
      return fail("argument '" + argument.name() + "'" +
                  (i < given ? " (position " + std::to_string(i + 1) + ")" : "") +
                  " must be " + expected + ", not " + pythonTypeName(value) + hint);
    }
    stack.push_back(std::move(*converted));
  }
  if (haveKwargs && kwargsUsed < static_cast<size_t>(PyDict_GET_SIZE(kwargs.ptr()))) {
    for (auto item : py::reinterpret_borrow<py::dict>(kwargs)) {
      std::string name = py::cast<std::string>(item.first);
      bool known = false;
      for (size_t i = given; i < arguments.size(); ++i)
        known |= arguments[i].name() == name;
      if (!known)
        return fail("got an unexpected keyword argument '" + name + "'");
    }
  }
  return std::nullopt;
}

py::object opal::python::toPython(IValue &&value) {
  if (value.isTensor())
    return py::cast(std::move(value).toTensor());
  return toPython(static_cast<const IValue &>(value));
}

py::object opal::python::toPython(const IValue &value) {
  switch (value.tag()) {
  case IValue::Tag::None: return py::none();
  case IValue::Tag::Tensor: return py::cast(value.toTensor());
  case IValue::Tag::Int: return py::int_(value.toInt());
  case IValue::Tag::Double: return py::float_(value.toDouble());
  case IValue::Tag::Bool: return py::bool_(value.toBool());
  case IValue::Tag::Complex: return py::cast(value.toComplex());
  case IValue::Tag::String: return py::str(value.toStringRef());
  case IValue::Tag::Device: return py::cast(value.toDevice());
  case IValue::Tag::IntList: return py::cast(value.toIntList());
  case IValue::Tag::DoubleList: return py::cast(value.toDoubleList());
  case IValue::Tag::BoolList: return py::cast(value.toBoolList());
  case IValue::Tag::TensorList: return py::cast(value.toTensorList());
  case IValue::Tag::OptionalTensorList: return py::cast(value.toOptionalTensorList());
  case IValue::Tag::Tuple: {
    const auto &elements = value.toTupleElements();
    py::tuple out(elements.size());
    for (size_t i = 0; i < elements.size(); ++i)
      out[i] = toPython(elements[i]);
    return std::move(out);
  }
  }
  return py::none();
}

static py::object returnToPython(IValue &&value, const SchemaType &type) {
  const SchemaType &plain = type.isOptional() ? *type.element() : type;
  if (plain.kind() == TypeKind::ScalarType && value.isInt())
    return dtypeObject(value.toScalarType());
  return toPython(std::move(value));
}

py::object opal::python::returnsToPython(const FunctionSchema &schema, Stack &stack) {
  const std::vector<Argument> &returns = schema.returns();
  if (returns.size() == 1 && !stack.empty())
    return returnToPython(std::move(stack.back()), *returns[0].type());
  if (returns.empty() && !schema.isVarret())
    return py::none();
  py::tuple out(stack.size());
  for (size_t i = 0; i < stack.size(); ++i)
    out[i] = i < returns.size() ? returnToPython(std::move(stack[i]), *returns[i].type())
                                : toPython(std::move(stack[i]));
  return std::move(out);
}

Scalar opal::python::toScalar(py::handle object, const char *what) {
  if (auto v = asBool(object))
    return Scalar(*v);
  if (auto v = asInt(object))
    return Scalar(*v);
  if (auto v = asDouble(object))
    return Scalar(*v);
  throw py::type_error(std::string(what) + ": expected a number, got " + pythonTypeName(object));
}
