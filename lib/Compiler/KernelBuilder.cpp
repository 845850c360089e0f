//===- KernelBuilder.cpp - The IR of one call, and its entry points -------===//

#include "opal/Compiler/KernelBuilder.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Dialect/SchemaOpBuilder.h"
#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace opal;
using namespace opal::ir;

namespace {

/// A call's constant argument as the default of a copy of its schema
/// argument, so materializeDefault builds it the way it builds defaults.
std::optional<DefaultValue> asDefault(const IValue &value) {
  switch (value.tag()) {
  case IValue::Tag::None:
    return DefaultValue::none();
  case IValue::Tag::Int:
    return DefaultValue::fromInt(value.toInt());
  case IValue::Tag::Double:
    return DefaultValue::fromDouble(value.toDouble());
  case IValue::Tag::Bool:
    return DefaultValue::fromBool(value.toBool());
  case IValue::Tag::String:
    return DefaultValue::fromString(value.toStringRef());
  case IValue::Tag::IntList:
    return DefaultValue::fromIntList(value.toIntList());
  case IValue::Tag::DoubleList:
    return DefaultValue::fromDoubleList(value.toDoubleList());
  case IValue::Tag::BoolList:
    return DefaultValue::fromBoolList(value.toBoolList());
  default:
    return std::nullopt;
  }
}

FailureOr<Value> constantArgument(OpBuilder &b, Location loc, const Argument &argument,
                                  const IValue &value, const std::string &op,
                                  std::string &error) {
  if (value.isDevice())
    return Value(DeviceOp::create(b, loc, ir::DeviceType::get(b.getContext()),
                                  value.toDevice().str()));
  std::optional<DefaultValue> asValue = asDefault(value);
  if (!asValue) {
    error = op + ": argument '" + argument.name() + "': the JIT cannot compile a " +
            value.tagName() + " value";
    return failure();
  }
  Argument withValue(argument.name(), argument.type(), std::move(*asValue),
                     argument.kwargOnly());
  auto built = materializeDefault(b, loc, withValue, error);
  if (failed(built))
    error = op + ": " + error;
  return built;
}

/// The shape an argument of kind Tensor or Sizes enters the kernel with:
/// every size when the spec has static shapes, else the size-1 dims (and
/// the dims whose sizes the key holds) static and the others dynamic.
SmallVector<int64_t> shapeOf(const jit::ArgSpec &arg) {
  SmallVector<int64_t> shape;
  for (int d = 0; d < arg.rank; ++d)
    shape.push_back(!arg.sizes.empty()          ? arg.sizes[d]
                    : (arg.sizeOneDims >> d & 1) ? 1
                    : (arg.keyedDims >> d & 1)   ? arg.keyedSize(d)
                                                 : ShapedType::kDynamic);
  return shape;
}

/// The `opal.list` of the sizes of `carrier`, a runtime size list
/// (ArgKind::Sizes): constants where its type has them.
Value sizeList(OpBuilder &b, Location loc, Value carrier) {
  auto type = cast<RankedTensorType>(carrier.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(arith::ConstantIntOp::create(b, loc, type.getDimSize(d), 64));
      continue;
    }
    Value dim = tensor::DimOp::create(b, loc, carrier, d);
    sizes.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), dim));
  }
  return ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), sizes);
}

/// The schema argument of each entry point argument: the entry points take
/// the non-constant arguments, in order.
std::vector<uint32_t> schemaArgumentsOf(const std::vector<jit::ArgKind> &argKinds) {
  std::vector<uint32_t> schemaIndex;
  for (size_t i = 0; i < argKinds.size(); ++i)
    if (argKinds[i] != jit::ArgKind::Constant)
      schemaIndex.push_back(static_cast<uint32_t>(i));
  return schemaIndex;
}

/// Whether an argument of `kind` has sizes a kernel reads.
bool isSized(jit::ArgKind kind) {
  return kind == jit::ArgKind::Tensor || kind == jit::ArgKind::Sizes;
}

