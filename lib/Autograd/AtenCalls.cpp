//===- AtenCalls.cpp - The aten ops the engine itself calls ---------------===//

#include "AtenCalls.h"

#include "opal/Dispatch/Dispatcher.h"

using namespace opal;
using namespace opal::autograd;

namespace {

Tensor callOne(const OperatorHandle &op, Stack stack) {
  op.callBoxed(stack);
  return std::move(stack.back()).toTensor();
}

} // namespace

Tensor autograd::detail::add(const Tensor &a, const Tensor &b) {
  static const OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor");
  return callOne(op, {IValue(a), IValue(b), IValue(int64_t(1))});
}

Tensor autograd::detail::sum(const Tensor &tensor, std::vector<int64_t> dims, bool keepdim) {
  static const OperatorHandle op =
      Dispatcher::singleton().findSchemaOrThrow("aten::sum", "dim_IntList");
  return callOne(op, {IValue(tensor), IValue(std::move(dims)), IValue(keepdim), IValue()});
}

Tensor autograd::detail::zeros(const InputMetadata &metadata) {
  Tensor result = Tensor::empty(metadata.sizes, metadata.dtype, metadata.device);
  result.fill(0.0);
  return result;
}
