//===- BindRandomStreams.cpp - The opal-bind-random-streams pass ----------===//
//
// The random ops of a kernel draw from the generator's seed at consecutive
// offsets (Runtime/Generator.h): each `opal.random_stream` becomes the
// function's seed argument and its offset argument plus the stream's number.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Dialect/OpalOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALBINDRANDOMSTREAMS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct BindRandomStreams
    : public opal::ir::impl::OpalBindRandomStreamsBase<BindRandomStreams> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    SmallVector<opal::ir::RandomStreamOp> streams;
    function.walk([&](opal::ir::RandomStreamOp op) { streams.push_back(op); });
    if (streams.empty())
      return;
    if (!llvm::hasSingleElement(function.getBody())) {
      function.emitError("opal-bind-random-streams needs a function of one block");
      return signalPassFailure();
    }
    OpBuilder b(&getContext());
    Type i64 = b.getI64Type();
    Location loc = function.getLoc();
    unsigned count = function.getNumArguments();
    if (failed(function.insertArgument(count, i64, DictionaryAttr(), loc)) ||
        failed(function.insertArgument(count + 1, i64, DictionaryAttr(), loc))) {
      function.emitError("opal-bind-random-streams cannot add the seed and offset arguments");
      return signalPassFailure();
    }
    Value seed = function.getArgument(count);
    Value offset = function.getArgument(count + 1);
    for (auto [k, stream] : llvm::enumerate(streams)) {
      b.setInsertionPoint(stream);
      Value at = offset;
      if (k)
        at = arith::AddIOp::create(
            b, stream.getLoc(), offset,
            arith::ConstantOp::create(b, stream.getLoc(), b.getI64IntegerAttr(k)));
      stream.getSeed().replaceAllUsesWith(seed);
      stream.getOffset().replaceAllUsesWith(at);
      stream.erase();
    }
    function->setAttr(opal::ir::kRandomStreamsAttrName,
                      b.getI64IntegerAttr(static_cast<int64_t>(streams.size())));
  }
};

} // namespace
