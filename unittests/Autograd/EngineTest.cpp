//===- EngineTest.cpp - Autograd from C++ ---------------------------------===//
//
// Recording through the dispatcher, the engine's backward and grad, grad
// mode, saved-tensor checks and formula lookup, without Python.
//
//===----------------------------------------------------------------------===//

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Autograd/Engine.h"
#include "opal/Autograd/Formula.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Autograd/InPlace.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Runtime/Factories.h"
#include "opal/Support/Exceptions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace opal;
using namespace opal::autograd;

namespace {

struct Autograd : ::testing::Test {
  static void SetUpTestSuite() { setenv("OPAL_CACHE_DISABLE", "1", 1); }
};

Tensor call(const char *name, const char *overload, std::vector<IValue> args) {
  OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(name, overload);
  Stack stack(args.begin(), args.end());
  op.callBoxed(stack);
  return stack.at(0).toTensor();
}

Tensor leaf(std::vector<float> values) {
  Tensor t = Tensor::empty({static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.data<float>()[i] = values[i];
  setRequiresGrad(t, true);
  return t;
}

std::vector<float> values(const Tensor &t) {
  Tensor c = t.contiguous();
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

std::string errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}

TEST_F(Autograd, RecordsAndAccumulatesIntoLeaves) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = call("aten::mul", "Tensor", {x, x});
  ASSERT_TRUE(requiresGrad(y));
  EXPECT_FALSE(isLeaf(y));
  EXPECT_EQ(gradFn(y)->name(), "MulBackward0");
  Tensor s = call("aten::sum", "", {y, IValue()});
  backward({s}, {Tensor()}, /*retainGraph=*/false);
  EXPECT_EQ(values(autogradMeta(x)->grad), (std::vector<float>{2, 4, 6}));
}

TEST_F(Autograd, GradReturnsWithoutAccumulating) {
  Tensor x = leaf({1, 2});
  Tensor y = call("aten::exp", "", {x});
  Tensor s = call("aten::sum", "", {y, IValue()});
  std::vector<Tensor> g = grad({s}, {x}, {Tensor()}, false, false);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_NEAR(values(g[0])[1], std::exp(2.0f), 1e-5);
  EXPECT_FALSE(autogradMeta(x)->grad.defined());
}

TEST_F(Autograd, BroadcastGradientsAreSummedToTheInputShape) {
  Tensor x = leaf({1, 2, 3});
  Tensor m = Tensor::empty({2, 3});
  m.fill(2.0);
  Tensor y = call("aten::mul", "Tensor", {m, x});
  Tensor s = call("aten::sum", "", {y, IValue()});
  backward({s}, {Tensor()}, false);
  EXPECT_EQ(values(autogradMeta(x)->grad), (std::vector<float>{4, 4, 4}));
}

TEST_F(Autograd, NoGradModeRecordsNothing) {
  Tensor x = leaf({1, 2});
  {
    NoGradGuard guard;
    EXPECT_FALSE(GradMode::isEnabled());
    Tensor y = call("aten::mul", "Tensor", {x, x});
    EXPECT_FALSE(requiresGrad(y));
  }
  EXPECT_TRUE(GradMode::isEnabled());
}

TEST_F(Autograd, SecondBackwardAndOverwrittenSavedTensorsRaise) {
  Tensor x = leaf({1, 2});
  Tensor s = call("aten::sum", "", {call("aten::exp", "", {x}), IValue()});
  backward({s}, {Tensor()}, false);
  EXPECT_EQ(errorOf([&] { backward({s}, {Tensor()}, false); })
                .rfind("Trying to backward through the graph a second time", 0),
            0u);

  // As in PyTorch, overwriting exp's saved result breaks its backward even
  // when the gradient reaching it is zero.
  Tensor z = leaf({1, 2});
  Tensor e = call("aten::exp", "", {z});
  Tensor ones = Tensor::empty({2});
  ones.fill(1.0);
  Tensor t = call("aten::sum", "", {e, IValue()});
  copyInPlace(e, ones);
  EXPECT_NE(errorOf([&] { backward({t}, {Tensor()}, false); })
                .find("[opal.FloatTensor [2]], which is output 0 of Exp, is at version "
                      "1; expected version 0 instead"),
            std::string::npos);
}

TEST_F(Autograd, FormulasAreFoundByName) {
  auto mm = Dispatcher::singleton().findSchemaOrThrow("aten::mm", "");
  auto formula = findFormula(mm);
  ASSERT_TRUE(formula && *formula);
  EXPECT_FALSE((*formula)->joint);
  ASSERT_EQ((*formula)->ops.size(), 2u);
  EXPECT_EQ((*formula)->ops[0].op.operatorName().str(), "aten_backward::mm.self");
  EXPECT_EQ((*formula)->nodeName, "MmBackward0");
  auto exp = findFormula(Dispatcher::singleton().findSchemaOrThrow("aten::exp", ""));
  ASSERT_TRUE(exp && *exp);
  EXPECT_TRUE((*exp)->joint);
  EXPECT_EQ((*exp)->savesResult, std::vector<bool>{true});
  EXPECT_EQ((*exp)->savesArgument, std::vector<bool>{false});
  auto none = findFormula(Dispatcher::singleton().findSchemaOrThrow("aten::floor_divide", ""));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

} // namespace

TEST_F(Autograd, HooksSeeAndReplaceGradients) {
  Tensor x = leaf({1, 2});
  Tensor y = call("aten::mul", "Tensor", {x, x}); // a non-leaf
  std::vector<float> seenAtY;
  registerHook(y, [&](const Tensor &grad) {
    seenAtY = values(grad);
    return Tensor(); // keeps it
  });
  int64_t doubling = registerHook(x, [&](const Tensor &grad) {
    return call("aten::mul", "Scalar", {grad, 2.0});
  });
  Tensor s = call("aten::sum", "", {y, IValue()});
  backward({s}, {Tensor()}, /*retainGraph=*/true);
  EXPECT_EQ(seenAtY, (std::vector<float>{1, 1}));
  EXPECT_EQ(values(gradOf(x)), (std::vector<float>{4, 8})); // 2x * 2
  removeHook(x, doubling);
  setGrad(x, Tensor());
  backward({s}, {Tensor()}, false);
  EXPECT_EQ(values(gradOf(x)), (std::vector<float>{2, 4}));
  Tensor plain = Tensor::empty({2});
  EXPECT_EQ(errorOf([&] { registerHook(plain, [](const Tensor &g) { return g; }); }),
            "cannot register a hook on a tensor that doesn't require gradient");
  Tensor z = leaf({1, 2, 3});
  registerHook(z, [](const Tensor &) { return Tensor::empty({5}); });
  Tensor t = call("aten::sum", "", {z, IValue()});
  EXPECT_EQ(errorOf([&] { backward({t}, {Tensor()}, false); }),
            "hook 'hook' has changed the size of value");
}
