//===- BenchOps.cpp - Native ops for the Python overhead benchmark --------===//
//
// libopal_bench_ops.so: `bench::add` with a C++ CPU kernel that allocates its
// output and adds elementwise (float32, same shapes), and `bench::ident`,
// which returns its input. benchmarks/python_overhead.py loads it.
//
//===----------------------------------------------------------------------===//

#include "opal/Dispatch/Library.h"

using namespace opal;

namespace {

Tensor add(const Tensor &a, const Tensor &b) {
  if (a.dtype() != ScalarType::Float || b.dtype() != ScalarType::Float ||
      a.sizes() != b.sizes() || !a.isContiguous() || !b.isContiguous())
    throw OpalError("bench::add takes two contiguous float32 tensors of one shape");
  Tensor out = Tensor::empty(a.sizes(), ScalarType::Float);
  const float *x = a.data<float>(), *y = b.data<float>();
  float *z = out.data<float>();
  for (int64_t i = 0, n = a.numel(); i < n; ++i)
    z[i] = x[i] + y[i];
  return out;
}

Tensor ident(const Tensor &x) { return x; }

} // namespace

OPAL_LIBRARY(bench, m) {
  m.def("add(Tensor a, Tensor b) -> Tensor");
  m.def("ident(Tensor x) -> Tensor");
}

OPAL_LIBRARY_IMPL(bench, CPU, m) {
  m.impl("add", &add);
  m.impl("ident", &ident);
}
