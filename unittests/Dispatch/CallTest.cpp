//===- CallTest.cpp - Keysets of calls, fallthrough, redispatch -----------===//

#include "TestHelpers.h"

using namespace opal;
using namespace opal::test;
using K = DispatchKey;

namespace {


TEST(Call, CpuAndMetaTensorsReachTheirKernels) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  op.lib.impl("foo", K::Meta, tagKernel(2));
  EXPECT_EQ(callTag(op.name, cpuTensor()), 1);
  EXPECT_EQ(callTag(op.name, metaTensor()), 2);
}

TEST(Call, HighestBackendWinsForMixedArguments) {
  TestOp op("foo(Tensor a, Tensor b) -> Tensor");
  op.lib.impl("foo", K::CPU, [](const Tensor &, const Tensor &) { return Tensor::empty({1}); });
  op.lib.impl("foo", K::Meta, [](const Tensor &, const Tensor &) { return Tensor::empty({2}); });
  auto typed = op.handle().typed<Tensor(const Tensor &, const Tensor &)>();
  EXPECT_EQ(typed.call(cpuTensor(), metaTensor()).size(0), 2);
  EXPECT_EQ(typed.call(metaTensor(), cpuTensor()).size(0), 2);
  EXPECT_EQ(typed.call(cpuTensor(), cpuTensor()).size(0), 1);
}

TEST(Call, MissingKernelRaisesNotImplemented) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  try {
    callTag(op.name, metaTensor());
    FAIL() << "expected NotImplementedError";
  } catch (const NotImplementedError &error) {
    std::string message = error.what();
    EXPECT_EQ(message.substr(0, message.find("\n\n")),
              "Could not run '" + op.name + "' with arguments from the 'Meta' backend. "
              "This could be because the operator doesn't exist for this backend. '" +
              op.name + "' is only available for these backends: [CPU, BackendSelect, "
              "ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, "
              "AutogradMPS, AutogradXPU, AutogradHPU, AutogradLazy, AutogradMTIA, "
              "AutogradMAIA, AutogradPrivateUse1, AutogradMeta, AutocastCPU, AutocastMTIA, "
              "AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchVmapMode, "
              "VmapMode].");
    EXPECT_NE(message.find("\n\nCPU: registered at test.cpp:1 [kernel]\n"), std::string::npos);
  }
}

TEST(Call, NoTensorArgumentsGoToUndefined) {
  TestOp op("foo(int n) -> int");
  auto typed = op.handle().typed<int64_t(int64_t)>();
  std::string message = errorOf([&] { typed.call(3); });
  EXPECT_EQ(message.rfind("There were no tensor arguments to this function (e.g., you "
                          "passed an empty list of Tensors), but no fallback function is "
                          "registered for schema " + op.name + ".  This usually means",
                          0),
            0u)
      << message;
  op.lib.impl("foo", K::CompositeImplicitAutograd, [](int64_t n) { return n * 2; });
  EXPECT_EQ(typed.call(21), 42);
}

TEST(Call, EmptyTensorListGoesToUndefined) {
  TestOp op("foo(Tensor[] xs) -> int");
  op.lib.impl("foo", K::CPU, [](const std::vector<Tensor> &) -> int64_t { return 1; });
  op.lib.impl("foo", K::CompositeExplicitAutograd,
              [](const std::vector<Tensor> &) -> int64_t { return 2; });
  auto typed = op.handle().typed<int64_t(const std::vector<Tensor> &)>();
  EXPECT_EQ(typed.call({cpuTensor()}), 1);
  EXPECT_EQ(typed.call({}), 2);
}

TEST(Call, OptionalTensorNoneContributesNothing) {
  TestOp op("foo(Tensor? x) -> int");
  op.lib.impl("foo", K::CPU, [](const std::optional<Tensor> &) -> int64_t { return 1; });
  op.lib.impl("foo", K::CompositeExplicitAutograd,
              [](const std::optional<Tensor> &) -> int64_t { return 2; });
  auto typed = op.handle().typed<int64_t(const std::optional<Tensor> &)>();
  EXPECT_EQ(typed.call(cpuTensor()), 1);
  EXPECT_EQ(typed.call(std::nullopt), 2);
}

TEST(Call, TlsIncludedBackendWins) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  op.lib.impl("foo", K::Meta, tagKernel(2));
  IncludeDispatchKeyGuard include(K::Meta);
  EXPECT_EQ(callTag(op.name, cpuTensor()), 2);
}

TEST(Call, ExclusionWinsOverInclusion) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  op.lib.impl("foo", K::Python, tagKernel(2));
  {
    IncludeDispatchKeyGuard include(K::Python);
    EXPECT_EQ(callTag(op.name, cpuTensor()), 2);
    ExcludeDispatchKeyGuard exclude(K::Python);
    EXPECT_EQ(callTag(op.name, cpuTensor()), 1);
  }
  EXPECT_EQ(callTag(op.name, cpuTensor()), 1);
}

TEST(Call, AutogradKernelRunsAndRedispatches) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  auto handle = op.handle();
  int autogradCalls = 0;
  op.lib.impl("foo", K::AutogradCPU, [&autogradCalls, handle](DispatchKeySet keys, const Tensor &x) {
    ++autogradCalls;
    EXPECT_TRUE(keys.has(K::AutogradCPU));
    DispatchKeySet below = keys & DispatchKeySet(DispatchKeySet::FULL_AFTER, K::AutogradCPU);
    return handle.typed<Tensor(const Tensor &)>().redispatch(below, x);
  });
  EXPECT_EQ(callTag(op.name, cpuTensor()), 1);
  EXPECT_EQ(autogradCalls, 1);
  {
    AutoDispatchBelowAutograd below;
    EXPECT_EQ(callTag(op.name, cpuTensor()), 1);
  }
  EXPECT_EQ(autogradCalls, 1);
}

