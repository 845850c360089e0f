//===- CompiledKernel.h - A compiled kernel and the compiler's hook -*- C++ -*-===//
//
// libopal runs compiled kernels; libopal_compiler (MLIR and LLVM) makes
// them. The runtime never links the compiler: the first call that needs a
// compile loads libopal_compiler.so, whose static initializer installs its
// KernelCompiler here. A process that only calls native kernels never loads
// LLVM.
//
// Calling convention. A kernel has two entry points with MLIR's packed
// convention, `void f(void **slots)`, one slot per LLVM argument of the
// lowered function:
//  - `run(inputs..., outputs...)`: each tensor is an exploded memref
//    descriptor (allocated pointer, aligned pointer, offset, sizes...,
//    strides...), each runtime scalar an f64 or i64. Outputs are allocated by
//    the runtime and written in place (destination-passing style).
//  - `shapes(inputs..., dims)`: writes every dynamic output size, in output
//    order, into the i64 buffer `dims`. The compiler reifies these sizes
//    from the IR, so every MLIR-defined op gets shape inference (and meta
//    tensors) without an abstract kernel. Absent when all sizes are static.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_COMPILEDKERNEL_H
#define OPAL_JIT_COMPILEDKERNEL_H

#include "opal/Dispatch/DispatchKey.h"
#include "opal/JIT/Specialization.h"
#include "opal/Runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace opal::cuda {
class KernelModule;
} // namespace opal::cuda

