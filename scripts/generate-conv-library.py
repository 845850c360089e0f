#!/usr/bin/env python3
"""Writes lib/Library/aten-conv.opal.mlir (aten.convolution and its
CompositeImplicit forms). The decomposition language has no loops, and
opal.data_check messages take scalar values only, so the size checks of
1-, 2- and 3-d convolutions are spelled out per rank; this script writes
them once. Edit it, not the .opal.mlir file, and run

    /usr/bin/python3 scripts/generate-conv-library.py > lib/Library/aten-conv.opal.mlir

(test_builtin_libraries.py checks that the file is this script's output).
"""

T = "!opal.tensor"
L = "!opal.list<i64>"
out = []


def e(line, ind=4):
    out.append(" " * ind + line)


HEAD = """// The aten library, continued: convolutions. aten.convolution checks its
// arguments as PyTorch 1.13 does (opal.conv_params for the int lists, the
// sizes per call: simple comparisons before the kernel, those that need
// arithmetic as data checks after it, with PyTorch's messages, a 1-d
// convolution's showing the height 1 that PyTorch's kernels add), then is
// prims.conv or prims.conv_transpose (a batched matrix product, see
// lib/Transforms/ConvolutionToLinalg.cpp) plus the bias. The dtypes are
// those of PyTorch 1.13's CPU kernels: no float16 or bool; a dilated
// convolution takes float32, float64, bfloat16 and int64, a transposed one
// float32, float64 and int64. conv1d/2d/3d and conv_transpose1d/2d/3d are
// CompositeImplicit, as in PyTorch: an unbatched input is a batch of one.
// An input of 0 channels gives an output of 0 channels, as PyTorch's empty
// convolution does (its kernel is specialized on that size 0).
// Written by scripts/generate-conv-library.py (the per-rank checks): edit
// that script and run it, not this file.
opal.library "aten" {
  opal.def "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor"
  opal.decomposition "convolution" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %transposed: i1, %output_padding: !opal.list<i64>, %groups: i64):
    %yes = arith.constant true
    %none = opal.none
    %s, %p, %d, %op = opal.conv_params %weight, %stride, %padding, %dilation, %output_padding, %groups, %transposed : !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64, i1 -> !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>
    %ws = opal.shape_of %weight : !opal.tensor -> !opal.list<i64>
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %wr = opal.list_len %ws : !opal.list<i64> -> i64
    %ir = opal.list_len %is : !opal.list<i64> -> i64
    %same_rank = arith.cmpi eq, %ir, %wr : i64
    opal.check %same_rank, "Expected {0}-dimensional input for {1}-dimensional weight [{2}], but got {3}-dimensional input of size [{4}] instead" (%wr, %wr, %ws, %ir, %is : i64, i64, !opal.list<i64>, i64, !opal.list<i64>)
    %w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
    %enough = arith.cmpi sge, %w0, %groups : i64
    opal.check %enough, "Given groups={0}, expected weight to be at least {1} at dimension 0, but got weight of size [{2}] instead" (%groups, %groups, %ws : i64, i64, !opal.list<i64>)
    %ic = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %wc = opal.dtype_of %weight, %none : !opal.tensor, !opal.none -> i64
    %same = arith.cmpi eq, %ic, %wc : i64
    opal.check %same, "Input type ({0:ctype}) and weight type ({1:ctype}) should be the same" (%ic, %wc : i64, i64)
    %no_bias = opal.is_none %bias : !opal.tensor -> i1
    %empty = opal.has_static_size %input, 1, 0 : !opal.tensor -> i1
    %no_bias_added = arith.ori %no_bias, %empty : i1
    opal.static_if %no_bias {
      opal.yield
    } else {
      %bc = opal.dtype_of %bias, %none : !opal.tensor, !opal.none -> i64
      %bias_same = arith.cmpi eq, %ic, %bc : i64
      opal.check %bias_same, "Input type ({0:ctype}) and bias type ({1:ctype}) should be the same" (%ic, %bc : i64, i64)
      opal.yield
    }
    %y = opal.static_if %transposed -> !opal.tensor {
      %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %channels, %w0 : i64
      opal.check %fits, "Given transposed=1, weight of size [{0}], expected input[{1}] to have {2} channels, but got {3} channels instead" (%ws, %is, %w0, %channels : !opal.list<i64>, !opal.list<i64>, i64, i64)
      opal.static_if %no_bias {
        opal.yield
      } else {
        %bs = opal.shape_of %bias : !opal.tensor -> !opal.list<i64>
        %vector = opal.has_rank %bias, 1 : !opal.tensor -> i1
        %w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
        %wf = arith.muli %w1, %groups : i64
        opal.check %vector, "Given transposed=1, weight of size [{0}], expected bias to be 1-dimensional with {1} elements, but got bias of size [{2}] instead" (%ws, %wf, %bs : !opal.list<i64>, i64, !opal.list<i64>)
        opal.yield
      }
"""