TEST(Call, PerOpFallthroughBeatsAutogradAlias) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  op.lib.impl("foo", K::Autograd, tagKernel(2));
  EXPECT_EQ(callTag(op.name, cpuTensor()), 2);
  op.lib.impl("foo", K::AutogradCPU, CppFunction::makeFallthrough());
  EXPECT_EQ(callTag(op.name, cpuTensor()), 1);
}

TEST(Call, FallthroughAtCpuFallsToUndefined) {
  TestOp op;
  op.lib.impl("foo", K::CPU, CppFunction::makeFallthrough());
  std::string message = errorOf([&] { callTag(op.name, cpuTensor()); });
  EXPECT_EQ(message.rfind("There were no tensor arguments to this function", 0), 0u) << message;
  op.lib.impl("foo", K::CompositeExplicitAutograd, tagKernel(3));
  // The direct fallthrough still masks Dense for CPU calls; Undefined runs CEA.
  EXPECT_EQ(callTag(op.name, cpuTensor()), 3);
}

TEST(Call, BoxedCallOfAnUnboxedKernel) {
  TestOp op("foo(Tensor x, int n, float f, bool b, str s, int[] l) -> (Tensor, int)");
  op.lib.impl("foo", K::CPU,
              [](const Tensor &x, int64_t n, double f, bool b, const std::string &s,
                 const std::vector<int64_t> &l) {
                return std::make_tuple(x, n + static_cast<int64_t>(f) + b +
                                              static_cast<int64_t>(s.size() + l.size()));
              });
  Tensor x = cpuTensor();
  Stack stack{IValue(x), IValue(int64_t(1)), IValue(2.0), IValue(true), IValue("abc"),
              IValue(std::vector<int64_t>{1, 2})};
  op.handle().callBoxed(stack);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_TRUE(stack[0].toTensor().isSame(x));
  EXPECT_EQ(stack[1].toInt(), 1 + 2 + 1 + 3 + 2);
}

TEST(Call, TypedCallOfABoxedKernel) {
  TestOp op("foo(Tensor x, Scalar s) -> Tensor");
  op.lib.impl("foo", K::CPU, CppFunction::makeFromBoxedFunction(
                                 [](const OperatorHandle &, DispatchKeySet keys, Stack *stack) {
                                   EXPECT_TRUE(keys.has(K::CPU));
                                   double s = stack->back().toScalar().toDouble();
                                   stack->clear();
                                   stack->push_back(Tensor::empty({static_cast<int64_t>(s)}));
                                 }));
  auto typed = op.handle().typed<Tensor(const Tensor &, Scalar)>();
  EXPECT_EQ(typed.call(cpuTensor(), Scalar(5.0)).size(0), 5);
}

TEST(Call, KernelExceptionsPropagate) {
  TestOp op;
  op.lib.impl("foo", K::CPU, [](const Tensor &) -> Tensor { throw std::invalid_argument("bad x"); });
  EXPECT_THROW(callTag(op.name, cpuTensor()), std::invalid_argument);
}

TEST(Call, AmbiguousKernelRaisesWhenReached) {
  TestOp op;
  op.lib.impl("foo", K::CompositeImplicitAutograd, tagKernel(1));
  op.lib.impl("foo", K::QuantizedCPU, tagKernel(2));
  auto typed = op.handle().typed<Tensor(const Tensor &)>();
  std::string message = errorOf([&] {
    typed.redispatch(DispatchKeySet(K::AutogradOther), cpuTensor());
  });
  EXPECT_EQ(message.rfind(op.name + " has kernels registered to both "
                          "CompositeImplicitAutograd and a backend mapped to AutogradOther.", 0),
            0u) << message;
}

TEST(Call, TypedAccessWithTheWrongSignature) {
  TestOp op;
  op.lib.impl("foo", K::CPU, tagKernel(1));
  std::string message = errorOf([&] { op.handle().typed<Tensor(const Tensor &, double)>(); });
  EXPECT_EQ(message, "Tried to access or call an operator with a wrong signature.\n"
                     "  operator: " + op.name + "\n"
                     "  correct signature: (Tensor _0) -> Tensor _0\n"
                     "  accessed/called as: (Tensor _0, float _1) -> Tensor _0");
  TestOp plain("foo(Tensor x) -> Tensor");
  message = errorOf([&] { plain.handle().typed<int64_t(const Tensor &)>(); });
  EXPECT_EQ(message, "Tried to access or call an operator with a wrong signature.\n"
                     "  operator: " + plain.name + "\n"
                     "  schema: " + plain.name + "(Tensor x) -> Tensor\n"
                     "  reason: Type mismatch in return 1: int vs Tensor\n"
                     "  accessed/called as: (Tensor _0) -> int _0");
}

TEST(Call, TensorKeySetsMatchPyTorch) {
  EXPECT_EQ(cpuTensor().keySet().str(),
            "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)");
  EXPECT_EQ(metaTensor().keySet().str(),
            "DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)");
  EXPECT_EQ(Tensor().keySet().str(), "DispatchKeySet()");
}

} // namespace