namespace opal::jit {

/// One step of a composite run op by op (see CompiledKernel::plan).
struct PlanStep {
  enum class Kind : uint8_t {
    Call, ///< dispatch `op` on the operand values, results into `results`
    List, ///< build a list of `listTag` from the operand values
  };
  Kind kind = Kind::Call;
  OperatorName op;
  IValue::Tag listTag = IValue::Tag::IntList;
  std::vector<int> operands;
  std::vector<int> results;
};

struct OutputSpec {
  ScalarType dtype = ScalarType::Undefined;
  std::vector<int64_t> sizes; ///< -1 for a size the shapes entry computes
};

/// A dynamic output size that is a size of an input: dim `dim` of the
/// call's argument `argument` (a schema argument index).
struct SizeSource {
  uint32_t argument = 0;
  uint32_t dim = 0;
  bool operator==(const SizeSource &other) const {
    return argument == other.argument && dim == other.dim;
  }
};

/// A size a shape check compares: dim `dim` of the call's argument
/// `argument` (a schema argument index), the argument's own value when
/// `dim` is kArgumentValue (a runtime int: a convolution's groups), or the
/// constant `value`.
struct SizeRef {
  static constexpr uint32_t kArgumentValue = UINT32_MAX;
  bool constant = false;
  int64_t value = 0;
  uint32_t argument = 0;
  uint32_t dim = 0;
  bool operator==(const SizeRef &other) const {
    return constant == other.constant &&
           (constant ? value == other.value
                     : argument == other.argument && dim == other.dim);
  }
};

/// A constraint on the sizes of a call's inputs that a kernel's IR assumes
/// (derived by the compiler, opal-derive-shape-checks): `lhs == rhs`, or
/// `lhs <relation> rhs` for Expect. A call that violates one raises before
/// the kernel reads anything. The kind picks PyTorch's message:
///  - Broadcast: two sizes meet at one loop dim of an elementwise or
///    reduction op ("The size of tensor a (4) must match the size of tensor
///    b (2) at non-singleton dimension 0"; `dim` is that loop dim);
///  - Matmul: the contracted dims of a matrix product ("mat1 and mat2
///    shapes cannot be multiplied (2x3 and 4x5)", the operands' shapes in
///    `lhsShape`, `rhsShape`);
///  - Batch: a batched product's batch or contracted dims ("Expected size
///    for first two dimensions of batch2 tensor to be: [2, 4] but got:
///    [3, 4].", `lhsShape` the expected, `rhsShape` the given);
///  - Expect: one comparison of an op's own `opal.check` (layer_norm's
///    "Given normalized_shape=[2], expected input with shape [*, 2], but got
///    input of size[3, 3]"): `message` with each `{i}` replaced by the sizes
///    `values[i]` separated by ", " (MessageTemplate.h). A condition of
///    several comparisons is several checks with one message;
///  - Numel: a reshape whose sizes are known per call keeps the element
///    count: the product of `lhsShape` (the input's sizes) equals the
///    product of `rhsShape` (the factors of the sizes asked for);
///  - NumelDivides: the same with one size inferred (-1): the product of
///    `rhsShape` (the other sizes' factors) is not 0 and divides that of
///    `lhsShape`. For both, `values` holds the factors of each size asked
///    for (an inferred one is the constant -1), for PyTorch's "shape '[2,
///    -1]' is invalid for input of size 5".
/// `op` is the op whose definition made the assumption (the called op or
/// one its decomposition reached).
struct ShapeCheck {
  enum class Kind : uint8_t { Broadcast, Matmul, Batch, Expect, Numel, NumelDivides };
  enum class Relation : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
  Kind kind = Kind::Broadcast;
  Relation relation = Relation::Eq;
  std::string op;
  uint32_t dim = 0;
  SizeRef lhs, rhs;
  std::vector<SizeRef> lhsShape, rhsShape;
  std::string message;
  std::vector<std::vector<SizeRef>> values;
  /// Whether sizes `lhs` and `rhs` satisfy the check's relation.
  bool holds(int64_t lhs, int64_t rhs) const {
    switch (relation) {
    case Relation::Eq: return lhs == rhs;
    case Relation::Ne: return lhs != rhs;
    case Relation::Lt: return lhs < rhs;
    case Relation::Le: return lhs <= rhs;
    case Relation::Gt: return lhs > rhs;
    case Relation::Ge: return lhs >= rhs;
    }
    return false;
  }
};

/// A condition on the data of a call's inputs that a kernel checks as it
/// runs (derived by the compiler, opal-derive-data-checks): an integer
/// division's divisor is not zero, a gather's index is in range. The kernel
/// writes `words` 0-d int64 outputs of its own, `found, values...`, among
/// its last outputs; after the call, found != 0 raises `message`
/// (RuntimeError) with each `{i}` replaced by values[i]. `op` is the op
/// whose definition needs the check.
struct DataCheck {
  std::string op;
  std::string message;
  uint32_t words = 1;
  bool operator==(const DataCheck &other) const {
    return op == other.op && message == other.message && words == other.words;
  }
};

class CompiledKernel {
public:
  using PackedFunction = void (*)(void **);

  PackedFunction run = nullptr;
  PackedFunction shapes = nullptr;
  /// A kernel compiled for CUDA: `run` is host code that launches the
  /// kernels of this device code (CUDA/Launch.h) on the outputs' device.
  std::shared_ptr<cuda::KernelModule> gpuModule;
  /// "ns::op(f32[?], float)": what the kernel was compiled for, for errors.
  std::string label;

  /// A composite that reaches an op with an opaque (C++ or Python) kernel
  /// is not compiled: it runs op by op, as PyTorch runs it. Its body, one
  /// level deep, becomes this plan over value slots: the call's arguments
  /// go to `argumentSlots` (-1 for constants folded into the plan),
  /// `constants` fill their slots, and each step dispatches one op.
  std::vector<PlanStep> plan;
  std::vector<int> argumentSlots;
  std::vector<std::pair<int, IValue>> constants;
  std::vector<int> outputSlots;
  int slotCount = 0;
  bool runsOpByOp() const { return !plan.empty() || !outputSlots.empty(); }