TRANSPOSED_TAIL = """      %t = prims.conv_transpose %input, %weight, %s, %p, %d, %op, %groups : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %t : !opal.tensor
    } else {
      opal.static_if %no_bias {
        opal.yield
      } else {
        %bs = opal.shape_of %bias : !opal.tensor -> !opal.list<i64>
        %one_f = opal.list %w0 : i64 -> !opal.list<i64>
        %bias_fits = opal.list_eq %bs, %one_f : !opal.list<i64>, !opal.list<i64> -> i1
        opal.check %bias_fits, "Given weight of size [{0}], expected bias to be 1-dimensional with {1} elements, but got bias of size [{2}] instead" (%ws, %w0, %bs : !opal.list<i64>, i64, !opal.list<i64>)
        opal.yield
      }
"""

TAIL = """      // An input of 0 channels gives 0 channels, whatever the weight's count
      // (PyTorch's empty convolution): the key holds that size 0, so the
      // kernel of such a call convolves with none of the weight's filters.
      %c = opal.static_if %empty -> !opal.tensor {
        %e0 = arith.constant 0 : i64
        %e1 = arith.constant 1 : i64
        %none_f = prims.slice_in_dim %weight, %e0, %e0, %e1, %e0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
        %e = prims.conv %input, %none_f, %s, %p, %d, %groups : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> !opal.tensor
        opal.yield %e : !opal.tensor
      } else {
        %f = prims.conv %input, %weight, %s, %p, %d, %groups : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> !opal.tensor
        opal.yield %f : !opal.tensor
      }
      opal.yield %c : !opal.tensor
    }
    // The bias along dim 1 (none on an empty convolution's 0 channels).
    %r = opal.static_if %no_bias_added -> !opal.tensor {
      opal.yield %y : !opal.tensor
    } else {
      %ys = opal.shape_of %y : !opal.tensor -> !opal.list<i64>
      %c1 = arith.constant 1 : i64
      %at = opal.list %c1 : i64 -> !opal.list<i64>
      %b = prims.broadcast_in_dim %bias, %ys, %at : (!opal.tensor, !opal.list<i64>, !opal.list<i64>) -> !opal.tensor
      %a = prims.add %y, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %a : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
"""


def dims(prefix, var, rank, ind):
    names = []
    for d in range(rank):
        n = f"%{prefix}{d}"
        e(f"{n} = opal.dim_size {var}, {d} : {T} -> i64", ind)
        names.append(n)
    return names

def data_check(cond, msg, values, ind, tag):
    e(f"%{tag}_t = opal.promote {cond} : i1 -> {T}", ind)
    vals = ", ".join(values)
    e(f'opal.data_check %{tag}_t, "{msg}" ({vals}) : {T}', ind)

def saturating_mul(name, a, b, ind):
    """%name = a * b for a, b >= 0, or INT64_MAX where the product
    overflows: a kernel extent of dilation 2^62 is too big, not negative."""
    e(f"%{name}x:2 = arith.mulsi_extended {a}, {b} : i64", ind)
    e(f"%{name}c63 = arith.constant 63 : i64", ind)
    e(f"%{name}sg = arith.shrsi %{name}x#0, %{name}c63 : i64", ind)
    e(f"%{name}ov = arith.cmpi ne, %{name}x#1, %{name}sg : i64", ind)
    e(f"%{name}max = arith.constant 9223372036854775807 : i64", ind)
    e(f"%{name} = arith.select %{name}ov, %{name}max, %{name}x#0 : i64", ind)


