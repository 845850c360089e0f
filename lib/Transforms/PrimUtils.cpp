//===- PrimUtils.cpp - Helpers shared by the prims passes -----------------===//

#include "PrimUtils.h"

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir;

std::string opal::ir::detail::typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

std::optional<SmallVector<int64_t>> opal::ir::detail::constantIntList(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "opal.list")
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Value element : def->getOperands()) {
    auto constant = constantInt(element);
    if (!constant)
      return std::nullopt;
    values.push_back(*constant);
  }
  return values;
}

std::optional<SmallVector<double>> opal::ir::detail::constantFloatList(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "opal.list")
    return std::nullopt;
  SmallVector<double> values;
  for (Value element : def->getOperands()) {
    auto constant = element.getDefiningOp<arith::ConstantOp>();
    auto number = constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
    if (!number)
      return std::nullopt;
    values.push_back(number.getValueAsDouble());
  }
  return values;
}

std::optional<SmallVector<int64_t>> opal::ir::detail::shapeList(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "opal.list")
    return std::nullopt;
  SmallVector<int64_t> sizes;
  for (Value element : def->getOperands())
    sizes.push_back(constantInt(element).value_or(ShapedType::kDynamic));
  return sizes;
}

/// The sizes of `type`'s dynamic dimensions, from a shape list (an
/// opal.list of constants or i64 values computed at run time).
SmallVector<Value> opal::ir::detail::shapeListSizes(OpBuilder &b, Location loc,
                                                   RankedTensorType type, Value shapeList) {
  SmallVector<Value> sizes;
  auto elements = shapeList.getDefiningOp()->getOperands();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    if (auto size = constantInt(elements[d]))
      sizes.push_back(arith::ConstantIndexOp::create(b, loc, *size));
    else
      sizes.push_back(arith::IndexCastOp::create(b, loc, b.getIndexType(), elements[d]));
  }
  return sizes;
}

std::string opal::ir::detail::shapedResultProblem(Operation *op) {
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result)
    return "needs a ranked result tensor";
  auto shape = shapeList(op->getOperand(0));
  if (!shape)
    return "needs a shape list";
  if (static_cast<int64_t>(shape->size()) != result.getRank())
    return "has a shape of rank " + std::to_string(shape->size()) + ", but its result is " +
           typeString(result);
  return "";
}

std::optional<int64_t> opal::ir::detail::constantInt(Value value) {
  IntegerAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return attr.getInt();
}

bool opal::ir::detail::isNone(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getName().getStringRef() == "opal.none";
}

Type opal::ir::detail::elementTypeFor(int64_t scalarType, MLIRContext *context) {
  Builder b(context);
  switch (scalarType) {
  // uint8 is `ui8` until opal-lower-unsigned (MLIR's arithmetic takes
  // signless integers only; that pass lowers it onto i8's bits).
  case 0: return b.getIntegerType(8, /*isSigned=*/false);
  case 1: return b.getIntegerType(8);
  case 2: return b.getIntegerType(16);
  case 3: return b.getIntegerType(32);
  case 4: return b.getIntegerType(64);
  case 5: return b.getF16Type();
  case 6: return b.getF32Type();
  case 7: return b.getF64Type();
  case 11: return b.getI1Type();
  case 15: return b.getBF16Type();
  default: return nullptr;
  }
}

std::optional<int64_t> opal::ir::detail::scalarTypeCodeFor(Type element) {
  if (element.isInteger(1))
    return 11;
  if (element.isUnsignedInteger(8))
    return 0;
  if (element.isSignlessInteger())
    switch (element.getIntOrFloatBitWidth()) {
    case 8: return 1;
    case 16: return 2;
    case 32: return 3;
    case 64: return 4;
    default: return std::nullopt;
    }
  if (element.isF16())
    return 5;
  if (element.isF32())
    return 6;
  if (element.isF64())
    return 7;
  if (element.isBF16())
    return 15;
  return std::nullopt;
}

Type opal::ir::elementTypeForDtype(int64_t dtype, MLIRContext *context) {
  return detail::elementTypeFor(dtype, context);
}

std::optional<int64_t> opal::ir::dtypeForElementType(Type element) {
  return detail::scalarTypeCodeFor(element);
}

