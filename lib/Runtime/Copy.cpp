//===- Copy.cpp - Copies between tensors of any layout and dtype ----------===//

#include "opal/Runtime/DispatchTypes.h"
#include "opal/Runtime/ScalarElement.h"
#include "opal/Runtime/Tensor.h"

#include "opal/CUDA/Device.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <limits>
#include <type_traits>

using namespace opal;


namespace {

template <typename T> constexpr bool isReduced =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// A float converted to an integer type without undefined behaviour: in
/// range it truncates toward zero; NaN and out-of-range values give what
/// x86's conversion instructions give (and so compiled kernels and PyTorch
/// on x86): the lowest value of a 32- or 64-bit type, and for narrower types
/// the 32-bit result wrapped.
template <typename D, typename S> D floatToInteger(S value) {
  if constexpr (sizeof(D) < 4) {
    return static_cast<D>(static_cast<uint32_t>(floatToInteger<int32_t>(value)));
  } else {
    using Wide = std::conditional_t<(sizeof(D) > 4), int64_t, int32_t>;
    // 2^(bits-1) is exact in float and double.
    constexpr double limit = -static_cast<double>(std::numeric_limits<Wide>::min());
    if (!(value > -limit - 1 && value < limit))
      return static_cast<D>(std::numeric_limits<Wide>::min());
    return static_cast<D>(static_cast<Wide>(value));
  }
}

template <typename D, typename S> D convert(S value) {
  if constexpr (std::is_same_v<D, S>) {
    return value;
  } else if constexpr (isReduced<S>) {
    return convert<D>(static_cast<float>(value));
  } else if constexpr (std::is_same_v<D, bool>) {
    return value != S(0);
  } else if constexpr (isReduced<D>) {
    return D(static_cast<float>(value));
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return floatToInteger<D>(value);
  } else {
    return static_cast<D>(value);
  }
}

/// Calls fn(dstOffset, srcOffset) (in elements) for every index of `sizes`.
template <typename F>
void forEachIndex(IntArrayRef sizes, IntArrayRef dstStrides, IntArrayRef srcStrides,
                  F fn) {
  size_t rank = sizes.size();
  for (int64_t size : sizes)
    if (size == 0)
      return;
  if (rank == 0) {
    fn(0, 0);
    return;
  }
  DimVector counter(rank, 0);
  int64_t inner = sizes[rank - 1];
  int64_t dstInner = dstStrides[rank - 1], srcInner = srcStrides[rank - 1];
  int64_t dstBase = 0, srcBase = 0;
  while (true) {
    for (int64_t i = 0; i < inner; ++i)
      fn(dstBase + i * dstInner, srcBase + i * srcInner);
    // Advance the outer dimensions like an odometer, never stepping past a
    // dim's last index (a dim of size 1 may have any stride).
    size_t d = rank - 1;
    while (d-- > 0) {
      if (counter[d] + 1 < sizes[d]) {
        ++counter[d];
        dstBase += dstStrides[d];
        srcBase += srcStrides[d];
        break;
      }
      dstBase -= counter[d] * dstStrides[d];
      srcBase -= counter[d] * srcStrides[d];
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      return;
  }
}

template <typename D, typename S>
void copyTyped(const Tensor &dst, const Tensor &src) {
  D *out = dst.data<D>();
  if constexpr (std::is_same_v<S, bool>) {
    // Bool memory that was never written (empty) or came from elsewhere
    // may hold any byte: read it as a byte, any nonzero one is true.
    const uint8_t *in = src.data<uint8_t>();
    forEachIndex(dst.sizes(), dst.strides(), src.strides(),
                 [&](int64_t o, int64_t i) { out[o] = convert<D>(in[i] != 0); });
  } else {
    const S *in = src.data<S>();
    forEachIndex(dst.sizes(), dst.strides(), src.strides(),
                 [&](int64_t o, int64_t i) { out[o] = convert<D>(in[i]); });
  }
}

template <typename D> void copyFromAny(const Tensor &dst, const Tensor &src) {
  switch (src.dtype()) {
#define OPAL_SOURCE_CASE(type, cpp)                                            \
  case type:                                                                   \
    return copyTyped<D, cpp>(dst, src);
    OPAL_FORALL_REAL_TYPES(OPAL_SOURCE_CASE)
#undef OPAL_SOURCE_CASE
  default:
    throw OpalError(std::string("copy from ") + dtypeName(src.dtype()) + " to " +
                    dtypeName(dst.dtype()) + " is not supported");
  }
}

/// A copy's index space with dims of size 1 dropped and neighbours merged
/// where both sides step through them as one (a contiguous run of rows is
/// one long row).
struct CopyShape {
  DimVector sizes, dstStrides, srcStrides;
};

CopyShape coalesce(IntArrayRef sizes, IntArrayRef dstStrides, IntArrayRef srcStrides) {
  CopyShape shape;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1)
      continue;
    size_t last = shape.sizes.size() - 1;
    int64_t dstSpan, srcSpan;
    if (!shape.sizes.empty() && !__builtin_mul_overflow(dstStrides[d], sizes[d], &dstSpan) &&
        !__builtin_mul_overflow(srcStrides[d], sizes[d], &srcSpan) &&
        shape.dstStrides[last] == dstSpan && shape.srcStrides[last] == srcSpan) {
      shape.sizes[last] *= sizes[d];
      shape.dstStrides[last] = dstStrides[d];
      shape.srcStrides[last] = srcStrides[d];
      continue;
    }
    shape.sizes.push_back(sizes[d]);
    shape.dstStrides.push_back(dstStrides[d]);
    shape.srcStrides.push_back(srcStrides[d]);
  }
  return shape;
}

