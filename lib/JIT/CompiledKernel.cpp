//===- CompiledKernel.cpp - Calling compiled kernels, loading the compiler ===//

#include "opal/JIT/CompiledKernel.h"

#include "opal/CUDA/Device.h"
#include "opal/CUDA/Launch.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Runtime/Generator.h"
#include "opal/Schema/OpLibraryFile.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Exceptions.h"
#include "opal/Support/MessageTemplate.h"
#include "opal/Support/Sha256.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>
#include <mutex>

using namespace opal;
using namespace opal::jit;

namespace {

/// Dynamic output sizes kept on the stack; more go to the heap.
constexpr size_t kInlineDynamicDims = 64;

/// The slots of one packed call, on the caller's stack: value i lives in
/// `values_[i]` and slot i points at it. Pushing writes only the value (a
/// 32-bit count that no 64-bit store can alias keeps the hot path in
/// registers); slots() points the slots at their values. Calls with many or
/// high-rank tensors spill to the heap.
class Packer {
public:
  explicit Packer(size_t count) {
    if (count > kInline) {
      heapSlots_.resize(count);
      heapValues_.resize(count);
      slots_ = heapSlots_.data();
      values_ = heapValues_.data();
    }
  }
  void **slots() {
    for (uint32_t i = filled_; i < count_; ++i)
      slots_[i] = &values_[i];
    filled_ = count_;
    return slots_;
  }
  size_t size() const { return count_; }
  void truncate(size_t count) {
    count_ = static_cast<uint32_t>(count);
    filled_ = std::min(filled_, count_);
  }