std::string opal::ir::detail::opNameOf(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = opNameOf(inner); !name.empty())
        return name;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return opNameOf(callSite.getCallee());
  return "";
}

Value opal::ir::detail::convertScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (to.isInteger(1)) { // anything → bool is "!= 0"
    if (isa<FloatType>(from)) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value, zero);
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value, zero);
  }
  if (isa<FloatType>(from) && isa<FloatType>(to) &&
      cast<FloatType>(to).getWidth() == cast<FloatType>(from).getWidth()) // f16 <-> bf16
    return arith::TruncFOp::create(
        b, loc, to, arith::ExtFOp::create(b, loc, b.getF32Type(), value).getResult());
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return cast<FloatType>(to).getWidth() > cast<FloatType>(from).getWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, value))
               : Value(arith::TruncFOp::create(b, loc, to, value));
  if (isa<IntegerType>(from) && isa<FloatType>(to))
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(b, loc, to, value))
                             : Value(arith::SIToFPOp::create(b, loc, to, value));
  if (isa<FloatType>(from) && isa<IntegerType>(to))
    return arith::FPToSIOp::create(b, loc, to, value);
  unsigned fromWidth = from.getIntOrFloatBitWidth(), toWidth = to.getIntOrFloatBitWidth();
  if (toWidth > fromWidth)
    return from.isInteger(1) ? Value(arith::ExtUIOp::create(b, loc, to, value))
                             : Value(arith::ExtSIOp::create(b, loc, to, value));
  return arith::TruncIOp::create(b, loc, to, value);
}

namespace {

class PrimLoweringPattern : public RewritePattern {
public:
  PrimLoweringPattern(StringRef name, opal::ir::detail::PrimLowering lowering,
                      MLIRContext *context)
      : RewritePattern(name, 1, context), lowering_(lowering) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (op->hasAttr(opal::ir::detail::kLoweredByProducerAttr))
      return rewriter.notifyMatchFailure(op, "its producer's lowering replaces it");
    std::string problem = lowering_.problem(op);
    if (!problem.empty())
      return rewriter.notifyMatchFailure(op, problem);
    return lowering_.lower(op, rewriter);
  }

private:
  opal::ir::detail::PrimLowering lowering_;
};

/// Every category's table.
const std::array<const llvm::StringMap<opal::ir::detail::PrimLowering> *, 8> &tables() {
  using namespace opal::ir::detail;
  static const std::array<const llvm::StringMap<PrimLowering> *, 8> all = {
      &structuredLowerings(), &indexingLowerings(), &convolutionLowerings(),
      &poolingLowerings(), &movementLowerings(), &randomLowerings(),
      &resamplingLowerings(), &segmentLowerings()};
  return all;
}

} // namespace

void opal::ir::populateStructuredToLinalgPatterns(RewritePatternSet &patterns) {
  for (const auto *table : tables())
    for (const auto &entry : *table)
      patterns.add<PrimLoweringPattern>(entry.getKey(), entry.getValue(),
                                        patterns.getContext());
}

bool opal::ir::isStructuredPrim(Operation *op) {
  for (const auto *table : tables())
    if (table->count(op->getName().getStringRef()))
      return true;
  return false;
}

std::string opal::ir::structuredLoweringProblem(Operation *op) {
  for (const auto *table : tables()) {
    auto it = table->find(op->getName().getStringRef());
    if (it != table->end())
      return it->second.problem(op);
  }
  return "";
}

std::optional<int64_t> opal::ir::detail::lastStride(MemRefType type) {
  if (type.getRank() == 0)
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(strides.back()))
    return std::nullopt;
  return strides.back();
}

SmallVector<Value> opal::ir::detail::delinearize(OpBuilder &b, Location loc, Value linear,
                                                 ArrayRef<Value> sizes) {
  SmallVector<Value> coordinates(sizes.size());
  for (size_t d = sizes.size(); d-- > 1;) {
    coordinates[d] = arith::RemUIOp::create(b, loc, linear, sizes[d]);
    linear = arith::DivUIOp::create(b, loc, linear, sizes[d]);
  }
  if (!sizes.empty())
    coordinates[0] = linear;
  return coordinates;
}