/// Copies raw elements of one size (same dtype on both sides). When the
/// source's densest dim is not the destination's (a transpose), the two
/// dims are copied in square tiles, so that both the rows written and the
/// columns read stay in cache; otherwise row by row.
template <size_t Size> void copyBytes(const Tensor &dst, const Tensor &src) {
  struct Element {
    char bytes[Size];
  };
  auto *out = static_cast<Element *>(dst.dataPtr());
  auto *in = static_cast<const Element *>(src.dataPtr());
  for (int64_t size : dst.sizes())
    if (size == 0)
      return;
  CopyShape shape = coalesce(dst.sizes(), dst.strides(), src.strides());
  size_t rank = shape.sizes.size();
  if (rank > 0 && shape.dstStrides[rank - 1] == 1 && shape.srcStrides[rank - 1] == 1) {
    // Rows dense on both sides (outer dims transposed, a slice of rows):
    // each row one memmove, not an element at a time through strides
    // known only at run time (a convolution gradient's [N, F, P] made
    // [F, N, P]: 2% of a resnet18 training step).
    size_t rowBytes = static_cast<size_t>(shape.sizes[rank - 1]) * Size;
    IntArrayRef sizes(shape.sizes.data(), rank - 1);
    IntArrayRef dstStrides(shape.dstStrides.data(), rank - 1);
    IntArrayRef srcStrides(shape.srcStrides.data(), rank - 1);
    forEachIndex(sizes, dstStrides, srcStrides,
                 [&](int64_t o, int64_t i) { std::memmove(out + o, in + i, rowBytes); });
    return;
  }
  if (rank < 2) {
    forEachIndex(shape.sizes, shape.dstStrides, shape.srcStrides,
                 [&](int64_t o, int64_t i) { out[o] = in[i]; });
    return;
  }
  size_t inner = rank - 1, across = inner;
  for (size_t d = 0; d < rank; ++d)
    if (std::abs(shape.srcStrides[d]) < std::abs(shape.srcStrides[across]))
      across = d;
  if (across == inner || std::abs(shape.srcStrides[inner]) <= 1) {
    forEachIndex(shape.sizes, shape.dstStrides, shape.srcStrides,
                 [&](int64_t o, int64_t i) { out[o] = in[i]; });
    return;
  }
  // The outer dims (all but `across` and `inner`) one index at a time; the
  // tile loops over `across` (the source's dense dim) and `inner` (the
  // destination's).
  constexpr int64_t kTile = 64 / Size < 4 ? 4 : 64 / Size; // a cache line of a row
  DimVector outerSizes, outerDst, outerSrc;
  for (size_t d = 0; d < rank; ++d)
    if (d != across && d != inner) {
      outerSizes.push_back(shape.sizes[d]);
      outerDst.push_back(shape.dstStrides[d]);
      outerSrc.push_back(shape.srcStrides[d]);
    }
  int64_t rows = shape.sizes[across], columns = shape.sizes[inner];
  int64_t dstRow = shape.dstStrides[across], srcRow = shape.srcStrides[across];
  int64_t dstColumn = shape.dstStrides[inner], srcColumn = shape.srcStrides[inner];
  // 4-byte elements of a plain transpose (each side dense along one of the
  // two dims): whole 4x4 blocks go through SSE registers, four loads, a
  // shuffle and four stores instead of sixteen scalar copies.
  bool blocks4 = Size == 4 && srcRow == 1 && dstColumn == 1;
  forEachIndex(outerSizes, outerDst, outerSrc, [&](int64_t dstBase, int64_t srcBase) {
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      int64_t r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < columns; c0 += kTile) {
        int64_t c1 = std::min(columns, c0 + kTile);
#if defined(__SSE2__)
        if (blocks4 && r1 - r0 == kTile && c1 - c0 == kTile) {
          for (int64_t r = r0; r < r1; r += 4)
            for (int64_t c = c0; c < c1; c += 4) {
              const float *i = reinterpret_cast<const float *>(in + srcBase) + r + c * srcColumn;
              float *o = reinterpret_cast<float *>(out + dstBase) + r * dstRow + c;
              __m128 a = _mm_loadu_ps(i), b = _mm_loadu_ps(i + srcColumn),
                     x = _mm_loadu_ps(i + 2 * srcColumn), y = _mm_loadu_ps(i + 3 * srcColumn);
              _MM_TRANSPOSE4_PS(a, b, x, y);
              _mm_storeu_ps(o, a);
              _mm_storeu_ps(o + dstRow, b);
              _mm_storeu_ps(o + 2 * dstRow, x);
              _mm_storeu_ps(o + 3 * dstRow, y);
            }
          continue;
        }
#endif
        for (int64_t r = r0; r < r1; ++r) {
          Element *o = out + dstBase + r * dstRow;
          const Element *i = in + srcBase + r * srcRow;
          for (int64_t c = c0; c < c1; ++c)
            o[c * dstColumn] = i[c * srcColumn];
        }
      }
    }
  });
}

