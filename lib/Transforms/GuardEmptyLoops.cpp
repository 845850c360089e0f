//===- GuardEmptyLoops.cpp - Structured ops skip empty iteration spaces ---===//
//
// A bufferized structured op (linalg.generic, linalg.reduce, ...) whose
// iteration space has a dim of size zero does nothing, but its loops still
// run: a sum over a tensor of shape (2^62, 0) ran 2^62 empty iterations of
// its outer loop and never returned. This pass puts every structured op
// whose loop sizes are known only per call behind an `scf.if` that all of
// them are nonzero, so an empty iteration space costs one comparison per
// dim. Ops whose loop sizes are all constant are left alone (a constant
// zero size is folded away by canonicalization).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALGUARDEMPTYLOOPS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalGuardEmptyLoops
    : public opal::ir::impl::OpalGuardEmptyLoopsBase<OpalGuardEmptyLoops> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op->getNumResults() == 0)
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      guard(op);
  }

  /// Moves `op` into `scf.if` (every dynamic loop size != 0).
  void guard(linalg::LinalgOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value nonempty, zero;
    for (Range range : op.createLoopRanges(b, loc)) {
      auto size = dyn_cast<Value>(range.size);
      if (!size)
        continue; // constant
      if (!zero)
        zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, size, zero);
      nonempty = nonempty ? arith::AndIOp::create(b, loc, nonempty, positive) : positive;
    }
    if (!nonempty)
      return;
    auto branch = scf::IfOp::create(b, loc, nonempty, /*withElseRegion=*/false);
    op->moveBefore(branch.thenBlock()->getTerminator());
  }
};

} // namespace
