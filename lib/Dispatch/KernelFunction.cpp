//===- KernelFunction.cpp - What a dispatch-table entry calls -------------===//

#include "opal/Dispatch/KernelFunction.h"

#include "opal/Dispatch/Dispatcher.h"

using namespace opal;

static void fallthroughKernel(OperatorKernel *, const OperatorHandle &op,
                              DispatchKeySet, Stack *) {
  throw OpalError("fallthrough kernel of " + op.operatorName().str() +
                  " was executed but it should have been short-circuited by "
                  "the dispatcher. This could occur if you registered a "
                  "fallthrough kernel as an override for a specific operator "
                  "(as opposed to a backend fallback) and then called it "
                  "through redispatch with a keyset that still holds its key.");
}

static void ambiguousAutogradOtherKernel(OperatorKernel *, const OperatorHandle &op,
                                         DispatchKeySet, Stack *) {
  throw OpalError(
      op.operatorName().str() +
      " has kernels registered to both CompositeImplicitAutograd and a backend "
      "mapped to AutogradOther. This makes the backend kernel unreachable; the "
      "dispatcher will always prefer the CompositeImplicitAutograd lowering. "
      "If you want to override CompositeImplicitAutograd, register a kernel "
      "for the backend's Autograd key or for AutogradOther.\n"
      "Canonical state\n~~~~~~~~~~~\n" +
      op.dumpState());
}

KernelFunction KernelFunction::makeFallthrough() {
  KernelFunction kernel;
  kernel.boxed_ = &fallthroughKernel;
  return kernel;
}

KernelFunction KernelFunction::makeAmbiguousAutogradOther() {
  KernelFunction kernel;
  kernel.boxed_ = &ambiguousAutogradOtherKernel;
  return kernel;
}

namespace {
struct BoxedFunctionHolder : OperatorKernel {
  explicit BoxedFunctionHolder(void (*f)(const OperatorHandle &, DispatchKeySet, Stack *))
      : fn(f) {}
  void (*fn)(const OperatorHandle &, DispatchKeySet, Stack *);
};
void callBoxedFunction(OperatorKernel *functor, const OperatorHandle &op,
                       DispatchKeySet keys, Stack *stack) {
  static_cast<BoxedFunctionHolder *>(functor)->fn(op, keys, stack);
}
} // namespace

KernelFunction KernelFunction::makeFromBoxedFunction(
    void (*fn)(const OperatorHandle &, DispatchKeySet, Stack *)) {
  return makeFromBoxedFunctor(
      IntrusivePtr<OperatorKernel>(new BoxedFunctionHolder(fn)), &callBoxedFunction);
}

bool KernelFunction::isFallthrough() const { return boxed_ == &fallthroughKernel; }

bool KernelFunction::isAmbiguousAutogradOther() const {
  return boxed_ == &ambiguousAutogradOtherKernel;
}

std::string KernelFunction::dumpState() const {
  std::string state;
  if (boxed_)
    state += "boxed ";
  if (unboxed_)
    state += "unboxed ";
  return state;
}
