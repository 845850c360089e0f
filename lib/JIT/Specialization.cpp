//===- Specialization.cpp - What a compiled kernel is specialized on ------===//

#include "opal/JIT/Specialization.h"

#include "opal/Runtime/Tensor.h"
#include "opal/Schema/SchemaParser.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <sstream>
#include <variant>

using namespace opal;
using namespace opal::jit;

namespace {

/// The base kind of a schema type (Optional stripped).
TypeKind baseKind(const TypePtr &type) {
  return type->isOptional() ? type->element()->kind() : type->kind();
}

/// Whether `argument` is a factory's size list (`SymInt[] size`), which a
/// call on the CPU takes at run time (ArgKind::Sizes).
bool isSizeList(const Argument &argument) {
  const TypePtr &type = argument.type();
  return type->isList() && !type->fixedSize() && type->element()->kind() == TypeKind::SymInt &&
         argument.name() == "size";
}

/// Whether `schema` is a factory's, an op that takes no tensor.
bool takesNoTensor(const FunctionSchema &schema) {
  for (const Argument &argument : schema.arguments()) {
    const TypePtr &type = argument.type();
    const TypePtr &base = type->isOptional() ? type->element() : type;
    if (base->kind() == TypeKind::Tensor ||
        (base->isList() && base->element()->kind() == TypeKind::Tensor))
      return false;
  }
  return true;
}

/// Whether `value` of `argument` of `schema` enters a call on `device` as
/// a runtime size list: a factory's on the CPU with no size negative (a
/// negative one is refused by the factory's own check, compiled in). The
/// cheap tests first: most calls pass no int list.
bool isRuntimeSizes(const FunctionSchema &schema, const Argument &argument,
                    const IValue &value, DeviceType device) {
  if (!value.isIntList() || device != DeviceType::CPU || !isSizeList(argument))
    return false;
  const std::vector<int64_t> &sizes = value.toIntList();
  return sizes.size() <= 64 &&
         std::all_of(sizes.begin(), sizes.end(), [](int64_t size) { return size >= 0; }) &&
         takesNoTensor(schema);
}

/// Whether argument `i` of a call of `schema` with `args` enters it on
/// `device` as a runtime int: a convolution's `groups` above 1 on the CPU
/// (not transposed: the output's channels are the weight's times groups),
/// in a kernel of dynamic shapes. Its lowering reads the number of groups
/// at run time, so one kernel serves every depthwise or grouped
/// convolution of a kernel size and stride (and, from kShiftedChannels
/// channels per group, of that count: keyedDimsOf): MobileNet's ten
/// depthwise convolutions compile as two kernels, not ten. `groups == 1`
/// (an ordinary convolution, lowered as products) stays a constant, as does
/// a bad value (its error is the compile's).
constexpr size_t kConvolutionInput = 0, kConvolutionWeight = 1, kConvolutionTransposed = 6,
                 kConvolutionGroups = 8;
bool isRuntimeInt(const FunctionSchema &schema, const IValue *args, size_t i, DeviceType device,
                  bool staticShapes) {
  return i == kConvolutionGroups && args[i].isInt() && args[i].toInt() > 1 &&
         device == DeviceType::CPU && !staticShapes &&
         schema.operatorName().name == "aten::convolution" &&
         schema.operatorName().overloadName.empty() &&
         schema.arguments()[i].name() == "groups" &&
         args[kConvolutionTransposed].isBool() && !args[kConvolutionTransposed].toBool();
}

/// How argument `i` of a call of `schema` with `args` enters a kernel on
/// `device`.
ArgKind kindOf(const FunctionSchema &schema, const IValue *args, size_t i, DeviceType device,
               bool staticShapes) {
  const Argument &argument = schema.arguments()[i];
  const IValue &value = args[i];
  if (value.isTensor())
    return ArgKind::Tensor;
  if (isRuntimeSizes(schema, argument, value, device))
    return ArgKind::Sizes;
  if (isRuntimeInt(schema, args, i, device, staticShapes))
    return ArgKind::Int;
  TypeKind kind = baseKind(argument.type());
  if (kind == TypeKind::Float && (value.isDouble() || value.isInt()))
    return ArgKind::Float;
  if (kind == TypeKind::Scalar && value.isDouble())
    return ArgKind::Float;
  if (kind == TypeKind::Scalar && value.isInt())
    return ArgKind::Int;
  return ArgKind::Constant;
}

/// Bit d set: dim d of argument `i` (a tensor of `sizes`) of a call of
/// `schema` with `args` has its size in the key and static in the kernel,
/// where a decomposition or lowering needs it known. Two, both of
/// `aten::convolution`: its input's channels when 0 (PyTorch's empty
/// convolution gives 0 channels whatever the weight's count: the
/// decomposition branches on it with opal.has_static_size; conv1d, conv2d
/// and conv3d, which call it, key theirs too), and, where its
/// groups enter at run time, its weight's channels per group from
/// kShiftedChannels on (RegNet's 8): a kernel for that count sums a group's
/// channels in products over shifted rows (ConvolutionToLinalg.cpp), 1.4x
/// to 3.1x faster than the loop over one channel at a time that fewer get.
/// The cheap tests first: nearly every call has no such dim.
constexpr int64_t kShiftedChannels = 8;
uint64_t keyedDimsOf(const FunctionSchema &schema, const IValue *args, size_t i,
                     IntArrayRef sizes, DeviceType device, bool staticShapes) {
  if (i > kConvolutionWeight || sizes.size() < 2 || staticShapes)
    return 0;
  // (isRuntimeInt tests the op's name only after its cheap tests: most
  // ops' second tensor has 8 or more in dim 1.)
  if (i == kConvolutionWeight)
    return sizes[1] >= kShiftedChannels && schema.arguments().size() > kConvolutionGroups &&
                   isRuntimeInt(schema, args, kConvolutionGroups, device, staticShapes)
               ? uint64_t(1) << 1
               : 0;
  if (std::find(sizes.begin(), sizes.end(), 0) == sizes.end())
    return 0;
  const OperatorName &name = schema.operatorName();
  if (!name.overloadName.empty() || name.name.rfind("aten::conv", 0) != 0)
    return 0;
  // The input's channels: dim 1, or dim 0 of conv1d/2d/3d's unbatched
  // input (a rank of one more than the spatial dims).
  int64_t channels = 1;
  if (name.name != "aten::convolution") {
    int64_t spatial = name.name == "aten::conv1d"   ? 1
                      : name.name == "aten::conv2d" ? 2
                      : name.name == "aten::conv3d" ? 3
                                                    : 0;
    int64_t rank = static_cast<int64_t>(sizes.size());
    if (!spatial || (rank != spatial + 1 && rank != spatial + 2))
      return 0;
    channels = rank == spatial + 1 ? 0 : 1;
  }
  return sizes[channels] == 0 ? uint64_t(1) << channels : 0;
}

/// Bit d set: dim d has size 1.
uint64_t sizeOneDims(IntArrayRef sizes) {
  uint64_t mask = 0;
  for (size_t d = 0; d < sizes.size(); ++d)
    mask |= uint64_t(sizes[d] == 1) << d;
  return mask;
}

uint64_t bitsOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// Whether a kernel reads `tensor`'s data at a kVectorAlignment boundary: a
/// non-contiguous tensor is read from its contiguous copy, a fresh buffer.
bool readsAligned(const TensorImpl &tensor) {
  return !tensor.isContiguous() ||
         reinterpret_cast<uintptr_t>(tensor.data()) % kVectorAlignment == 0;
}

/// Whether a CPU kernel may read `tensor` in place through its strides
/// (ArgSpec::strided): a non-contiguous tensor whose last dim steps through
/// memory by at most kInPlaceStride elements (a slice, a strided or expanded
/// view), which a kernel walking its output in order reads almost in order.
/// A transpose (a large last stride) is copied first instead, by the
/// runtime's tiled copy: read in place, each element would be a cache miss.
constexpr int64_t kInPlaceStride = 16;
bool readsStrided(const TensorImpl &tensor) {
  if (tensor.isContiguous())
    return false;
  IntArrayRef sizes = tensor.sizes(), strides = tensor.strides();
  return sizes.empty() || sizes.back() == 1 ||
         (strides.back() >= 0 && strides.back() <= kInPlaceStride);
}

std::string problem(const FunctionSchema &schema, const Argument &argument,
                    const std::string &what) {
  return schema.operatorName().str() + ": argument '" + argument.name() + "': " + what;
}

/// The words of a constant argument (a value the kernel is specialized on);
/// false for a value the JIT cannot compile.
bool appendConstantWords(const IValue &value, uint64_t head, std::vector<uint64_t> &words) {
  size_t headAt = words.size();
  words.push_back(0);
  switch (value.tag()) {
  case IValue::Tag::None:
    break;
  case IValue::Tag::Int:
    words.push_back(static_cast<uint64_t>(value.toInt()));
    break;
  case IValue::Tag::Bool:
    words.push_back(value.toBool());
    break;
  case IValue::Tag::Double:
    words.push_back(bitsOf(value.toDouble()));
    break;
  case IValue::Tag::Device:
    words.push_back(static_cast<uint64_t>(value.toDevice().type()) << 8 |
                    static_cast<uint8_t>(value.toDevice().index()));
    break;
  case IValue::Tag::String: {
    const std::string &text = value.toStringRef();
    words.push_back(text.size());
    for (size_t at = 0; at < text.size(); at += 8) {
      uint64_t chunk = 0;
      std::memcpy(&chunk, text.data() + at, std::min<size_t>(8, text.size() - at));
      words.push_back(chunk);
    }
    break;
  }
  case IValue::Tag::IntList:
    words.push_back(value.toIntList().size());
    for (int64_t v : value.toIntList())
      words.push_back(static_cast<uint64_t>(v));
    break;
  case IValue::Tag::DoubleList:
    words.push_back(value.toDoubleList().size());
    for (double v : value.toDoubleList())
      words.push_back(bitsOf(v));
    break;
  case IValue::Tag::BoolList:
    words.push_back(value.toBoolList().size());
    for (bool v : value.toBoolList())
      words.push_back(v);
    break;
  default:
    return false;
  }
  words[headAt] = head | uint64_t(static_cast<uint8_t>(value.tag())) << 8 |
                  uint64_t(words.size() - headAt) << 16;
  return true;
}

/// The error for argument `i` (out of line: the hit path builds no strings).
[[gnu::cold, gnu::noinline]] Unexpected<Error> keyError(const FunctionSchema &schema,
                                                        const IValue *args, size_t i) {
  const Argument &argument = schema.arguments()[i];
  if (args[i].isTensor())
    return makeUnexpected(
        Error(problem(schema, argument, "the JIT compiles tensors of rank up to 64")));
  return makeUnexpected(Error(problem(
      schema, argument,
      std::string("the JIT cannot compile a call with a ") + args[i].tagName() + " here")));
}

} // namespace