  void pointer(void *p) { values_[count_++] = reinterpret_cast<uintptr_t>(p); }
  void integer(int64_t v) { values_[count_++] = static_cast<uint64_t>(v); }
  void real(double v) { std::memcpy(&values_[count_++], &v, sizeof v); }
  /// An exploded memref descriptor (allocated and aligned pointers, offset,
  /// sizes, strides; strides are ignored by identity layouts).
  /// Empty `strides` stand for zeros.
  void memref(void *data, IntArrayRef sizes, IntArrayRef strides) {
    pointer(data);
    pointer(data);
    integer(0);
    for (int64_t size : sizes)
      integer(size);
    for (size_t d = 0; d < sizes.size(); ++d)
      integer(strides.empty() ? 0 : strides[d]);
  }

private:
  /// Enough for three rank-6 tensors and the sizes buffer, in a small
  /// stack frame; larger calls spill to the heap.
  static constexpr size_t kInline = 48;
  void *inlineSlots_[kInline];
  uint64_t inlineValues_[kInline];
  void **slots_ = inlineSlots_;
  uint64_t *values_ = inlineValues_;
  uint32_t count_ = 0, filled_ = 0;
  std::vector<void *> heapSlots_;
  std::vector<uint64_t> heapValues_;
};

/// The values one packed call needs: every input, every output and the
/// sizes buffer.
size_t packedValueCount(const CompiledKernel &kernel, const IValue *args) {
  size_t count = 0;
  for (size_t i = 0; i < kernel.argKinds.size(); ++i) {
    if (kernel.argKinds[i] == ArgKind::Tensor)
      count += 3 + 2 * static_cast<size_t>(args[i].toTensorImpl()->sizes().size());
    else if (kernel.argKinds[i] == ArgKind::Sizes)
      count += 3 + 2 * args[i].toIntList().size();
    else if (kernel.argKinds[i] != ArgKind::Constant)
      ++count;
  }
  for (const OutputSpec &output : kernel.outputs)
    count += 3 + 2 * output.sizes.size();
  return count + 2 * (kernel.randomStreams != 0) + 5;
}

/// Packs the inputs; a non-contiguous one the kernel does not read in
/// place (CompiledKernel::readsInPlace) is copied to a contiguous tensor
/// kept in `copies`. A random kernel's seed and first offset (`random`)
/// follow them.
[[gnu::always_inline]] inline void packInputs(const CompiledKernel &kernel, const IValue *args,
                                              Packer &packer, std::vector<Tensor> &copies,
                                              const RandomState &random = {}) {
  for (size_t i = 0; i < kernel.argKinds.size(); ++i) {
    switch (kernel.argKinds[i]) {
    case ArgKind::Tensor: {
      TensorImpl *impl = args[i].toTensorImpl();
      if (!impl->isContiguous() && !(i < 64 && (kernel.readsInPlace >> i & 1))) {
        copies.push_back(args[i].toTensor().contiguous());
        impl = copies.back().impl();
      }
      packer.memref(impl->data(), impl->sizes(), impl->strides());
      break;
    }
    case ArgKind::Sizes: {
      // (No data: strides of 0, which the kernel's identity layout ignores.)
      const std::vector<int64_t> &sizes = args[i].toIntList();
      packer.memref(nullptr, sizes, {});
      break;
    }
    case ArgKind::Float:
      packer.real(args[i].toDouble());
      break;
    case ArgKind::Int:
      packer.integer(args[i].toInt());
      break;
    case ArgKind::Constant:
      break;
    }
  }
  if (kernel.randomStreams) {
    packer.integer(static_cast<int64_t>(random.seed));
    packer.integer(static_cast<int64_t>(random.offset));
  }
}

/// The sizes of argument `arg` of `kind`: a tensor's, a runtime size list
/// (ArgKind::Sizes) itself; none for other kinds.
IntArrayRef sizesOf(const IValue &arg, ArgKind kind) {
  if (kind == ArgKind::Tensor)
    return arg.toTensorImpl()->sizes();
  if (kind == ArgKind::Sizes)
    return arg.toIntList();
  return {};
}

/// The dynamic output sizes from the inputs' sizes (kernel.sizeSources);
/// false, with nothing written, if the kernel has no sources or one does
/// not apply to this call.
bool sizesFromInputs(const CompiledKernel &kernel, const IValue *args, int64_t *sizes,
                     size_t count, size_t dynamicCount) {
  const std::vector<SizeSource> &sources = kernel.sizeSources;
  if (sources.empty() || sources.size() != dynamicCount)
    return false;
  for (const SizeSource &source : sources)
    if (source.argument >= kernel.argKinds.size() ||
        source.dim >= sizesOf(args[source.argument], kernel.argKinds[source.argument]).size())
      return false;
  size_t next = 0;
  for (size_t i = 0; i < count; ++i)
    if (sizes[i] < 0) {
      const SizeSource &source = sources[next++];
      sizes[i] = sizesOf(args[source.argument], kernel.argKinds[source.argument])[source.dim];
    }
  return true;
}

/// The output sizes, all outputs' lists one after the other, with the
/// dynamic ones read from the inputs or computed by `shapes` on the packed
/// inputs.
void outputSizesInto(const CompiledKernel &kernel, const IValue *args, Packer &packer,
                     int64_t *sizes) {
  size_t at = 0, dynamicCount = 0;
  for (const OutputSpec &output : kernel.outputs)
    for (int64_t size : output.sizes) {
      sizes[at++] = size;
      dynamicCount += size < 0;
    }
  if (dynamicCount == 0 || sizesFromInputs(kernel, args, sizes, at, dynamicCount))
    return;
  if (!kernel.shapes)
    throw OpalError("internal error: " + kernel.label + " has no way to compute its output sizes");
  int64_t inlineDims[kInlineDynamicDims];
  std::vector<int64_t> heapDims;
  int64_t *dims = inlineDims;
  if (dynamicCount > kInlineDynamicDims) {
    heapDims.resize(dynamicCount);
    dims = heapDims.data();
  }
  int64_t count = static_cast<int64_t>(dynamicCount), one = 1;
  size_t mark = packer.size();
  packer.memref(dims, IntArrayRef(&count, 1), IntArrayRef(&one, 1));
  kernel.shapes(packer.slots());
  packer.truncate(mark);
  size_t next = 0;
  for (size_t i = 0; i < at; ++i)
    if (sizes[i] < 0)
      sizes[i] = dims[next++];
}

size_t totalRank(const CompiledKernel &kernel) {
  size_t rank = 0;
  for (const OutputSpec &output : kernel.outputs)
    rank += output.sizes.size();
  return rank;
}

/// The value of `size` in a call, or nullopt when it names an argument the
/// call does not have as a tensor of that rank (a damaged description).
std::optional<int64_t> sizeOf(const SizeRef &size, const IValue *args,
                              const std::vector<ArgKind> &kinds) {
  if (size.constant)
    return size.value;
  if (size.argument >= kinds.size())
    return std::nullopt;
  if (size.dim == SizeRef::kArgumentValue) {
    if (kinds[size.argument] != ArgKind::Int)
      return std::nullopt;
    return args[size.argument].toInt();
  }
  IntArrayRef sizes = sizesOf(args[size.argument], kinds[size.argument]);
  if (size.dim >= sizes.size())
    return std::nullopt;
  return sizes[size.dim];
}

[[gnu::cold, gnu::noinline]] std::string shapeText(const std::vector<SizeRef> &shape,
                                                   const IValue *args,
                                                   const std::vector<ArgKind> &kinds,
                                                   const char *separator) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? separator : "") + std::to_string(sizeOf(shape[i], args, kinds).value_or(-1));
  return text;
}