/// Sets `function`'s type to take its entry block's arguments, keeping the
/// attributes of the arguments it had (new ones get none).
void retypeToBlockArguments(func::FuncOp function, TypeRange results) {
  Block &body = function.getBody().front();
  SmallVector<Attribute> attributes;
  for (unsigned i = 0; i < body.getNumArguments(); ++i) {
    DictionaryAttr existing = i < function.getNumArguments() ? function.getArgAttrDict(i) : nullptr;
    attributes.push_back(existing ? existing : DictionaryAttr::get(function.getContext()));
  }
  function.setFunctionType(
      FunctionType::get(function.getContext(), body.getArgumentTypes(), results));
  function.setAllArgAttrs(attributes);
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>> opal::ir::buildCallModule(MLIRContext *context,
                                                           const FunctionSchema &schema,
                                                           const jit::CallSpec &spec,
                                                           std::string &error) {
  const std::string op = schema.operatorName().str();
  OpBuilder b(context);
  Location loc = NameLoc::get(b.getStringAttr(op));
  SmallVector<Type> inputTypes;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const jit::ArgSpec &arg = spec.args[i];
    switch (arg.kind) {
    case jit::ArgKind::Tensor: {
      Type element = elementTypeForDtype(static_cast<int64_t>(arg.dtype), context);
      if (!element) {
        error = op + ": argument '" + schema.arguments()[i].name() + "': the JIT does not "
                "compile " + dtypeName(arg.dtype) + " tensors";
        return failure();
      }
      inputTypes.push_back(RankedTensorType::get(shapeOf(arg), element));
      break;
    }
    case jit::ArgKind::Sizes: {
      // A memref without data whose sizes are the list's entries.
      inputTypes.push_back(RankedTensorType::get(shapeOf(arg), b.getI8Type()));
      break;
    }
    case jit::ArgKind::Float:
      inputTypes.push_back(b.getF64Type());
      break;
    case jit::ArgKind::Int:
      inputTypes.push_back(b.getI64Type());
      break;
    case jit::ArgKind::Constant: {
      // A dtype the JIT does not compile (complex) is refused as a tensor
      // of it is, never compiled as another.
      const SchemaType *type = schema.arguments()[i].type().get();
      if (type->isOptional())
        type = type->element().get();
      if (type->kind() == TypeKind::ScalarType && arg.constant.isInt()) {
        auto dtype = static_cast<ScalarType>(arg.constant.toInt());
        if (!elementTypeForDtype(static_cast<int64_t>(dtype), context)) {
          error = op + ": argument '" + schema.arguments()[i].name() + "': the JIT does not "
                  "compile " + dtypeName(dtype) + " tensors";
          return failure();
        }
      }
      break;
    }
    }
  }
  SmallVector<Type> resultTypes(schema.returns().size(), GenericTensorType::get(context));
  for (const Argument &ret : schema.returns())
    if (!ret.type()->isTensorLike() || ret.type()->isList() || ret.type()->isOptional()) {
      error = op + ": the JIT compiles ops that return tensors; this one returns " +
              ret.type()->str();
      return failure();
    }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto function = func::FuncOp::create(b, loc, kKernelName,
                                       b.getFunctionType(inputTypes, resultTypes));
  // On CUDA, buffers that start at a vector boundary may be read 128 bits
  // at a time (opal-map-to-gpu).
  if (spec.device == opal::DeviceType::CUDA) {
    unsigned input = 0;
    for (const jit::ArgSpec &arg : spec.args) {
      if (arg.kind == jit::ArgKind::Constant)
        continue;
      if (arg.kind == jit::ArgKind::Tensor && arg.aligned)
        function.setArgAttr(input, kAlignAttrName, b.getI64IntegerAttr(jit::kVectorAlignment));
      ++input;
    }
  }
  Block *entry = function.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  SmallVector<Value> operands;
  unsigned nextInput = 0;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    if (spec.args[i].kind == jit::ArgKind::Sizes) {
      operands.push_back(sizeList(b, loc, entry->getArgument(nextInput++)));
      continue;
    }
    if (spec.args[i].kind != jit::ArgKind::Constant) {
      operands.push_back(entry->getArgument(nextInput++));
      continue;
    }
    auto constant =
        constantArgument(b, loc, schema.arguments()[i], spec.args[i].constant, op, error);
    if (failed(constant))
      return failure();
    operands.push_back(*constant);
  }
  // Keyword-only arguments go by name; every argument is given.
  SmallVector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (schema.arguments()[i].kwargOnly())
      keywords.emplace_back(schema.arguments()[i].name(), operands[i]);
    else
      positional.push_back(operands[i]);
  }
  auto call = buildSchemaOp(b, loc, schema, positional, keywords, resultTypes, error);
  if (failed(call))
    return failure();
  func::ReturnOp::create(b, loc, (*call)->getResults());
  return module;
}

