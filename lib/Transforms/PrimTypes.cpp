//===- PrimTypes.cpp - Result types of prims from their operands ----------===//
//
// When a decomposition body is instantiated, its prims get concrete result
// types from their operands: the rule of each prim, as its semantics say
// (elementwise ops keep the shape, comparisons make bools, reductions remove
// dimensions, ...). List and dtype operands must be constants.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

using Result = FailureOr<SmallVector<Type>>;

/// Fails with `problem`, for the caller's diagnostic.
Result fail(std::string &problem, std::string reason) {
  problem = std::move(reason);
  return failure();
}

/// The more static of two shapes of one rank; fails if they disagree.
std::optional<SmallVector<int64_t>> mergeShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return std::nullopt;
  SmallVector<int64_t> merged;
  for (auto [x, y] : llvm::zip(a, b)) {
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return std::nullopt;
    merged.push_back(ShapedType::isDynamic(x) ? y : x);
  }
  return merged;
}

/// A tensor type with `element` and the merged shape of `operands` (ranked
/// if any operand is).
Result elementwise(ArrayRef<Value> operands, Type element, std::string &problem) {
  std::optional<SmallVector<int64_t>> shape;
  for (Value operand : operands) {
    auto type = dyn_cast<TensorType>(operand.getType());
    if (!type)
      return fail(problem, "needs concrete tensor operands, got " + typeString(operand.getType()));
    if (!type.hasRank())
      continue;
    if (!shape) {
      shape = SmallVector<int64_t>(type.getShape());
      continue;
    }
    shape = mergeShapes(*shape, type.getShape());
    if (!shape)
      return fail(problem, "needs operands of one shape; broadcast with "
                           "prims.broadcast_in_dim first");
  }
  if (!shape)
    return SmallVector<Type>{UnrankedTensorType::get(element)};
  return SmallVector<Type>{RankedTensorType::get(*shape, element)};
}

/// PyTorch's pooling_output_shape for a static extent (dynamic otherwise):
/// windows of `kernel` (`dilation` apart) every `stride` over `extent`
/// padded by `pad`; with ceil mode a last partial window that starts inside
/// the input or its left padding counts. At least 0.
int64_t pooledSize(int64_t extent, int64_t kernel, int64_t stride, int64_t pad,
                   int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(extent) || stride < 1)
    return ShapedType::kDynamic;
  int64_t span = extent + 2 * pad - dilation * (kernel - 1) - 1 + (ceilMode ? stride - 1 : 0);
  int64_t size = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceilMode && (size - 1) * stride >= extent + pad)
    --size;
  return std::max<int64_t>(size, 0);
}

bool isComparison(StringRef name) {
  return llvm::is_contained({"prims.eq", "prims.ne", "prims.lt", "prims.le", "prims.gt",
                             "prims.ge"},
                            name);
}

} // namespace