/// "arguments 'self' and 'other'": the schema arguments a check's sizes
/// come from.
[[gnu::cold, gnu::noinline]] std::string argumentsText(const ShapeCheck &check,
                                                       const FunctionSchema &schema) {
  std::vector<std::string> names;
  auto add = [&](const SizeRef &size) {
    if (size.constant || size.argument >= schema.arguments().size())
      return;
    std::string name = "'" + schema.arguments()[size.argument].name() + "'";
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  };
  add(check.lhs);
  add(check.rhs);
  if (names.empty())
    return "";
  return names.size() == 1 ? " (argument " + names[0] + ")"
                           : " (arguments " + names[0] + " and " + names[1] + ")";
}

[[gnu::cold, gnu::noinline]] void throwShapeCheck(const CompiledKernel &kernel,
                                                  const ShapeCheck &check, const IValue *args,
                                                  const FunctionSchema &schema, int64_t lhs,
                                                  int64_t rhs) {
  const std::vector<ArgKind> &kinds = kernel.argKinds;
  std::string message;
  switch (check.kind) {
  case ShapeCheck::Kind::Broadcast:
    message = "The size of tensor a (" + std::to_string(lhs) +
              ") must match the size of tensor b (" + std::to_string(rhs) +
              ") at non-singleton dimension " + std::to_string(check.dim);
    break;
  case ShapeCheck::Kind::Matmul:
    // PyTorch 2 names the product kernel that checks: addmm's own, mm's
    // for every other (matmul and linear reach mm).
    message = std::string(schema.operatorName().str() == "aten::addmm" ? "addmm" : "mm") +
              ": mat1 and mat2 shapes cannot be multiplied (" +
              shapeText(check.lhsShape, args, kinds, "x") + " and " +
              shapeText(check.rhsShape, args, kinds, "x") + ")";
    break;
  case ShapeCheck::Kind::Batch:
    message = "Expected size for first two dimensions of batch2 tensor to be: [" +
              shapeText(check.lhsShape, args, kinds, ", ") + "] but got: [" +
              shapeText(check.rhsShape, args, kinds, ", ") + "].";
    break;
  case ShapeCheck::Kind::Numel:
  case ShapeCheck::Kind::NumelDivides:
    break; // (throwNumelCheck)
  case ShapeCheck::Kind::Expect: {
    std::vector<std::string> values;
    for (const std::vector<SizeRef> &group : check.values)
      values.push_back(shapeText(group, args, kinds, ", "));
    message = fillMessage(check.message, values);
    break;
  }
  }
  std::string called = schema.operatorName().str();
  std::string where = check.op == called ? called : called + ": in " + check.op;
  throw OpalError(where + ": " + message + argumentsText(check, schema));
}

