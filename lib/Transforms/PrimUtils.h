//===- PrimUtils.h - Helpers shared by the prims passes ---------*- C++ -*-===//
//
// Private to lib/Transforms: reading constant operands of prims and naming
// types in diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_TRANSFORMS_PRIMUTILS_H
#define OPAL_LIB_TRANSFORMS_PRIMUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/LogicalResult.h"

#include <optional>

#include <optional>
#include <string>

namespace mlir {
class PatternRewriter;
class RewritePatternSet;
} // namespace mlir

namespace opal::ir::detail {

/// Put by opal-lower-to-linalg{shifted-convolutions} on each prims.conv:
/// one with strides of 1 may then be lowered as products over shifted rows
/// of its padded input (CPU kernels), instead of an im2col gather.
constexpr llvm::StringLiteral kShiftedConvolutionAttr = "opal.shifted";
/// Marks a tensor.reshape whose sizes are its source's own, regrouped (a
/// lowering's matrix view of a tensor it built): it needs no element-count
/// check before the call (opal-derive-shape-checks).
constexpr llvm::StringLiteral kRegroupedReshapeAttr = "opal.regrouped";

/// Put by opal-lower-to-linalg on each prims.mm or prims.bmm whose B is a
/// prims.transpose of a matrix that more than one product reads transposed
/// (a recurrent layer's weight, once per step): the transpose is then kept,
/// one copy (CSE) that every product reads in rows, instead of each
/// product packing the matrix transposed anew.
constexpr llvm::StringLiteral kSharedTransposeAttr = "opal.shared_transpose";
/// Puts kSharedTransposeAttr on the products under `root` that it fits.
void markSharedTransposes(mlir::Operation *root);

/// Put by opal-lower-to-linalg on a prims.conv whose products start from the
/// bias its reader adds (a depthwise or grouped convolution on the CPU), and
/// on that prims.add, which the convolution's lowering replaces (its own
/// pattern leaves it alone): the bias is written once, where the products
/// start, instead of added in a pass of its own after them.
constexpr llvm::StringLiteral kStartsFromBiasAttr = "opal.starts_from_bias";
constexpr llvm::StringLiteral kLoweredByProducerAttr = "opal.lowered_by_producer";
/// Puts kStartsFromBiasAttr and kLoweredByProducerAttr on the
/// convolutions under `root` (and their adds) that it fits.
void markConvolutionBiases(mlir::Operation *root);

/// Whether `op` is a linalg.generic on buffers that writes every element of
/// `out` with a value computed from its indices alone (what the register
/// tiles of a product or window after it may start from, as from a fill: a
/// bias per channel): no inputs, its output unread, nothing but loads and
/// pure ops, and the index of no dim of `out` in `varying` read.
bool writesIndexedValues(mlir::Operation *op, mlir::Value out,
                         llvm::ArrayRef<unsigned> varying);
/// The value such a generic writes at `at` (a coordinate per dim of its
/// output; null for a dim its body does not read): its body, cloned at the
/// builder's insertion point.
mlir::Value indexedValueAt(mlir::OpBuilder &b, mlir::Operation *op,
                           llvm::ArrayRef<mlir::Value> at);

/// How one structured prim lowers: why it cannot (or ""), and the rewrite.
struct PrimLowering {
  std::string (*problem)(mlir::Operation *);
  llvm::LogicalResult (*lower)(mlir::Operation *, mlir::PatternRewriter &);
};
/// The lowerings of the structured prims, one table per category and file
/// (StructuredToLinalg.cpp, IndexingToLinalg.cpp, ConvolutionToLinalg.cpp,
/// PoolingToLinalg.cpp, MovementToLinalg.cpp, RandomToLinalg.cpp,
/// ResamplingToLinalg.cpp, SegmentsToLinalg.cpp);
/// populateStructuredToLinalgPatterns takes them all.
const llvm::StringMap<PrimLowering> &structuredLowerings();
const llvm::StringMap<PrimLowering> &indexingLowerings();
const llvm::StringMap<PrimLowering> &convolutionLowerings();
const llvm::StringMap<PrimLowering> &poolingLowerings();
const llvm::StringMap<PrimLowering> &movementLowerings();
const llvm::StringMap<PrimLowering> &randomLowerings();
const llvm::StringMap<PrimLowering> &resamplingLowerings();
const llvm::StringMap<PrimLowering> &segmentLowerings();

/// A linalg.generic without inputs over a fresh tensor of `type` (its
/// dynamic sizes `sizes`) whose element at each index is
/// `element(b, loc, indices)`.
mlir::Value generateTensor(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::RankedTensorType type,
    mlir::ValueRange sizes,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>
        element);
/// `0 <= i < size` for index values.
mlir::Value inBounds(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i, mlir::Value size);
/// The stride of the last dim of `type`, when known (a memref of rank 1 or
/// more whose layout gives it statically).
std::optional<int64_t> lastStride(mlir::MemRefType type);
/// The row-major coordinates of index `linear` (in range) in a box of
/// `sizes` (index values; the first is not needed).
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b, mlir::Location loc,
                                           mlir::Value linear, llvm::ArrayRef<mlir::Value> sizes);
