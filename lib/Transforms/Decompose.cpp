//===- Decompose.cpp - The opal-decompose pass ----------------------------===//
//
// Composite ops become copies of their decomposition bodies. A body is
// instantiated per use: block arguments take the op's operands, ops are
// cloned in order, nested composites are instantiated recursively, and the
// `!opal.tensor` results of prims get concrete types from their operands
// (inferPrimResultTypes). Each decomposition is a rewrite pattern for its op,
// and the greedy driver applies them to a fixed point.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"
#include "TypeDirected.h"

#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/JIT/CompiledKernel.h"
#include "opal/Support/MessageTemplate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <mutex>

namespace opal::ir {
#define GEN_PASS_DEF_OPALDECOMPOSE
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using namespace opal::ir;
using namespace opal::ir::detail;

namespace {

/// "aten.add.Tensor" (an op's MLIR name) as the dispatcher names it,
/// "aten::add.Tensor".
std::string qualifiedOpName(llvm::StringRef name) {
  auto [ns, rest] = name.split('.');
  return rest.empty() ? name.str() : (ns + "::" + rest).str();
}

/// The ops expanded by the last run on this thread.
std::vector<std::string> &decomposedOps() {
  thread_local std::vector<std::string> names;
  return names;
}

std::optional<Refusal> &refusal() {
  thread_local std::optional<Refusal> last;
  return last;
}

std::mutex &textsMutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<std::pair<std::string, std::string>> &libraryTexts() {
  static std::vector<std::pair<std::string, std::string>> texts;
  return texts;
}

/// The MLIR op name a decomposition is for: "ns.op" or "ns.op.overload"
/// (its `op` is "op[.overload]" or "ns::op[.overload]").
std::string decomposedOpName(DecompositionOp decomposition) {
  StringRef op = decomposition.getOp();
  auto [ns, name] = op.split("::");
  if (name.empty())
    return (decomposition->getParentOfType<LibraryOp>().getNs() + "." + op).str();
  return (ns + "." + name).str();
}

bool isPrim(Operation *op) { return op->getName().getDialectNamespace() == "prims"; }

bool hasGenericResults(Operation *op) {
  return llvm::any_of(op->getResultTypes(),
                      [](Type t) { return isa<GenericTensorType>(t); });
}

struct DecompositionPattern;

struct OpalDecompose : public opal::ir::impl::OpalDecomposeBase<OpalDecompose> {
  using OpalDecomposeBase::OpalDecomposeBase;

  LogicalResult initialize(MLIRContext *context) override {
    // A pass manager initializes its passes again whenever the context's
    // dialect registry changed since its last run (the JIT's first CUDA
    // compile changes it); the libraries parsed the first time stay valid
    // (16 ms of parsing each time otherwise). New op-library texts come
    // with a new pass.
    if (initialized)
      return success();
    initialized = true;
    // Built-in libraries are parsed when a module needs a decomposition
    // they hold (a kernel of aten.add reads aten.opal.mlir, not the 500 KB
    // of all of them); their names are found in the texts up front.
    const auto &builtin = builtinLibraries();
    builtinParsed.assign(builtin.size(), nullptr);
    builtinDecompositions.assign(builtin.size(), {});
    for (auto [i, library] : llvm::enumerate(builtin)) {
      ScannedOpLibrary scanned = scanOpLibraryText(library.second);
      for (const std::string &name : scanned.decompositions)
        builtinIndex[name] = i; // the last library wins, as collect()'s order
      // Their dialects are loaded as parsing them would: the pass creates
      // prims ops of its own (opal.promote's conversions), and prims.opal.mlir
      // holds no decomposition to parse it for.
      for (const std::string &ns : scanned.namespaces)
        context->getOrLoadDialect(ns);
    }
    std::vector<std::pair<std::string, std::string>> added;
    {
      std::lock_guard<std::mutex> lock(textsMutex());
      added = libraryTexts();
    }
    for (const auto &[name, text] : added) {
      ParserConfig config(context);
      auto module = parseSourceString<ModuleOp>(text, config, name);
      if (!module)
        return failure();
      libraries.push_back(std::make_shared<OwningOpRef<ModuleOp>>(std::move(module)));
    }
    for (const std::string &op : legalOps)
      legal.insert(op);
    return success();
  }