[[gnu::cold, gnu::noinline]] void throwDamagedCheck(const CompiledKernel &kernel,
                                                    const ShapeCheck &check) {
  throw OpalError("internal error: " + kernel.label + " has a shape check that names a " +
                  "size its arguments do not have: " + describeShapeChecks({check}));
}

} // namespace

namespace {

/// The product of `shape`'s sizes in a call (nullopt for a damaged
/// description; a product past int64 saturates, which no tensor has).
std::optional<int64_t> productOf(const std::vector<SizeRef> &shape, const IValue *args,
                                 const std::vector<ArgKind> &kinds) {
  int64_t product = 1;
  for (const SizeRef &size : shape) {
    std::optional<int64_t> value = sizeOf(size, args, kinds);
    if (!value)
      return std::nullopt;
    if (__builtin_mul_overflow(product, *value, &product))
      product = std::numeric_limits<int64_t>::max();
  }
  return product;
}

/// A reshape's element-count check (Numel, NumelDivides): whether it holds,
/// or nullopt for a damaged description.
std::optional<bool> numelHolds(const ShapeCheck &check, const IValue *args,
                               const std::vector<ArgKind> &kinds, int64_t &elements) {
  std::optional<int64_t> input = productOf(check.lhsShape, args, kinds);
  std::optional<int64_t> asked = productOf(check.rhsShape, args, kinds);
  if (!input || !asked)
    return std::nullopt;
  elements = *input;
  if (check.kind == ShapeCheck::Kind::Numel)
    return *input == *asked;
  return *asked != 0 && *input % *asked == 0;
}

[[gnu::cold, gnu::noinline]] void throwNumelCheck(const ShapeCheck &check, const IValue *args,
                                                  const std::vector<ArgKind> &kinds,
                                                  const FunctionSchema &schema,
                                                  int64_t elements) {
  std::string shape;
  bool zeroKnown = false;
  for (const std::vector<SizeRef> &factors : check.values) {
    int64_t size = productOf(factors, args, kinds).value_or(-1);
    zeroKnown = zeroKnown || size == 0;
    shape += (shape.empty() ? "" : ", ") + std::to_string(size);
  }
  std::string message =
      check.kind == ShapeCheck::Kind::NumelDivides && elements == 0 && zeroKnown
          ? "cannot reshape tensor of 0 elements into shape [" + shape +
                "] because the unspecified dimension size -1 can be any value and is ambiguous"
          : "shape '[" + shape + "]' is invalid for input of size " + std::to_string(elements);
  std::string called = schema.operatorName().str();
  std::string where = check.op == called ? called : called + ": in " + check.op;
  throw OpalError(where + ": " + message);
}

} // namespace

void CompiledKernel::checkShapesOutOfLine(const IValue *args, const FunctionSchema &schema) const {
  for (const ShapeCheck &check : shapeChecks) {
    if (check.kind == ShapeCheck::Kind::Numel || check.kind == ShapeCheck::Kind::NumelDivides) {
      int64_t elements = 0;
      std::optional<bool> holds = numelHolds(check, args, argKinds, elements);
      if (!holds)
        throwDamagedCheck(*this, check);
      if (!*holds)
        throwNumelCheck(check, args, argKinds, schema, elements);
      continue;
    }
    std::optional<int64_t> lhs = sizeOf(check.lhs, args, argKinds);
    std::optional<int64_t> rhs = sizeOf(check.rhs, args, argKinds);
    if (!lhs || !rhs)
      throwDamagedCheck(*this, check);
    if (!check.holds(*lhs, *rhs))
      throwShapeCheck(*this, check, args, schema, *lhs, *rhs);
  }
}

