//===- DeriveBackward.cpp - The backward of a decomposition ---------------===//
//
// Reverse mode through a decomposition body: the body is recomputed, then
// each op's gradient comes from its derivative formulas (Autograd/Formula.h:
// the ops of `<ns>_backward` that the dispatcher knows, bound by name),
// summed to its operands' shapes and dtypes with opal.sum_to, and added
// where gradients meet. The result is one op of an op library, so the JIT
// compiles the whole backward of a user's op as one fused kernel.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Autograd/Formula.h"
#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Schema/SchemaParser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALDERIVEBACKWARD
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using namespace opal;
using namespace opal::ir;

namespace {

bool isTensorValue(Value value) { return isa<GenericTensorType, TensorType>(value.getType()); }

/// "aten.mul.Tensor", an op's MLIR name, as the dispatcher names it.
OperatorName operatorNameOf(StringRef mlirName) {
  auto [ns, rest] = mlirName.split('.');
  auto [base, overload] = rest.split('.');
  return OperatorName{(ns + "::" + base).str(), overload.str()};
}

/// The decomposition of `op` (its MLIR name) among `libraries`.
DecompositionOp findDecomposition(ArrayRef<ModuleOp> libraries, StringRef op) {
  DecompositionOp found;
  for (ModuleOp library : libraries)
    library.walk([&](DecompositionOp decomposition) {
      StringRef name = decomposition.getOp();
      auto [ns, rest] = name.split("::");
      std::string full = rest.empty()
                             ? (decomposition->getParentOfType<LibraryOp>().getNs() + "." + name).str()
                             : (ns + "." + rest).str();
      if (full == op)
        found = decomposition;
    });
  return found;
}

class Deriver {
public:
  Deriver(OpBuilder &builder, const DenseSet<Value> &depends, std::string &problem)
      : b(builder), problem(problem), depends(&depends) {}

  /// Runs `ops` (the recomputed body) backwards from the gradients in
  /// `grads`.
  LogicalResult run(ArrayRef<Operation *> ops) {
    for (Operation *op : llvm::reverse(ops)) {
      bool reached = llvm::any_of(op->getResults(), [&](Value r) { return grads.count(r); });
      if (!reached)
        continue;
      if (isa<PromoteOp, BroadcastTensorsOp, ToDtypeOp, BroadcastToOp>(op)) {
        // Casts and broadcasts: result i's gradient goes to operand i.
        for (auto [i, result] : llvm::enumerate(op->getResults()))
          if (Value grad = grads.lookup(result); grad && i < op->getNumOperands())
            accumulate(op->getLoc(), op->getOperand(i), grad);
        continue;
      }
      if (failed(differentiate(op)))
        return failure();
    }
    return success();
  }

  /// Adds `grad`, summed to `target`'s shape and dtype, to its gradient.
  void accumulate(Location loc, Value target, Value grad) {
    if (!depends->count(target) || !isTensorValue(target))
      return;
    Type generic = GenericTensorType::get(b.getContext());
    OperationState fit(loc, SumToOp::getOperationName());
    fit.addOperands({grad, target});
    fit.addTypes(generic);
    Value fitted = b.create(fit)->getResult(0);
    Value &slot = grads[target];
    if (!slot) {
      slot = fitted;
      return;
    }
    OperationState add(loc, "aten.add.Tensor");
    Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
    add.addOperands({slot, fitted, one});
    add.addTypes(generic);
    slot = b.create(add)->getResult(0);
  }

  Value zerosLike(Location loc, Value like) {
    Type none = opal::ir::NoneType::get(b.getContext());
    Value n = NoneOp::create(b, loc, none);
    OperationState zeros(loc, "aten.zeros_like");
    zeros.addOperands({like, n, n, n, n, n});
    zeros.addTypes(GenericTensorType::get(b.getContext()));
    return b.create(zeros)->getResult(0);
  }

