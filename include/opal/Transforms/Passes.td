//===- Passes.td - opal's passes ---------------------------*- tablegen -*-===//

#ifndef OPAL_TRANSFORMS_PASSES_TD
#define OPAL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OpalLowerToLinalg : Pass<"opal-lower-to-linalg"> {
  let summary = "Lowers prims ops to linalg on tensors, tensor, arith and math";
  let description = [{
    Each elementwise prim (unary and binary math, comparisons, `where`,
    `convert_element_type`) becomes one `linalg.generic` over ranked tensors
    of one shape, writing into a `tensor.empty` whose dynamic sizes come from
    the first operand. A prim whose operands do not fit (unranked or
    different shapes, mixed or unsupported element types) is reported with
    the reason, and the pass fails.
  }];
  let options = [
    Option<"shiftedConvolutions", "shifted-convolutions", "bool", "false",
           "lower convolutions (strided ones through the padded input's "
           "phases) as matrix products over shifted rows of the padded "
           "input, and depthwise ones as one loop nest over it (for CPU "
           "kernels; no im2col columns)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def OpalDeriveShapeChecks : Pass<"opal-derive-shape-checks", "::mlir::func::FuncOp"> {
  let summary = "Records the size constraints a function's linalg ops assume of its arguments";
  let description = [{
    Runs on linalg on tensors (after opal-lower-to-linalg). A structured op
    reads each operand dim that its indexing maps send to a loop dim over
    that loop's whole range, so every such dim must equal the loop's size: a
    broadcast of two dynamic sizes, a matrix product's contracted dims. Each
    size is traced back to a function argument's dim or a constant (through
    `tensor.dim`, `tensor.empty`, `tensor.cast` and destination operands);
    each pair of sizes that is not the same is recorded, in program order, as
    a check in the function's `opal.shape_checks` attribute (the text of a
    kernel description's `checks:` field, with function argument numbers).
    The JIT checks them before every call, so a kernel never reads outside
    an input. The op named in a check is the one in the op's location
    (opal-decompose locates each body's ops at the op it defines).

    Before those, each `opal.assert` (an op's own `opal.check` whose
    condition is only known per call) becomes checks with its message, one
    per comparison of its condition, and is erased; a condition that is not
    made of `arith.cmpi`/`arith.andi` of traceable sizes is an error. Dims
    of `tensor.collapse_shape` and `tensor.expand_shape` results are traced
    too.
  }];
}

