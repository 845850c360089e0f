//===- TileMatmul.cpp - The opal-tile-matmul pass -------------------------===//
//
// Matrix products on buffers: loops reordered to (batch,) i, k, j so the
// inner loop is a contiguous, vectorizable axpy over rows of B and C, then
// k and j tiled for the L2 cache.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALTILEMATMUL
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalTileMatmul : public opal::ir::impl::OpalTileMatmulBase<OpalTileMatmul> {
  using OpalTileMatmulBase::OpalTileMatmulBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) && op.hasPureBufferSemantics())
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : products) {
      bool batched = isa<linalg::BatchMatmulOp>(op);
      rewriter.setInsertionPoint(op);
      auto generic = linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic))
        continue;
      // (b,) i, j, k -> (b,) i, k, j
      SmallVector<unsigned> order =
          batched ? SmallVector<unsigned>{0, 1, 3, 2} : SmallVector<unsigned>{0, 2, 1};
      auto interchanged = linalg::interchangeGenericOp(rewriter, *generic, order);
      if (failed(interchanged))
        continue;
      SmallVector<int64_t> sizes =
          batched ? SmallVector<int64_t>{0, 0, tileK, tileN} : SmallVector<int64_t>{0, tileK, tileN};
      linalg::LinalgTilingOptions options;
      options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
      rewriter.setInsertionPoint(*interchanged);
      auto tiled = linalg::tileLinalgOp(rewriter, *interchanged, options);
      if (failed(tiled))
        continue;
      rewriter.eraseOp(*interchanged);
    }
  }
};

} // namespace
