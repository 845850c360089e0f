//===- TestOpLibrary.cpp - An op library loaded with dlopen by the tests --===//
//
// Built as its own shared library (libopal_test_oplib.so). Loading it must
// register these ops; unloading it must remove them.
//
//===----------------------------------------------------------------------===//

#include "opal/Dispatch/Library.h"

using namespace opal;

OPAL_LIBRARY(loadedlib, m) {
  m.def("double_size(Tensor x) -> Tensor");
}

OPAL_LIBRARY_IMPL(loadedlib, CPU, m) {
  m.impl("double_size", [](const Tensor &x) { return Tensor::empty({2 * x.size(0)}); });
}