FailureOr<std::vector<jit::OutputSpec>>
opal::ir::splitEntryPoints(ModuleOp module, unsigned outputAlignment, std::string &error) {
  auto kernel = module.lookupSymbol<func::FuncOp>(kKernelName);
  auto ret = cast<func::ReturnOp>(kernel.getBody().back().getTerminator());
  std::vector<jit::OutputSpec> outputs;
  size_t dynamicCount = 0;
  for (Type type : ret.getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<int64_t> dtype = tensor ? dtypeForElementType(tensor.getElementType())
                                          : std::nullopt;
    if (!dtype) {
      std::string text;
      llvm::raw_string_ostream(text) << type;
      error = "result " + std::to_string(outputs.size()) + " has type " + text +
              ", which the JIT cannot return (a ranked tensor of a supported dtype)";
      return failure();
    }
    jit::OutputSpec output;
    output.dtype = static_cast<ScalarType>(*dtype);
    for (int64_t size : tensor.getShape()) {
      output.sizes.push_back(ShapedType::isDynamic(size) ? -1 : size);
      dynamicCount += ShapedType::isDynamic(size);
    }
    outputs.push_back(std::move(output));
  }
  if (dynamicCount > 1024) {
    error = "the kernel has more than 1024 dynamic output sizes";
    return failure();
  }

  OpBuilder b(module.getContext());
  Location loc = kernel.getLoc();
  if (dynamicCount) {
    // opal_kernel_shapes(inputs..., dims: memref<?xi64>): the same body, its
    // results reduced to their dynamic sizes; canonicalization and
    // resolve-ranked-shaped-type-result-dims later remove the computation.
    b.setInsertionPointAfter(kernel);
    auto shapes = cast<func::FuncOp>(b.clone(*kernel));
    shapes.setSymName(kShapesName);
    Type dimsType = MemRefType::get({ShapedType::kDynamic}, b.getI64Type());
    Block &body = shapes.getBody().back();
    Value dims = body.addArgument(dimsType, loc);
    auto shapesReturn = cast<func::ReturnOp>(body.getTerminator());
    b.setInsertionPoint(shapesReturn);
    int64_t next = 0;
    for (Value result : shapesReturn.getOperands()) {
      auto type = cast<RankedTensorType>(result.getType());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        Value size = tensor::DimOp::create(b, loc, result, d);
        Value asI64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), size);
        Value at = arith::ConstantIndexOp::create(b, loc, next++);
        memref::StoreOp::create(b, loc, asI64, dims, at);
      }
    }
    func::ReturnOp::create(b, loc);
    shapesReturn.erase();
    retypeToBlockArguments(shapes, {});
    // What computation stays there reads its inputs, never updates them.
    for (unsigned i = 0; i + 1 < body.getNumArguments(); ++i)
      if (isa<TensorType>(body.getArgument(i).getType()))
        shapes.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
  }

  // opal_kernel(inputs..., outputs...): each result is materialized in an
  // output memref; empty-tensor elimination and bufferization then compute
  // it in place there.
  Block &body = kernel.getBody().back();
  b.setInsertionPoint(ret);
  for (Value result : ret.getOperands()) {
    auto type = cast<RankedTensorType>(result.getType());
    Value out = body.addArgument(MemRefType::get(type.getShape(), type.getElementType()), loc);
    bufferization::MaterializeInDestinationOp::create(b, loc, Type(), result, out,
                                                      /*restrict=*/true, /*writable=*/true);
  }
  func::ReturnOp::create(b, loc);
  ret.erase();
  retypeToBlockArguments(kernel, {});
  // Outputs are fresh buffers and inputs are only read, so no buffer of a
  // call aliases a buffer it writes: LLVM needs no runtime alias checks.
  for (unsigned i = 0; i < body.getNumArguments(); ++i)
    if (isa<BaseMemRefType, TensorType>(body.getArgument(i).getType()))
      kernel.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
  // Inputs are the caller's tensors: bufferization copies one before any
  // op updates it in place (a scatter's loop), instead of writing into it.
  for (unsigned i = 0; i < body.getNumArguments() - outputs.size(); ++i)
    if (isa<TensorType>(body.getArgument(i).getType()))
      kernel.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
  // Outputs are allocated whole, so they start where their allocation does.
  if (outputAlignment)
    for (unsigned i = body.getNumArguments() - outputs.size(); i < body.getNumArguments(); ++i)
      kernel.setArgAttr(i, kAlignAttrName, b.getI64IntegerAttr(outputAlignment));
  return outputs;
}

uint64_t opal::ir::readStridedInputsInPlace(ModuleOp module, const jit::CallSpec &spec) {
  if (spec.device != opal::DeviceType::CPU ||
      llvm::none_of(spec.args, [](const jit::ArgSpec &arg) { return arg.strided; }))
    return 0;
  // Prims whose lowering wants dense operands.
  static constexpr llvm::StringLiteral kDense[] = {"prims.mm", "prims.bmm", "prims.conv",
                                                  "prims.conv_transpose", "prims.reshape"};
  bool dense = false;
  module.walk([&](Operation *op) {
    dense |= llvm::is_contained(kDense, op->getName().getStringRef());
  });
  if (dense)
    return 0;
  std::vector<jit::ArgKind> argKinds;
  for (const jit::ArgSpec &arg : spec.args)
    argKinds.push_back(arg.kind);
  std::vector<uint32_t> schemaIndex = schemaArgumentsOf(argKinds);
  uint64_t mask = 0;
  for (llvm::StringRef name : {kKernelName, kShapesName}) {
    auto function = module.lookupSymbol<func::FuncOp>(name);
    if (!function)
      continue;
    for (auto [position, argument] : llvm::enumerate(schemaIndex)) {
      if (argument >= 64 || !spec.args[argument].strided ||
          position >= function.getNumArguments())
        continue;
      auto type = dyn_cast<RankedTensorType>(function.getArgument(position).getType());
      if (!type)
        continue;
      SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
      function.setArgAttr(position, bufferization::BufferizationDialect::kBufferLayoutAttrName,
                          StridedLayoutAttr::get(module.getContext(), ShapedType::kDynamic,
                                                 strides));
      mask |= uint64_t(1) << argument;
    }
  }
  return mask;
}