def saturating_add(name, a, b, ind):
    """%name = a + b for a, b >= 0, or INT64_MAX where the sum overflows."""
    e(f"%{name}s = arith.addi {a}, {b} : i64", ind)
    e(f"%{name}ov = arith.cmpi slt, %{name}s, {a} : i64", ind)
    e(f"%{name}max = arith.constant 9223372036854775807 : i64", ind)
    e(f"%{name} = arith.select %{name}ov, %{name}max, %{name}s : i64", ind)


def seq(n, start=0):
    return ", ".join("{%d}" % (start + i) for i in range(n))

def any_of(conds, ind, tag):
    acc = conds[0]
    for i, c in enumerate(conds[1:]):
        e(f"%{tag}_or{i} = arith.ori {acc}, {c} : i1", ind)
        acc = f"%{tag}_or{i}"
    return acc

DIRECT_NAME = {1: "slow_conv2d_cpu", 2: "slow_conv2d_cpu", 3: "compute_columns3d"}
TRANSPOSED_NAME = {1: "slow_conv_transpose2d_out_cpu", 2: "slow_conv_transpose2d_out_cpu",
                   3: "slow_conv_transpose3d_out_cpu"}

def dtype_check(codes_ok, name, ind, tag):
    # codes_ok: list of allowed ScalarType codes
    conds = []
    for c in codes_ok:
        e(f"%{tag}_k{c} = arith.constant {c} : i64", ind)
        e(f"%{tag}_is{c} = arith.cmpi eq, %ic, %{tag}_k{c} : i64", ind)
        conds.append(f"%{tag}_is{c}")
    ok = any_of(conds, ind, tag)
    e(f'opal.check {ok}, "\\"{name}\\" not implemented for \'{{0:dtype}}\'" (%ic : i64)', ind)