/// The elements of a tensor on a CUDA device, in a CPU tensor of the same
/// sizes and strides (the span of storage it views is copied).
Tensor toHost(const Tensor &source) {
  int64_t span = 1;
  for (size_t d = 0; d < source.sizes().size(); ++d)
    span += (source.sizes()[d] - 1) * source.strides()[d];
  if (source.numel() == 0)
    span = 0;
  size_t elementBytes = elementSize(source.dtype());
  Storage host = StorageImpl::allocateCPU(static_cast<size_t>(span) * elementBytes);
  cuda::copyBytes(host->data(), Device(DeviceType::CPU), source.dataPtr(), source.device(),
                  static_cast<size_t>(span) * elementBytes);
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(host), source.dtype(),
                                               Device(DeviceType::CPU),
                                               DimVector(source.sizes()),
                                               DimVector(source.strides()), 0));
}

/// Copies where either side is on a CUDA device: contiguous same-dtype,
/// same-shape copies go straight through the driver; everything else is
/// staged through host memory (broadcasting, dtype conversion and strides
/// are then handled by the CPU copy).
Tensor &copyAcrossDevices(Tensor &destination, const Tensor &source) {
  bool direct = destination.dtype() == source.dtype() && destination.sizes() == source.sizes() &&
                destination.isContiguous() && source.isContiguous();
  if (direct) {
    cuda::copyBytes(destination.dataPtr(), destination.device(), source.dataPtr(),
                    source.device(), destination.numel() * elementSize(destination.dtype()));
    return destination;
  }
  Tensor hostSource = source.device().isCUDA() ? toHost(source) : source;
  if (destination.device().isCPU())
    return destination.copyFrom(hostSource);
  if (!destination.isContiguous())
    throw OpalError("copies into a non-contiguous " + destination.device().str() +
                    " tensor are not supported yet; copy into a contiguous one");
  Tensor staged = Tensor::empty(destination.sizes(), destination.dtype(), Device(DeviceType::CPU));
  staged.copyFrom(hostSource);
  cuda::copyBytes(destination.dataPtr(), destination.device(), staged.dataPtr(), staged.device(),
                  staged.numel() * elementSize(staged.dtype()));
  return destination;
}

} // namespace

Tensor Tensor::to(Device target) const {
  if (target == device() ||
      (target.isCUDA() && device().isCUDA() && !target.hasIndex() &&
       device().index() == cuda::currentDevice()))
    return *this;
  if (target.isMeta() || device().isMeta())
    throw OpalError("cannot copy between " + device().str() + " and " + target.str() +
                    " tensors");
  Tensor copy = Tensor::empty(sizes(), dtype(), target);
  copy.copyFrom(*this);
  return copy;
}

