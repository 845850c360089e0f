//===- SchemaParseBench.cpp - Schema parsing and printing speed -----------===//
//
// How long parsing and printing a schema takes. Registration parses every
// schema once, so this bounds the cost of defining an op library.
//
//===----------------------------------------------------------------------===//

#include "opal/Schema/SchemaParser.h"

#include <benchmark/benchmark.h>

using namespace opal;

static const char *kSimple = "mylib::softplus(Tensor x, float beta=1.0, float threshold=20) -> Tensor";
static const char *kRich =
    "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor";

static void BM_ParseSimple(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(parseSchema(kSimple));
}
BENCHMARK(BM_ParseSimple);

static void BM_ParseRich(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(parseSchema(kRich));
}
BENCHMARK(BM_ParseRich);

static void BM_PrintRich(benchmark::State &state) {
  FunctionSchema schema = *parseSchema(kRich);
  for (auto _ : state)
    benchmark::DoNotOptimize(schema.str());
}
BENCHMARK(BM_PrintRich);

static void BM_ParseError(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(parseSchema("mylib::f(Tensr x) -> Tensor"));
}
BENCHMARK(BM_ParseError);