  /// Parses built-in library `i` (once); false if it does not parse.
  bool parseBuiltin(size_t i) {
    if (builtinParsed[i])
      return true;
    const auto &[name, text] = builtinLibraries()[i];
    ParserConfig config(&getContext());
    auto module = parseSourceString<ModuleOp>(text, config, name);
    if (!module)
      return false;
    builtinParsed[i] = std::make_shared<OwningOpRef<ModuleOp>>(std::move(module));
    builtinParsed[i]->get()->walk([&](DecompositionOp decomposition) {
      builtinDecompositions[i][decomposedOpName(decomposition)] = decomposition;
    });
    return true;
  }

  /// Parses the built-in libraries that hold decompositions `root` uses,
  /// and those that theirs use in turn.
  LogicalResult parseNeededLibraries(Operation *root) {
    llvm::StringSet<> seen;
    SmallVector<Operation *> pending{root};
    for (auto &library : libraries)
      pending.push_back(library->get());
    while (!pending.empty()) {
      SmallVector<std::string> names;
      pending.pop_back_val()->walk([&](Operation *op) {
        if (seen.insert(op->getName().getStringRef()).second)
          names.push_back(op->getName().getStringRef().str());
      });
      for (const std::string &name : names) {
        auto it = builtinIndex.find(name);
        if (it == builtinIndex.end())
          continue;
        if (!parseBuiltin(it->second))
          return failure();
        if (DecompositionOp decomposition = builtinDecompositions[it->second].lookup(name))
          pending.push_back(decomposition);
      }
    }
    return success();
  }

  void collect(Operation *root) {
    root->walk([&](DecompositionOp decomposition) {
      decompositions[decomposedOpName(decomposition)] = decomposition;
    });
  }

  /// The decomposition of `op`'s name, legal or not.
  DecompositionOp anyDecompositionFor(Operation *op) {
    return decompositions.lookup(op->getName().getStringRef());
  }
  /// The decomposition to apply to `op` (none for ops in legal-ops).
  DecompositionOp decompositionFor(Operation *op) {
    if (legal.contains(op->getName().getStringRef()))
      return nullptr;
    return anyDecompositionFor(op);
  }

  /// The result types `decomposition` would give for `operands`, found by
  /// instantiating it in a scratch block (for legal ops inside bodies).
  FailureOr<SmallVector<Type>> typesFromDecomposition(Operation *use,
                                                      DecompositionOp decomposition,
                                                      ValueRange operands,
                                                      SmallVectorImpl<std::string> &stack) {
    // A detached module is the scratch space; it is destroyed afterwards.
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(use->getLoc());
    OpBuilder builder = OpBuilder::atBlockBegin(scratch->getBody());
    auto results = instantiate(builder, use, decomposition, operands, stack);
    SmallVector<Type> types;
    if (succeeded(results))
      for (Value result : *results)
        types.push_back(result.getType());
    Block *body = scratch->getBody();
    while (!body->empty()) {
      body->back().dropAllUses();
      body->back().erase();
    }
    if (failed(results))
      return failure();
    return types;
  }

  /// Instantiates `decomposition` at the builder's insertion point with
  /// `operands`; `stack` holds the composites being expanded (for cycles).
  FailureOr<SmallVector<Value>> instantiate(OpBuilder &builder, Operation *use,
                                            DecompositionOp decomposition,
                                            ValueRange operands,
                                            SmallVectorImpl<std::string> &stack) {
    std::string name = decomposedOpName(decomposition);
    if (llvm::is_contained(stack, name)) {
      std::string cycle;
      for (const std::string &entry : stack)
        cycle += entry + " -> ";
      use->emitError() << "decomposition cycle: " << cycle << name;
      return failure();
    }
    stack.push_back(name);
    Block &body = decomposition.getBody().front();
    IRMapping mapping;
    for (auto [argument, operand] : llvm::zip(body.getArguments(), operands))
      mapping.map(argument, operand);
    Block *block = builder.getInsertionBlock();
    Block::iterator end = builder.getInsertionPoint();
    Operation *before = end == block->begin() ? nullptr : &*std::prev(end);
    auto results = instantiateBlock(builder, use, name, body, mapping, stack);
    if (failed(results))
      return failure();
    stack.pop_back();
    // The ops this body made (and no nested body named already) are located
    // at the op they define, `aten::add.Tensor`: a check derived from them
    // later (opal-derive-shape-checks) names it.
    auto located = NameLoc::get(builder.getStringAttr(qualifiedOpName(name)));
    for (auto it = before ? std::next(before->getIterator()) : block->begin();
         it != builder.getInsertionPoint(); ++it)
      if (!isa<NameLoc>(it->getLoc()))
        it->setLoc(NameLoc::get(located.getName(), it->getLoc()));
    return results;
  }