  std::vector<ArgKind> argKinds; ///< one per schema argument
  /// Bit i: schema argument i, a non-contiguous tensor (ArgSpec::strided),
  /// is read in place through its strides; other non-contiguous tensors
  /// are copied to contiguous ones first.
  uint64_t readsInPlace = 0;
  /// The random ops of the kernel (opal-bind-random-streams): each call
  /// reserves this many offsets of its device's generator and passes the
  /// seed and the first offset as two i64 after the inputs.
  uint32_t randomStreams = 0;
  std::vector<OutputSpec> outputs;
  /// When every dynamic output size (each -1 in `outputs`, in order) is a
  /// size of an input tensor, where each comes from: a call then reads them
  /// from its arguments instead of calling `shapes` (most kernels: an
  /// elementwise op's output has its input's sizes). Empty otherwise.
  std::vector<SizeSource> sizeSources;
  /// What the inputs' sizes must satisfy, checked in order before every
  /// call (also on meta tensors); see ShapeCheck.
  std::vector<ShapeCheck> shapeChecks;
  /// Checked after every call: the last entries of `outputs` are their
  /// words (DataCheck::words each), which the caller never sees.
  std::vector<DataCheck> dataChecks;
  /// The ops (`ns::name[.overload]`) whose definitions went into the kernel.
  std::vector<OperatorName> reached;
  std::string cacheKey;        ///< hex sha256 of the disk cache entry
  double compileMilliseconds = 0;
  bool fromDisk = false;