FailureOr<SmallVector<Type>> opal::ir::inferPrimResultTypes(Operation *op,
                                                            std::string &problem) {
  StringRef name = op->getName().getStringRef();
  MLIRContext *context = op->getContext();
  SmallVector<Value> operands(op->getOperands());
  auto tensorOperand = [&](unsigned i) { return isa<TensorType>(operands[i].getType()); };

  if (name == "prims.where") {
    if (!tensorOperand(0) || !tensorOperand(1) || !tensorOperand(2))
      return fail(problem, "needs concrete tensor operands");
    if (elementOf(operands[1]) != elementOf(operands[2]))
      return fail(problem, "needs a and b of one element type");
    return elementwise(operands, elementOf(operands[1]), problem);
  }
  if (name == "prims.convert_element_type") {
    auto code = constantInt(operands[1]);
    if (!code)
      return fail(problem, "needs a constant dtype");
    Type element = elementTypeFor(*code, context);
    if (!element)
      return fail(problem, "has an unsupported dtype code " + std::to_string(*code));
    return elementwise({operands[0]}, element, problem);
  }
  if (name == "prims.broadcast_in_dim" || name == "prims.reshape") {
    // Either may take sizes computed at run time (dynamic dims).
    auto shape = shapeList(operands[1]);
    if (!tensorOperand(0) || !shape)
      return fail(problem, "needs a concrete tensor and a shape list");
    return SmallVector<Type>{RankedTensorType::get(*shape, elementOf(operands[0]))};
  }
  if (name == "prims.squeeze") {
    auto dims = constantIntList(operands[1]);
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    if (!type || !dims)
      return fail(problem, "needs a ranked tensor and constant dimensions");
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!llvm::is_contained(*dims, d)) {
        shape.push_back(type.getDimSize(d));
        continue;
      }
      if (type.getDimSize(d) != 1)
        return fail(problem, "can only remove dimensions of static size 1, but dimension " +
                                 std::to_string(d) + " of " + typeString(type) + " is not");
    }
    return SmallVector<Type>{RankedTensorType::get(shape, type.getElementType())};
  }
  if (name == "prims.slice_in_dim") {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    auto stride = constantInt(operands[3]), axis = constantInt(operands[4]);
    if (!type || !stride || !axis || *stride < 1 || *axis < 0 || *axis >= type.getRank())
      return fail(problem, "needs a ranked tensor, a constant stride of at least 1 and a "
                           "constant axis within its rank");
    SmallVector<int64_t> shape(type.getShape());
    auto start = constantInt(operands[1]), limit = constantInt(operands[2]);
    int64_t size = shape[*axis];
    if (ShapedType::isDynamic(size) || !start || !limit) {
      shape[*axis] = ShapedType::kDynamic;
    } else {
      auto bound = [size](int64_t i) {
        if (i < 0)
          i = i < -size ? 0 : i + size;
        return std::min(i, size);
      };
      int64_t from = bound(*start), to = std::max(bound(*limit), from);
      shape[*axis] = (to - from + *stride - 1) / *stride;
    }
    return SmallVector<Type>{RankedTensorType::get(shape, type.getElementType())};
  }
  if (name == "prims.select_in_dim") {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    auto axis = constantInt(operands[2]);
    if (!type || !axis || *axis < 0 || *axis >= type.getRank())
      return fail(problem, "needs a ranked tensor and a constant axis within its rank");
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + *axis);
    return SmallVector<Type>{RankedTensorType::get(shape, type.getElementType())};
  }
  if (name == "prims.pad" || name == "prims.pad_edges") {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    auto pad = constantIntList(operands[name == "prims.pad" ? 2 : 1]);
    if (!type || !pad || pad->size() % 2 ||
        static_cast<int64_t>(pad->size()) > 2 * type.getRank())
      return fail(problem, "needs a ranked tensor and a constant pad list of two entries per "
                           "dim, for at most every dim");
    SmallVector<int64_t> shape(type.getShape()), low, high;
    padsPerDim(*pad, type.getRank(), low, high);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!ShapedType::isDynamic(shape[d]))
        shape[d] = std::max<int64_t>(shape[d] + low[d] + high[d], 0);
    return SmallVector<Type>{RankedTensorType::get(shape, type.getElementType())};
  }
  if (name == "prims.tile") {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    auto repeats = constantIntList(operands[1]);
    if (!type || !repeats || static_cast<int64_t>(repeats->size()) < type.getRank())
      return fail(problem, "needs a ranked tensor and constant repeats, at least one per "
                           "dimension");
    int64_t lead = static_cast<int64_t>(repeats->size()) - type.getRank();
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < static_cast<int64_t>(repeats->size()); ++d) {
      int64_t size = d < lead ? 1 : type.getDimSize(d - lead);
      shape.push_back(ShapedType::isDynamic(size) ? size
                                                  : size * std::max<int64_t>((*repeats)[d], 0));
    }
    return SmallVector<Type>{RankedTensorType::get(shape, type.getElementType())};
  }
  if (name == "prims.rev") {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    if (!type)
      return fail(problem, "needs a ranked tensor");
    return SmallVector<Type>{type};
  }
  if (name == "prims.transpose") {
    auto permutation = constantIntList(operands[1]);
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    if (!type || !permutation || static_cast<int64_t>(permutation->size()) != type.getRank())
      return fail(problem, "needs a ranked tensor and a constant permutation of its dimensions");
    SmallVector<int64_t> shape;
    for (int64_t p : *permutation) {
      if (p < 0 || p >= type.getRank())
        return fail(problem, "has a permutation entry out of range");
      shape.push_back(type.getDimSize(p));
    }
    return SmallVector<Type>{RankedTensorType::get(shape, type.getElementType())};
  }
  if (llvm::is_contained({"prims.sum", "prims.prod", "prims.amax", "prims.amin"}, name)) {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    if (!type)
      return fail(problem, "needs a ranked tensor");
    SmallVector<int64_t> dims;
    if (isNone(operands[1])) {
      for (int64_t d = 0; d < type.getRank(); ++d)
        dims.push_back(d);
    } else if (auto list = constantIntList(operands[1])) {
      for (int64_t d : *list)
        dims.push_back(d < 0 ? d + type.getRank() : d);
    } else {
      return fail(problem, "needs a constant dims list (or None)");
    }
    Type element = type.getElementType();
    if (!isNone(operands[2])) {
      auto code = constantInt(operands[2]);
      element = code ? elementTypeFor(*code, context) : nullptr;
      if (!element)
        return fail(problem, "needs a constant, supported output_dtype");
    }
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        shape.push_back(type.getDimSize(d));
    return SmallVector<Type>{RankedTensorType::get(shape, element)};
  }
  if (name == "prims.argmax" || name == "prims.argmin") {
    auto type = dyn_cast<RankedTensorType>(operands[0].getType());
    if (type && isNone(operands[1])) // into the flattened tensor
      return SmallVector<Type>{RankedTensorType::get({}, IntegerType::get(context, 64))};
    auto dim = constantInt(operands[1]);
    if (!type || !dim)
      return fail(problem, "needs a ranked tensor and a constant dim (or None)");
    int64_t rank = type.getRank(), extent = std::max<int64_t>(rank, 1);
    if (*dim < -extent || *dim >= extent)
      return fail(problem, "has a dim out of range");
    int64_t d = *dim < 0 ? *dim + extent : *dim;
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i < rank; ++i)
      if (i != d)
        shape.push_back(type.getDimSize(i));
    return SmallVector<Type>{RankedTensorType::get(shape, IntegerType::get(context, 64))};
  }
  if (name == "prims.gather" || name == "prims.take") {
    auto a = dyn_cast<RankedTensorType>(operands[0].getType());
    auto index = dyn_cast<RankedTensorType>(operands[2].getType());
    auto dim = constantInt(operands[1]);
    if (!a || !index || !dim)
      return fail(problem, "needs ranked tensors and a constant dim");
    int64_t extent = std::max<int64_t>(a.getRank(), 1);
    if (*dim < -extent || *dim >= extent)
      return fail(problem, "has a dim out of range");
    if (!index.getElementType().isInteger(64))
      return fail(problem, "needs an int64 index");
    if (name == "prims.gather")
      return SmallVector<Type>{RankedTensorType::get(index.getShape(), a.getElementType())};
    int64_t d = *dim < 0 ? *dim + extent : *dim;
    SmallVector<int64_t> shape(a.getShape().take_front(std::min<int64_t>(d, a.getRank())));
    llvm::append_range(shape, index.getShape());
    if (d + 1 <= a.getRank())
      llvm::append_range(shape, a.getShape().drop_front(d + 1));
    return SmallVector<Type>{RankedTensorType::get(shape, a.getElementType())};
  }
  if (name == "prims.scatter" || name == "prims.cumsum" || name == "prims.slice_scatter") {
    auto a = dyn_cast<RankedTensorType>(operands[0].getType());
    if (!a)
      return fail(problem, "needs a ranked tensor");
    return SmallVector<Type>{a};
  }
  if (name == "prims.searchsorted") {
    auto values = dyn_cast<RankedTensorType>(operands[1].getType());
    if (!values)
      return fail(problem, "needs ranked values");
    return SmallVector<Type>{RankedTensorType::get(values.getShape(), IntegerType::get(context, 64))};
  }
  if (name == "prims.embedding_bag") {
    auto table = dyn_cast<RankedTensorType>(operands[0].getType());
    auto indices = dyn_cast<RankedTensorType>(operands[1].getType());
    auto offsets = dyn_cast<RankedTensorType>(operands[2].getType());
    auto includeLast = constantInt(operands[6]);
    if (!table || !indices || !offsets || table.getRank() != 2 || offsets.getRank() != 1 ||
        !includeLast)
      return fail(problem, "needs a 2-d table, 1-d offsets and a constant include_last_offset");
    int64_t given = offsets.getDimSize(0);
    int64_t bags = ShapedType::isDynamic(given) || !*includeLast
                       ? given
                       : std::max<int64_t>(given - 1, 0);
    Type index = indices.getElementType();
    return SmallVector<Type>{RankedTensorType::get({bags, table.getDimSize(1)},
                                                   table.getElementType()),
                             RankedTensorType::get({bags, table.getDimSize(1)}, index),
                             RankedTensorType::get({bags}, index)};
  }
  if (name == "prims.grid_sample") {
    auto input = dyn_cast<RankedTensorType>(operands[0].getType());
    auto grid = dyn_cast<RankedTensorType>(operands[1].getType());
    if (!input || !grid || input.getRank() != 4 || grid.getRank() != 4)
      return fail(problem, "needs a 4-d input and a 4-d grid");
    SmallVector<int64_t> shape = {input.getDimSize(0), input.getDimSize(1), grid.getDimSize(1),
                                  grid.getDimSize(2)};
    return SmallVector<Type>{RankedTensorType::get(shape, input.getElementType())};
  }
  if (name == "prims.col2im") {
    auto input = dyn_cast<RankedTensorType>(operands[0].getType());
    auto size = shapeList(operands[1]);
    auto kernel = constantIntList(operands[2]);
    if (!input || input.getRank() != 3 || !size || size->size() != 2 || !kernel ||
        kernel->size() != 2 || (*kernel)[0] < 1 || (*kernel)[1] < 1)
      return fail(problem, "needs a 3-d input, an output size of two and a constant kernel "
                           "size of two positive entries");
    int64_t blocks = input.getDimSize(1);
    int64_t planes = ShapedType::isDynamic(blocks) ? blocks
                                                   : blocks / ((*kernel)[0] * (*kernel)[1]);
    SmallVector<int64_t> shape = {input.getDimSize(0), planes};
    for (int64_t extent : *size)
      shape.push_back(ShapedType::isDynamic(extent) ? extent : std::max<int64_t>(extent, 0));
    return SmallVector<Type>{RankedTensorType::get(shape, input.getElementType())};
  }
  if (name == "prims.conv" || name == "prims.conv_transpose") {
    bool transposed = name == "prims.conv_transpose";
    auto input = dyn_cast<RankedTensorType>(operands[0].getType());
    auto weight = dyn_cast<RankedTensorType>(operands[1].getType());
    auto stride = constantIntList(operands[2]), padding = constantIntList(operands[3]);
    auto dilation = constantIntList(operands[4]);
    std::optional<SmallVector<int64_t>> outputPadding;
    if (transposed)
      outputPadding = constantIntList(operands[5]);
    auto groups = constantInt(operands[transposed ? 6 : 5]);
    int64_t rank = input ? input.getRank() : 0;
    size_t spatial = static_cast<size_t>(std::max<int64_t>(rank - 2, 0));
    if (!input || !weight || rank < 3 || rank > 5 || weight.getRank() != rank || !stride ||
        !padding || !dilation || (groups ? *groups < 1 : transposed) ||
        stride->size() != spatial ||
        padding->size() != spatial || dilation->size() != spatial ||
        (transposed && (!outputPadding || outputPadding->size() != spatial)))
      return fail(problem, "needs an input and a weight of one rank (3 to 5), positive groups "
                           "(constant if transposed) and constant lists of one entry per "
                           "spatial dim");
    int64_t channels = transposed ? weight.getDimSize(1) : weight.getDimSize(0);
    if (transposed && !ShapedType::isDynamic(channels))
      channels *= *groups;
    SmallVector<int64_t> shape = {input.getDimSize(0), channels};
    for (size_t d = 0; d < spatial; ++d) {
      int64_t extent = input.getDimSize(2 + d), kernel = weight.getDimSize(2 + d);
      if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(kernel) || (*stride)[d] < 1) {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      int64_t size =
          transposed ? (extent - 1) * (*stride)[d] - 2 * (*padding)[d] +
                           (*dilation)[d] * (kernel - 1) + (*outputPadding)[d] + 1
                     : [&] {
                         int64_t span =
                             extent + 2 * (*padding)[d] - (*dilation)[d] * (kernel - 1) - 1;
                         return span < 0 ? int64_t(-1) : span / (*stride)[d] + 1;
                       }();
      shape.push_back(size < 0 ? ShapedType::kDynamic : size);
    }
    return SmallVector<Type>{RankedTensorType::get(shape, input.getElementType())};
  }
  if (name == "prims.max_pool" || name == "prims.avg_pool") {
    bool max = name == "prims.max_pool";
    auto input = dyn_cast<RankedTensorType>(operands[0].getType());
    auto kernel = constantIntList(operands[1]), stride = constantIntList(operands[2]);
    auto padding = constantIntList(operands[3]);
    std::optional<SmallVector<int64_t>> dilation =
        max ? constantIntList(operands[4]) : SmallVector<int64_t>();
    auto ceilMode = constantInt(operands[max ? 5 : 4]);
    size_t spatial = input ? static_cast<size_t>(std::max<int64_t>(input.getRank() - 2, 0)) : 0;
    if (!input || spatial < 1 || spatial > 3 || !kernel || !stride || !padding || !dilation ||
        !ceilMode || kernel->size() != spatial || stride->size() != spatial ||
        padding->size() != spatial || (max && dilation->size() != spatial))
      return fail(problem, "needs an input of 1 to 3 spatial dims and constant lists of one "
                           "entry per spatial dim");
    SmallVector<int64_t> shape = {input.getDimSize(0), input.getDimSize(1)};
    for (size_t d = 0; d < spatial; ++d)
      shape.push_back(pooledSize(input.getDimSize(2 + d), (*kernel)[d], (*stride)[d],
                                 (*padding)[d], max ? (*dilation)[d] : 1, *ceilMode != 0));
    SmallVector<Type> types = {RankedTensorType::get(shape, input.getElementType())};
    if (max)
      types.push_back(RankedTensorType::get(shape, IntegerType::get(context, 64)));
    return types;
  }
  if (name == "prims.upsample_nearest" || name == "prims.upsample_linear") {
    auto input = dyn_cast<RankedTensorType>(operands[0].getType());
    if (!input || input.getRank() != 4)
      return fail(problem, "needs a 4-d input");
    SmallVector<int64_t> shape = {input.getDimSize(0), input.getDimSize(1)};
    auto sizes = isNone(operands[1]) ? std::nullopt : shapeList(operands[1]);
    auto factors = isNone(operands[2]) ? std::nullopt : constantFloatList(operands[2]);
    for (int64_t s = 0; s < 2; ++s) {
      int64_t extent = input.getDimSize(2 + s);
      if (sizes && sizes->size() == 2)
        shape.push_back((*sizes)[s]);
      else if (factors && factors->size() == 2 && !ShapedType::isDynamic(extent))
        shape.push_back(std::max<int64_t>(
            static_cast<int64_t>(std::floor(extent * (*factors)[s])), 0));
      else
        shape.push_back(ShapedType::kDynamic);
    }
    return SmallVector<Type>{RankedTensorType::get(shape, input.getElementType())};
  }
  if (name == "prims.avg_pool_backward" || name == "prims.adaptive_avg_pool_backward") {
    // The input's shape, in the gradient's element type.
    auto grad = dyn_cast<RankedTensorType>(operands[0].getType());
    auto input = dyn_cast<RankedTensorType>(operands[1].getType());
    if (!grad || !input || grad.getRank() != input.getRank())
      return fail(problem, "needs a gradient and an input of one rank");
    return SmallVector<Type>{RankedTensorType::get(input.getShape(), grad.getElementType())};
  }
  if (name == "prims.adaptive_avg_pool") {
    auto input = dyn_cast<RankedTensorType>(operands[0].getType());
    auto size = constantIntList(operands[1]);
    if (!input || input.getRank() < 3 || input.getRank() > 5 || !size ||
        static_cast<int64_t>(size->size()) != input.getRank() - 2)
      return fail(problem, "needs an input of 1 to 3 spatial dims and a constant output size "
                           "of one entry per spatial dim");
    SmallVector<int64_t> shape = {input.getDimSize(0), input.getDimSize(1)};
    shape.append(*size);
    return SmallVector<Type>{RankedTensorType::get(shape, input.getElementType())};
  }
  if (name == "prims.mm" || name == "prims.bmm") {
    auto a = dyn_cast<RankedTensorType>(operands[0].getType());
    auto b = dyn_cast<RankedTensorType>(operands[1].getType());
    int64_t rank = name == "prims.bmm" ? 3 : 2;
    if (!a || !b || a.getRank() != rank || b.getRank() != rank)
      return fail(problem, std::string("needs ") + (rank == 3 ? "3-d" : "2-d") + " tensors");
    SmallVector<int64_t> shape(a.getShape().drop_back());
    shape.push_back(b.getDimSize(rank - 1));
    return SmallVector<Type>{RankedTensorType::get(shape, a.getElementType())};
  }
  if (name == "prims.full") {
    auto shape = shapeList(operands[0]);
    auto code = constantInt(operands[2]);
    Type element = code ? elementTypeFor(*code, context) : nullptr;
    if (!shape || !element)
      return fail(problem, "needs a constant shape list and dtype");
    return SmallVector<Type>{RankedTensorType::get(*shape, element)};
  }
  if (name == "prims.philox_uniform" || name == "prims.philox_normal") {
    auto shape = shapeList(operands[0]);
    auto code = constantInt(operands[3]);
    Type element = code ? elementTypeFor(*code, context) : nullptr;
    if (!shape || !element)
      return fail(problem, "needs a constant shape list and dtype");
    return SmallVector<Type>{RankedTensorType::get(*shape, element)};
  }
  if (name == "prims.iota") {
    auto code = constantInt(operands[3]);
    Type element = code ? elementTypeFor(*code, context) : nullptr;
    if (!element)
      return fail(problem, "needs a constant dtype");
    auto length = constantInt(operands[0]);
    return SmallVector<Type>{
        RankedTensorType::get({length ? *length : ShapedType::kDynamic}, element)};
  }
  // The elementwise unary and binary prims.
  for (unsigned i = 0; i < operands.size(); ++i)
    if (!tensorOperand(i))
      return fail(problem, "needs concrete tensor operands");
  Type element = elementOf(operands[0]);
  for (Value operand : operands)
    if (elementOf(operand) != element)
      return fail(problem, "needs operands of one element type; convert with "
                           "prims.convert_element_type first");
  return elementwise(operands, isComparison(name) ? IntegerType::get(context, 1) : element,
                     problem);
}