  /// The value of `op`'s condition (opal.static_if) for this
  /// use; emits why not and returns nullopt where it is not known.
  std::optional<int64_t> conditionForUse(Operation *use, const std::string &name,
                                         Operation *op, Value condition, IRMapping &mapping) {
    auto value = constantInt(mapping.lookup(condition));
    if (!value)
      use->emitError() << "while decomposing " << name << ": '" << op->getName()
                       << "' needs a condition known for the use (a constant, opal.is_none "
                       << "or opal.str_eq)";
    return value;
  }

  /// Maps the results of `original` to constants (or to values the use
  /// already has: `x | false` is `x`) where it folds to them for this use;
  /// true if it did.
  static bool foldToConstants(OpBuilder &builder, Operation &original, IRMapping &mapping) {
    // A detached copy: folding it notifies no listener of the rewrite.
    Operation *copy = original.clone(mapping);
    SmallVector<OpFoldResult> folded;
    SmallVector<OpFoldResult> results;
    if (succeeded(copy->fold(folded)) && folded.size() == copy->getNumResults())
      for (auto [result, value] : llvm::zip(copy->getResults(), folded)) {
        if (auto existing = dyn_cast<Value>(value)) {
          if (existing.getDefiningOp() == copy || existing.getType() != result.getType())
            break;
          results.push_back(existing);
          continue;
        }
        auto attr = dyn_cast_if_present<TypedAttr>(dyn_cast<Attribute>(value));
        if (!attr || attr.getType() != result.getType())
          break;
        results.push_back(attr);
      }
    Location loc = copy->getLoc();
    copy->erase();
    if (results.size() != original.getNumResults())
      return false;
    for (auto [result, value] : llvm::zip(original.getResults(), results)) {
      if (auto existing = dyn_cast<Value>(value))
        mapping.map(result, existing);
      else
        mapping.map(result, arith::ConstantOp::create(builder, loc,
                                                      cast<TypedAttr>(cast<Attribute>(value)))
                                .getResult());
    }
    return true;
  }

  /// An opal.check for this use: nothing where its condition holds, the
  /// refusal where it is false, an opal.assert where it is only known per
  /// call.
  LogicalResult instantiateCheck(OpBuilder &builder, Operation *use, const std::string &name,
                                 CheckOp op, IRMapping &mapping) {
    Value condition = mapping.lookup(op.getCondition());
    std::optional<int64_t> known = constantInt(condition);
    if (known && *known)
      return success();
    // Each message value as its elements (one for an int, a list's items).
    SmallVector<Value> values;
    SmallVector<int32_t> groups;
    for (Value value : op.getValues()) {
      Value mapped = mapping.lookup(value);
      if (!isa<ListType>(mapped.getType())) {
        values.push_back(mapped);
        groups.push_back(1);
        continue;
      }
      auto list = mapped.getDefiningOp<ListOp>();
      if (!list) {
        use->emitError() << "while decomposing " << name
                         << ": 'opal.check' needs lists whose elements are known for the use";
        return failure();
      }
      llvm::append_range(values, list.getElements());
      groups.push_back(static_cast<int32_t>(list.getElements().size()));
    }
    if (!known) {
      AssertOp::create(builder, op.getLoc(), condition, op.getMessage(), values,
                       builder.getDenseI32ArrayAttr(groups));
      return success();
    }
    // The refusal's message, and the same as a check that no call passes,
    // whose values are sizes of the function's arguments where they are
    // (the JIT raises it with the call's sizes).
    opal::jit::ShapeCheck check;
    check.kind = opal::jit::ShapeCheck::Kind::Expect;
    check.lhs.constant = check.rhs.constant = true;
    check.rhs.value = 1;
    check.message = op.getMessage().str();
    bool traced = true;
    std::vector<std::string> texts;
    size_t next = 0;
    for (int32_t count : groups) {
      std::string text;
      check.values.emplace_back();
      for (int32_t i = 0; i < count; ++i, ++next) {
        std::optional<opal::jit::SizeRef> size = argumentSize(values[next]);
        traced = traced && size;
        text += (i ? ", " : "") + (size && size->constant ? std::to_string(size->value)
                                                          : std::string("?"));
        if (size)
          check.values.back().push_back(*size);
      }
      texts.push_back(text);
    }
    check.op = qualifiedOpName(name);
    return refuse(use, name, opal::fillMessage(op.getMessage().str(), texts),
                  traced ? opal::jit::describeShapeChecks({check}) : "");
  }

