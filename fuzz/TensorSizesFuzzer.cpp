//===- TensorSizesFuzzer.cpp - libFuzzer target: tensor size arithmetic ---===//
//
// Drives what Python's tensor constructors and views reach (empty, full,
// arange, as_strided, view, reshape, expand, permute, slice, select,
// DLPack import, fill, copy) with arbitrary sizes, strides and offsets.
// Each call either raises opal's error or yields a tensor whose every
// element lies inside its storage; elements are touched so that ASan sees
// any that do not.
//
//===----------------------------------------------------------------------===//

#include "opal/Runtime/DLPack.h"
#include "opal/Runtime/Factories.h"
#include "opal/Runtime/Storage.h"
#include "opal/Runtime/Tensor.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

using namespace opal;

namespace {

/// Real memory only for small tensors; larger ones go to meta, which runs
/// the same size arithmetic without allocating.
constexpr int64_t kMaxBytes = 1 << 16;

int64_t anySize(FuzzedDataProvider &in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0:
    return in.ConsumeIntegralInRange<int64_t>(0, 5);
  case 1:
    return in.ConsumeIntegralInRange<int64_t>(-3, 70);
  case 2:
    return int64_t(1) << in.ConsumeIntegralInRange<int>(0, 63);
  default:
    return in.ConsumeIntegral<int64_t>();
  }
}

std::vector<int64_t> anySizes(FuzzedDataProvider &in) {
  std::vector<int64_t> sizes(in.ConsumeIntegralInRange<size_t>(0, 6));
  for (int64_t &size : sizes)
    size = anySize(in);
  return sizes;
}

ScalarType anyDtype(FuzzedDataProvider &in) {
  static const ScalarType types[] = {ScalarType::Float, ScalarType::Double, ScalarType::Long,
                                     ScalarType::Int,   ScalarType::Byte,   ScalarType::Bool,
                                     ScalarType::Half};
  return types[in.ConsumeIntegralInRange<size_t>(0, std::size(types) - 1)];
}

[[noreturn]] void fail(const char *what, const Tensor &t) {
  std::fprintf(stderr, "opal-fuzz-tensor-sizes: %s: %s offset %lld strides %s\n", what,
               t.str().c_str(), static_cast<long long>(t.storageOffset()),
               sizesText(t.strides()).c_str());
  std::abort();
}

/// Every element of a CPU tensor must lie inside its storage: checks the
/// geometry and reads the first and last element's bytes.
void checkInside(const Tensor &t) {
  if (!t.defined())
    return;
  size_t item = elementSize(t.dtype());
  auto needed = storageBytesFor(t.sizes(), t.strides(), t.storageOffset(), item);
  if (!needed)
    fail("a tensor's geometry overflows", t);
  const Storage &storage = t.impl()->storage();
  if (!storage || t.device().isMeta() || t.numel() == 0)
    return;
  if (*needed > storage->nbytes())
    fail("a tensor reaches past its storage", t);
  const char *base = static_cast<const char *>(storage->data());
  size_t last = *needed - item;
  volatile char sink = base[last] ^ base[last + item - 1];
  (void)sink;
}

/// Small enough to copy for real.
bool small(const Tensor &t) { return t.numel() <= kMaxBytes / 8; }

Tensor makeTensor(FuzzedDataProvider &in) {
  std::vector<int64_t> sizes = anySizes(in);
  ScalarType dtype = anyDtype(in);
  bool meta = in.ConsumeBool();
  // Larger than kMaxBytes (at 8 bytes an element) goes to meta: the same
  // size arithmetic without the memory. (Negative sizes raise either way.)
  int64_t elements = 1;
  for (int64_t size : sizes) {
    if (size <= 0 || meta)
      continue;
    if (elements > kMaxBytes / 8 / size)
      meta = true;
    else
      elements *= size;
  }
  Device device(meta ? DeviceType::Meta : DeviceType::CPU);
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
  case 0:
    return Tensor::empty(sizes, dtype, device);
  case 1:
    return full(sizes, in.ConsumeFloatingPoint<double>(), TensorOptions{dtype, device});
  default: {
    double start = in.ConsumeFloatingPoint<double>();
    double end = in.ConsumeFloatingPoint<double>();
    double step = in.ConsumeFloatingPoint<double>();
    // arange allocates its count; keep real ones small.
    if (!meta && !(std::abs((end - start) / step) <= kMaxBytes / 8))
      return Tensor::empty(sizes, dtype, Device(DeviceType::Meta));
    return arange(start, end, step, TensorOptions{dtype, device});
  }
  }
}