std::vector<jit::SizeSource> opal::ir::sizeSourcesOf(ModuleOp module,
                                                     const std::vector<jit::ArgKind> &argKinds) {
  auto shapes = module.lookupSymbol<func::FuncOp>(kShapesName);
  if (!shapes || !llvm::hasSingleElement(shapes.getBody()))
    return {};
  Block &body = shapes.front();
  std::vector<uint32_t> schemaIndex = schemaArgumentsOf(argKinds);
  // After the inputs: a random kernel's seed and offset, then the buffer.
  auto streams = shapes->getAttrOfType<IntegerAttr>(kRandomStreamsAttrName);
  size_t extra = streams && streams.getInt() ? 2 : 0;
  if (body.getNumArguments() != schemaIndex.size() + extra + 1)
    return {};
  Value buffer = body.getArgument(body.getNumArguments() - 1);
  std::map<int64_t, jit::SizeSource> stored; // by position in the buffer
  for (Operation &op : body) {
    if (isa<arith::ConstantOp, arith::IndexCastOp, memref::DimOp, func::ReturnOp>(op))
      continue;
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || store.getMemRef() != buffer || store.getIndices().size() != 1)
      return {};
    std::optional<int64_t> position = getConstantIntValue(store.getIndices()[0]);
    auto cast = store.getValue().getDefiningOp<arith::IndexCastOp>();
    auto dim = cast ? cast.getIn().getDefiningOp<memref::DimOp>() : memref::DimOp();
    if (!position || !dim || stored.count(*position))
      return {};
    auto argument = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!argument || argument.getOwner() != &body ||
        argument.getArgNumber() >= schemaIndex.size() || !index ||
        !isSized(argKinds[schemaIndex[argument.getArgNumber()]]))
      return {};
    stored[*position] = {schemaIndex[argument.getArgNumber()], static_cast<uint32_t>(*index)};
  }
  std::vector<jit::SizeSource> sources;
  for (const auto &[position, source] : stored) {
    if (position != static_cast<int64_t>(sources.size()))
      return {};
    sources.push_back(source);
  }
  return sources;
}

Expected<std::vector<jit::ShapeCheck>>
opal::ir::shapeChecksOf(ModuleOp module, const std::vector<jit::ArgKind> &argKinds) {
  auto kernel = module.lookupSymbol<func::FuncOp>(kKernelName);
  auto text = kernel ? kernel->getAttrOfType<StringAttr>(kShapeChecksAttrName) : StringAttr();
  return readFunctionShapeChecks(text ? text.str() : "", argKinds);
}

Expected<std::vector<jit::ShapeCheck>>
opal::ir::readFunctionShapeChecks(const std::string &text,
                                  const std::vector<jit::ArgKind> &argKinds) {
  auto checks = jit::readShapeChecks(text);
  if (!checks)
    return makeUnexpected(checks.error());
  std::vector<uint32_t> schemaIndex = schemaArgumentsOf(argKinds);
  auto remap = [&](jit::SizeRef &size) {
    if (size.constant)
      return true;
    if (size.argument >= schemaIndex.size())
      return false;
    jit::ArgKind kind = argKinds[schemaIndex[size.argument]];
    if (size.dim == jit::SizeRef::kArgumentValue ? kind != jit::ArgKind::Int : !isSized(kind))
      return false;
    size.argument = schemaIndex[size.argument];
    return true;
  };
  for (jit::ShapeCheck &check : *checks) {
    bool ok = remap(check.lhs) && remap(check.rhs);
    for (jit::SizeRef &size : check.lhsShape)
      ok = ok && remap(size);
    for (jit::SizeRef &size : check.rhsShape)
      ok = ok && remap(size);
    for (std::vector<jit::SizeRef> &group : check.values)
      for (jit::SizeRef &size : group)
        ok = ok && remap(size);
    if (!ok)
      return makeUnexpected(Error("internal error: a shape check names a size of an argument "
                                  "that is not a tensor: " + jit::describeShapeChecks({check})));
  }
  return std::move(*checks);
}