Value opal::ir::detail::inBounds(OpBuilder &b, Location loc, Value i, Value size) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero);
  Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, size);
  return arith::AndIOp::create(b, loc, low, high);
}

void opal::ir::detail::padsPerDim(ArrayRef<int64_t> pad, int64_t rank,
                                   SmallVectorImpl<int64_t> &low, SmallVectorImpl<int64_t> &high) {
  low.assign(rank, 0);
  high.assign(rank, 0);
  for (size_t i = 0; 2 * i + 1 < pad.size() && static_cast<int64_t>(i) < rank; ++i) {
    low[rank - 1 - i] = pad[2 * i];
    high[rank - 1 - i] = pad[2 * i + 1];
  }
}

Value opal::ir::detail::generateTensor(
    OpBuilder &builder, Location loc, RankedTensorType type, ValueRange sizes,
    llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> element) {
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(), type.getElementType(),
                                       sizes);
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {builder.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange) {
        SmallVector<Value> coords;
        for (int64_t d = 0; d < rank; ++d)
          coords.push_back(linalg::IndexOp::create(b, l, d));
        linalg::YieldOp::create(b, l, element(b, l, coords));
      });
  return generic.getResult(0);
}

Value opal::ir::detail::extractInside(OpBuilder &b, Location loc, Value tensor, ValueRange coords,
                                      Value inside, Value outside) {
  auto branch = scf::IfOp::create(
      b, loc, inside,
      [&](OpBuilder &then, Location l) {
        scf::YieldOp::create(then, l,
                             tensor::ExtractOp::create(then, l, tensor, coords).getResult());
      },
      [&](OpBuilder &otherwise, Location l) { scf::YieldOp::create(otherwise, l, outside); });
  return branch.getResult(0);
}

Value opal::ir::detail::extractInside(OpBuilder &b, Location loc, Value tensor, ValueRange coords,
                                      Value inside, TypedAttr outside) {
  return extractInside(b, loc, tensor, coords, inside,
                       arith::ConstantOp::create(b, loc, outside).getResult());
}

mlir::Value opal::ir::detail::rootOf(mlir::Value view) {
  while (auto viewLike = view.getDefiningOp<mlir::ViewLikeOpInterface>())
    view = viewLike.getViewSource();
  return view;
}

bool opal::ir::detail::isReshape(mlir::Operation *op) {
  return mlir::isa_and_nonnull<mlir::memref::ReshapeOp, mlir::memref::CollapseShapeOp,
                               mlir::memref::ExpandShapeOp>(op);
}

mlir::Value opal::ir::detail::reshapeSource(mlir::Value buffer) {
  while (isReshape(buffer.getDefiningOp()))
    buffer = buffer.getDefiningOp()->getOperand(0);
  return buffer;
}

void opal::ir::detail::declareFunction(mlir::ModuleOp module, llvm::StringRef name,
                                       mlir::FunctionType type) {
  if (module.lookupSymbol(name))
    return;
  mlir::OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  mlir::func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
}

bool opal::ir::detail::writesIndexedValues(Operation *op, Value out, ArrayRef<unsigned> varying) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() || generic.getNumDpsInputs() != 0 ||
      generic.getNumDpsInits() != 1 || generic.getDpsInitOperand(0)->get() != out ||
      !generic.getIndexingMapsArray()[0].isIdentity() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Block &body = generic.getRegion().front();
  if (!body.getArgument(0).use_empty())
    return false;
  for (Operation &nested : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
      if (!index->use_empty() && llvm::is_contained(varying, index.getDim()))
        return false;
      continue;
    }
    if (nested.getNumRegions() != 0 ||
        !(isa<memref::LoadOp>(nested) || isMemoryEffectFree(&nested)))
      return false;
  }
  return true;
}

Value opal::ir::detail::indexedValueAt(OpBuilder &b, Operation *op, ArrayRef<Value> at) {
  IRMapping map;
  Block &body = cast<linalg::GenericOp>(op).getRegion().front();
  for (Operation &nested : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
      if (!index->use_empty())
        map.map(index.getResult(), at[index.getDim()]);
      continue;
    }
    b.clone(nested, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}