  /// Refuses `use` with `message` of the op `name` whose body refused it
  /// (the call raises it); `checks` is the refusal as a shape check that no
  /// call passes, or "".
  static LogicalResult refuse(Operation *use, const std::string &name, const std::string &message,
                              std::string checks) {
    std::string called = qualifiedOpName(use->getName().getStringRef());
    std::string where = qualifiedOpName(name);
    where = where == called ? called : called + ": in " + where;
    std::string text = where + ": " + message;
    use->emitError() << text;
    if (!refusal())
      refusal() = Refusal{text, std::move(checks)};
    return failure();
  }

  /// A constant, or a size of an argument of the function the use is in
  /// (`arith.index_cast` of `tensor.dim`).
  static std::optional<opal::jit::SizeRef> argumentSize(Value value) {
    opal::jit::SizeRef size;
    if (std::optional<int64_t> constant = constantInt(value)) {
      size.constant = true;
      size.value = *constant;
      return size;
    }
    if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
      value = cast.getIn();
    auto dim = value.getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> d = dim ? dim.getConstantIndex() : std::nullopt;
    auto argument = d ? dyn_cast<BlockArgument>(dim.getSource()) : BlockArgument();
    if (!argument || !isa<func::FuncOp>(argument.getOwner()->getParentOp()))
      return std::nullopt;
    size.argument = argument.getArgNumber();
    size.dim = static_cast<uint32_t>(*d);
    return size;
  }

  /// Instantiates the ops of `block` (a body or a static_if branch) with
  /// `mapping`, and returns the values it yields.
  FailureOr<SmallVector<Value>> instantiateBlock(OpBuilder &builder, Operation *use,
                                                 const std::string &name, Block &block,
                                                 IRMapping &mapping,
                                                 SmallVectorImpl<std::string> &stack) {
    for (Operation &bodyOp : block.without_terminator()) {
      if (auto staticIf = dyn_cast<StaticIfOp>(bodyOp)) {
        auto condition = conditionForUse(use, name, staticIf, staticIf.getCondition(), mapping);
        if (!condition)
          return failure();
        Region &branch = *condition ? staticIf.getThenRegion() : staticIf.getElseRegion();
        auto results = instantiateBlock(builder, use, name, branch.front(), mapping, stack);
        if (failed(results))
          return failure();
        for (auto [original, result] : llvm::zip(staticIf.getResults(), *results))
          mapping.map(original, result);
        continue;
      }
      if (auto check = dyn_cast<CheckOp>(bodyOp)) {
        if (failed(instantiateCheck(builder, use, name, check, mapping)))
          return failure();
        continue;
      }
      if (DecompositionOp nested = decompositionFor(&bodyOp)) {
        decomposedOps().push_back(bodyOp.getName().getStringRef().str());
        SmallVector<Value> nestedOperands;
        for (Value operand : bodyOp.getOperands())
          nestedOperands.push_back(mapping.lookup(operand));
        auto results = instantiate(builder, use, nested, nestedOperands, stack);
        if (failed(results))
          return failure();
        for (auto [original, result] : llvm::zip(bodyOp.getResults(), *results))
          mapping.map(original, result);
        continue;
      }
      if (isTypeDirected(&bodyOp)) {
        SmallVector<Value> concrete;
        for (Value operand : bodyOp.getOperands())
          concrete.push_back(mapping.lookup(operand));
        std::string problem;
        auto results = expandTypeDirected(builder, &bodyOp, concrete, problem);
        if (failed(results)) {
          if (std::optional<std::string> message = refusalMessage(problem))
            return refuse(use, name, *message, "");
          use->emitError() << "while decomposing " << name << ": '" << bodyOp.getName()
                           << "' " << problem;
          return failure();
        }
        for (auto [original, result] : llvm::zip(bodyOp.getResults(), *results))
          mapping.map(original, result);
        continue;
      }
      // Conditions computed with arith (`opal.list_len` compared to 0) are
      // constants where their operands are, as opal.static_if needs.
      if (isa<arith::ArithDialect>(bodyOp.getDialect()) && !isa<arith::ConstantOp>(bodyOp) &&
          foldToConstants(builder, bodyOp, mapping))
        continue;
      Operation *clone = builder.clone(bodyOp, mapping);
      if (!hasGenericResults(clone))
        continue;
      if (DecompositionOp kept = anyDecompositionFor(clone)) {
        // A legal op: its types are those its decomposition would give.
        auto types = typesFromDecomposition(use, kept, clone->getOperands(), stack);
        if (failed(types))
          return failure();
        for (auto [result, type] : llvm::zip(clone->getResults(), *types))
          result.setType(type);
        continue;
      }
      if (!isPrim(clone)) {
        use->emitError() << "while decomposing " << name << ": cannot infer the result type of '"
                         << clone->getName() << "': it is neither a prim nor an op with a "
                         << "decomposition";
        return failure();
      }
      std::string problem;
      auto types = inferPrimResultTypes(clone, problem);
      if (failed(types)) {
        use->emitError() << "while decomposing " << name << ": '" << clone->getName()
                         << "' " << problem;
        return failure();
      }
      for (auto [result, type] : llvm::zip(clone->getResults(), *types))
        result.setType(type);
    }
    SmallVector<Value> results;
    for (Value value : block.getTerminator()->getOperands())
      results.push_back(mapping.lookup(value));
    return results;
  }