  llvm::DenseMap<Value, Value> grads;

private:
  LogicalResult differentiate(Operation *op) {
    StringRef name = op->getName().getStringRef();
    OperatorName opName = operatorNameOf(name);
    auto handle = Dispatcher::singleton().findSchema(opName);
    if (!handle || op->getName().getDialectNamespace() == "opal" ||
        op->getName().getDialectNamespace() == "arith")
      return refuse(name.str() + " is not an op autograd differentiates");
    auto formula = autograd::findFormula(*handle);
    if (!formula)
      return refuse(formula.error().message());
    if (!*formula)
      return refuse(opName.str() + " has no derivative formula");
    const autograd::Formula &f = **formula;
    const auto &arguments = handle->schema().arguments();
    if (op->getNumOperands() != arguments.size())
      return refuse(opName.str() + " is called with " + std::to_string(op->getNumOperands()) +
                    " operands for " + std::to_string(arguments.size()) + " arguments");
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (isTensorValue(operand) && depends->count(operand) && !f.differentiable[i])
        return refuse(opName.str() + " has no derivative for its argument `" +
                      arguments[i].name() + "`");
    for (const autograd::FormulaOp &formulaOp : f.ops) {
      const FunctionSchema &formulaSchema = formulaOp.op.schema();
      auto isList = [](const Argument &a) { return autograd::isTensorList(*a.type()); };
      if (llvm::any_of(formulaSchema.arguments(), isList) ||
          llvm::any_of(formulaSchema.returns(), isList))
        return refuse(opName.str() + "'s derivative works on lists of tensors, which a derived "
                                     "backward cannot fuse yet");
    }
    Location loc = op->getLoc();
    for (const autograd::FormulaOp &formulaOp : f.ops) {
      if (!f.joint && !depends->count(op->getOperand(formulaOp.gradientOf.front())))
        continue;
      SmallVector<Value> operands;
      for (const autograd::FormulaBinding &binding : formulaOp.arguments) {
        switch (binding.kind) {
        case autograd::FormulaBinding::Grad: {
          Value result = op->getResult(binding.index);
          Value grad = grads.lookup(result);
          operands.push_back(grad ? grad : zerosLike(loc, result));
          break;
        }
        case autograd::FormulaBinding::Result:
          operands.push_back(op->getResult(binding.index));
          break;
        case autograd::FormulaBinding::Argument:
          operands.push_back(op->getOperand(binding.index));
          break;
        }
      }
      OperationState call(loc, schemaOpName(formulaOp.op.schema()));
      call.addOperands(operands);
      call.addTypes(SmallVector<Type>(formulaOp.gradientOf.size(),
                                      GenericTensorType::get(b.getContext())));
      Operation *created = b.create(call);
      for (auto [k, input] : llvm::enumerate(formulaOp.gradientOf))
        accumulate(loc, op->getOperand(input), created->getResult(k));
    }
    return success();
  }

  LogicalResult refuse(std::string reason) {
    problem = std::move(reason);
    return failure();
  }

  OpBuilder &b;
  std::string &problem;
  const DenseSet<Value> *depends;
};

/// The backward's schema: the gradients of the tensor results, then the
/// op's arguments; results named after the tensor arguments.
std::string backwardSchema(const FunctionSchema &forward, const std::string &qualified,
                           ArrayRef<unsigned> tensorResults, ArrayRef<unsigned> tensorArguments) {
  std::string text = qualified + "(";
  bool first = true;
  auto comma = [&] {
    if (!first)
      text += ", ";
    first = false;
  };
  for (unsigned r : tensorResults) {
    comma();
    text += tensorResults.size() == 1 ? "Tensor grad" : "Tensor grad" + std::to_string(r);
  }
  for (const Argument &argument : forward.arguments()) {
    comma();
    text += argument.type()->withoutAlias()->str() + " " + argument.name();
  }
  text += ") -> ";
  if (tensorArguments.size() != 1)
    text += "(";
  for (auto [k, i] : llvm::enumerate(tensorArguments))
    text += (k ? ", Tensor " : "Tensor ") + forward.arguments()[i].name();
  if (tensorArguments.size() != 1)
    text += ")";
  return text;
}

} // namespace