def spatial_branch(S, transposed, ind):
    r = S + 2
    t = f"{'t' if transposed else 'd'}{S}"
    ws = dims(f"{t}w", "%weight", r, ind)
    xs = dims(f"{t}x", "%input", r, ind)
    st = [f"%{t}s{i}" for i in range(S)]
    pd = [f"%{t}p{i}" for i in range(S)]
    dl = [f"%{t}d{i}" for i in range(S)]
    op = [f"%{t}o{i}" for i in range(S)]
    for i in range(S):
        e(f"{st[i]} = opal.list_item %s, {i} : {L} -> i64", ind)
        e(f"{pd[i]} = opal.list_item %p, {i} : {L} -> i64", ind)
        e(f"{dl[i]} = opal.list_item %d, {i} : {L} -> i64", ind)
        if transposed:
            e(f"{op[i]} = opal.list_item %op, {i} : {L} -> i64", ind)
    # PyTorch 1.13 runs a 1-d convolution as a 2-d one of height 1: its
    # kernels' messages show that height.
    one = f"%{t}one"
    e(f"{one} = arith.constant 1 : i64", ind)
    zero = f"%{t}zero"
    e(f"{zero} = arith.constant 0 : i64", ind)
    lead = [one] if S == 1 else []
    wshape = ", ".join("{%d}" for _ in ws)
    # dilated: any dilation > 1 (a constant per use)
    ones = ", ".join([one] * S)
    e(f"%{t}ones = opal.list {ones} : {', '.join(['i64'] * S)} -> {L}", ind)
    e(f"%{t}undilated = opal.list_eq %d, %{t}ones : {L}, {L} -> i1", ind)
    if not transposed:
        # groups divides the weight's first dim, and the input has its channels.
        e(f"%{t}rem = arith.remsi {ws[0]}, %groups : i64", ind)
        e(f"%{t}indivisible = arith.cmpi ne, %{t}rem, {zero} : i64", ind)
        data_check(f"%{t}indivisible",
                   "Given groups={0}, expected weight to be divisible by {0} at dimension 0, but got weight of size [[" + seq(r, 1) + "]] instead",
                   ["%groups"] + ws, ind, f"{t}div")
        e(f"%{t}want = arith.muli {ws[1]}, %groups : i64", ind)
        e(f"%{t}short = arith.cmpi ne, {xs[1]}, %{t}want : i64", ind)
        data_check(f"%{t}short",
                   "Given groups={0}, weight of size [" + seq(r, 1) + "], expected input[" + seq(r, 1 + r) + "] to have {%d} channels, but got {%d} channels instead" % (1 + 2 * r, 2 + 2 * r),
                   ["%groups"] + ws + xs + [f"%{t}want", xs[1]], ind, f"{t}ch")
    else:
        # The bias has groups x the weight's second dim elements.
        e(f"%{t}nobias = opal.is_none %bias : {T} -> i1", ind)
        e(f"opal.static_if %{t}nobias {{", ind)
        e("opal.yield", ind + 2)
        e(f"}} else {{", ind)
        e(f"%{t}b0 = opal.dim_size %bias, 0 : {T} -> i64", ind + 2)
        e(f"%{t}fb = arith.muli {ws[1]}, %groups : i64", ind + 2)
        e(f"%{t}badbias = arith.cmpi ne, %{t}b0, %{t}fb : i64", ind + 2)
        data_check(f"%{t}badbias",
                   "Given transposed=1, weight of size [" + seq(r) + "], expected bias to be 1-dimensional with {%d} elements, but got bias of size [{%d}] instead" % (r, r + 1),
                   ws + [f"%{t}fb", f"%{t}b0"], ind + 2, f"{t}bias")
        e("opal.yield", ind + 2)
        e(f"}}", ind)
    # Kernel sizes: none zero.
    kconds = []
    for i in range(S):
        e(f"%{t}kz{i} = arith.cmpi eq, {ws[2 + i]}, {zero} : i64", ind)
        kconds.append(f"%{t}kz{i}")
    kz = any_of(kconds, ind, f"{t}kz")
    ks = ws[2:]
    if S == 3:
        if transposed:
            # PyTorch 1.13's slow_conv_transpose3d checks the whole weight.
            e(f"%{t}f0 = arith.cmpi eq, {ws[1]}, {zero} : i64", ind)
            e(f"%{t}wempty = arith.ori {kz}, %{t}f0 : i1", ind)
            data_check(f"%{t}wempty",
                       "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x kernel_width) tensor expected for weight, but got: [" + seq(r) + "]",
                       ws, ind, f"{t}kernel")
        else:
            data_check(kz, "kernel size should be greater than zero, but got: {0} x {1} x {2} (TxHxW)",
                       ks, ind, f"{t}kernel")
    else:
        if transposed:
            e(f"%{t}f0 = arith.cmpi eq, {ws[1]}, {zero} : i64", ind)
            wshown = [ws[0], ws[1]] + lead + ks
            data_check(f"%{t}f0", "non-empty 2D or 4D weight tensor expected, but got: [{0}, {1}, {2}, {3}]",
                       wshown, ind, f"{t}wempty")
        shown = lead + ks
        data_check(kz, "kernel size should be greater than zero, but got kernel_height: {0} kernel_width: {1}",
                   shown, ind, f"{t}kernel")
    # Spatial input dims: none empty unless the batch or the channels are.
    e(f"%{t}n0 = arith.cmpi ne, {xs[0]}, {zero} : i64", ind)
    e(f"%{t}c0 = arith.cmpi ne, {xs[1]}, {zero} : i64", ind)
    e(f"%{t}filled = arith.andi %{t}n0, %{t}c0 : i1", ind)
    econds = []
    for i in range(S):
        e(f"%{t}ez{i} = arith.cmpi eq, {xs[2 + i]}, {zero} : i64", ind)
        econds.append(f"%{t}ez{i}")
    ez = any_of(econds, ind, f"{t}ez")
    e(f"%{t}hollow = arith.andi %{t}filled, {ez} : i1", ind)
    if transposed:
        data_check(f"%{t}hollow", "Only zero batch or zero channel inputs are supported, but got input shape: [" + seq(r + len(lead)) + "]",
                   xs[:2] + lead + xs[2:], ind, f"{t}hollow")
    if not transposed:
        # padded input size and kernel extent per spatial dim
        padded, extent, cs = [], [], []
        for i in range(S):
            e(f"%{t}pp{i} = arith.addi {pd[i]}, {pd[i]} : i64", ind)
            e(f"%{t}ip{i} = arith.addi {xs[2 + i]}, %{t}pp{i} : i64", ind)
            e(f"%{t}km{i} = arith.subi {ws[2 + i]}, {one} : i64", ind)
            saturating_mul(f"{t}kd{i}", f"%{t}km{i}", dl[i], ind)
            saturating_add(f"{t}ke{i}", f"%{t}kd{i}", one, ind)
            e(f"%{t}lt{i} = arith.cmpi slt, %{t}ip{i}, %{t}ke{i} : i64", ind)
            padded.append(f"%{t}ip{i}"); extent.append(f"%{t}ke{i}"); cs.append(f"%{t}lt{i}")
        big = any_of(cs, ind, f"{t}big")
        fmt_p = " x ".join("{%d}" % i for i in range(S))
        fmt_k = " x ".join("{%d}" % (S + i) for i in range(S))
        data_check(big, f"Calculated padded input size per channel: ({fmt_p}). Kernel size: ({fmt_k}). Kernel size can't be greater than actual input size",
                   padded + extent, ind, f"{t}size")
        data_check(f"%{t}hollow", "Only zero batch or zero channel inputs are supported, but got input shape: [" + seq(r + len(lead)) + "]",
                   xs[:2] + lead + xs[2:], ind, f"{t}hollow")
        # dtypes: PyTorch 1.13's CPU kernels
        e(f"%{t}dtype = opal.static_if %{t}undilated -> i1 {{", ind)
        dtype_check([0, 1, 2, 3, 4, 6, 7, 15], DIRECT_NAME[S], ind + 2, f"{t}dt")
        e(f"opal.yield %{t}undilated : i1", ind + 2)
        e(f"}} else {{", ind)
        dtype_check([4, 6, 7, 15], "slow_conv_dilated<>", ind + 2, f"{t}dd")
        e(f"opal.yield %{t}undilated : i1", ind + 2)
        e(f"}}", ind)
    else:
        # output size: (I - 1) s - 2p + d (K - 1) + op + 1 >= 1, or >= 0
        # for a batch of two or more (PyTorch 2's kernel for those computes
        # an empty output; for one sample it refuses it)
        outs, conds = [], []
        e(f"%{t}batch1 = arith.cmpi eq, {xs[0]}, {one} : i64", ind)
        e(f"%{t}least = arith.select %{t}batch1, {one}, {zero} : i64", ind)
        for i in range(S):
            e(f"%{t}im{i} = arith.subi {xs[2 + i]}, {one} : i64", ind)
            e(f"%{t}is{i} = arith.muli %{t}im{i}, {st[i]} : i64", ind)
            e(f"%{t}pp{i} = arith.addi {pd[i]}, {pd[i]} : i64", ind)
            e(f"%{t}km{i} = arith.subi {ws[2 + i]}, {one} : i64", ind)
            e(f"%{t}kd{i} = arith.muli %{t}km{i}, {dl[i]} : i64", ind)
            e(f"%{t}sa{i} = arith.subi %{t}is{i}, %{t}pp{i} : i64", ind)
            e(f"%{t}sb{i} = arith.addi %{t}sa{i}, %{t}kd{i} : i64", ind)
            e(f"%{t}sc{i} = arith.addi %{t}sb{i}, {op[i]} : i64", ind)
            e(f"%{t}os{i} = arith.addi %{t}sc{i}, {one} : i64", ind)
            e(f"%{t}small{i} = arith.cmpi slt, %{t}os{i}, %{t}least : i64", ind)
            outs.append(f"%{t}os{i}"); conds.append(f"%{t}small{i}")
        small = any_of(conds, ind, f"{t}small")
        n = S + len(lead)
        fmt_i = " x ".join("{%d}" % i for i in range(n))
        fmt_o = " x ".join("{%d}" % (n + i) for i in range(n))
        data_check(small, f"Given input size per channel: ({fmt_i}). Calculated output size per channel: ({fmt_o}). Output size is too small",
                   lead + xs[2:] + lead + outs, ind, f"{t}out")
        dtype_check([4, 6, 7], TRANSPOSED_NAME[S], ind, f"{t}dt")