Expected<bool> jit::appendKeyWords(const FunctionSchema &schema, const IValue *args,
                                   DeviceType device, bool staticShapes,
                                   std::vector<uint64_t> &words, int cudaCapability,
                                   bool opByOp, bool viewsInPlace) {
  words.push_back(static_cast<uint64_t>(device) | uint64_t(staticShapes) << 8 |
                  uint64_t(opByOp) << 9 |
                  static_cast<uint64_t>(static_cast<uint32_t>(cudaCapability)) << 16);
  const auto &arguments = schema.arguments();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const IValue &value = args[i];
    ArgKind kind = kindOf(schema, args, i, device, staticShapes);
    uint64_t head = static_cast<uint64_t>(kind) + 1;
    if (kind == ArgKind::Tensor) {
      const TensorImpl &tensor = *value.toTensorImpl();
      IntArrayRef sizes = tensor.sizes();
      if (sizes.size() > 64)
        return keyError(schema, args, i);
      bool misaligned = device == DeviceType::CUDA && !readsAligned(tensor);
      bool strided = viewsInPlace && device == DeviceType::CPU && readsStrided(tensor);
      uint64_t keyed = keyedDimsOf(schema, args, i, sizes, device, staticShapes);
      words.push_back(head | uint64_t(static_cast<uint8_t>(tensor.dtype())) << 8 |
                      uint64_t(sizes.size()) << 16 | uint64_t(misaligned) << 24 |
                      uint64_t(strided) << 25 | uint64_t(keyed != 0) << 26);
      words.push_back(sizeOneDims(sizes));
      if (keyed) {
        words.push_back(keyed);
        for (size_t d = 0; d < sizes.size(); ++d)
          if (keyed >> d & 1)
            words.push_back(static_cast<uint64_t>(sizes[d]));
      }
      if (staticShapes)
        for (int64_t size : sizes)
          words.push_back(static_cast<uint64_t>(size));
    } else if (kind == ArgKind::Sizes) {
      IntArrayRef sizes = value.toIntList();
      words.push_back(head | uint64_t(sizes.size()) << 16);
      words.push_back(sizeOneDims(sizes));
      if (staticShapes)
        for (int64_t size : sizes)
          words.push_back(static_cast<uint64_t>(size));
    } else if (kind != ArgKind::Constant) {
      words.push_back(head);
    } else if (!appendConstantWords(value, head, words)) {
      return keyError(schema, args, i);
    }
  }
  return true;
}

