//===- Bindings.h - Pieces of the opal._C module ----------------*- C++ -*-===//
//
// Each file of python/src binds one folder of the C++ core; Module.cpp calls
// them in order. PythonValues.h holds the conversions they share.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_PYTHON_BINDINGS_H
#define OPAL_PYTHON_BINDINGS_H

#include <pybind11/pybind11.h>

namespace opal::python {

void bindSchema(pybind11::module_ &m);
void bindRuntime(pybind11::module_ &m);
void bindDispatch(pybind11::module_ &m);
void bindOperators(pybind11::module_ &m);
void bindCuda(pybind11::module_ &m);
void bindCache(pybind11::module_ &m);
void bindAutograd(pybind11::module_ &m);

} // namespace opal::python

#endif // OPAL_PYTHON_BINDINGS_H
