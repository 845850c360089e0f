//===- Specialization.cpp - What a compiled kernel is specialized on ------===//

#include "opal/JIT/Specialization.h"

#include "opal/Runtime/Tensor.h"

#include <cstring>
#include <sstream>

using namespace opal;
using namespace opal::jit;

namespace {

/// The base kind of a schema type (Optional stripped).
TypeKind baseKind(const TypePtr &type) {
  return type->isOptional() ? type->element()->kind() : type->kind();
}

/// How `value` of `argument` enters a kernel.
ArgKind kindOf(const Argument &argument, const IValue &value) {
  if (value.isTensor())
    return ArgKind::Tensor;
  TypeKind kind = baseKind(argument.type());
  if (kind == TypeKind::Float && (value.isDouble() || value.isInt()))
    return ArgKind::Float;
  if (kind == TypeKind::Scalar && value.isDouble())
    return ArgKind::Float;
  if (kind == TypeKind::Scalar && value.isInt())
    return ArgKind::Int;
  return ArgKind::Constant;
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

std::string problem(const FunctionSchema &schema, const Argument &argument,
                    const std::string &what) {
  return schema.operatorName().str() + ": argument '" + argument.name() + "': " + what;
}

} // namespace

Expected<bool> jit::appendKeyWords(const FunctionSchema &schema, const IValue *args,
                                   DeviceType device, bool staticShapes,
                                   std::vector<uint64_t> &words) {
  words.push_back(static_cast<uint64_t>(device) | uint64_t(staticShapes) << 8);
  const auto &arguments = schema.arguments();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const IValue &value = args[i];
    ArgKind kind = kindOf(arguments[i], value);
    uint64_t head = static_cast<uint64_t>(kind) + 1;
    if (kind == ArgKind::Tensor) {
      const TensorImpl &tensor = *value.toTensorImpl();
      IntArrayRef sizes = tensor.sizes();
      if (sizes.size() > 64)
        return makeUnexpected(Error(problem(schema, arguments[i],
                                            "the JIT compiles tensors of rank up to 64")));
      words.push_back(head | uint64_t(static_cast<uint8_t>(tensor.dtype())) << 8 |
                      uint64_t(sizes.size()) << 16);
      words.push_back(sizeOneDims(sizes));
      if (staticShapes)
        for (int64_t size : sizes)
          words.push_back(static_cast<uint64_t>(size));
      continue;
    }
    if (kind != ArgKind::Constant) {
      words.push_back(head);
      continue;
    }
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
      return makeUnexpected(Error(problem(
          schema, arguments[i],
          std::string("the JIT cannot compile a call with a ") + value.tagName() + " here")));
    }
    words[headAt] = head | uint64_t(static_cast<uint8_t>(value.tag())) << 8 |
                    uint64_t(words.size() - headAt) << 16;
  }
  return true;
}

CallSpec jit::makeCallSpec(const FunctionSchema &schema, const IValue *args,
                           DeviceType device, bool staticShapes) {
  CallSpec spec;
  spec.op = schema.operatorName();
  spec.device = device;
  spec.staticShapes = staticShapes;
  const auto &arguments = schema.arguments();
  for (size_t i = 0; i < arguments.size(); ++i) {
    ArgSpec arg;
    arg.kind = kindOf(arguments[i], args[i]);
    if (arg.kind == ArgKind::Tensor) {
      Tensor tensor = args[i].toTensor();
      arg.dtype = tensor.dtype();
      arg.rank = static_cast<int>(tensor.dim());
      arg.sizeOneDims = sizeOneDims(tensor.sizes());
      if (staticShapes)
        arg.sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
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
    switch (arg.kind) {
    case ArgKind::Tensor:
      out << dtypeName(arg.dtype) << "[";
      for (int d = 0; d < arg.rank; ++d) {
        out << (d ? "," : "");
        if (!arg.sizes.empty())
          out << arg.sizes[d];
        else
          out << ((arg.sizeOneDims >> d & 1) ? "1" : "?");
      }
      out << "]";
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