CallSpec jit::makeCallSpec(const FunctionSchema &schema, const IValue *args,
                           DeviceType device, bool staticShapes, int cudaCapability) {
  CallSpec spec;
  spec.op = schema.operatorName();
  spec.device = device;
  spec.cudaCapability = cudaCapability;
  spec.staticShapes = staticShapes;
  const auto &arguments = schema.arguments();
  for (size_t i = 0; i < arguments.size(); ++i) {
    ArgSpec arg;
    arg.kind = kindOf(schema, args, i, device, staticShapes);
    if (arg.kind == ArgKind::Tensor) {
      Tensor tensor = args[i].toTensor();
      arg.dtype = tensor.dtype();
      arg.rank = static_cast<int>(tensor.dim());
      arg.sizeOneDims = sizeOneDims(tensor.sizes());
      arg.keyedDims = keyedDimsOf(schema, args, i, tensor.sizes(), device, staticShapes);
      for (int d = 0; d < arg.rank; ++d)
        if (arg.keyedDims >> d & 1)
          arg.keyedSizes.push_back(tensor.sizes()[d]);
      if (staticShapes)
        arg.sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
      arg.aligned = device != DeviceType::CUDA || readsAligned(*tensor.impl());
      arg.strided = device == DeviceType::CPU && readsStrided(*tensor.impl());
    } else if (arg.kind == ArgKind::Sizes) {
      IntArrayRef sizes = args[i].toIntList();
      arg.rank = static_cast<int>(sizes.size());
      arg.sizeOneDims = sizeOneDims(sizes);
      if (staticShapes)
        arg.sizes.assign(sizes.begin(), sizes.end());
    } else if (arg.kind == ArgKind::Constant) {
      arg.constant = args[i];
    }
    spec.args.push_back(std::move(arg));
  }
  return spec;
}

