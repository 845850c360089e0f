//===- CompiledKernel.cpp - Calling compiled kernels, loading the compiler ===//

#include "opal/JIT/CompiledKernel.h"

#include "opal/Support/Exceptions.h"

#include <dlfcn.h>

#include <mutex>

using namespace opal;
using namespace opal::jit;

namespace {

/// The slots of one packed call. Values live in fixed arrays reserved up
/// front, so the pointers in `slots` stay valid; thread-local and reused,
/// so a call allocates nothing here after the first.
struct Packer {
  std::vector<void *> slots;
  std::vector<void *> pointers;
  std::vector<int64_t> integers;
  std::vector<double> doubles;

  void reset(size_t pointerCount, size_t integerCount, size_t doubleCount) {
    slots.clear();
    pointers.clear();
    integers.clear();
    doubles.clear();
    slots.reserve(2 * pointerCount + integerCount + doubleCount + 8);
    pointers.reserve(pointerCount + 2);
    integers.reserve(integerCount + 8);
    doubles.reserve(doubleCount + 1);
  }
  void pointer(void *p) {
    pointers.push_back(p);
    slots.push_back(&pointers.back());
  }
  void integer(int64_t v) {
    integers.push_back(v);
    slots.push_back(&integers.back());
  }
  void real(double v) {
    doubles.push_back(v);
    slots.push_back(&doubles.back());
  }
  /// An exploded memref descriptor of `tensor` (contiguous or with strides
  /// the kernel ignores because its layout is the identity).
  void memref(void *data, IntArrayRef sizes, IntArrayRef strides) {
    pointer(data);
    pointer(data);
    integer(0);
    for (int64_t size : sizes)
      integer(size);
    for (int64_t stride : strides)
      integer(stride);
  }
};

thread_local Packer packer;

constexpr size_t kMaxRank = 64;
constexpr size_t kMaxDynamicDims = 1024;

/// The inputs of a call as contiguous tensors (copies of strided ones; the
/// kernels take dense memrefs, see docs/jit.md).
void packInputs(const std::vector<ArgKind> &kinds, const IValue *args,
                std::vector<Tensor> &inputs, size_t outputCount) {
  size_t pointerCount = 0, integerCount = 0, doubleCount = 0;
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] == ArgKind::Tensor) {
      Tensor tensor = args[i].toTensor();
      pointerCount += 2;
      integerCount += 1 + 2 * tensor.dim();
      inputs.push_back(tensor.isContiguous() ? tensor : tensor.contiguous());
    } else if (kinds[i] == ArgKind::Float) {
      ++doubleCount;
    } else if (kinds[i] == ArgKind::Int) {
      ++integerCount;
    }
  }
  // Room for the outputs and the dims buffer as well.
  packer.reset(pointerCount + 2 * (outputCount + 1),
               integerCount + (outputCount + 1) * (1 + 2 * kMaxRank), doubleCount);
  size_t next = 0;
  for (size_t i = 0; i < kinds.size(); ++i) {
    switch (kinds[i]) {
    case ArgKind::Tensor: {
      const Tensor &tensor = inputs[next++];
      packer.memref(tensor.dataPtr(), tensor.sizes(), tensor.strides());
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
}

/// Runs `shapes` on the packed inputs and fills in the dynamic sizes.
void computeDynamicSizes(CompiledKernel::PackedFunction shapes,
                         std::vector<std::vector<int64_t>> &sizes) {
  size_t dynamicCount = 0;
  for (const auto &list : sizes)
    for (int64_t size : list)
      dynamicCount += size < 0;
  int64_t dims[kMaxDynamicDims];
  int64_t count = static_cast<int64_t>(dynamicCount), one = 1;
  size_t mark = packer.slots.size();
  packer.memref(dims, IntArrayRef(&count, 1), IntArrayRef(&one, 1));
  shapes(packer.slots.data());
  packer.slots.resize(mark);
  size_t next = 0;
  for (auto &list : sizes)
    for (int64_t &size : list)
      if (size < 0)
        size = dims[next++];
}

} // namespace

std::vector<std::vector<int64_t>> CompiledKernel::outputSizes(const IValue *args) const {
  std::vector<std::vector<int64_t>> sizes;
  for (const OutputSpec &output : outputs)
    sizes.push_back(output.sizes);
  if (shapes) {
    std::vector<Tensor> inputs;
    packInputs(argKinds, args, inputs, outputs.size());
    computeDynamicSizes(shapes, sizes);
  }
  return sizes;
}

std::vector<Tensor> CompiledKernel::invoke(const IValue *args, Device device) const {
  std::vector<Tensor> inputs;
  packInputs(argKinds, args, inputs, outputs.size());
  std::vector<std::vector<int64_t>> sizes;
  sizes.reserve(outputs.size());
  for (const OutputSpec &output : outputs)
    sizes.push_back(output.sizes);
  if (shapes)
    computeDynamicSizes(shapes, sizes);
  std::vector<Tensor> results;
  results.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    results.push_back(Tensor::empty(sizes[i], outputs[i].dtype, device));
  if (device.isMeta())
    return results;
  for (const Tensor &result : results)
    packer.memref(result.dataPtr(), result.sizes(), result.strides());
  run(packer.slots.data());
  return results;
}

//===----------------------------------------------------------------------===//
// The compiler hook and the op-library texts.
//===----------------------------------------------------------------------===//

namespace {
std::mutex hookMutex;
KernelCompiler *installed = nullptr;
std::vector<std::pair<std::string, std::string>> texts;
uint64_t textGeneration = 0;
} // namespace

void jit::installKernelCompiler(KernelCompiler *compiler) {
  std::lock_guard<std::mutex> lock(hookMutex);
  installed = compiler;
}

Expected<KernelCompiler *> jit::kernelCompiler() {
  {
    std::lock_guard<std::mutex> lock(hookMutex);
    if (installed)
      return installed;
  }
  // libopal_compiler.so lives next to libopal.so.
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&jit::installKernelCompiler), &info) || !info.dli_fname)
    return makeUnexpected(Error("opal JIT: cannot locate libopal.so to find the compiler"));
  std::string path = info.dli_fname;
  path = path.substr(0, path.rfind('/') + 1) + "libopal_compiler.so";
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
    return makeUnexpected(Error(std::string("opal JIT: cannot load the compiler: ") + dlerror()));
  std::lock_guard<std::mutex> lock(hookMutex);
  if (!installed)
    return makeUnexpected(Error("opal JIT: " + path + " installed no compiler"));
  return installed;
}

void jit::addOpLibraryText(std::string name, std::string text) {
  std::lock_guard<std::mutex> lock(hookMutex);
  texts.emplace_back(std::move(name), std::move(text));
  ++textGeneration;
}

std::vector<std::pair<std::string, std::string>> jit::opLibraryTexts(uint64_t &generation) {
  std::lock_guard<std::mutex> lock(hookMutex);
  generation = textGeneration;
  return texts;
}