def branch_by_rank(transposed, ind):
    t = "t" if transposed else "d"
    e(f"%{t}r3 = opal.has_rank %weight, 3 : {T} -> i1", ind)
    e(f"opal.static_if %{t}r3 {{", ind)
    spatial_branch(1, transposed, ind + 2)
    e("opal.yield", ind + 2)
    e("} else {", ind)
    e(f"%{t}r4 = opal.has_rank %weight, 4 : {T} -> i1", ind + 2)
    e(f"opal.static_if %{t}r4 {{", ind + 2)
    spatial_branch(2, transposed, ind + 4)
    e("opal.yield", ind + 4)
    e("} else {", ind + 2)
    spatial_branch(3, transposed, ind + 4)
    e("opal.yield", ind + 4)
    e("}", ind + 2)
    e("opal.yield", ind + 2)
    e("}", ind)



def composites():
    for transposed in (False, True):
        for S in (1, 2, 3):
            if not transposed:
                name = f"conv{S}d"
                lst = f"SymInt[{S}]"
                d1 = "[" + ", ".join(["1"] * S) + "]"; d0 = "[" + ", ".join(["0"] * S) + "]"
                schema = f"{name}(Tensor input, Tensor weight, Tensor? bias=None, {lst} stride={d1}, {lst} padding={d0}, {lst} dilation={d1}, SymInt groups=1) -> Tensor"
                args = "%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %groups: i64"
            else:
                name = f"conv_transpose{S}d" + ("" if S == 1 else ".input")
                lst = f"SymInt[{S}]"
                d1 = "[" + ", ".join(["1"] * S) + "]"; d0 = "[" + ", ".join(["0"] * S) + "]"
                schema = f"{name}(Tensor input, Tensor weight, Tensor? bias=None, {lst} stride={d1}, {lst} padding={d0}, {lst} output_padding={d0}, SymInt groups=1, {lst} dilation={d1}) -> Tensor"
                args = "%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %output_padding: !opal.list<i64>, %groups: i64, %dilation: !opal.list<i64>"
            short = name.split(".")[0]
            e(f'opal.def "{schema}"', 2)
            e(f'opal.decomposition "{name}" {{', 2)
            e(f"^bb0({args}):", 2)
            e(f"%tr = arith.constant {'true' if transposed else 'false'}", 4)
            e(f"%is = opal.shape_of %input : {T} -> {L}", 4)
            e(f"%unbatched = opal.has_rank %input, {S + 1} : {T} -> i1", 4)
            e(f"%batched = opal.has_rank %input, {S + 2} : {T} -> i1", 4)
            e(f"%rank_ok = arith.ori %unbatched, %batched : i1", 4)
            e(f'opal.check %rank_ok, "Expected {S + 1}D (unbatched) or {S + 2}D (batched) input to {short}, but got input of size: [{{0}}]" (%is : {L})', 4)
            if not transposed:
                e(f"%c0 = arith.constant 0 : i64", 4)
                e(f"%none_padding = opal.list %c0 : i64 -> {L}", 4)
                opad = "%none_padding"
            else:
                opad = "%output_padding"
            call = (f"aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, {opad}, %groups : "
                    f"({T}, {T}, {T}, {L}, {L}, {L}, i1, {L}, i64) -> {T}")
            e(f"%r = opal.static_if %unbatched -> {T} {{", 4)
            e(f"%z = arith.constant 0 : i64", 6)
            e(f"%at = opal.list %z : i64 -> {L}", 6)
            e(f"%yes = arith.constant true", 6)
            e(f"%x = opal.keep_dims %input, %at, %yes : {T}, {L}, i1 -> {T}", 6)
            e(f"%y = {call}", 6)
            e(f"%s = prims.squeeze %y, %at : ({T}, {L}) -> {T}", 6)
            e(f"opal.yield %s : {T}", 6)
            e("} else {", 4)
            e(f"%y = {call.replace('%x,', '%input,')}", 6)
            e(f"opal.yield %y : {T}", 6)
            e("}", 4)
            e(f"opal.yield %r : {T}", 4)
            e("}", 2)


def main():
    out.extend(HEAD.splitlines())
    branch_by_rank(True, 6)
    out.extend(TRANSPOSED_TAIL.splitlines())
    branch_by_rank(False, 6)
    out.extend(TAIL.splitlines())
    composites()
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
