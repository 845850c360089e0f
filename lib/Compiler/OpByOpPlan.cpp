//===- OpByOpPlan.cpp - Composites that run op by op ----------------------===//

#include "opal/Compiler/OpByOpPlan.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace opal;
using namespace opal::ir;

LogicalResult opal::ir::buildOpByOpPlan(func::FuncOp function, const jit::CallSpec &spec,
                                        const std::map<std::string, OperatorName> &ops,
                                        jit::CompiledKernel &kernel, std::string &error) {
  llvm::DenseMap<Value, int> slots;
  int next = 0;
  auto fresh = [&](Value value) { return slots[value] = next++; };
  Block &body = function.getBody().front();
  unsigned argument = 0;
  for (const jit::ArgSpec &arg : spec.args) {
    if (arg.kind == jit::ArgKind::Constant) {
      kernel.argumentSlots.push_back(-1);
      continue;
    }
    kernel.argumentSlots.push_back(fresh(body.getArgument(argument++)));
  }
  auto constant = [&](Operation *op, IValue value) {
    kernel.constants.emplace_back(fresh(op->getResult(0)), std::move(value));
  };
  auto slotOf = [&](Value value, Operation *user) -> FailureOr<int> {
    auto it = slots.find(value);
    if (it != slots.end())
      return it->second;
    error = "'" + user->getName().getStringRef().str() + "' uses a value the plan lacks";
    return failure();
  };

  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands()) {
        auto slot = slotOf(value, &op);
        if (failed(slot))
          return failure();
        kernel.outputSlots.push_back(*slot);
      }
      continue;
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto integer = dyn_cast<IntegerAttr>(c.getValue())) {
        if (integer.getType().isInteger(1))
          constant(&op, IValue(integer.getValue().getBoolValue()));
        else
          constant(&op, IValue(integer.getValue().getSExtValue()));
        continue;
      }
      if (auto real = dyn_cast<FloatAttr>(c.getValue())) {
        constant(&op, IValue(real.getValueAsDouble()));
        continue;
      }
    }
    if (isa<NoneOp>(op)) {
      constant(&op, IValue());
      continue;
    }
    if (auto str = dyn_cast<StrOp>(op)) {
      constant(&op, IValue(str.getValue().str()));
      continue;
    }
    if (auto device = dyn_cast<DeviceOp>(op)) {
      auto parsed = Device::parse(device.getName().str());
      if (parsed) {
        constant(&op, IValue(*parsed));
        continue;
      }
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      auto slot = slotOf(cast.getSource(), &op);
      if (failed(slot))
        return failure();
      slots[cast.getResult()] = *slot;
      continue;
    }
    jit::PlanStep step;
    if (auto list = dyn_cast<ListOp>(op)) {
      step.kind = jit::PlanStep::Kind::List;
      Type element = cast<ListType>(list.getType()).getElementType();
      step.listTag = element.isF64()        ? IValue::Tag::DoubleList
                     : element.isInteger(1) ? IValue::Tag::BoolList
                                            : IValue::Tag::IntList;
    } else {
      auto name = ops.find(op.getName().getStringRef().str());
      if (name == ops.end()) {
        error = "'" + op.getName().getStringRef().str() +
                "' in its decomposition is neither an op nor a constant";
        return failure();
      }
      step.op = name->second;
    }
    for (Value operand : op.getOperands()) {
      auto slot = slotOf(operand, &op);
      if (failed(slot))
        return failure();
      step.operands.push_back(*slot);
    }
    for (Value result : op.getResults())
      step.results.push_back(fresh(result));
    kernel.plan.push_back(std::move(step));
  }
  kernel.slotCount = next;
  return success();
}
