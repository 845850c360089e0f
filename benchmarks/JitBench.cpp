//===- JitBench.cpp - The JIT's in-memory hit beside a native kernel ------===//
//
// Both rows call an op through the dispatcher's boxed path on a 1-element
// float32 tensor and allocate one output: `aten::neg` resolves to its
// compiled MLIR kernel (a hit after the first call), `bench_native::neg` to
// a C++ kernel that allocates and negates. The difference is the JIT's hit
// overhead (key words, lookup, packing, sizes entry, the call).
//
// BM_JitHitOverNative measures the difference itself, robust to this
// machine's drift: each iteration times a batch of native calls and a
// batch of JIT calls back to back and reports the JIT's extra time per call
// (manual time), so the two sides always run under the same conditions;
// BM_JitCheckedHitOverNative does the same for `add.Tensor` of two
// tensors, whose kernel checks their sizes before every call.
//
// BM_CacheManifestHmac and BM_CacheObjectSha256: what a warm start from the
// disk or remote cache pays to authenticate an entry: the HMAC of a
// manifest of 2,400 bytes (gelu's is 2,438) and the checksum of a 6,104-byte
// object (gelu's kernel.o).
//
//   build/bin/opal-bench-jit --benchmark_repetitions=5
//
//===----------------------------------------------------------------------===//

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Dispatch/Library.h"
#include "opal/Runtime/Factories.h"
#include "opal/Support/Hmac.h"
#include "opal/Support/Sha256.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>

using namespace opal;

namespace {

Tensor nativeNeg(const Tensor &x) {
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  const float *in = x.data<float>();
  float *o = out.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i)
    o[i] = -in[i];
  return out;
}

Tensor nativeAdd(const Tensor &x, const Tensor &y, const Scalar &alpha) {
  if (x.sizes() != y.sizes())
    throw OpalError("bench_native::add: sizes differ");
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  const float *a = x.data<float>(), *b = y.data<float>();
  float *o = out.data<float>();
  float scale = static_cast<float>(alpha.toDouble());
  for (int64_t i = 0; i < x.numel(); ++i)
    o[i] = a[i] + scale * b[i];
  return out;
}

void run(benchmark::State &state, const char *name) {
  OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(name, "");
  Tensor x = ones({1});
  Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    stack.clear();
    stack.emplace_back(x);
    op.callBoxed(stack);
    benchmark::DoNotOptimize(stack.back().toTensorImpl());
  }
}

void defineNative() {
  static Library lib(Library::DEF, "bench_native", std::nullopt, __FILE__, __LINE__);
  static bool defined = [] {
    lib.def("neg(Tensor x) -> Tensor");
    lib.impl("neg", DispatchKey::CPU, nativeNeg);
    lib.def("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    lib.impl("add", DispatchKey::CPU, nativeAdd);
    return true;
  }();
  (void)defined;
}

void BM_NativeKernel(benchmark::State &state) {
  defineNative();
  run(state, "bench_native::neg");
}
BENCHMARK(BM_NativeKernel);

void BM_JitHit(benchmark::State &state) {
  setenv("OPAL_CACHE_DISABLE", "1", 1);
  run(state, "aten::neg");
}
BENCHMARK(BM_JitHit);

/// Per iteration, 256 boxed calls of `native` and 256 of `jit` on the
/// same arguments, back to back; the JIT's extra time per call.
void hitOverNative(benchmark::State &state, const char *nativeName, const char *jitName,
                   const char *jitOverload, const std::vector<IValue> &arguments) {
  defineNative();
  setenv("OPAL_CACHE_DISABLE", "1", 1);
  OperatorHandle native = Dispatcher::singleton().findSchemaOrThrow(nativeName, "");
  OperatorHandle jit = Dispatcher::singleton().findSchemaOrThrow(jitName, jitOverload);
  Stack stack;
  stack.reserve(arguments.size() + 1);
  auto batch = [&](OperatorHandle &op) {
    constexpr int kCalls = 256;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      stack.clear();
      for (const IValue &argument : arguments)
        stack.push_back(argument);
      op.callBoxed(stack);
      benchmark::DoNotOptimize(stack.back().toTensorImpl());
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
           kCalls;
  };
  batch(jit); // compiles
  for (auto _ : state) {
    double nativeCall = batch(native);
    double jitCall = batch(jit);
    state.SetIterationTime(std::max(jitCall - nativeCall, 0.0));
  }
}

// `neg`: no shape checks (one input).
void BM_JitHitOverNative(benchmark::State &state) {
  hitOverNative(state, "bench_native::neg", "aten::neg", "", {IValue(ones({state.range(0)}))});
}
// One element: its size is part of the key (size-1 dims are), so the
// output's size is known without a call. 16: the kernel's shapes entry
// computes it on each call (as for most tensors).
BENCHMARK(BM_JitHitOverNative)->Arg(1)->Arg(16)->UseManualTime()->Iterations(2000);

// `add.Tensor` of two 16-element tensors: one shape check (the two dynamic
// sizes must match) before every call; the native kernel compares the
// sizes too.
void BM_JitCheckedHitOverNative(benchmark::State &state) {
  Tensor x = ones({state.range(0)});
  hitOverNative(state, "bench_native::add", "aten::add", "Tensor",
                {IValue(x), IValue(x), IValue(Scalar(int64_t(1)))});
}
BENCHMARK(BM_JitCheckedHitOverNative)->Arg(16)->UseManualTime()->Iterations(2000);

void BM_CacheManifestHmac(benchmark::State &state) {
  std::string key(64, 'k'), manifest(2400, 'm');
  for (auto _ : state)
    benchmark::DoNotOptimize(hmacSha256Hex(key, manifest));
}
BENCHMARK(BM_CacheManifestHmac);

void BM_CacheObjectSha256(benchmark::State &state) {
  std::string object(6104, 'o');
  for (auto _ : state)
    benchmark::DoNotOptimize(sha256Hex(object));
}
BENCHMARK(BM_CacheObjectSha256);

} // namespace