FailureOr<std::string> opal::ir::deriveBackward(ArrayRef<ModuleOp> libraries,
                                                const FunctionSchema &forward,
                                                std::string &problem) {
  const OperatorName &name = forward.operatorName();
  DecompositionOp source = findDecomposition(libraries, schemaOpName(forward));
  if (!source) {
    problem = name.str() + " has no decomposition to derive a backward from";
    return failure();
  }
  Block &body = source.getBody().front();
  for (Operation &op : body)
    if (op.getNumRegions() != 0) {
      problem = "the decomposition of " + name.str() + " branches (" +
                op.getName().getStringRef().str() + "); derived gradients need a straight body";
      return failure();
    }
  SmallVector<unsigned> tensorResults, tensorArguments;
  for (auto [r, result] : llvm::enumerate(forward.returns()))
    if (autograd::isSingleTensor(*result.type()))
      tensorResults.push_back(r);
  for (auto [i, argument] : llvm::enumerate(forward.arguments())) {
    if (argument.type()->isOptional() && autograd::isSingleTensor(*argument.type())) {
      problem = name.str() + " takes an optional tensor (" + argument.name() +
                "); derived gradients need tensors that are always there";
      return failure();
    }
    if (autograd::isSingleTensor(*argument.type()))
      tensorArguments.push_back(i);
  }
  if (tensorResults.empty() || tensorArguments.empty()) {
    problem = name.str() + " has no tensor result or argument to differentiate";
    return failure();
  }

  MLIRContext *context = source.getContext();
  OpBuilder b(context);
  Location loc = source.getLoc();
  std::string ns = std::string(name.ns()) + "_backward";
  std::string base(name.baseName());
  std::string qualified = ns + "::" + base + (name.overloadName.empty() ? "" : "." + name.overloadName);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto library = LibraryOp::create(b, loc, ns);
  library.getBody().emplaceBlock();
  b.setInsertionPointToEnd(&library.getBody().front());
  DefOp::create(b, loc, backwardSchema(forward, qualified, tensorResults, tensorArguments));
  auto derived = cast<DecompositionOp>(b.clone(*source.getOperation()));
  derived.setOp(base + (name.overloadName.empty() ? "" : "." + name.overloadName));

  Block &block = derived.getBody().front();
  Type generic = GenericTensorType::get(context);
  SmallVector<Value> seeds;
  for (unsigned k = 0; k < tensorResults.size(); ++k)
    seeds.push_back(block.insertArgument(k, generic, loc));
  auto yield = cast<YieldOp>(block.getTerminator());
  SmallVector<Value> yielded(yield.getValues());
  yield.erase();

  // What depends on a tensor argument, forwards.
  DenseSet<Value> depends;
  for (unsigned i : tensorArguments)
    depends.insert(block.getArgument(tensorResults.size() + i));
  SmallVector<Operation *> ops;
  for (Operation &op : block) {
    ops.push_back(&op);
    bool reached = llvm::any_of(op.getOperands(), [&](Value v) { return depends.count(v); });
    if (reached)
      for (Value result : op.getResults())
        if (isTensorValue(result))
          depends.insert(result);
  }

  b.setInsertionPointToEnd(&block);
  Deriver deriver(b, depends, problem);
  for (auto [k, r] : llvm::enumerate(tensorResults))
    if (r < yielded.size())
      deriver.accumulate(loc, yielded[r], seeds[k]);
  if (failed(deriver.run(ops))) {
    problem = "cannot derive the backward of " + name.str() + ": " + problem;
    return failure();
  }
  SmallVector<Value> results;
  for (unsigned i : tensorArguments) {
    Value argument = block.getArgument(tensorResults.size() + i);
    Value grad = deriver.grads.lookup(argument);
    results.push_back(grad ? grad : deriver.zerosLike(loc, argument));
  }
  YieldOp::create(b, loc, results);

  std::string text;
  llvm::raw_string_ostream os(text);
  library->print(os);
  return text;
}

namespace {

struct OpalDeriveBackward : public opal::ir::impl::OpalDeriveBackwardBase<OpalDeriveBackward> {
  using OpalDeriveBackwardBase::OpalDeriveBackwardBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The module's libraries, the loaded ones and the built-in ones.
    SmallVector<ModuleOp> libraries{module};
    std::vector<OwningOpRef<ModuleOp>> parsed;
    ParserConfig config(&getContext());
    for (auto [name, text] : builtinLibraries())
      parsed.push_back(parseSourceString<ModuleOp>(text, config, name));
    for (const auto &[name, text] : addedOpLibraryTexts())
      parsed.push_back(parseSourceString<ModuleOp>(text, config, name));
    for (auto &library : parsed)
      if (library)
        libraries.push_back(*library);
    // The op's schema: its opal.def in a library, else the dispatcher's.
    std::optional<FunctionSchema> schema;
    for (ModuleOp library : libraries)
      library.walk([&](DefOp def) {
        std::string text = def.getSchema().str();
        if (text.find("::") == std::string::npos || text.find("::") > text.find('('))
          text = (def->getParentOfType<LibraryOp>().getNs() + "::" + text).str();
        auto parsedSchema = parseSchema(text);
        if (parsedSchema && parsedSchema->operatorName().str() == op)
          schema = *parsedSchema;
      });
    if (!schema) {
      auto [qualified, overload] = StringRef(op).split('.');
      if (auto handle = Dispatcher::singleton().findSchema(
              OperatorName{qualified.str(), overload.str()}))
        schema = handle->schema();
    }
    if (!schema) {
      module.emitError() << "opal-derive-backward: no op " << op << " is defined";
      return signalPassFailure();
    }
    std::string problem;
    auto text = deriveBackward(libraries, *schema, problem);
    if (failed(text)) {
      // At the decomposition when the module holds it.
      if (DecompositionOp own = findDecomposition({module}, schemaOpName(*schema)))
        own.emitError() << problem;
      else
        module.emitError() << problem;
      return signalPassFailure();
    }
    OwningOpRef<ModuleOp> derived = parseSourceString<ModuleOp>(*text, config, "derived");
    if (!derived)
      return signalPassFailure();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    for (Operation &op : llvm::make_early_inc_range(*derived->getBody()))
      b.clone(op);
  }
};

} // namespace
