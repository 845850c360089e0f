//===- Module.cpp - The opal._C extension module --------------------------===//

#include "Bindings.h"

#include "opal/Support/Version.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "opal's native core: schemas, dispatcher and runtime";
  opal::python::bindSchema(m);
  opal::python::bindRuntime(m);
  opal::python::bindDispatch(m);
  opal::python::bindOperators(m);
  opal::python::bindCuda(m);
  opal::python::bindCache(m);
  opal::python::bindAutograd(m);
  m.def("_version_text", &opal::versionText,
        "'opal 0.1.0 (build ...)': what the tools print for --version");
}