std::string CallSpec::str() const {
  std::ostringstream out;
  out << "(";
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec &arg = args[i];
    if (i)
      out << ", ";
    auto dims = [&] {
      out << "[";
      for (int d = 0; d < arg.rank; ++d) {
        out << (d ? "," : "");
        if (!arg.sizes.empty())
          out << arg.sizes[d];
        else
          out << ((arg.sizeOneDims >> d & 1) ? "1"
                  : (arg.keyedDims >> d & 1) ? std::to_string(arg.keyedSize(d))
                                             : "?");
      }
      out << "]";
    };
    switch (arg.kind) {
    case ArgKind::Sizes:
      out << "sizes";
      dims();
      break;
    case ArgKind::Tensor:
      out << dtypeName(arg.dtype);
      dims();
      if (!arg.aligned)
        out << " misaligned";
      if (arg.strided)
        out << " strided";
      break;
    case ArgKind::Float:
      out << "float";
      break;
    case ArgKind::Int:
      out << "int";
      break;
    case ArgKind::Constant:
      if (arg.constant.isNone())
        out << "None";
      else
        out << arg.constant.tagName() << "=" << arg.constant.str();
      break;
    }
  }
  out << ")";
  return out.str();
}

//===----------------------------------------------------------------------===//
// Specializations written as text (opal.precompile)
//===----------------------------------------------------------------------===//

