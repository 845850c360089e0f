//===- NativeKernels.h - The aten ops with native C++ kernels ---*- C++ -*-===//
//
// Private to lib/Library. Most aten ops run as MLIR kernels the JIT
// compiles; these have native kernels: the views, which must share the
// input's memory (ViewKernels.cpp), and the ops that take or return lists
// of tensors, which the JIT does not compile yet (ViewKernels.cpp for the
// splits, JoinKernels.cpp for cat and stack), sorts (SortKernels.cpp),
// factories whose sizes depend on values (FactoryKernels.cpp), results that
// depend on the data (DataKernels.cpp), indexing by tensors
// (IndexKernels.cpp), and
// native_batch_norm, which updates its running statistics in place
// (BatchNormKernel.cpp), and randperm, a sequential shuffle
// (RandomKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_LIBRARY_NATIVEKERNELS_H
#define OPAL_LIB_LIBRARY_NATIVEKERNELS_H

#include "opal/Dispatch/DispatchKey.h"
#include "opal/Dispatch/IValue.h"
#include "opal/Dispatch/KernelFunction.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/ArrayRef.h"

#include <functional>
#include <string>
#include <vector>

namespace opal::library_detail {

struct NativeKernel {
  std::string name;    ///< "aten::slice.Tensor"
  DispatchKey key = DispatchKey::CompositeExplicitAutograd;
  KernelFunction kernel;
  /// The op's MLIR kernel is left out (a view op: composites still compile
  /// through its MLIR definition, declared equivalent; an op without a
  /// definition). Otherwise the MLIR kernel stays at its key beside this one
  /// (narrow's decomposition is CompositeImplicitAutograd, as in PyTorch).
  bool replacesMlirKernel = true;
};

/// Appends the view kernels (view, reshape, transpose, ..., slice, select,
/// narrow, alias) and the splits (split, split_with_sizes, chunk, unbind).
void appendViewKernels(std::vector<NativeKernel> &kernels);
/// Appends cat and stack.
void appendJoinKernels(std::vector<NativeKernel> &kernels);
/// Appends sort, sort.stable and topk.
void appendSortKernels(std::vector<NativeKernel> &kernels);
/// Appends arange (three overloads), empty.memory_format and empty_strided.
void appendFactoryKernels(std::vector<NativeKernel> &kernels);
/// Appends index.Tensor.
void appendIndexKernels(std::vector<NativeKernel> &kernels);
/// Appends nonzero and _local_scalar_dense.
void appendDataKernels(std::vector<NativeKernel> &kernels);
/// Appends native_batch_norm (its MLIR kernel, then the running statistics).
void appendNormKernels(std::vector<NativeKernel> &kernels);
/// Appends randperm and dropout.
void appendRandomKernels(std::vector<NativeKernel> &kernels);
/// Appends the derivative formulas that only move the gradient
/// (aten_backward's views and identities).
void appendDerivativeKernels(std::vector<NativeKernel> &kernels);
/// Appends the derivatives of as_strided, diagonal, index_put,
/// masked_scatter, scatter_reduce and _embedding_bag.
void appendIndexingDerivativeKernels(std::vector<NativeKernel> &kernels);
/// Appends the derivatives of the upsamplings, col2im and grid_sampler_2d.
void appendSpatialDerivativeKernels(std::vector<NativeKernel> &kernels);
/// Appends the derivatives of _cdist_forward and _pdist_forward.
void appendDistanceDerivativeKernels(std::vector<NativeKernel> &kernels);
/// Appends PyTorch's backward ops (native_layer_norm_backward, ...).
void appendBackwardKernels(std::vector<NativeKernel> &kernels);
/// Appends the gradients of a convolution (calls of aten::convolution).
void appendConvolutionDerivativeKernels(std::vector<NativeKernel> &kernels);

/// "[1, 2, 3]".
std::string listText(IntArrayRef values);
/// Calls `name`.`overload` through the dispatcher with `stack` as its
/// arguments; returns its results (callTensor: its last, a tensor).
Stack callOp(const char *name, const char *overload, Stack stack);
Tensor callTensor(const char *name, const char *overload, Stack stack);
/// PyTorch's checks of the sizes and strides of as_strided and
/// empty_strided (one stride per size, none negative).
void checkSizesAndStrides(const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides);

/// `t` on the host, contiguous (itself when it already is): native kernels
/// of CUDA tensors compute on such a copy.
Tensor hostContiguous(const Tensor &t);

/// The gradient of an op whose every output element copies one input
/// element (pads, nearest upsampling) in its last `spatial` dims: `forward`
/// applied to the plane of the input's indices (float64, 1 in the leading
/// dims) says which; the gradient is scatter-added back there.
Tensor scatterThroughIndexPlane(const Tensor &grad, IntArrayRef selfSizes, int64_t spatial,
                                const std::function<Tensor(const Tensor &)> &forward);

/// Every native kernel of the aten library, made once.
const std::vector<NativeKernel> &nativeKernels();

} // namespace opal::library_detail

#endif // OPAL_LIB_LIBRARY_NATIVEKERNELS_H