namespace {

/// The data checks' words, the kernel's last outputs (0-d int64s).
size_t dataCheckWords(const CompiledKernel &kernel) {
  size_t count = 0;
  for (const DataCheck &check : kernel.dataChecks)
    count += check.words;
  return count;
}

/// Data check words lie one per 64 bytes of one buffer: each starts where an
/// output's allocation would (outputs are declared 64-byte aligned).
constexpr size_t kWordStride = 64 / sizeof(int64_t);

/// After a call: reads each data check's words from `words` (the buffer
/// they were written into) and raises the first check that found a
/// violation.
void finishDataChecks(const CompiledKernel &kernel, Device device, const Tensor &words) {
  if (device.isMeta())
    return;
  std::vector<int64_t> host;
  const int64_t *values = static_cast<const int64_t *>(words.dataPtr());
  if (device.isCUDA()) {
    host.resize(static_cast<size_t>(words.numel()));
    cuda::copyBytes(host.data(), Device(), words.dataPtr(), device,
                    host.size() * sizeof(int64_t));
    values = host.data();
  }
  size_t next = 0;
  for (const DataCheck &check : kernel.dataChecks) {
    size_t first = next;
    next += check.words;
    if (values[first * kWordStride] == 0)
      continue;
    std::vector<std::string> filled;
    for (size_t w = first + 1; w < next; ++w)
      filled.push_back(std::to_string(values[w * kWordStride]));
    throw OpalError(fillMessage(check.message, filled));
  }
}

} // namespace

namespace {
thread_local std::vector<Tensor> resultsInto;
thread_local std::string resultsIntoOp;

/// Whether `label` ("ns::name(...)" or "ns::name.overload(...)") is a
/// kernel of op `op` ("ns::name").
bool isKernelOf(const std::string &label, const std::string &op) {
  return label.size() > op.size() && label.compare(0, op.size(), op) == 0 &&
         (label[op.size()] == '(' || label[op.size()] == '.');
}

/// Whether result tensor `into` can take an output of `sizes` and `dtype`
/// on `device`.
bool fitsResult(const Tensor &into, IntArrayRef sizes, ScalarType dtype, Device device) {
  return into.defined() && into.dtype() == dtype && into.device() == device &&
         into.isContiguous() && into.sizes() == sizes;
}
} // namespace

ResultsIntoGuard::ResultsIntoGuard(std::vector<Tensor> into, std::string op) {
  resultsInto = std::move(into);
  resultsIntoOp = std::move(op);
}

ResultsIntoGuard::~ResultsIntoGuard() { resultsInto.clear(); }