  /// Replaces `use` (a composite outside op libraries) with its
  /// decomposition, fully expanded. On failure the error is reported and the
  /// IR is left as it was.
  LogicalResult expand(Operation *use, PatternRewriter &rewriter) {
    decomposedOps().push_back(use->getName().getStringRef().str());
    Operation *before = use->getPrevNode();
    auto eraseCreated = [&] {
      while (use->getPrevNode() != before)
        rewriter.eraseOp(use->getPrevNode());
    };
    SmallVector<std::string> stack;
    auto results = instantiate(rewriter, use, decompositionFor(use), use->getOperands(), stack);
    if (failed(results)) {
      eraseCreated();
      return failure();
    }
    SmallVector<Value> replacements;
    for (auto [result, value] : llvm::zip(use->getResults(), *results)) {
      Type declared = result.getType();
      // A generic result (!opal.tensor) takes the decomposition's type.
      if (value.getType() == declared || isa<GenericTensorType>(declared)) {
        replacements.push_back(value);
        continue;
      }
      if (!tensor::CastOp::areCastCompatible(value.getType(), declared)) {
        use->emitError() << "the decomposition of " << use->getName() << " produces "
                         << value.getType() << ", but the op's result is " << declared;
        eraseCreated();
        return failure();
      }
      replacements.push_back(tensor::CastOp::create(rewriter, use->getLoc(), declared, value));
    }
    rewriter.replaceOp(use, replacements);
    return success();
  }

  void runOnOperation() override {
    decomposedOps().clear();
    refusal().reset();
    decompositions.clear();
    if (failed(parseNeededLibraries(getOperation())))
      return signalPassFailure();
    for (auto &library : builtinParsed)
      if (library)
        collect(library->get());
    for (auto &library : libraries)
      collect(library->get());
    collect(getOperation());

    // One pattern per decomposition, driven to a fixed point.
    bool reported = false;
    RewritePatternSet patterns(&getContext());
    for (const auto &entry : decompositions)
      if (!legal.contains(entry.getKey()))
        patterns.add<DecompositionPattern>(entry.getKey(), &getContext(), *this, reported);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)) || reported)
      return signalPassFailure();
    if (failed(refineGenericPrims()))
      return signalPassFailure();
    refineGenericFunctionResults();
  }

  /// Prims used directly (outside decompositions) with !opal.tensor results
  /// get the types their operands give, as inside instantiated bodies.
  LogicalResult refineGenericPrims() {
    WalkResult walked = getOperation()->walk([](Operation *op) {
      if (!isPrim(op) || !hasGenericResults(op) || op->getParentOfType<LibraryOp>() ||
          llvm::any_of(op->getOperandTypes(), [](Type t) { return isa<GenericTensorType>(t); }))
        return WalkResult::advance();
      std::string problem;
      auto types = inferPrimResultTypes(op, problem);
      if (failed(types)) {
        op->emitError() << "'" << op->getName() << "' " << problem;
        return WalkResult::interrupt();
      }
      for (auto [result, type] : llvm::zip(op->getResults(), *types))
        result.setType(type);
      return WalkResult::advance();
    });
    return failure(walked.wasInterrupted());
  }

  /// A function declared to return !opal.tensor returns what its body
  /// computes once the composites are gone (the JIT builds its kernels so).
  void refineGenericFunctionResults() {
    getOperation()->walk([](func::FuncOp function) {
      if (function.isExternal() ||
          !llvm::any_of(function.getResultTypes(),
                        [](Type t) { return isa<GenericTensorType>(t); }))
        return;
      auto ret = cast<func::ReturnOp>(function.getBody().back().getTerminator());
      function.setFunctionType(FunctionType::get(
          function.getContext(), function.getArgumentTypes(), ret.getOperandTypes()));
    });
  }

  // Shared, because the pass manager copies passes (one per thread).
  /// Added op-library texts, parsed by initialize().
  std::vector<std::shared_ptr<OwningOpRef<ModuleOp>>> libraries;
  /// Built-in libraries, parsed when needed (null until then), with their
  /// decompositions by op name, and which library holds each op's.
  std::vector<std::shared_ptr<OwningOpRef<ModuleOp>>> builtinParsed;
  std::vector<llvm::StringMap<DecompositionOp>> builtinDecompositions;
  llvm::StringMap<size_t> builtinIndex;
  bool initialized = false;
  llvm::StringMap<DecompositionOp> decompositions;
  llvm::StringSet<> legal;
};