Tensor fromForeignMemory(FuzzedDataProvider &in, std::vector<char> &buffer) {
  int ndim = in.ConsumeIntegralInRange<int>(0, 6);
  std::vector<int64_t> shape(ndim), strides(ndim);
  for (int d = 0; d < ndim; ++d) {
    shape[d] = anySize(in);
    int64_t stride = anySize(in);
    strides[d] = in.ConsumeBool() || stride == INT64_MIN ? stride : -stride;
  }
  auto *managed = new DLManagedTensor{};
  managed->dl_tensor.data = buffer.data();
  managed->dl_tensor.device = {kDLCPU, 0};
  managed->dl_tensor.ndim = ndim;
  managed->dl_tensor.dtype = {static_cast<uint8_t>(in.ConsumeIntegralInRange<int>(0, 6)),
                              static_cast<uint8_t>(8 << in.ConsumeIntegralInRange<int>(0, 3)),
                              static_cast<uint16_t>(in.ConsumeIntegralInRange<int>(0, 2))};
  managed->dl_tensor.shape = shape.data();
  managed->dl_tensor.strides = in.ConsumeBool() ? strides.data() : nullptr;
  managed->dl_tensor.byte_offset = in.ConsumeIntegral<uint64_t>() & 0xff;
  managed->deleter = [](DLManagedTensor *self) { delete self; };
  auto imported = fromDLPack(managed);
  if (!imported) {
    managed->deleter(managed);
    return Tensor();
  }
  // The importer takes the memory's extent from the geometry: a tensor that
  // claims more than the buffer has is the producer's promise, so only
  // tensors that fit are used further.
  auto needed = storageBytesFor(imported->sizes(), imported->strides(), imported->storageOffset(),
                                elementSize(imported->dtype()));
  if (!needed)
    fail("an imported tensor's geometry overflows", *imported);
  Tensor result = *imported;
  if (static_cast<const char *>(result.dataPtr()) < buffer.data() ||
      static_cast<const char *>(result.dataPtr()) + *needed > buffer.data() + buffer.size())
    return Tensor();
  return result;
}

Tensor step(FuzzedDataProvider &in, const Tensor &t) {
  std::vector<int64_t> sizes = anySizes(in);
  int64_t a = in.ConsumeIntegralInRange<int64_t>(-8, 8);
  int64_t b = in.ConsumeIntegralInRange<int64_t>(-8, 8);
  switch (in.ConsumeIntegralInRange<int>(0, 12)) {
  case 0: {
    DimVector strides;
    for (size_t i = 0; i < sizes.size(); ++i)
      strides.push_back(anySize(in));
    return t.asStrided(DimVector(sizes), std::move(strides), anySize(in));
  }
  case 1:
    return t.view(sizes);
  case 2:
    return small(t) ? t.reshape(sizes) : t;
  case 3:
    return t.expand(sizes);
  case 4:
    return t.transpose(a, b);
  case 5:
    return t.permute(sizes);
  case 6:
    return t.slice(a, anySize(in), anySize(in), anySize(in));
  case 7:
    return t.select(a, anySize(in));
  case 8:
    return in.ConsumeBool() ? t.unsqueeze(a) : t.squeeze(a);
  case 9:
    if (small(t))
      return t.contiguous();
    return t;
  case 10: {
    Tensor copy = t;
    copy.fill(in.ConsumeFloatingPoint<double>());
    return copy;
  }
  case 11: {
    if (!small(t))
      return t;
    Tensor source = t.clone();
    Tensor target = t;
    target.copyFrom(in.ConsumeBool() ? source : t);
    return target;
  }
  default:
    // A conversion allocates numel elements (an expanded view has many).
    return small(t) || t.device().isMeta() ? t.to(anyDtype(in)) : t;
  }
}

} // namespace

// Allocations past ASan's limit fail as they would for lack of memory (opal
// must raise), rather than stopping the fuzzer.
extern "C" const char *__asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<char> buffer(256);
  Tensor t;
  try {
    t = in.ConsumeBool() ? makeTensor(in) : fromForeignMemory(in, buffer);
  } catch (const std::exception &) {
    return 0;
  }
  checkInside(t);
  while (t.defined() && in.remaining_bytes() > 0) {
    try {
      Tensor next = step(in, t);
      checkInside(next);
      t = next;
    } catch (const std::exception &) {
      // A refused call leaves the tensor as it was.
      checkInside(t);
    }
  }
  return 0;
}
