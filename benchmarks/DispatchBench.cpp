//===- DispatchBench.cpp - The cost of one trip through the dispatcher ----===//
//
// The kernels do no work (they return their input), so each row is the
// dispatcher's own cost: PyTorch 1.13 takes 26 ns for the typed hop and 54 ns
// boxed on the development machine (shared/reference/perf-anchors.md, A1).
//
//===----------------------------------------------------------------------===//

#include "opal/Dispatch/Library.h"

#include <benchmark/benchmark.h>

using namespace opal;

namespace {

Tensor identity(const Tensor &x) { return x; }
Tensor identity3(const Tensor &x, const Tensor &, const Tensor &) { return x; }

struct Registration {
  Library lib{Library::DEF, "bench", std::nullopt, __FILE__, __LINE__};
  Registration() {
    lib.def("ident(Tensor x) -> Tensor");
    lib.def("ident3(Tensor a, Tensor b, Tensor c) -> Tensor");
    lib.impl("ident", DispatchKey::CPU, &identity);
    lib.impl("ident3", DispatchKey::CPU, &identity3);
  }
};
Registration &registration() {
  static Registration instance;
  return instance;
}

void BM_DirectCall(benchmark::State &state) {
  Tensor x = Tensor::empty({1});
  auto *fn = &identity;
  benchmark::DoNotOptimize(fn);
  for (auto _ : state)
    benchmark::DoNotOptimize(fn(x));
}
BENCHMARK(BM_DirectCall);

void BM_TypedCall(benchmark::State &state) {
  registration();
  auto op = Dispatcher::singleton().findSchemaOrThrow("bench::ident", "")
                .typed<Tensor(const Tensor &)>();
  Tensor x = Tensor::empty({1});
  for (auto _ : state)
    benchmark::DoNotOptimize(op.call(x));
}
BENCHMARK(BM_TypedCall);

void BM_TypedCallThreeTensors(benchmark::State &state) {
  registration();
  auto op = Dispatcher::singleton().findSchemaOrThrow("bench::ident3", "")
                .typed<Tensor(const Tensor &, const Tensor &, const Tensor &)>();
  Tensor x = Tensor::empty({1});
  for (auto _ : state)
    benchmark::DoNotOptimize(op.call(x, x, x));
}
BENCHMARK(BM_TypedCallThreeTensors);

void BM_KeySetOneTensor(benchmark::State &state) {
  registration();
  OperatorEntry &entry = Dispatcher::singleton().findSchemaOrThrow("bench::ident", "").entry();
  Tensor x = Tensor::empty({1});
  for (auto _ : state)
    benchmark::DoNotOptimize(entry.computeCallKeySet(detail::collectKeys(x)));
}
BENCHMARK(BM_KeySetOneTensor);

void BM_KeySetThreeTensors(benchmark::State &state) {
  registration();
  OperatorEntry &entry = Dispatcher::singleton().findSchemaOrThrow("bench::ident3", "").entry();
  Tensor x = Tensor::empty({1});
  for (auto _ : state)
    benchmark::DoNotOptimize(entry.computeCallKeySet(detail::collectKeys(x, x, x)));
}
BENCHMARK(BM_KeySetThreeTensors);

void BM_BoxedCall(benchmark::State &state) {
  registration();
  auto op = Dispatcher::singleton().findSchemaOrThrow("bench::ident", "");
  Tensor x = Tensor::empty({1});
  Stack stack;
  stack.reserve(4);
  for (auto _ : state) {
    stack.emplace_back(x);
    op.callBoxed(&stack);
    stack.clear();
  }
}
BENCHMARK(BM_BoxedCall);

} // namespace

namespace {

void BM_EmptyTensorOneElement(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(Tensor::empty({1}));
}
BENCHMARK(BM_EmptyTensorOneElement);

} // namespace