/// Applies one decomposition: matches its op by name, outside op libraries
/// (whose bodies use composites over !opal.tensor).
struct DecompositionPattern : public RewritePattern {
  DecompositionPattern(StringRef opName, MLIRContext *context, OpalDecompose &pass,
                       bool &reported)
      : RewritePattern(opName, /*benefit=*/1, context), pass(pass), reported(reported) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (op->getParentOfType<LibraryOp>())
      return failure();
    if (failed(pass.expand(op, rewriter))) {
      reported = true;
      return failure();
    }
    return success();
  }

  OpalDecompose &pass;
  bool &reported;
};

} // namespace

const std::vector<std::string> &opal::ir::lastDecomposedOps() { return decomposedOps(); }

const std::optional<Refusal> &opal::ir::lastRefusal() { return refusal(); }

std::vector<std::pair<std::string, std::string>> opal::ir::addedOpLibraryTexts() {
  std::lock_guard<std::mutex> lock(textsMutex());
  return libraryTexts();
}

ScannedOpLibrary opal::ir::scanOpLibraryText(std::string_view text) {
  ScannedOpLibrary scanned;
  std::string_view ns;
  // The string after `keyword` at `at` (its quotes dropped), or "".
  auto quoted = [&](size_t at, std::string_view keyword) -> std::string_view {
    size_t start = at + keyword.size();
    size_t end = text.find('"', start);
    return end == std::string_view::npos ? std::string_view() : text.substr(start, end - start);
  };
  constexpr std::string_view kLibrary = "opal.library \"", kDecomposition = "opal.decomposition \"";
  size_t at = 0;
  // (The next library's position is searched for again only once passed: a
  // text holds one library and hundreds of decompositions, and searching
  // the rest of the text for it at each made the scan quadratic, 34M
  // instructions for the built-in libraries.)
  size_t library = text.find(kLibrary);
  while (true) {
    if (library != std::string_view::npos && library < at)
      library = text.find(kLibrary, at);
    size_t decomposition = text.find(kDecomposition, at);
    if (library == std::string_view::npos && decomposition == std::string_view::npos)
      break;
    if (library < decomposition) {
      ns = quoted(library, kLibrary);
      scanned.namespaces.emplace_back(ns);
      at = library + kLibrary.size();
      continue;
    }
    std::string_view op = quoted(decomposition, kDecomposition);
    size_t colons = op.find("::");
    scanned.decompositions.push_back(colons == std::string_view::npos
                                         ? std::string(ns) + "." + std::string(op)
                                         : std::string(op.substr(0, colons)) + "." +
                                               std::string(op.substr(colons + 2)));
    at = decomposition + kDecomposition.size();
  }
  return scanned;
}

void opal::ir::clearOpLibraryTexts() {
  std::lock_guard<std::mutex> lock(textsMutex());
  libraryTexts().clear();
}

void opal::ir::addOpLibraryText(std::string name, std::string text) {
  std::lock_guard<std::mutex> lock(textsMutex());
  libraryTexts().emplace_back(std::move(name), std::move(text));
}