void CompiledKernel::invoke(const IValue *args, Device device, Stack &out) const {
  std::vector<Tensor> into;
  into.swap(resultsInto);
  // (Only for the op they were set for.)
  if (!into.empty() && !isKernelOf(label, resultsIntoOp))
    into.clear();
  if (runsOpByOp())
    return runPlan(args, out);
  // A refusal (CpuKernelCompiler's refuse) is only checks no call passes.
  if (!run)
    throw OpalError("internal error: " + label + " has no code to run");
  size_t values = packedValueCount(*this, args);
  Packer packer(values);
  std::vector<Tensor> copies;
  // A random kernel takes its offsets when it runs (a meta call draws none).
  RandomState random;
  if (randomStreams && !device.isMeta())
    random = defaultGenerator(device.type()).reserve(randomStreams);
  packInputs(*this, args, packer, copies, random);
  int64_t inlineSizes[64];
  std::vector<int64_t> heapSizes;
  size_t rank = totalRank(*this);
  int64_t *sizes = inlineSizes;
  if (rank > 64) {
    heapSizes.resize(rank);
    sizes = heapSizes.data();
  }
  outputSizesInto(*this, args, packer, sizes);
  // The data checks' words, the last outputs, go into one buffer (a stack
  // of 224 slices checks 224 sizes after the call: a tensor each cost two
  // allocations).
  size_t checkWords = dataCheckWords(*this);
  size_t results = outputs.size() - checkWords;
  out.reserve(out.size() + results);
  size_t at = 0;
  for (size_t i = 0; i < results; ++i) {
    const OutputSpec &output = outputs[i];
    IntArrayRef outputSizes(sizes + at, output.sizes.size());
    Tensor result = i < into.size() && !device.isMeta() &&
                            fitsResult(into[i], outputSizes, output.dtype, device)
                        ? into[i]
                        : Tensor::empty(outputSizes, output.dtype, device);
    at += output.sizes.size();
    packer.memref(result.dataPtr(), result.sizes(), result.strides());
    out.emplace_back(std::move(result));
  }
  Tensor words;
  if (checkWords) {
    words = Tensor::empty({static_cast<int64_t>(checkWords * kWordStride)}, ScalarType::Long,
                          device);
    auto *base = static_cast<int64_t *>(words.dataPtr());
    for (size_t w = 0; w < checkWords; ++w)
      packer.memref(base ? base + w * kWordStride : nullptr, {}, {});
  }
  // On CUDA, one launch covers the call; the caller does not wait for it.
  auto runWhole = [&] {
    if (!device.isCUDA())
      return run(packer.slots());
    if (!gpuModule)
      throw OpalError("internal error: " + label + " was not compiled for CUDA");
    cuda::LaunchScope scope(*gpuModule, cuda::ordinalOf(device), label);
    run(packer.slots());
    scope.finish();
  };
  if (!dataChecks.empty()) {
    // Checked kernels run whole, on the caller's thread; their checks' results
    // are read (on CUDA, after the launch finished) and dropped.
    if (!device.isMeta())
      runWhole();
    return finishDataChecks(*this, device, words);
  }
  if (device.isMeta())
    return;
  // A kernel whose every result is empty has nothing to compute (its loops
  // over an input of shape (2^62, 0) would still step through 2^62 rows).
  // One with data checks runs: they may not depend on the data.
  if (std::all_of(out.end() - results, out.end(),
                  [](const IValue &result) { return result.toTensor().numel() == 0; }))
    return;
  if (device.isCUDA())
    return runWhole();
  // Large nests split over threads inside the kernel (opal-parallelize).
  run(packer.slots());
}

void CompiledKernel::runPlan(const IValue *args, Stack &out) const {
  std::vector<IValue> slots(static_cast<size_t>(slotCount));
  for (size_t i = 0; i < argumentSlots.size(); ++i)
    if (argumentSlots[i] >= 0)
      slots[argumentSlots[i]] = args[i];
  for (const auto &[slot, value] : constants)
    slots[slot] = value;
  Stack stack;
  for (const PlanStep &step : plan) {
    if (step.kind == PlanStep::Kind::List) {
      if (step.listTag == IValue::Tag::DoubleList) {
        std::vector<double> list;
        for (int operand : step.operands)
          list.push_back(slots[operand].toDouble());
        slots[step.results[0]] = IValue(std::move(list));
      } else if (step.listTag == IValue::Tag::BoolList) {
        std::vector<bool> list;
        for (int operand : step.operands)
          list.push_back(slots[operand].toBool());
        slots[step.results[0]] = IValue(std::move(list));
      } else {
        std::vector<int64_t> list;
        for (int operand : step.operands)
          list.push_back(slots[operand].toInt());
        slots[step.results[0]] = IValue(std::move(list));
      }
      continue;
    }
    auto handle = Dispatcher::singleton().findSchema(step.op);
    if (!handle)
      throw OpalError(step.op.str() + " is no longer defined");
    stack.clear();
    for (int operand : step.operands)
      stack.push_back(slots[operand]);
    handle->callBoxed(stack);
    for (size_t i = 0; i < step.results.size() && i < stack.size(); ++i)
      slots[step.results[i]] = std::move(stack[i]);
  }
  for (int slot : outputSlots)
    out.push_back(std::move(slots[slot]));
}

//===----------------------------------------------------------------------===//
// The compiler hook and the op-library texts.
//===----------------------------------------------------------------------===//

namespace {
std::mutex hookMutex;
KernelCompiler *installed = nullptr;
/// An added op-library text and the ops it decomposes.
struct AddedText {
  uint64_t id;
  std::string name, text;
  std::vector<std::string> decomposed; ///< "ns::op[.overload]"
  bool scanned;
};
std::vector<AddedText> texts;
uint64_t nextTextId = 1;
/// Counts additions and removals; removals alone count too.
uint64_t textGeneration = 0, textRemovals = 0;
} // namespace