/// `tensor[coords]` where `inside` holds, else `outside`: an scf.if, so that
/// nothing is read outside the tensor.
mlir::Value extractInside(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                          mlir::ValueRange coords, mlir::Value inside, mlir::TypedAttr outside);
/// The same with `outside` a value of the tensor's element type.
mlir::Value extractInside(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                          mlir::ValueRange coords, mlir::Value inside, mlir::Value outside);

/// The elements before (`low`) and after (`high`) each of `rank` dims that
/// an aten.constant_pad_nd `pad` list adds (it names the last dims first).
void padsPerDim(llvm::ArrayRef<int64_t> pad, int64_t rank, llvm::SmallVectorImpl<int64_t> &low,
                llvm::SmallVectorImpl<int64_t> &high);

/// The element type of a tensor value.
inline mlir::Type elementOf(mlir::Value value) {
  return llvm::cast<mlir::TensorType>(value.getType()).getElementType();
}

/// `type` as MLIR prints it.
std::string typeString(mlir::Type type);
/// The values of a constant int list (`opal.list` of `arith.constant`s).
std::optional<llvm::SmallVector<int64_t>> constantIntList(mlir::Value value);
/// The values of a constant float list (`opal.list` of f64 `arith.constant`s).
std::optional<llvm::SmallVector<double>> constantFloatList(mlir::Value value);
/// The sizes in a shape list (`opal.list` of i64s): constants, and
/// ShapedType::kDynamic for sizes computed at run time.
std::optional<llvm::SmallVector<int64_t>> shapeList(mlir::Value value);
/// The sizes of `type`'s dynamic dimensions, from a shape list (an
/// opal.list of constants or i64 values computed at run time).
llvm::SmallVector<mlir::Value> shapeListSizes(mlir::OpBuilder &b, mlir::Location loc,
                                              mlir::RankedTensorType type, mlir::Value shapeList);
/// Why a creation prim's result (operand 0 its shape list) does not fit:
/// not a ranked tensor, no shape list, or another rank; "" if it fits.
std::string shapedResultProblem(mlir::Operation *op);
/// The value of a constant integer operand.
std::optional<int64_t> constantInt(mlir::Value value);
/// True if `value` is made by `opal.none`.
bool isNone(mlir::Value value);
/// The MLIR element type of a PyTorch ScalarType code (float32 = 6, ...), or
/// null for codes opal does not lower.
mlir::Type elementTypeFor(int64_t scalarType, mlir::MLIRContext *context);
/// `value` (a scalar) converted to `to` as PyTorch converts: to bool is
/// "!= 0", float to integer truncates, bool to a number is 0 or 1.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                          mlir::Type to);
/// The op named in `loc` ("aten::add.Tensor"), or "" if none: opal-decompose
/// locates each body's ops at the op it defines.
std::string opNameOf(mlir::Location loc);
/// The PyTorch ScalarType code of an element type (i8 is int8, ui8 uint8),
/// if any.
std::optional<int64_t> scalarTypeCodeFor(mlir::Type element);
/// The buffer `view` is a view of (through subviews, casts and reshapes:
/// every ViewLikeOpInterface op); `view` itself if it is no view.
mlir::Value rootOf(mlir::Value view);
/// Whether `op` is a reshape of a buffer (memref.reshape, collapse_shape,
/// expand_shape): the same elements in the same order, another shape.
bool isReshape(mlir::Operation *op);
/// The buffer `buffer` is a reshape of (through reshapes only); `buffer`
/// itself if it is none.
mlir::Value reshapeSource(mlir::Value buffer);
/// Declares the private function `name` of `type` at the end of `module`
/// (a runtime function kernels call), unless a symbol of that name is there.
void declareFunction(mlir::ModuleOp module, llvm::StringRef name, mlir::FunctionType type);

} // namespace opal::ir::detail

#endif // OPAL_LIB_TRANSFORMS_PRIMUTILS_H