def OpalDeriveDataChecks : Pass<"opal-derive-data-checks", "::mlir::func::FuncOp"> {
  let summary = "Makes a function check, as it runs, the data its prims need (integer divisors)";
  let description = [{
    Runs on prims (after opal-decompose). Some conditions on a call's data
    cannot be checked before the call from its sizes: an integer division by
    zero must raise PyTorch's `ZeroDivisionError` instead of trapping. For
    each such prim (`prims.div`, `prims.fmod` and `prims.remainder` on
    integers; `prims.gather` and `prims.take`, whose index must be in
    [0, size): "index 5 is out of bounds for dimension 0 with size 3", with
    the first such index) and each `opal.data_check` an op's body made
    (erased here),
    the function gains results, its words `[found, values...]`, each a
    0-d int64 tensor: found is 1 if any element violates the condition (an
    or-reduction over the operand; for two dims or more, row by row right
    before the op and over the rows after it, so that opal-fuse-rows can
    run the check with the op it guards), the first value the element at
    the first violation in row-major order (a scan that runs only when
    there is one). The
    function's `opal.data_checks` attribute (the text of a kernel
    description's `data:` field) names the op and the message of each of
    these results, which are its last ones, in order. The JIT allocates them
    like outputs, reads them after the call and raises; they are never
    returned to the caller. The prims' own lowerings never trap (a zero
    divisor divides by one), so the kernel stays safe until the check raises.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def OpalBindRandomStreams : Pass<"opal-bind-random-streams", "::mlir::func::FuncOp"> {
  let summary = "Gives a function's random ops their seed and offsets as two arguments";
  let description = [{
    Runs on prims (after opal-decompose). Each `opal.random_stream` of the
    function, in program order, is stream k = 0, 1, ...: the function gains
    two i64 arguments after its others, the generator's seed and first
    offset, and stream k becomes (seed, offset + k). The function's
    `opal.random_streams` attribute records the number of streams, which a
    call reserves from its device's generator (Runtime/Generator.h) and
    passes as the two arguments. A function without random ops is left as
    it is.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def OpalDecompose : Pass<"opal-decompose", "::mlir::ModuleOp"> {
  let summary = "Replaces composite ops with their decomposition bodies";
  let description = [{
    Every op whose op library gives an `opal.decomposition` is replaced by a
    copy of the body, with the op's operands for the block arguments; the
    body's ops that are themselves composites are decomposed in turn, down to
    prims and to ops named in `legal-ops`. Tensor types of the body
    (`!opal.tensor`) are inferred from the operands of each use, prim by
    prim. Each decomposition is a rewrite pattern for its op, applied to a
    fixed point by the greedy driver; a decomposition that reaches itself is
    reported as a cycle, not expanded forever.

    The decompositions come from the op libraries opal-opt loaded
    (`--op-library`), the built-in libraries, and any `opal.library` in the
    input.
  }];
  let options = [
    ListOption<"legalOps", "legal-ops", "std::string",
               "ops to keep, by MLIR name (e.g. mylib.softplus)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

def OpalExpandShapesAsCasts : Pass<"opal-expand-shapes-as-casts"> {
  let summary = "Rewrites memref.expand_shape of dense buffers as memref.reinterpret_cast";
  let description = [{
    MLIR 22's `expand-strided-metadata` crashes on a `memref.expand_shape`
    that expands one dim into several of dynamic size. Run before it: an
    expand_shape whose source and result are in the identity layout becomes
    a `memref.reinterpret_cast` of the source at offset 0 with the output
    sizes and the strides of a dense buffer of those sizes.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def OpalVectorizeTransposes : Pass<"opal-vectorize-transposes", "::mlir::func::FuncOp"> {
  let summary = "Transposes buffers in tiles transposed in vector registers";
  let description = [{
    A `linalg.transpose` on buffers whose source and destination are dense
    along their last dims, where those dims differ (an NCHW input made
    channels last, the rows of a product made NCHW again), becomes a loop
    over the other dims (marked `opal.parallel`) around tiles of `lanes` x
    `lanes` elements: `lanes` vector loads of the source's rows, a transpose
    in registers by rounds of two-vector `vector.shuffle`s, and `lanes`
    vector stores of the destination's rows; the edges that do not fill a
    tile are copied element by element. A source whose last dim has a
    stride of 2 (a strided convolution's phase: every other pixel) is read
    through a view of its rows with a unit stride, a row of a tile one
    load of twice the lanes whose even lanes are kept. The inner loop of
    tiles walks along the side whose rows lie farther apart (compared per
    call from the strides), so those rows are read or written in order.
    Other transposes are left as they are. CPU pipeline, after
    bufferization.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", "8", "elements per tile side (a power of 2)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"];
}

def OpalHoistBroadcastWork : Pass<"opal-hoist-broadcast-work", "::mlir::func::FuncOp"> {
  let summary = "Computes a generic's work on a broadcast operand over that operand's dims";
  let description = [{
    In a `linalg.generic` on tensors, the ops of the body fed only by the
    inputs read through maps of the same loops, a set that drops a loop but
    keeps the innermost one (a per-column value of an [N, C] op: `(d0, d1)
    -> (d1)`, or `(d0, d1) -> (0, d1)` from a [1, C] operand), and by values
    from outside, when one of them is costly (a division, a remainder, a
    `math` op) or their results used by the rest of the body are fewer than
    the inputs they read, run in a generic of their own over those loops,
    whose results the generic then reads through the same loops. Batch
    norm's mean, `sum / n` per channel, fused by elementwise fusion into the
    variance's `(x - mean)^2` over [N, C], then divides once per channel
    instead of once per element; softmax over dim 0 takes one reciprocal
    per column; batch norm's `invstd * weight` and `bias - mean * invstd *
    weight` (four values read per element) become two per-channel values. (Work on per-row values, whose maps drop the innermost loop,
    is left to LLVM, which hoists it out of the inner loop.) CPU pipeline,
    on tensors, after elementwise fusion.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def OpalAccumulateProducts : Pass<"opal-accumulate-products", "::mlir::func::FuncOp"> {
  let summary = "Starts a matrix product from the tensor it is added to";
  let description = [{
    A `linalg.matmul` or `linalg.batch_matmul` on float tensors (f32, f64)
    into a zero-filled tensor, whose only use is a `linalg.generic` adding it
    elementwise to another tensor of its type (identity maps, a body of one
    `arith.addf`), becomes the product into that tensor, which computes
    `acc + A x B`; the addition goes. A sum of products (a recurrent layer's
    weight gradient, one product per time step) then accumulates in one
    buffer instead of writing every product's result for an addition to
    read again. CPU pipeline, on tensors, before elementwise fusion.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def OpalDropOverwrittenFills : Pass<"opal-drop-overwritten-fills", "::mlir::func::FuncOp"> {
  let summary = "Drops a fill that insert_slices overwrite entirely";
  let description = [{
    A `linalg.fill` on a tensor of static shape whose result flows through a
    chain of `tensor.insert_slice` ops (each the only use of the one before,
    with constant offsets and sizes and strides of 1) whose slices are
    disjoint and cover the whole tensor: the chain starts from the fill's
    destination instead and the fill goes. A cat or stack (a tensor of zeros
    with each part written into its slice) then writes each element once,
    and empty-tensor elimination can compute each part in its slice.
    On tensors, before bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def OpalRowsInOutputs : Pass<"opal-rows-in-outputs", "::mlir::func::FuncOp"> {
  let summary = "Computes a row loop's temporary row in the output row it becomes";
  let description = [{
    In a loop over rows of `opal-fuse-rows` (attribute `opal.rows`, after
    `convert-linalg-to-loops`) whose last pass writes a row of an output
    argument element by element from a temporary row read at the same index
    (softmax: the temporary's `exp(x - max)` times `1 / sum`), the
    temporary becomes that output row: the pass that computes it stores
    there, and the last pass reads its element back from there before it
    stores the result in its place. The temporary must be an allocation
    outside the row loop of the output's element type, used in it only
    element by element at the index of the loop that reads or writes it,
    stored by one pass before the last and read only after that pass, and
    nothing else in the row loop may read or write the output argument.
    The values computed do not change; the output's lines are fetched while
    the earlier pass computes, not by the last, light pass. CPU pipeline.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def OpalUnshareDestinations : Pass<"opal-unshare-destinations", "::mlir::func::FuncOp"> {
  let summary = "Gives each structured op its own fresh destination tensor";
  let description = [{
    A `tensor.empty`, or a `linalg.fill` of one, that several ops use (CSE
    merges identical ones: two sums of one shape start from one zero-filled
    tensor) is copied for each use but the first, right before it. Run
    before eliminate-empty-tensors, which would otherwise give the shared
    tensor one output's buffer and have one-shot bufferization write
    several results into it.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def OpalFuseElementwiseTrees : Pass<"opal-fuse-elementwise-trees", "::mlir::func::FuncOp"> {
  let summary = "Fuses trees of elementwise linalg.generic producers into their consumer at once";
  let description = [{
    Makes the fusions linalg-fuse-elementwise-ops makes by default (an
    all-parallel linalg.generic of one result into the linalg.generic that
    is that result's only use, in the same block, through permutation maps)
    for a whole tree of producers in one step, copying each op's body once:
    the upstream pass fuses pairs, copying the growing fused body each time,
    so a chain of N ops took time N^2. Producers whose body reads their
    output or the loop indices are left to the upstream pass, which runs
    after this one.

    First, an input that a generic of no inputs computes as one value
    defined outside it (a broadcast constant, which CSE may have made one
    op for many consumers, so that it fuses into none) is read as that
    value in the consumer's body; the upstream pass drops the input.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def OpalLowerUnsigned : Pass<"opal-lower-unsigned", "::mlir::func::FuncOp"> {
  let summary = "Lowers uint8 (ui8) prims onto signless i8 with PyTorch's unsigned semantics";
  let description = [{
    uint8 tensors are `ui8` from a call's signature through decomposition;
    MLIR's arithmetic takes signless integers only. Prims whose result bits
    do not depend on signedness (add, sub, mul, neg, bitwise ops, eq, ne,
    where, moves; sums and products into uint8) stay as they are. Every
    other prim over uint8 (division, remainder, comparisons, maxima,
    reductions into wider types, pooling, ...) computes on its uint8
    operands zero-extended to i32 and truncates its uint8 results back.
    `convert_element_type` from uint8 zero-extends; from a float to uint8 it
    goes through int64 and keeps the low byte, as PyTorch does. Then every
    `ui8` in the function (tensors, memrefs, its signature) becomes `i8` and
    every uint8 dtype operand (code 0) int8's (code 1). Ops other than prims
    that compute on uint8 are refused. Run before opal-lower-to-linalg.
  }];
  let dependentDialects = ["::opal::ir::OpalDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def OpalGuardEmptyLoops : Pass<"opal-guard-empty-loops", "::mlir::func::FuncOp"> {
  let summary = "Puts each bufferized structured op behind a test that its loops are not empty";
  let description = [{
    A bufferized structured op whose loop sizes are known only per call is
    moved into an `scf.if` that every such size is nonzero. Its loops then
    never run over an empty iteration space: a sum over a tensor of shape
    (2^62, 0) ran 2^62 empty iterations of its outer loop. Ops whose loop
    sizes are all constant are left alone. Run right before
    convert-linalg-to-loops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def OpalReshapeOutputsInPlace : Pass<"opal-reshape-outputs-in-place", "::mlir::func::FuncOp"> {
  let summary = "Computes a reshaped result in its output argument instead of copying it there";
  let description = [{
    A result computed in another shape than the kernel returns (group_norm
    normalizes [N, groups, C / groups, HxW] and returns [N, C, H, W])
    bufferizes to a fresh buffer, reshapes of it, and a `memref.copy` of
    them into the output argument. When that copy is the output argument's
    only use and nothing uses the buffer (or a view of it) after the copy
    but its deallocation, the buffer becomes the output argument seen in
    the buffer's shape (`memref.reinterpret_cast`, then `memref.cast` to
    the buffer's type: both are dense and row-major), and the copy, the
    reshapes and the deallocation go. The buffer may be an `scf.if` result
    whose branches each yield a fresh buffer of their own (paths chosen
    per call): each becomes the output argument. Such a result read
    through a cast to a strided layout is first copied into a fresh buffer
    for `memref.reshape`; when nothing writes that buffer after the copy
    and nothing reads the result after it, the reshapes read the result
    itself (the copy goes). Run after bufferization, on kernels whose
    results are written into output arguments.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def OpalDeriveBackward : Pass<"opal-derive-backward", "::mlir::ModuleOp"> {
  let summary = "Derives the backward of a decomposed op from the derivative formulas";
  let description = [{
    Appends to the module the op library `<ns>_backward` with one op, the
    derived backward of `op` (`ns::name[.overload]`): its arguments are the
    gradients of the op's tensor results (`grad`, or `grad<i>`) and the op's
    own arguments, its results the gradients of its tensor arguments, named
    after them. The body recomputes the op's decomposition (from the module
    or the loaded op libraries) and then runs it backwards: each op's
    gradient comes from its derivative formulas (the `aten_backward` ops the
    dispatcher knows), summed to each operand's shape and dtype with
    `opal.sum_to`, gradients that meet are added. The autograd engine
    registers the result as the op's formula, so the backward of a user's
    decomposition is one fused kernel. A decomposition with an op that has
    no formula for an operand that needs a gradient, or that branches
    (`opal.static_if`), is refused with the reason.
  }];
  let options = [
    Option<"op", "op", "std::string", "", "the op to derive, e.g. mylib::softplus">,
  ];
}

def OpalTruncateThroughF32 : Pass<"opal-truncate-through-f32"> {
  let summary = "Rounds f64 to a 16-bit float through f32, as PyTorch does";
  let description = [{
    Each `arith.truncf` from f64 (scalar or vector) to f16 or bf16 becomes a
    truncf to f32 and one from f32: PyTorch's conversion (c10::Half and
    c10::BFloat16 are made from a float), and no call to compiler-rt's
    `__truncdfbf2`, which this system's libgcc lacks.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def OpalExpandArith : Pass<"opal-expand-arith"> {
  let summary = "Expands the arith ops LLVM has no lowering for, keeping min and max";
  let description = [{
    Upstream `arith-expand` also rewrites `arith.maximumf`/`minimumf`/
    `maxnumf`/`minnumf` into compares and selects, which hides a max
    reduction (a row's max in softmax, `amax`) from LLVM's loop vectorizer:
    `amax` over rows of 1024 ran 12 times slower than a sum. This pass
    expands only what `convert-arith-to-llvm` cannot lower: `ceildivsi`,
    `ceildivui`, `floordivsi`, and bf16 conversions as integer arithmetic
    (LLVM would call compiler-rt's `__truncsfbf2`); min and max become
    LLVM's `maximum`/`minimum`/`maxnum`/`minnum` intrinsics, which it
    vectorizes.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def OpalApproximateMath : Pass<"opal-approximate-math"> {
  let summary = "Replaces f32 transcendental math ops with polynomial approximations";
  let description = [{
    `math.exp`, `math.log` and the other ops named in `ops` on f32 (scalars
    or vectors) become MLIR's polynomial approximations: plain arithmetic
    that LLVM vectorizes, instead of one libm call per element, so that
    elementwise kernels with exp/log/tanh/erf stay memory-bound (the
    approximations' fused multiply-adds become `llvm.intr.fma`). f64 and
    every op not listed keep their libm calls. The error bound per op is
    measured against numpy in python/test/test_jit_precision.py and stated in
    docs/jit.md. With `scalef` (the CPU pipeline on AVX-512 targets), f32
    exp applies its 2^n with `llvm.intr.ldexp`, which LLVM emits as
    `vscalefps` there (elsewhere it would be a libm call per element).
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "math ops to approximate, by name without the dialect "
               "(default: exp, expm1, log, log1p, log2, tanh, erf)">,
    Option<"scalef", "scalef", "bool", /*default=*/"false",
           "exp scales by 2^n with llvm.intr.ldexp (one vscalefps on AVX-512) "
           "instead of building 2^n's bits from a clamped n">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect", "::mlir::LLVM::LLVMDialect"];
}

def OpalCollapseElementwise : Pass<"opal-collapse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Runs elementwise nests over dense buffers as fewer, longer loops";
  let description = [{
    An elementwise linalg.generic on buffers (every loop parallel, no
    linalg.index, every operand dense: an identity layout) loops over
    every dim of its operands; consecutive loops that every operand reads
    as consecutive dims in the same order merge into one (memref
    collapse_shape of each operand, a generic over fewer dims). The
    innermost loop is then as long as the dims it merged: an optimizer's
    update of a [64, 64, 3, 3] weight is one loop of 36,864 elements that
    LLVM vectorizes, instead of loops whose innermost runs 3 times. A
    per-channel operand ([C] of an [N, C, H, W] batch norm) keeps the
    channel its own loop and merges H and W.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def OpalFuseRows : Pass<"opal-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "Runs a sequence of row-wise structured ops one row at a time";
  let description = [{
    A run of consecutive structured ops on buffers (between them only pure
    ops, allocations and reshapes) that share row loops (parallel loops of
    the same sizes, each indexing one dim of every buffer an op touches, or
    of an input no op of the run writes none or only some: a layer norm's
    weight, read whole, group_norm's, read by group), and that includes a
    reduction (softmax, log_softmax, normalizations: a row's max or sum,
    then elementwise ops that read it back with the row), becomes one loop
    over the rows whose body runs every op of the run on that row. Row
    loops are matched from op to op through the buffers the ops share and
    need not lead (batch norm's rows are its channels, dim 1); they never
    include the innermost loop of an op that has others (a column) and
    with `any-row-dims` off (the GPU's way) are leading loops indexing the
    same dims of every output. A row is then read from memory once and reused from the cache
    by the later ops, instead of each op streaming the whole tensor.
    Temporaries that only the run uses (an `exp(x - max)` buffer, a row's
    sum) shrink to one row, allocated once (unless `shrink-temporaries` is
    off: for the GPU, where every block works on a row of its own). The
    loop runs over the rows of all k leading dims at once and carries the
    unit attribute `opal.rows`, by which `opal-map-to-gpu` makes it one
    kernel with a block per row.

    Buffers are kernel arguments and allocations (so that no row of one
    is another row of a second), and reshapes of an argument nothing in
    the kernel writes (group_norm's [N, groups, C / groups x HxW]).

    In a row's body, an elementwise op whose result the next reduction
    reads element by element (softmax's `exp(x - max)`, then its sum) is
    merged into that reduction (`merge-into-reductions`): one loop computes
    the element, stores it and adds it up, instead of a second loop reading
    the row back.
  }];
  let options = [
    Option<"shrinkTemporaries", "shrink-temporaries", "bool", "true",
           "temporaries only the run uses shrink to one row">,
    Option<"mergeIntoReductions", "merge-into-reductions", "bool", "true",
           "an elementwise op merges into the reduction that reads its result">,
    Option<"mergeDenseLoops", "merge-dense-loops", "bool", "true",
           "loops of a row over dims dense together (a channel's H and W) run "
           "as one loop">,
    Option<"anyRowDims", "any-row-dims", "bool", "true",
           "rows may be of any parallel loops (batch norm's channels), not only "
           "the leading ones">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def OpalRecomputeElementwise : Pass<"opal-recompute-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuses an elementwise op into each of its consumers, computing it again in each";
  let description = [{
    Elementwise fusion (`linalg-fuse-elementwise-ops`) fuses a producer into
    its consumer only when the consumer is its one use; softmax's
    `exp(x - max)` has two (the row's sum and the division), so it is
    computed into a buffer the size of the input, written once and read
    twice. On a GPU, where that buffer lives in device memory, recomputing
    the exponential in both consumers is cheaper than the buffer: this
    pass fuses every all-parallel `linalg.generic` on tensors into each
    `linalg.generic` consumer (a `linalg.reduce` that reads one becomes a
    generic first), whatever its number of uses, when its
    payload is at most `max-ops` ops; a producer left without uses is
    erased. The CUDA pipeline runs it before bufferization; the CPU keeps
    the buffer, one row at a time in cache (`opal-fuse-rows`), and runs it
    with `single-use`: only producers of one use fuse, whatever their
    payload, so nothing is computed twice, but a reduction that reads an
    elementwise result (batch norm's squared differences, over a matrix
    whose channels are its contiguous dim) computes it as it reads it.
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", "16",
           "the most ops a producer's payload may have to be computed again">,
    Option<"singleUse", "single-use", "bool", "false",
           "fuse only producers with one use, whatever their payload: nothing "
           "is computed twice, but a reduction reading an elementwise result "
           "(batch norm's squared differences) computes it as it reads (the CPU's way)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def OpalTileMatmul : Pass<"opal-tile-matmul", "::mlir::ModuleOp"> {
  let summary = "Tiles matrix products on buffers for CPU caches and registers";
  let description = [{
    Each `linalg.matmul` and `linalg.batch_matmul` on memrefs becomes loops
    for the CPU. When A, B and C are dense row-major f32 or f64 buffers with
    the standard indexing, the loops walk blocks of `tile-k` rows by
    `tile-n` columns of B, each first copied row by row into one buffer
    (allocated once per product) as panels one vector wide, so that it is
    read contiguously and stays in the L2 cache; in each block register
    tiles of C: `tile-m` rows by `tile-vectors` `vector-bytes` vectors of
    columns, accumulated in registers while k runs (per k: one vector load
    of B per vector, one broadcast of A per row, one `vector.fma` per row
    and vector). Columns past the matrix's edge are masked; the last rows
    run as tiles of the powers of two below `tile-m` rows, each where that
    many rows are left, then of one row. B may be given transposed (indexing maps
    B[j, k], linear's weight): its blocks are packed into the same panels
    by opal's runtime, a call per panel (`opal_pack_panel_f32`/`_f64`,
    Runtime/Packing.h, declared in the module: hence a module pass), whose
    transposes are compiled once rather than in every kernel. With
    `direct-rows` N, a product of B in rows whose call has at most N rows
    (tested per call) skips the packing: its tiles read B in place (a
    select between B's base buffer and the panels), since for a few rows
    the copy costs as much as the sums.

    Where the product's sums start is taken from its neighbours: a
    `linalg.fill` of C right before it goes, and the register tiles of the
    first block of k start from the fill's value instead of loading C; a
    temporary C (an alloc) filled, multiplied into and then added to a
    bias along its columns into D right after (`D[i, j] = C[i, j] +
    bias[j]`: linear, addmm) becomes a product written into D whose first
    block starts from the bias's vectors (the addition and the temporary
    go). The blocks of k then run at least once, so an empty reduction
    still writes the start.

    A product that is the only op touching memory in an `scf.for` of step 1
    (a convolution's loop over kernel positions, its A and B views of the
    loop's index) takes the loop inside its register tiles: every
    iteration's block of B is packed at its own offset in one buffer, and
    each tile sums every iteration's product in registers, loading and
    storing C once; the fill before the loop, if any, is where the tiles
    start.

    Other products (integer or mixed element types, strided buffers) become
    a `linalg.generic` whose loops run (batch,) row, reduction, column, so
    the innermost loop walks rows of B and C contiguously, with the
    reduction and column loops tiled by `tile-k` and `tile-n`.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "8", "rows of C in registers">,
    Option<"tileVectors", "tile-vectors", "int64_t", "1",
           "vectors of columns of C in registers">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "64",
           "bytes of a row of C in registers (one AVX-512 vector)">,
    Option<"tileK", "tile-k", "int64_t", "256", "reduction tile size">,
    Option<"tileN", "tile-n", "int64_t", "512", "column tile size">,
    Option<"directRows", "direct-rows", "int64_t", "0",
           "products of at most this many rows (per call) read B in place, unpacked "
           "(0: always packed)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect",
                           "::mlir::func::FuncDialect"];
}

def OpalTileDepthwise : Pass<"opal-tile-depthwise", "::mlir::func::FuncOp"> {
  let summary = "Register tiles for sums of products over a window (depthwise convolutions)";
  let description = [{
    A `linalg.generic` on buffers that computes `out += x * w` (one
    `arith.mulf`, one `arith.addf`; f32 or f64, one element type) where the
    output's map is a projected permutation of the parallel loops, the other
    loops reduce, x's last index moves by one with the output's last dim
    (and no other index of x does), w does not depend on that dim, and x's
    and the output's last dims are dense: a depthwise or grouped
    convolution (opal-lower-to-linalg's loops (n, g, f, c, k..., o...) over
    the padded input and the weight). Lowered to loops as is, each reduction
    point (channel, kernel position) would be a pass over a row of outputs
    that loads and stores each of them. Instead: register tiles of
    `tile-rows` rows (the output's next-to-last dim) by `tile-vectors`
    vectors of `vector-bytes` bytes of its last dim, each summing every
    reduction point in registers, in the generic's order (per point, one
    broadcast of w per row and one vector load of x and one `vector.fma`
    per row and vector), and stored once. Loads and stores are masked to
    the columns that exist (a row's last tile may have fewer); rows that do
    not fill a tile run as tiles of one row. The output's other dims are one
    loop over their points, marked `opal.parallel` (opal-parallelize). A `linalg.fill` of the output right
    before the generic goes: the tiles start from its value.
  }];
  let options = [
    Option<"tileRows", "tile-rows", "int64_t", "4", "rows of the output in registers">,
    Option<"tileVectors", "tile-vectors", "int64_t", "2",
           "vectors of each row of the output in registers">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "64",
           "bytes of one vector (one AVX-512 register)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def OpalParallelize : Pass<"opal-parallelize", "::mlir::ModuleOp"> {
  let summary = "Splits a bufferized kernel's loop nests over OpenMP threads";
  let description = [{
    Each nest that may split moves into a function of the range it runs
    (`<kernel>_part`, marked `opal.parallel_part`), and in its place the
    kernel calls `opal_parallel_begin(work)` (the threads the runtime grants
    for the nest's work: the product of its loop sizes) and then either
    calls that function on the whole range (one thread) or, in an
    `omp.parallel` region of that many threads, thread t on the t-th of as
    many contiguous parts of the range as the runtime says run parts
    (`opal_parallel_thread()`, `opal_parallel_team()`: the runtime's fork
    may give the team more threads, which run none);
    `opal_parallel_end(work, threads)` after (before the call, where it
    runs on one thread). A loop forks no more threads than it has
    iterations. A loop marked `opal.parallel`
    may say what one iteration does (`opal.parallel_work`, a positive
    number of elements; anything else is an error), which then makes the
    nest's work.

    Nests that split: a linalg op at the top of a function or in the
    branches of `scf.if`s there (a choice made per call; not in a loop),
    along its first
    parallel loop that every operand indexes by that loop alone (or not at
    all) and that is not of static size 1, else along its first such
    reduction loop when each output's body is one combining op with a
    neutral element (`arith.addf`, `arith.maxnumf`, `arith.ori`, ...): each
    thread reduces into a private partial output that starts neutral, and
    the partials are combined into the output in thread order (the same
    result for the same thread count). And an `scf.for` marked
    `opal.parallel`, whose iterations are independent: buffers allocated
    before it and used only inside it become each thread's own; marked
    loops inside it split too (inner ones first), and take the threads
    where it runs on one (a batch of one image). Nests whose
    sizes are all static and whose work is below twice the runtime's grain
    stay as they are.
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect", "::mlir::scf::SCFDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}

def OpalFreeAtLastUse : Pass<"opal-free-at-last-use", "::mlir::func::FuncOp"> {
  let summary = "Frees each temporary buffer right after its last use";
  let description = [{
    The ownership-based buffer deallocation of MLIR puts a block's
    deallocations at its end: a kernel of a whole model held every
    temporary until it returned (ConvNeXt-tiny at batch 16: 1 GiB of
    buffers, each page of it faulted in fresh at the first call, and what
    outgrew the caching allocator's limit at every call). This pass moves
    each `memref.dealloc` of a `memref.alloc` in the same block to just
    after the op of that block that last uses the buffer or a value that
    may alias it (a view, a cast, any memref result of an op that takes
    it, followed transitively; a use inside an op's regions counts as a use
    of that op). A buffer that a terminator yields, or that an op forwards
    into its regions (an `scf.for` iteration argument), keeps its
    deallocation where it is. Freed earlier, a buffer's memory serves the
    next allocation of its size class while it is still in cache.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def OpalPlanBuffers : Pass<"opal-plan-buffers", "::mlir::func::FuncOp"> {
  let summary = "Places a function's temporary buffers in one allocation, sharing memory between buffers not live at once";
  let description = [{
    Each temporary of a kernel was an allocation of its own from the
    caching allocator, which reuses a freed block only for a request of the
    same size class: a kernel of a whole model (ConvNeXt-tiny at batch 16:
    270 temporaries of 30 sizes) held a block per size class and live
    buffer, about 1.5 GiB, each page of it faulted in and zeroed at the
    first call (0.2 s of it), and as much kept in the cache afterwards.
    This pass gives the temporaries of a function's body that it can see
    whole one buffer (an `i8` allocation, 64-byte aligned), each a
    `memref.view` of it at an offset chosen at compile time, two buffers
    sharing memory only where their lives do not overlap. A candidate is a
    `memref.alloc` in the function's entry block of static sizes (at most
    1 TiB: a larger one is the allocator's to refuse), identity layout and
    a numeric element type, freed by one `memref.dealloc` in
    that block, with every use of it or of a value that may alias it (a
    view, a cast, any memref result of an op that takes it, followed
    transitively; a use inside an op's regions counts as a use of that op)
    between the two, none a terminator's or an op's that forwards it into
    its regions. Its life is the ops from its allocation to its
    deallocation (opal-free-at-last-use puts that after its last use).
    Offsets go largest buffer first, each to the lowest 64-byte aligned
    offset that overlaps no placed buffer whose life overlaps its own. The
    shared buffer is allocated first and freed before the terminator.
    After opal-outline-nests and opal-parallelize: those take a nest's
    buffers as whole allocations (each thread's scratch, the arguments of
    equal nests), and their own allocations (inside regions) stay.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def OpalOutlineNests : Pass<"opal-outline-nests", "::mlir::ModuleOp"> {
  let summary = "Moves a kernel's loop nests into functions and merges the equal ones";
  let description = [{
    A kernel of many layers (a transformer's blocks, a CNN's repeated
    stages) holds the same loop nests once per layer: lowered, optimized
    and compiled once per layer. After opal-parallelize, each nest left in
    a kernel's function (a linalg op on buffers, an `scf.for` without
    results, or opal-parallelize's `scf.if` that runs a part in an
    `omp.parallel` region or on one thread; at the function's top or in
    another `scf.if` there) moves into a
    private function of the values it uses (`<kernel>_part_<n>`, marked
    `opal.parallel_part` like opal-parallelize's parts), and the kernel
    calls it. As for opal-parallelize's parts, constants and views (subview,
    reshapes, casts, dims) are cloned into the function, so every buffer it
    takes is a whole one: an argument of the kernel's function, an
    allocation or a global (a nest that would take anything else stays in
    place). No two of its buffer arguments then overlap, which lets LLVM
    vectorize its loops without alias checks.

    Then every outlined function (these and opal-parallelize's parts) whose
    body and type equal those of an earlier one is replaced by it at its
    calls and erased, in rounds until none is (functions that call parts
    are equal once those parts are merged): one copy per distinct nest,
    and one parallel region per distinct part, is left to lower and
    compile. A function of this pass that is then called only once goes
    back inline: a kernel of one nest compiles as before.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def OpalMapToGpu : Pass<"opal-map-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Maps linalg ops on buffers to gpu.launch kernels";
  let description = [{
    Every linalg op of a bufferized function becomes one `gpu.launch`, and
    the function becomes host code: its `memref.alloc`/`dealloc` become
    `gpu.alloc`/`gpu.dealloc`.

    An all-parallel op runs one thread per element of its iteration space,
    flattened onto a 1-D grid of `block-size`-thread blocks (guarded at the
    end); each thread loads its operands through their indexing maps, runs
    the payload and stores its outputs. When every operand is a contiguous
    buffer indexed by the identity and known to start at a 16-byte boundary
    (a function argument with `opal.align = 16` or more, or a buffer the
    function allocates), each thread takes 16 bytes' worth of elements: one
    `vector.load`/`vector.store` with alignment 16 per buffer (128-bit
    accesses in PTX), the payload once per lane, and a scalar loop for the
    last, partial group. An op whose buffers are not all indexed by the
    identity but all run contiguously along its last dim (row broadcasts)
    does the same per row: vector accesses for the buffers read along the
    row, one load per thread for the others, when the row length is a
    multiple of the lane count (checked at run time). A reduction runs one block per
    point of its parallel dims, a warp per 256 elements reduced (32 at
    most): every thread folds a strided share of the reduction space with
    the payload's combiner, 8 loads issued before the 8 folds,
    `gpu.all_reduce` combines the threads of the block, and thread 0 folds
    that into the output (or into the value of a fill of the output that
    comes right before the reduction: the fill then needs no kernel of its
    own). A payload whose combiner is not a single add/mul/min/max/and/or/xor
    on f32, f64, i32 or i64 (argmax, say) runs serially in one thread per
    block. Empty grids are not launched.

    A loop over rows (`opal.rows`) is one kernel of a block per row. When
    each of its ops reads and writes whole rows (indexed by its one loop) or
    one value per row, rows of up to 8192 elements run with the row in
    registers: a warp per 256 elements, each thread loading its 8 elements
    once and keeping them, and every value an op computes, for the ops
    after it (a reduction's result from `gpu.all_reduce` in every thread).
    Longer rows, and loops of other ops, take a kernel whose threads run
    the ops in turn with a barrier after each.

    What else touches buffers on the host (a scatter's ordered loop, or its
    body when a loop of one iteration folded away) runs in one GPU thread;
    a value it computes that a later kernel reads is loaded again there
    when nothing writes its buffer in between.

    Functions named in `host-functions` are left alone (the JIT's shape
    function only reads sizes). Anything left that touches memory on the
    host is reported and the pass fails.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "threads per block (a multiple of 32, at most 1024)">,
    ListOption<"hostFunctions", "host-functions", "std::string",
               "functions to leave on the host (default: opal_kernel_shapes)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::ub::UBDialect",
                           "::mlir::vector::VectorDialect"];
}

def OpalMergeGpuModules : Pass<"opal-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Moves every outlined kernel into one gpu.module";
  let description = [{
    After `gpu-kernel-outlining`, which gives every launch its own
    `gpu.module`, the kernels move into the first module, renamed `name`,
    and every `gpu.launch_func` is redirected; a kernel whose name is taken
    gets a fresh one. One op's kernels then compile into one binary that
    the runtime loads once.
  }];
  let options = [
    Option<"moduleName", "name", "std::string", "\"opal_kernels\"",
           "the name of the merged gpu.module">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def OpalPrintGpuObjects : Pass<"opal-print-gpu-objects", "::mlir::ModuleOp"> {
  let summary = "Prints the objects of every gpu.binary (PTX text, or sizes)";
  let description = [{
    For each object of each `gpu.binary`: a `//` comment line with the
    binary's name, the target and the format, then the object: the text for
    `isa` (PTX) and `llvm`, the size in bytes for `bin` and `fatbin`. The
    output of one binary with one PTX object is a PTX file `ptxas` accepts.
    The IR is unchanged.
  }];
}

def OpalGpuHostToLlvm : Pass<"opal-gpu-host-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lowers the host side of CUDA kernels to the LLVM dialect and opal's CUDA runtime";
  let description = [{
    Runs after `gpu-module-to-binary` on a module with one `gpu.binary`:
    the host functions (func, arith, cf, memref, ub) become the LLVM
    dialect, and the GPU operations become calls into opal's CUDA runtime
    (include/opal/CUDA/Launch.h), which loads the binary once per device
    and launches on the device's current stream:
    - `gpu.launch_func @m::@k` becomes `opal_cuda_launch(module, index,
      grid x y z, block x y z, dynamic shared bytes, params)`: `params`
      points to one pointer per kernel parameter, memref descriptors
      exploded as the kernel's own signature has them; `index` is `k`'s
      position in the module attribute `opal.gpu_kernels`, which this pass
      writes; `module` is read from the global `opal_gpu_module`, which the
      runtime sets when it links the host code.
    - `gpu.alloc` becomes `opal_cuda_alloc(bytes)` (the caching device
      allocator), `gpu.dealloc` becomes `opal_cuda_free(pointer)`.
    Asynchronous forms, host-shared allocations and clusters are refused.
    The `gpu.binary` stays for the compiler to take out.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // OPAL_TRANSFORMS_PASSES_TD