void jit::installKernelCompiler(KernelCompiler *compiler) {
  std::lock_guard<std::mutex> lock(hookMutex);
  installed = compiler;
}

std::string jit::compilerLibraryPath() {
  // libopal_compiler.so lives next to libopal.so.
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&jit::installKernelCompiler), &info) || !info.dli_fname)
    return "";
  std::string path = info.dli_fname;
  return path.substr(0, path.rfind('/') + 1) + "libopal_compiler.so";
}

Expected<KernelCompiler *> jit::kernelCompiler() {
  {
    std::lock_guard<std::mutex> lock(hookMutex);
    if (installed)
      return installed;
  }
  std::string path = compilerLibraryPath();
  if (path.empty())
    return makeUnexpected(Error("opal JIT: cannot locate libopal.so to find the compiler"));
  // Lazy binding: most of MLIR's and LLVM's functions are never called by a
  // process; binding them all up front cost 20-30 ms of the first compile.
  // (A broken installation then fails when a missing function is first
  // called instead of here.) Local: LLVM's and MLIR's symbols stay out of
  // the process's global scope, where another copy of LLVM (triton's,
  // loaded by PyTorch) would bind to them and abort on options registered
  // twice.
  if (!dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL))
    return makeUnexpected(Error(std::string("opal JIT: cannot load the compiler: ") + dlerror()));
  std::lock_guard<std::mutex> lock(hookMutex);
  if (!installed)
    return makeUnexpected(Error("opal JIT: " + path + " installed no compiler"));
  return installed;
}

uint64_t jit::addOpLibraryText(std::string name, std::string text) {
  auto contents = scanOpLibrary(text, name);
  std::lock_guard<std::mutex> lock(hookMutex);
  AddedText added{nextTextId++, std::move(name), std::move(text), {}, bool(contents)};
  if (contents)
    added.decomposed = std::move(contents->decomposed);
  texts.push_back(std::move(added));
  ++textGeneration;
  return texts.back().id;
}

void jit::removeOpLibraryText(uint64_t id) {
  std::lock_guard<std::mutex> lock(hookMutex);
  auto it = std::find_if(texts.begin(), texts.end(),
                         [&](const AddedText &added) { return added.id == id; });
  if (it == texts.end())
    return;
  texts.erase(it);
  ++textGeneration;
  ++textRemovals;
}

std::string jit::addedDecompositionOf(const OperatorName &op) {
  std::string name = op.str();
  std::lock_guard<std::mutex> lock(hookMutex);
  for (auto it = texts.rbegin(); it != texts.rend(); ++it)
    if (!it->scanned || std::find(it->decomposed.begin(), it->decomposed.end(), name) !=
                            it->decomposed.end())
      return it->name; // (a text that cannot be scanned may decompose anything)
  return "";
}

std::string jit::addedDefinitionHash(const OperatorName &op) {
  auto handle = Dispatcher::singleton().findSchema(op);
  if (!handle)
    return "";
  std::string name = op.str();
  std::lock_guard<std::mutex> lock(hookMutex);
  for (auto it = texts.rbegin(); it != texts.rend(); ++it) {
    if (!it->scanned)
      return "";
    if (std::find(it->decomposed.begin(), it->decomposed.end(), name) == it->decomposed.end())
      continue;
    Sha256 hasher;
    hasher.update(handle->schema().str() + "\n");
    hasher.update(it->text);
    auto digest = hasher.finish();
    return toHex(digest.data(), digest.size());
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> jit::opLibraryTexts(uint64_t &generation,
                                                                   uint64_t *removals) {
  std::lock_guard<std::mutex> lock(hookMutex);
  generation = textGeneration;
  if (removals)
    *removals = textRemovals;
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(texts.size());
  for (const AddedText &added : texts)
    out.emplace_back(added.name, added.text);
  return out;
}
