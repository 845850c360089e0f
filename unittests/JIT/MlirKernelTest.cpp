//===- MlirKernelTest.cpp - The MLIR kernel kind from C++ -----------------===//
//
// Built-in aten ops called through the dispatcher compile on first use,
// hit the in-memory cache after, and recompile when a reached op changes.
//
//===----------------------------------------------------------------------===//

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Dispatch/Library.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Runtime/Factories.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace opal;

namespace {

struct JIT : ::testing::Test {
  static void SetUpTestSuite() { setenv("OPAL_CACHE_DISABLE", "1", 1); }
};

Tensor callOp(const char *name, const char *overload, std::vector<IValue> args) {
  OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(name, overload);
  Stack stack(args.begin(), args.end());
  op.callBoxed(stack);
  return stack.at(0).toTensor();
}

TEST_F(JIT, BuiltinOpsCompileAndHitTheCache) {
  Tensor x = arange(0, 6, 1);
  ASSERT_TRUE(jit::MlirKernel::isMlirKernel(
      Dispatcher::singleton().findSchemaOrThrow("aten::exp", "").entry().tableEntry(
          DispatchKey::CPU)));
  jit::JitStats before = jit::jitStats();
  Tensor y = callOp("aten::exp", "", {x});
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(y.data<float>()[i], std::exp(float(i)), 1e-5 * std::exp(float(i)));
  callOp("aten::exp", "", {x});
  jit::JitStats after = jit::jitStats();
  EXPECT_EQ(after.compiles - before.compiles, 1u);
  EXPECT_EQ(after.hits - before.hits, 1u);
}

TEST_F(JIT, ScalarArgumentsAndOutputShapes) {
  Tensor a = ones({3, 1});
  Tensor b = full({4}, 2.0);
  Tensor r = callOp("aten::add", "Tensor", {a, b, IValue(0.5)});
  ASSERT_EQ(r.dim(), 2);
  EXPECT_EQ(r.size(0), 3);
  EXPECT_EQ(r.size(1), 4);
  for (int i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(r.data<float>()[i], 2.0f);
}

TEST_F(JIT, ResultsGoIntoTheTensorsAGuardGivesItsOpWhereTheyFit) {
  Tensor x = arange(0, 6, 1);
  callOp("aten::exp", "", {x}); // (compiled before the guard: none taken by the compile)
  Tensor into = zeros({6});
  {
    jit::ResultsIntoGuard guard({into}, "aten::exp");
    Tensor y = callOp("aten::exp", "", {x});
    EXPECT_EQ(y.dataPtr(), into.dataPtr());
  }
  EXPECT_NEAR(into.data<float>()[2], std::exp(2.0f), 1e-5);
  // Another op's kernel, a tensor of other sizes, or a call after the
  // guard's first one: a new tensor.
  Tensor other = zeros({6});
  {
    jit::ResultsIntoGuard guard({other}, "aten::exp");
    Tensor y = callOp("aten::tanh", "", {x});
    EXPECT_NE(y.dataPtr(), other.dataPtr());
    Tensor z = callOp("aten::exp", "", {x});
    EXPECT_NE(z.dataPtr(), other.dataPtr());
  }
  {
    jit::ResultsIntoGuard guard({zeros({5})}, "aten::exp");
    Tensor y = callOp("aten::exp", "", {x});
    EXPECT_EQ(y.size(0), 6);
  }
  EXPECT_EQ(other.data<float>()[2], 0.0f);
}

TEST_F(JIT, ALaterKernelForAReachedOpIsNeverIgnored) {
  Tensor x = full({2}, 1.0);
  Tensor before = callOp("aten::silu", "", {x});
  EXPECT_NEAR(before.data<float>()[0], 1.0f / (1.0f + std::exp(-1.0f)), 1e-6);
  uint64_t stale = jit::jitStats().stale;
  {
    Library impl(Library::IMPL, "aten", std::nullopt, __FILE__, __LINE__);
    impl.impl("sigmoid", DispatchKey::CPU, [](const Tensor &t) { return full({2}, 0.25); });
    Tensor during = callOp("aten::silu", "", {x});
    EXPECT_FLOAT_EQ(during.data<float>()[0], 0.25f); // x * sigmoid(x) with the new sigmoid
    EXPECT_EQ(jit::jitStats().stale, stale + 1);
  }
  Tensor after = callOp("aten::silu", "", {x});
  EXPECT_NEAR(after.data<float>()[0], before.data<float>()[0], 1e-7);
}

TEST_F(JIT, ThreadsMissingTogetherCompileOnce) {
  // A specialization no other test uses: rank 5.
  Tensor x = ones({1, 2, 1, 2, 3});
  jit::JitStats before = jit::jitStats();
  std::vector<std::thread> threads;
  std::vector<float> results(4, 0.0f);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Tensor y = callOp("aten::tanh", "", {x});
      results[t] = y.data<float>()[5];
    });
  for (std::thread &thread : threads)
    thread.join();
  jit::JitStats after = jit::jitStats();
  EXPECT_EQ(after.compiles - before.compiles, 1u); // single flight
  EXPECT_EQ((after.hits - before.hits) + (after.misses - before.misses), 4u);
  for (float r : results)
    EXPECT_NEAR(r, std::tanh(1.0f), 1e-6);
}

} // namespace