  /// Runs the kernel on a call's arguments (one per schema argument) and
  /// appends its outputs, allocated on `device`, to `results`. On the meta
  /// device only the sizes are computed. On CUDA the kernels are launched
  /// on the device's current stream and not waited for. `args` must not live in the part of
  /// `results` that may reallocate (reserve room first).
  void invoke(const IValue *args, Device device, Stack &results) const;
  /// Checks the call's sizes against shapeChecks; a violation throws
  /// OpalError with PyTorch's message for it, naming `schema`'s op and
  /// arguments.
  void checkShapes(const IValue *args, const FunctionSchema &schema) const {
    if (!shapeChecks.empty())
      checkShapesOutOfLine(args, schema);
  }
  /// Runs the plan: each step through the dispatcher.
  void runPlan(const IValue *args, Stack &results) const;

private:
  void checkShapesOutOfLine(const IValue *args, const FunctionSchema &schema) const;
};

/// Tensors the next kernel call on this thread writes its results into:
/// result i into `into[i]` where that is defined and fits (the result's
/// sizes and dtype, contiguous, on the call's device), a new tensor
/// otherwise. The torch.compile bridge's in-place updates (an optimizer
/// step writes each parameter's new value into the parameter) set it
/// around one call of a graph's op, after checking on the graph that every
/// read of such an input comes, index by index, before the write. A call
/// takes the tensors as it starts (a kernel run op by op drops them), so
/// they never reach the calls it makes, and uses them only if it is a
/// kernel of op `op` ("ns::name"); the guard drops what no call took.
class ResultsIntoGuard {
public:
  ResultsIntoGuard(std::vector<Tensor> into, std::string op);
  ~ResultsIntoGuard();
  ResultsIntoGuard(const ResultsIntoGuard &) = delete;
  ResultsIntoGuard &operator=(const ResultsIntoGuard &) = delete;
};

/// What a precompiled kernel's code does not say about itself: its outputs
/// (dtype and sizes, `?` where the shapes entry computes one), whether its
/// rows are independent, where its dynamic sizes come from, and the ops its
/// compilation reached. One field a line, e.g. "outputs: float32[?,4]\n
/// rows: independent\nsizes: a0.0\nreached: aten::exp\n" (`sizes:` lists
/// SizeSources as a<argument>.<dim>, and is absent when there are none;
/// `checks:` lists ShapeChecks, likewise).
std::string describeKernel(const CompiledKernel &kernel);
/// Reads describeKernel's text into `kernel`; the error names the bad line.
Expected<bool> readKernelDescription(const std::string &text, CompiledKernel &kernel);
/// The value of the `sizes:` field (of a description, or of a disk cache
/// manifest): "a0.0 a2.1".
std::string describeSizeSources(const std::vector<SizeSource> &sources);
/// Reads describeSizeSources' text; an empty text has none.
Expected<std::vector<SizeSource>> readSizeSources(const std::string &text);
/// The value of the `checks:` field: one word per check,
/// "<kind>,<op>,<dim>,<lhs>,<rhs>[,<lhsShape>,<rhsShape>]" where a size is
/// a<argument>.<dim> or a decimal constant and a shape its sizes joined by
/// 'x' ("-" for a 0-d shape), e.g. "matmul,aten::mm,2,a0.1,a1.0,a0.0xa0.1,a1.0xa1.1".
std::string describeShapeChecks(const std::vector<ShapeCheck> &checks);
/// Reads describeShapeChecks' text; an empty text has none.
Expected<std::vector<ShapeCheck>> readShapeChecks(const std::string &text);

/// The value of the `data:` field: one word per check,
/// "<op>,<words>,<message>" with the message %-encoded as in `checks:`.
std::string describeDataChecks(const std::vector<DataCheck> &checks);
/// Reads describeDataChecks' text; an empty text has none.
Expected<std::vector<DataCheck>> readDataChecks(const std::string &text);

/// What libopal_compiler provides.
class KernelCompiler {
public:
  virtual ~KernelCompiler() = default;
  /// Compiles `spec` for `key` (CPU), or loads it from the disk cache.
  virtual Expected<std::shared_ptr<const CompiledKernel>> compile(const CallSpec &spec,
                                                                  DispatchKey key) = 0;
  /// Parses and verifies an op-library text against the ops the dispatcher
  /// defines now; the error carries MLIR's diagnostics.
  virtual Expected<bool> checkLibraryText(const std::string &name,
                                          const std::string &text) = 0;
  /// The op-library text of the backward derived from `op`'s
  /// decomposition (Transforms' opal-derive-backward), or why there is none.
  virtual Expected<std::string> deriveBackward(const OperatorName &op) = 0;
  /// The disk cache key of the kernel `compile` would build for `spec` and
  /// `key` with this process's definitions (decomposing, not lowering); an
  /// error for a call that runs op by op or is refused.
  virtual Expected<std::string> cacheKeyOf(const CallSpec &spec, DispatchKey key) = 0;
};

/// Makes the decompositions of an op-library text known to the JIT (the
/// compiler reads them at its next compile). `opal.library.load` adds every
/// file it loads. Returns the text's id for removeOpLibraryText.
uint64_t addOpLibraryText(std::string name, std::string text);
/// Takes back an added text (its registrations were removed: a Library
/// destroyed): the next compile no longer sees its decompositions.
void removeOpLibraryText(uint64_t id);
/// The name of the last added text that holds a decomposition of `op`
/// ("" if none does): a kernel compiled through `op` then differs from the
/// one opal's built-in definitions give.
std::string addedDecompositionOf(const OperatorName &op);
/// A SHA-256 (hex) of what an added text makes of `op`: the op's schema
/// and the last added text that decomposes it; "" if no text does, or a
/// text that cannot be scanned (which may decompose anything) came later.
/// The warm-start index pins a user's op by it.
std::string addedDefinitionHash(const OperatorName &op);
/// Every text added (and not removed) so far, in order; `generation`
/// changes with every addition and removal, `removals` with removals.
std::vector<std::pair<std::string, std::string>> opLibraryTexts(uint64_t &generation,
                                                                uint64_t *removals = nullptr);

/// Installs the compiler (called by libopal_compiler's static initializer).
void installKernelCompiler(KernelCompiler *compiler);
/// Where libopal_compiler.so is (next to libopal.so); "" if unknown.
std::string compilerLibraryPath();
/// The compiler: loads libopal_compiler.so (next to libopal.so) on first
/// use. Fails with the loader's message if it cannot be loaded.
Expected<KernelCompiler *> kernelCompiler();

} // namespace opal::jit

#endif // OPAL_JIT_COMPILEDKERNEL_H
