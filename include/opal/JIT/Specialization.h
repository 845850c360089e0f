//===- Specialization.h - What a compiled kernel is specialized on -*- C++ -*-===//
//
// A call's arguments decide which compiled kernel runs it. Tensors enter a
// kernel by dtype and rank, with the dims of size 1 static (broadcasting
// depends on them) and every other dim dynamic (or, for the few ops whose
// decomposition needs them, every dim static). `float` and `Scalar`
// arguments are runtime values (`x * 0.5` and `x * 0.7` share a kernel; a
// Scalar's kind, int or float, is part of the key because it changes type
// promotion). The `SymInt[] size` of a factory (an op that takes no tensor)
// on the CPU is a runtime value too, with its length and its entries of 1
// specialized as a tensor's rank and size-1 dims are: `zeros([n, 4])` is
// one kernel for every n. So is `aten::convolution`'s `groups` above 1
// on the CPU with dynamic shapes (`groups == 1` stays a constant): one
// kernel serves every depthwise or grouped convolution of a kernel size and
// stride. Every other argument (dims, keepdim, dtype, strings, lists,
// None) is baked into the IR as a constant. Two other sizes are
// specialized too, both `aten::convolution`'s: an input with 0 channels,
// whose output has 0 channels whatever the weight says (PyTorch's empty
// convolution), and, where groups enter at run time, a weight's channels
// per group from 8 on (their kernel sums a group's channels in products,
// which want the count known).
//
// The key of a call is a short array of 64-bit words that holds all of
// this exactly (no hashing of values, no strings): the in-memory cache
// compares it word by word.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_SPECIALIZATION_H
#define OPAL_JIT_SPECIALIZATION_H

#include "opal/Dispatch/IValue.h"
#include "opal/Runtime/Device.h"
#include "opal/Runtime/ScalarType.h"
#include "opal/Schema/FunctionSchema.h"
#include "opal/Support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opal::jit {

/// The alignment, in bytes, of the data of a tensor that a CUDA kernel may
/// read with vector loads: whether a tensor has it is part of the key of a
/// call on CUDA (a view that starts mid-vector gets a kernel of its own).
constexpr unsigned kVectorAlignment = 16;

/// How one schema argument enters a compiled kernel.
enum class ArgKind : uint8_t {
  Tensor,   ///< a memref (pointers, offset, sizes, strides)
  Float,    ///< an f64 passed at run time
  Int,      ///< an i64 passed at run time
  Constant, ///< the value is part of the IR
  /// A factory's `SymInt[] size` passed at run time as the sizes of a
  /// memref without data; specialized like a tensor's shape (its length as
  /// the rank, the entries of 1 static).
  Sizes,
};

struct ArgSpec {
  ArgKind kind = ArgKind::Constant;
  // Tensor (and Sizes: rank, sizeOneDims and sizes):
  ScalarType dtype = ScalarType::Undefined;
  int rank = 0;
  uint64_t sizeOneDims = 0; ///< bit d set: dim d has size 1
  /// Bit d set: dim d's size is in the key and static in the kernel (only
  /// where the op's decomposition or lowering needs it: a convolution's
  /// input of 0 channels, its weight's channels per group from 8 on);
  /// keyedSizes holds those sizes, lowest dim first.
  uint64_t keyedDims = 0;
  std::vector<int64_t> keyedSizes;
  std::vector<int64_t> sizes; ///< every size, when the spec has static shapes
  /// On CUDA: the data the kernel reads is kVectorAlignment-byte aligned, so
  /// its elementwise loops may use 128-bit loads (always true elsewhere).
  bool aligned = true;
  /// On the CPU: the tensor is not contiguous but its last dim is close to
  /// dense (a slice, a strided or expanded view; not a transpose, which is
  /// copied by the runtime's tiled copy first). The kernel reads it in place
  /// through its strides when it can (CompiledKernel::readsInPlace), else
  /// from a contiguous copy.
  bool strided = false;
  // Constant:
  IValue constant;

  /// The size of keyed dim `d` (keyedDims has bit d).
  int64_t keyedSize(int d) const {
    size_t at = 0;
    for (int e = 0; e < d; ++e)
      at += keyedDims >> e & 1;
    return keyedSizes[at];
  }
};

/// The specialization of one call: the op, where it runs, its arguments.
struct CallSpec {
  OperatorName op;
  DeviceType device = DeviceType::CPU;
  /// On CUDA: the compute capability the kernel is compiled for (90 is
  /// sm_90), that of the call's device; 0 elsewhere.
  int cudaCapability = 0;
  /// Every dim static: for ops whose decomposition needs static shapes
  /// (reshape of dynamic dims); the kernel is then compiled per shape.
  bool staticShapes = false;
  /// A dispatch mode is active above the kernel (a CompositeImplicitAutograd
  /// decomposition): its body runs op by op through the dispatcher, so the
  /// mode sees the decomposed calls.
  bool opByOp = false;
  std::vector<ArgSpec> args;

  /// The specialization in words, e.g.
  /// "(f32[?,1], float, int[]=[1], bool=false)", for logs and manifests.
  std::string str() const;
};

/// The key words of a call (see the file comment) appended to `words`; on
/// CUDA, `cudaCapability` (CallSpec::cudaCapability) is part of the key, and
/// so is `opByOp` (CallSpec::opByOp). Fails with a message naming the op and
/// argument when an argument cannot be compiled (complex scalars, tensors on
/// two devices, rank above 64). With `viewsInPlace` false, views are keyed
/// as if contiguous (ArgSpec::strided never set): the key of the kernel
/// that reads them from a copy.
Expected<bool> appendKeyWords(const FunctionSchema &schema, const IValue *args,
                              DeviceType device, bool staticShapes,
                              std::vector<uint64_t> &words, int cudaCapability = 0,
                              bool opByOp = false, bool viewsInPlace = true);

/// The specialization of a call with arguments `args` (one per schema
/// argument, defaults filled).
CallSpec makeCallSpec(const FunctionSchema &schema, const IValue *args, DeviceType device,
                      bool staticShapes, int cudaCapability = 0);

/// Arguments that stand for the specialization `text`, written as
/// CallSpec::str() prints it: per schema argument a tensor `dtype[dims]`
/// (each dim `?`, any size, or `1`), `float` or `int` for a runtime number
/// (`int` only for Scalar arguments and a convolution's groups above 1,
/// see the file comment), a factory's runtime size list
/// `sizes[dims]` (dims as a tensor's), or a constant in schema-default syntax
/// (`1`, `[0, 1]`, `True`, `None`, `'tanh'`, optionally after its kind as
/// printed: `int=1`). Trailing arguments with defaults may be left out.
/// Tensors are meta tensors (dims `?` have size 2), so appendKeyWords and
/// makeCallSpec of the result give the key and spec of every call the text
/// describes. Errors name the op, the argument and what was expected.
Expected<std::vector<IValue>> parseSpecialization(const FunctionSchema &schema,
                                                  std::string_view text);

} // namespace opal::jit

#endif // OPAL_JIT_SPECIALIZATION_H
