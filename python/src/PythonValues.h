//===- PythonValues.h - Python objects ↔ IValues by schema type -*- C++ -*-===//

#ifndef OPAL_PYTHON_PYTHONVALUES_H
#define OPAL_PYTHON_PYTHONVALUES_H

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Runtime/Allocator.h"

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

namespace opal::python {

/// Converts `object` to the IValue a `type` argument takes. On mismatch,
/// returns nothing and sets `expected` to what was wanted ("Tensor",
/// "List[int]", ...).
std::optional<IValue> toIValue(pybind11::handle object, const SchemaType &type,
                               std::string &expected);
/// The Python object for a value (tensors as opal.Tensor, lists as lists).
pybind11::object toPython(const IValue &value);
pybind11::object toPython(IValue &&value);

/// The Python name of an object's type, as error messages print it.
std::string pythonTypeName(pybind11::handle object);

/// Parses a call's Python arguments against `schema` onto `stack`. On
/// failure returns the reason (without the op's name), leaving `stack` as it
/// was; with `explain` false the reason is left empty (a packet's call tries
/// overloads that do not fit before the one that does: it asks for reasons
/// only when none fits).
std::optional<std::string> parseArguments(const FunctionSchema &schema,
                                          pybind11::handle args,
                                          pybind11::handle kwargs, Stack &stack,
                                          bool explain = true);
/// The Python result of a call: None, one value, or a tuple.
pybind11::object returnsToPython(const FunctionSchema &schema, Stack &stack);

/// A Python bool, int or float (or a numpy scalar) as a Scalar of the same
/// kind; an int past int64 raises "Overflow when unpacking long", anything
/// else a TypeError that starts with `what`.
Scalar toScalar(pybind11::handle object, const char *what);

/// The dtype object for a ScalarType, and back.
pybind11::object dtypeObject(ScalarType type);
/// A caching allocator's counters (CPU or CUDA) as the dict Python sees.
pybind11::dict allocatorStatsDict(const AllocatorStats &stats);
std::optional<ScalarType> scalarTypeOf(pybind11::handle object);

} // namespace opal::python

#endif // OPAL_PYTHON_PYTHONVALUES_H