namespace {

/// PyTorch's refusals of writes that would race with themselves: a
/// destination whose elements share memory (an expanded dim), or a source
/// that partly overlaps it.
void checkCopyOverlap(const Tensor &destination, const Tensor &source) {
  for (size_t d = 0; d < destination.sizes().size(); ++d)
    if (destination.strides()[d] == 0 && destination.sizes()[d] > 1)
      throw OpalError("unsupported operation: more than one element of the written-to tensor "
                      "refers to a single memory location. Please clone() the tensor before "
                      "performing the operation.");
  const TensorImpl &dst = *destination.impl(), &src = *source.impl();
  if (!dst.storage() || dst.storage() != src.storage() || dst.numel() == 0 || src.numel() == 0)
    return;
  if (dst.data() == src.data() && dst.sizes() == src.sizes() && dst.strides() == src.strides() &&
      dst.dtype() == src.dtype())
    return; // the same elements: copying is a no-op
  auto range = [](const TensorImpl &t) {
    auto bytes = storageBytesFor(t.sizes(), t.strides(), t.storageOffset(), elementSize(t.dtype()));
    size_t begin = static_cast<size_t>(t.storageOffset()) * elementSize(t.dtype());
    return std::pair<size_t, size_t>(begin, bytes.value_or(begin));
  };
  auto [dstBegin, dstEnd] = range(dst);
  auto [srcBegin, srcEnd] = range(src);
  if (dstBegin < srcEnd && srcBegin < dstEnd)
    throw OpalError("unsupported operation: some elements of the input tensor and the "
                    "written-to tensor refer to a single memory location. Please clone() the "
                    "tensor before performing the operation.");
}

} // namespace

Tensor &Tensor::copyFrom(const Tensor &source) {
  checkWritable("copy_");
  checkCopyOverlap(*this, source);
  bumpVersion();
  if (device().isMeta() || source.device().isMeta()) {
    if (device() != source.device())
      throw OpalError("cannot copy between " + source.device().str() + " and " +
                      device().str() + " tensors");
    return *this; // meta tensors have no data
  }
  if (device().isCUDA() || source.device().isCUDA())
    return copyAcrossDevices(*this, source);
  Tensor src = source.sizes() == sizes() ? source : source.expand(sizes());
  if (dtype() == src.dtype()) {
    if (isContiguous() && src.isContiguous()) {
      std::memmove(dataPtr(), src.dataPtr(), numel() * elementSize(dtype()));
      return *this;
    }
    switch (elementSize(dtype())) {
    case 1: copyBytes<1>(*this, src); return *this;
    case 2: copyBytes<2>(*this, src); return *this;
    case 4: copyBytes<4>(*this, src); return *this;
    case 8: copyBytes<8>(*this, src); return *this;
    case 16: copyBytes<16>(*this, src); return *this;
    }
  }
  switch (dtype()) {
#define OPAL_DEST_CASE(type, cpp)                                              \
  case type:                                                                   \
    copyFromAny<cpp>(*this, src);                                              \
    return *this;
    OPAL_FORALL_REAL_TYPES(OPAL_DEST_CASE)
#undef OPAL_DEST_CASE
  default:
    throw OpalError(std::string("copy from ") + dtypeName(src.dtype()) + " to " +
                    dtypeName(dtype()) + " is not supported");
  }
}

Tensor Tensor::clone() const {
  Tensor copy = Tensor::empty(sizes(), dtype(), device());
  copy.copyFrom(*this);
  return copy;
}

Tensor Tensor::contiguous() const { return isContiguous() ? *this : clone(); }

Tensor Tensor::to(ScalarType target) const {
  if (target == dtype())
    return *this;
  Tensor copy = Tensor::empty(sizes(), target, device());
  copy.copyFrom(*this);
  return copy;
}

void Tensor::checkWritable(const char *op) const {
  if (impl_->storage() && impl_->storage()->readOnly())
    throw OpalError(std::string(op) + ": the tensor's memory is read-only (it was imported "
                    "from a read-only buffer); clone() it first");
}


Tensor &Tensor::fill(double value) {
  if (device().isMeta())
    return *this;
  checkWritable("fill_");
  bumpVersion();
  // An integer fill value out of the dtype's range is refused, as PyTorch
  // refuses it (a float-to-int conversion out of range is undefined).
  if (std::string problem = elementOverflowProblem(Scalar(value), dtype(), true);
      !problem.empty())
    throw OpalError(problem);
  if (device().isCUDA()) {
    Tensor host = Tensor::empty(sizes(), dtype(), Device(DeviceType::CPU));
    host.fill(value);
    return copyFrom(host);
  }
  // Elements that share memory (an expanded dim: stride 0) are written once.
  DimVector once(sizes());
  for (size_t d = 0; d < once.size(); ++d)
    if (strides()[d] == 0 && once[d] > 0)
      once[d] = 1;
  switch (dtype()) {
#define OPAL_FILL_CASE(type, cpp)                                              \
  case type: {                                                                 \
    cpp converted = convert<cpp>(value);                                       \
    cpp *out = data<cpp>();                                                    \
    forEachIndex(once, strides(), strides(),                                   \
                 [&](int64_t o, int64_t) { out[o] = converted; });             \
    return *this;                                                              \
  }
    OPAL_FORALL_REAL_TYPES(OPAL_FILL_CASE)
#undef OPAL_FILL_CASE
  default:
    throw OpalError(std::string("fill is not supported for ") + dtypeName(dtype()));
  }
}
