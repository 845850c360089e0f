//===- DataKernels.cpp - aten nonzero and _local_scalar_dense -------------===//
//
// Two ops whose results depend on a tensor's data, not only its sizes:
// nonzero (how many rows its result has) and _local_scalar_dense (a Python
// number). Native kernels, as PyTorch's are; a CUDA tensor is read on the
// host.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/DispatchTypes.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <type_traits>

using namespace opal;
using namespace opal::library_detail;

namespace {

/// Whether an element is nonzero (NaN is; a bool's byte is any nonzero byte).
template <typename T> bool nonzeroAt(const T *p) {
  if constexpr (std::is_same_v<T, bool>)
    return *reinterpret_cast<const uint8_t *>(p) != 0;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<float>(*p) != 0;
  else
    return *p != 0;
}

/// The indices of the nonzero elements, one row each ([n, rank], int64, in
/// row-major order).
Tensor nonzero(const Tensor &self) {
  if (self.device().isMeta())
    throw OpalError("nonzero: the size of its result depends on the data, which a meta tensor "
                    "does not have");
  Tensor input = hostContiguous(self);
  int64_t rank = self.dim(), count = input.numel();
  std::vector<int64_t> found;
  auto collect = [&](const auto *data) {
    for (int64_t i = 0; i < count; ++i)
      if (nonzeroAt(data + i))
        found.push_back(i);
  };
  switch (self.dtype()) {
#define OPAL_NONZERO_CASE(type, cpp)                                           \
  case type:                                                                   \
    collect(input.data<cpp>());                                                \
    break;
    OPAL_FORALL_REAL_TYPES(OPAL_NONZERO_CASE)
#undef OPAL_NONZERO_CASE
  default:
    throw OpalError(std::string("nonzero: ") + dtypeName(self.dtype()) +
                    " tensors are not supported");
  }
  int64_t rows = static_cast<int64_t>(found.size());
  Tensor result = Tensor::empty({rows, rank}, ScalarType::Long);
  int64_t *out = result.data<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    // The flat index as coordinates, the last dim fastest.
    int64_t flat = found[r];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out[r * rank + d] = flat % self.size(d);
      flat /= self.size(d);
    }
  }
  return self.device().isCPU() ? result : result.to(self.device());
}

/// The first element as a number (int, float or bool by dtype).
Scalar localScalarDense(const Tensor &self) {
  if (self.numel() == 0)
    throw OpalError("a Tensor with 0 elements cannot be converted to Scalar");
  if (self.device().isMeta())
    throw OpalError("Tensor.item() cannot be called on meta tensors");
  Tensor input = hostContiguous(self);
  switch (self.dtype()) {
  case ScalarType::Bool:
    return Scalar(*input.data<uint8_t>() != 0);
  case ScalarType::Half:
  case ScalarType::BFloat16:
  case ScalarType::Float:
  case ScalarType::Double:
    return Scalar(static_cast<double>(input.to(ScalarType::Double).data<double>()[0]));
  case ScalarType::Byte:
  case ScalarType::Char:
  case ScalarType::Short:
  case ScalarType::Int:
  case ScalarType::Long:
    return Scalar(input.to(ScalarType::Long).data<int64_t>()[0]);
  default:
    throw OpalError(std::string("_local_scalar_dense: ") + dtypeName(self.dtype()) +
                    " tensors are not supported");
  }
}

} // namespace

void opal::library_detail::appendDataKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::nonzero", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(nonzero)});
  kernels.push_back({"aten::_local_scalar_dense", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(localScalarDense)});
}