namespace {

std::string trimmed(std::string_view text) {
  size_t start = 0, end = text.size();
  while (start < end && std::isspace(static_cast<unsigned char>(text[start])))
    ++start;
  while (end > start && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  return std::string(text.substr(start, end - start));
}

/// The comma-separated entries of `inner`, commas inside brackets and
/// quotes left alone; nullopt if the brackets or quotes do not balance.
std::optional<std::vector<std::string>> splitEntries(std::string_view inner) {
  std::vector<std::string> entries;
  if (trimmed(inner).empty())
    return entries;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (quote) {
      if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      if (--depth < 0)
        return std::nullopt;
    } else if (c == ',' && depth == 0) {
      entries.push_back(trimmed(inner.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0 || quote)
    return std::nullopt;
  entries.push_back(trimmed(inner.substr(start)));
  return entries;
}

/// What a dim written as a number other than 1 must be: a size the key
/// holds (ArgSpec::keyedDims), checked once the whole call is read.
std::string unkeyedSize(const std::string &dim, const std::string &entry) {
  return "dim '" + dim + "' of " + entry +
         ": write '?' for any size or '1' for size one; other sizes only where kernels are "
         "specialized on them (a convolution's input of 0 channels, its weight's 8 or more "
         "channels per group with groups 'int')";
}

/// The dims of `[dims]` at `open` in `entry`, as written, or nullopt.
std::optional<std::vector<std::string>> dimsOf(const std::string &entry, size_t open) {
  return splitEntries(entry.substr(open + 1, entry.size() - open - 2));
}

/// The sizes of `[dims]` at `open` in `entry` (each `?`, standing for 2,
/// or a size: 1, or one the key may hold, which parseSpecialization checks
/// once the whole call is read), or an error message.
std::variant<std::vector<int64_t>, std::string> sampleDims(const std::string &entry,
                                                           size_t open) {
  std::vector<int64_t> sizes;
  for (const std::string &dim : dimsOf(entry, open).value_or(std::vector<std::string>{"bad"})) {
    if (dim == "?") {
      sizes.push_back(2);
      continue;
    }
    if (dim.empty() || dim.size() > 12 ||
        !std::all_of(dim.begin(), dim.end(), [](unsigned char c) { return std::isdigit(c); }))
      return unkeyedSize(dim, entry);
    sizes.push_back(std::stoll(dim));
  }
  if (sizes.size() > 64)
    return std::string("the JIT compiles tensors of rank up to 64");
  return sizes;
}

/// A meta tensor for `dtype[dims]`, or an error message.
std::variant<IValue, std::string> sampleTensor(const std::string &entry) {
  size_t open = entry.find('[');
  if (open == std::string::npos || entry.back() != ']')
    return std::string("expected a tensor written dtype[dims], such as float32[?,1]");
  auto dtype = parseScalarType(trimmed(entry.substr(0, open)));
  if (!dtype)
    return "unknown dtype '" + trimmed(entry.substr(0, open)) + "'";
  auto sizes = sampleDims(entry, open);
  if (auto *message = std::get_if<std::string>(&sizes))
    return *message;
  try {
    return IValue(Tensor::empty(std::get<std::vector<int64_t>>(sizes), *dtype,
                                Device(DeviceType::Meta)));
  } catch (const OpalError &error) { // (sizes whose count of elements overflows)
    return std::string(error.what());
  }
}

/// The size list `sizes[dims]` of a factory (ArgKind::Sizes), or an error
/// message.
std::variant<IValue, std::string> sampleSizes(const std::string &entry) {
  auto sizes = sampleDims(entry, entry.find('['));
  if (auto *message = std::get_if<std::string>(&sizes))
    return *message;
  return IValue(std::get<std::vector<int64_t>>(sizes));
}

/// A constant of the argument's type, read with the schema-default grammar.
std::variant<IValue, std::string> sampleConstant(const Argument &argument, std::string entry) {
  // "int=1" / "List[int]=[1]" as CallSpec::str() prints constants.
  size_t equals = entry.find('=');
  if (equals != std::string::npos &&
      entry.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                              "0123456789_[] ") >= equals)
    entry = trimmed(entry.substr(equals + 1));
  if (entry.size() >= 2 && entry.front() == '\'' && entry.back() == '\'')
    entry = "\"" + entry.substr(1, entry.size() - 2) + "\"";
  std::string type = argument.type()->str();
  auto parsed = parseSchema("opal_spec::value(" + type + " a=" + entry + ") -> ()");
  if (!parsed || !parsed->arguments()[0].defaultValue()) {
    // The parser's reason names its stand-in argument: keep what follows.
    std::string reason = parsed ? std::string() : parsed.error().reason();
    std::string standIn = "of type " + type + ": ";
    if (size_t at = reason.find(standIn); at != std::string::npos)
      reason = reason.substr(at + standIn.size());
    return "cannot read '" + entry + "' as " + type + (reason.empty() ? "" : ": " + reason);
  }
  return defaultToIValue(*parsed->arguments()[0].defaultValue(), *argument.type());
}

} // namespace

Expected<std::vector<IValue>> jit::parseSpecialization(const FunctionSchema &schema,
                                                       std::string_view text) {
  std::string op = schema.operatorName().str();
  auto fail = [&](const std::string &message) {
    return makeUnexpected(Error(op + ": specialization " + trimmed(text) + ": " + message));
  };
  std::string whole = trimmed(text);
  if (whole.size() < 2 || whole.front() != '(' || whole.back() != ')')
    return fail("expected '(' argument, ... ')' such as (float32[?,?], float)");
  auto entries = splitEntries(std::string_view(whole).substr(1, whole.size() - 2));
  if (!entries)
    return fail("unbalanced brackets or quotes");
  const auto &arguments = schema.arguments();
  if (entries->size() > arguments.size())
    return fail("gives " + std::to_string(entries->size()) + " arguments, but " + op +
                " takes " + std::to_string(arguments.size()));
  std::vector<IValue> values;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Argument &argument = arguments[i];
    auto argumentFail = [&](const std::string &message) {
      return fail("argument '" + argument.name() + "': " + message);
    };
    if (i >= entries->size() || (*entries)[i].empty()) {
      if (!argument.defaultValue())
        return argumentFail("has no default, so the specialization must give it");
      values.push_back(defaultToIValue(*argument.defaultValue(), *argument.type()));
      continue;
    }
    const std::string &entry = (*entries)[i];
    TypeKind kind = baseKind(argument.type());
    std::variant<IValue, std::string> value;
    if (entry == "None" && argument.type()->isOptional())
      value = IValue();
    else if (kind == TypeKind::Tensor)
      value = sampleTensor(entry);
    else if (entry.rfind("sizes[", 0) == 0 && entry.back() == ']' && isSizeList(argument) &&
             takesNoTensor(schema))
      value = sampleSizes(entry);
    else if (entry == "float" && (kind == TypeKind::Float || kind == TypeKind::Scalar))
      value = IValue(1.0);
    else if (entry == "int" && kind == TypeKind::Scalar)
      value = IValue(int64_t(1));
    else if (entry == "int" && [&] {
               std::vector<IValue> sample = values;
               sample.push_back(IValue(int64_t(2)));
               return isRuntimeInt(schema, sample.data(), i, DeviceType::CPU, false);
             }())
      value = IValue(int64_t(2)); // (a convolution's groups: any above 1)
    else if (kind == TypeKind::Float || kind == TypeKind::Scalar)
      value = std::string("a ") + (kind == TypeKind::Float ? "float" : "Scalar") +
              " is a runtime argument: write " +
              (kind == TypeKind::Float ? "'float'" : "'float' or 'int'") + ", not '" + entry +
              "'";
    else if (entry == "int" || entry == "float")
      value = "'" + entry + "' stands for a runtime number, but " + argument.type()->str() +
              " arguments are compiled in: give the value";
    else
      value = sampleConstant(argument, entry);
    if (auto *message = std::get_if<std::string>(&value))
      return argumentFail(*message);
    values.push_back(std::move(std::get<IValue>(value)));
  }
  // A dim written as a size other than 1 must be one the call's key holds.
  CallSpec spec = makeCallSpec(schema, values.data(), DeviceType::CPU, false);
  for (size_t i = 0; i < entries->size() && i < arguments.size(); ++i) {
    const std::string &entry = (*entries)[i];
    size_t open = entry.find('[');
    if (open == std::string::npos || entry.back() != ']' ||
        (spec.args[i].kind != ArgKind::Tensor && spec.args[i].kind != ArgKind::Sizes))
      continue;
    std::vector<std::string> dims = dimsOf(entry, open).value_or(std::vector<std::string>{});
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == "?" || dims[d] == "1")
        continue;
      const ArgSpec &arg = spec.args[i];
      if (!(arg.keyedDims >> d & 1) || std::to_string(arg.keyedSize(int(d))) != dims[d])
        return fail("argument '" + arguments[i].name() + "': " + unkeyedSize(dims[d], entry));
    }
  }
  return values;
}
