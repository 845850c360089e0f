//===- SchemaBindings.cpp - opal._C.parse_schema and schema objects -------===//
//
// FunctionSchema, Argument and AliasInfo as read-only Python objects with
// PyTorch's attribute names. Parse errors raise RuntimeError with the same
// message as the C++ SchemaParseError.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "opal/Schema/OpLibraryFile.h"
#include "opal/Schema/SchemaParser.h"

#include <pybind11/complex.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace opal;

namespace {

py::object toPython(const DefaultValue &value) {
  switch (value.kind()) {
  case DefaultValue::Kind::None:
    return py::none();
  case DefaultValue::Kind::Bool:
    return py::bool_(value.toBool());
  case DefaultValue::Kind::Int:
    return py::int_(value.toInt());
  case DefaultValue::Kind::Double:
    return py::float_(value.toDouble());
  case DefaultValue::Kind::Complex:
    return py::cast(value.toComplex());
  case DefaultValue::Kind::String:
    return py::str(value.toString());
  case DefaultValue::Kind::IntList:
    return py::cast(value.toIntList());
  case DefaultValue::Kind::DoubleList:
    return py::cast(value.toDoubleList());
  case DefaultValue::Kind::BoolList:
    return py::cast(value.toBoolList());
  case DefaultValue::Kind::ComplexList:
    return py::cast(value.toComplexList());
  }
  return py::none();
}

template <typename T> T unwrap(ParseResult<T> result) {
  if (!result)
    throw std::runtime_error(result.error().message());
  return std::move(*result);
}

} // namespace

void opal::python::bindSchema(py::module_ &m) {
  py::class_<AliasInfo>(m, "AliasInfo",
                        "An alias annotation such as (a!) or (a -> *).")
      .def_property_readonly("before_set",
                             [](const AliasInfo &a) { return a.beforeSets(); })
      .def_property_readonly("after_set",
                             [](const AliasInfo &a) { return a.afterSets(); })
      .def_property_readonly("is_write", &AliasInfo::isWrite)
      .def_property_readonly("is_wildcard_before", &AliasInfo::isWildcardBefore)
      .def_property_readonly("is_wildcard_after", &AliasInfo::isWildcardAfter)
      .def("__str__", &AliasInfo::str)
      .def("__repr__", [](const AliasInfo &a) {
        return "<AliasInfo " + a.str() + ">";
      });

  py::class_<Argument>(m, "Argument", "One argument or return of a schema.")
      .def_property_readonly("name", &Argument::name)
      .def_property_readonly(
          "type", [](const Argument &a) { return a.type()->withoutAlias()->str(); },
          "The type as written in the schema without its alias annotation, e.g. 'Tensor?' "
          "for 'Tensor(a!)?' (the annotation is alias_info), as in PyTorch.")
      .def_property_readonly(
          "python_type", [](const Argument &a) { return a.type()->pythonStr(); },
          "PyTorch's Python-typing spelling, e.g. 'Optional[Tensor]'.")
      .def_property_readonly(
          "default_value",
          [](const Argument &a) -> py::object {
            return a.defaultValue() ? toPython(*a.defaultValue()) : py::none();
          },
          "The default as a Python value; None if there is none (see "
          "has_default_value()).")
      .def("has_default_value",
           [](const Argument &a) { return a.defaultValue().has_value(); })
      .def_property_readonly("kwarg_only", &Argument::kwargOnly)
      .def_property_readonly("is_out", &Argument::isOut)
      .def_property_readonly("is_write", &Argument::isWrite)
      .def_property_readonly("N", &Argument::fixedSize)
      .def_property_readonly(
          "alias_info",
          [](const Argument &a) -> std::optional<AliasInfo> {
            if (const AliasInfo *info = a.aliasInfo())
              return *info;
            return std::nullopt;
          })
      .def("__str__", &Argument::str)
      .def("__repr__",
           [](const Argument &a) { return "<Argument " + a.str() + ">"; });

  py::class_<FunctionSchema>(m, "FunctionSchema", "A parsed operator schema.")
      .def_property_readonly("name", &FunctionSchema::name,
                             "The qualified name without overload, 'ns::op'.")
      .def_property_readonly("overload_name", &FunctionSchema::overloadName)
      .def_property_readonly("namespace", [](const FunctionSchema &s) {
        return std::string(s.ns());
      })
      .def_property_readonly("arguments", &FunctionSchema::arguments)
      .def_property_readonly("returns", &FunctionSchema::returns)
      .def_property_readonly("is_vararg", &FunctionSchema::isVararg)
      .def_property_readonly("is_varret", &FunctionSchema::isVarret)
      .def_property_readonly("is_mutable", &FunctionSchema::isMutable)
      .def("__str__", &FunctionSchema::str)
      .def("__repr__",
           [](const FunctionSchema &s) {
             return "<FunctionSchema " + s.str() + ">";
           })
      .def("__eq__", [](const FunctionSchema &a,
                        const FunctionSchema &b) { return a == b; })
      .def("__hash__",
           [](const FunctionSchema &s) { return py::hash(py::str(s.str())); });

  m.def(
      "parse_schema",
      [](const std::string &text) { return unwrap(parseSchema(text)); },
      py::arg("schema"),
      "Parses an operator schema in PyTorch's grammar. Raises RuntimeError "
      "with the column and a caret line if it is invalid.");
  m.def(
      "_read_op_library_schemas",
      [](const std::string &path) {
        auto schemas = readOpLibrarySchemas(path);
        if (!schemas)
          throw std::runtime_error(schemas.error().message());
        return *schemas;
      },
      py::arg("path"),
      "The schemas an op-library file defines (namespaces filled in).");
  m.def(
      "_read_op_library",
      [](const std::string &path) {
        auto text = readOpLibraryText(path);
        if (!text)
          throw std::runtime_error(text.error().message());
        auto contents = scanOpLibrary(*text, path);
        if (!contents)
          throw std::runtime_error(contents.error().message());
        return py::make_tuple(contents->schemas, contents->decomposed, *text);
      },
      py::arg("path"),
      "(schemas, ops with a decomposition, text) of an op-library file.");
  m.def(
      "parse_type",
      [](const std::string &text) { return unwrap(parseType(text))->str(); },
      py::arg("type"),
      "Parses one schema type and returns its canonical spelling.");
}
