#!/usr/bin/env python3
"""Writes lib/Library/aten-pool.opal.mlir (max and average pooling over 2
and 3 spatial dims, and adaptive average pooling over 3). PyTorch
checks each list's length, then each spatial dim's stride and padding, then
the input's sizes, in an order and with words that differ between the 2-
and 3-d ops; the decomposition language has no loops, so this script spells
the checks out once per op. Edit it, not the .opal.mlir file, and run

    /usr/bin/python3 scripts/generate-pool-library.py > lib/Library/aten-pool.opal.mlir

(test_builtin_libraries.py checks that the file is this script's output).
"""

T = "!opal.tensor"
L = "!opal.list<i64>"
out = []
WORDS = {1: "one", 2: "two", 3: "three"}
# The names of the spatial dims in PyTorch's messages.
DIMS = {2: ["H", "W"], 3: ["T", "H", "W"]}
DTYPE = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6,
         "float64": 7, "bfloat16": 15}


def e(line, ind=4):
    out.append(" " * ind + line)


HEAD = """// The aten library, continued: max and average pooling of [N,] C, spatial...
// planes over 2 and 3 spatial dims, and adaptive average pooling over 3 (2:
// aten-nn.opal.mlir). Each op checks its arguments as PyTorch 2 does, in
// its order and words: the lengths of the int lists (one entry repeats),
// each spatial dim's stride and padding, then the input's sizes (simple
// comparisons before the kernel, those that need arithmetic as data checks
// after it); the dtypes are those of PyTorch's CPU kernels. They are
// prims.max_pool, prims.avg_pool and prims.adaptive_avg_pool (see
// lib/Transforms/PoolingToLinalg.cpp); max_pool2d/3d and adaptive_avg_pool3d
// are CompositeImplicit, as in PyTorch. Written by
// scripts/generate-pool-library.py: edit that script and run it, not this
// file.
opal.library "aten" {"""


def constants():
    for v in range(6):
        e(f"%c{v} = arith.constant {v} : i64")
    e("%yes = arith.constant true")
    e("%none = opal.none")


def combine(op, prefix, conditions):
    """The i1 combining `conditions` with `op` (arith.ori or arith.andi),
    its partial results named prefix0, prefix1, ..."""
    acc = conditions[0]
    for i, c in enumerate(conditions[1:]):
        e(f"%{prefix}{i} = {op} {acc}, {c} : i1")
        acc = f"%{prefix}{i}"
    return acc


def any_of(prefix, conditions):
    return combine("arith.ori", prefix, conditions)


def all_of(name, conditions):
    return combine("arith.andi", f"{name}_all", conditions)


def length_check(var, n, allowed, message):
    """opal.check that list `var` has one of the `allowed` lengths."""
    e(f"%{var}_n = opal.list_len %{var}_given : {L} -> i64")
    terms = []
    for a in allowed:
        e(f"%{var}_is{a} = arith.cmpi eq, %{var}_n, %c{a} : i64")
        terms.append(f"%{var}_is{a}")
    e(f'opal.check {any_of(f"{var}_ok", terms)}, "{message}"')


def expand(var, n, empty_is=None):
    """%var: the list `%var_given` with a single entry repeated n times (and,
    with `empty_is`, an empty list replaced by that list), then its entries
    %var0, %var1, ..."""
    entries = ", ".join(["%e"] * n)
    types = ", ".join(["i64"] * n)
    repeated = f"%{var}_one" if empty_is else f"%{var}"
    for line in [
        f"{repeated} = opal.static_if %{var}_is1 -> {L} {{",
        f"  %e = opal.list_item %{var}_given, 0 : {L} -> i64",
        f"  %l = opal.list {entries} : {types} -> {L}",
        f"  opal.yield %l : {L}",
        "} else {",
        f"  opal.yield %{var}_given : {L}",
        "}",
    ]:
        e(line)
    if empty_is:
        e(f"%{var} = opal.static_if %{var}_is0 -> {L} {{")
        e(f"  opal.yield %{empty_is} : {L}")
        e("} else {")
        e(f"  opal.yield %{var}_one : {L}")
        e("}")
    for s in range(n):
        e(f"%{var}{s} = opal.list_item %{var}, {s} : {L} -> i64")


def positive_check(var, n, message_prefix, names):
    conds = []
    for s in range(n):
        e(f"%{var}{s}_pos = arith.cmpi sgt, %{var}{s}, %c0 : i64")
        conds.append(f"%{var}{s}_pos")
    ok = all_of(f"{var}_pos", conds)
    fields = " ".join(f"{names[s]}: {{{s}}}" for s in range(n))
    args = ", ".join(f"%{var}{s}" for s in range(n))
    types = ", ".join(["i64"] * n)
    e(f'opal.check {ok}, "{message_prefix}{fields}" ({args} : {types})')


def output_shape_checks(n, dilated):
    """PyTorch's pooling_output_shape, per spatial dim: a nonzero stride,
    padding of 0 to half the effective kernel, (k - 1) * dilation + 1 (C++'s
    truncating division; a dilation of 1 without one)."""
    for s in range(n):
        dilation = f"%dilation{s}" if dilated else "%c1"
        e(f"%s{s}_nz = arith.cmpi ne, %stride{s}, %c0 : i64")
        e(f'opal.check %s{s}_nz, "stride should not be zero"')
        e(f"%p{s}_nn = arith.cmpi sge, %padding{s}, %c0 : i64")
        e(f'opal.check %p{s}_nn, "pad must be non-negative, but got pad: {{0}}" (%padding{s} : i64)')
        e(f"%k{s}_m1 = arith.subi %kernel{s}, %c1 : i64")
        e(f"%k{s}_dm = arith.muli %k{s}_m1, {dilation} : i64")
        e(f"%k{s}_eff = arith.addi %k{s}_dm, %c1 : i64")
        e(f"%k{s}_half = arith.divsi %k{s}_eff, %c2 : i64")
        e(f"%p{s}_half = arith.cmpi sle, %padding{s}, %k{s}_half : i64")
        e(f'opal.check %p{s}_half, "pad should be at most half of effective kernel size, but got pad={{0}}, kernel_size={{1}} and dilation={{2}}" (%padding{s}, %kernel{s}, {dilation} : i64, i64, i64)')


def kernel_half_check(n):
    """pool2d/3d_shape_check's padding against half the kernel itself."""
    conds = []
    for s in range(n):
        e(f"%kh{s} = arith.divsi %kernel{s}, %c2 : i64")
        e(f"%ph{s} = arith.cmpi sle, %padding{s}, %kh{s} : i64")
        conds.append(f"%ph{s}")
    ok = all_of("pad_in_kernel", conds)
    if n == 2:
        e(f'opal.check {ok}, "pad should be smaller than or equal to half of kernel size, but got padW = {{0}}, padH = {{1}}, kW = {{2}}, kH = {{3}}" (%padding1, %padding0, %kernel1, %kernel0 : i64, i64, i64, i64)')
    else:
        e(f'opal.check {ok}, "pad should be smaller than or equal to half of kernel size, but got kT: {{0}} kW: {{1}} kH: {{2}} padT: {{3}} padW: {{4}} padH: {{5}}" (%kernel0, %kernel2, %kernel1, %padding0, %padding2, %padding1 : i64, i64, i64, i64, i64, i64)')


def dtype_check(allowed, name):
    e(f"%code = opal.dtype_of %self, %none : {T}, !opal.none -> i64")
    conds = []
    for d in allowed:
        e(f"%is_{d} = arith.cmpi eq, %code, %c_{d} : i64")
        conds.append(f"%is_{d}")
    acc = any_of("dtype_ok", conds)
    e(f"opal.check {acc}, \"\\\"{name}\\\" not implemented for '{{0:dtype}}'\" (%code : i64)")


def dtype_constants(allowed):
    for d in allowed:
        e(f"%c_{d} = arith.constant {DTYPE[d]} : i64")


def add_batch(n):
    """%x: self with a batch dim of 1 in front when its %rank is n + 1."""
    e(f"%unbatched = arith.cmpi eq, %rank, %c{n + 1} : i64")
    e(f"%at0 = opal.list %c0 : i64 -> {L}")
    e(f"%x = opal.static_if %unbatched -> {T} {{")
    e(f"  %b = opal.keep_dims %self, %at0, %yes : {T}, {L}, i1 -> {T}")
    e(f"  opal.yield %b : {T}")
    e("} else {")
    e(f"  opal.yield %self : {T}")
    e("}")


def batch(n):
    """%x: self with a batch dim of 1 in front when it has none."""
    e(f"%ss = opal.shape_of %self : {T} -> {L}")
    e(f"%rank = opal.list_len %ss : {L} -> i64")
    add_batch(n)
    e(f"%channels = opal.dim_size %x, 1 : {T} -> i64")
    for s in range(n):
        e(f"%i{s} = opal.dim_size %x, {2 + s} : {T} -> i64")


def unbatch(results):
    names = ", ".join(f"%u{i}" for i in range(len(results)))
    types = ", ".join([T] * len(results))
    e(f"{names} = opal.static_if %unbatched -> {types} {{")
    for i, r in enumerate(results):
        e(f"  %q{i} = prims.squeeze {r}, %at0 : ({T}, {L}) -> {T}")
    e(f"  opal.yield {', '.join(f'%q{i}' for i in range(len(results)))} : {types}")
    e("} else {")
    e(f"  opal.yield {', '.join(results)} : {types}")
    e("}")
    e(f"opal.yield {names} : {types}")


def too_small_check(n, dilated):
    """At least one output per spatial dim: PyTorch's pooling_output_shape
    of the sizes known per call (negative where the window does not fit),
    checked as data after the kernel, with PyTorch's message."""
    conds = []
    for s in range(n):
        d = f"%dilation{s}" if dilated else "%c1"
        e(f"%km{s} = arith.subi %kernel{s}, %c1 : i64")
        e(f"%reach{s} = arith.muli {d}, %km{s} : i64")
        e(f"%pp{s} = arith.muli %padding{s}, %c2 : i64")
        e(f"%span{s}a = arith.addi %i{s}, %pp{s} : i64")
        e(f"%span{s}b = arith.subi %span{s}a, %reach{s} : i64")
        e(f"%span{s}c = arith.subi %span{s}b, %c1 : i64")
        e(f"%sm{s} = arith.subi %stride{s}, %c1 : i64")
        e(f"%up{s} = arith.select %ceil_mode, %sm{s}, %c0 : i64")
        e(f"%span{s} = arith.addi %span{s}c, %up{s} : i64")
        e(f"%fq{s} = arith.floordivsi %span{s}, %stride{s} : i64")
        e(f"%o{s}a = arith.addi %fq{s}, %c1 : i64")
        # With ceil mode, a last window starting in the right padding is
        # dropped.
        e(f"%o{s}m = arith.subi %o{s}a, %c1 : i64")
        e(f"%start{s} = arith.muli %o{s}m, %stride{s} : i64")
        e(f"%end{s} = arith.addi %i{s}, %padding{s} : i64")
        e(f"%past{s}a = arith.cmpi sge, %start{s}, %end{s} : i64")
        e(f"%past{s} = arith.andi %past{s}a, %ceil_mode : i1")
        e(f"%o{s} = arith.select %past{s}, %o{s}m, %o{s}a : i64")
        e(f"%o{s}_ok = arith.cmpi sge, %o{s}, %c1 : i64")
        conds.append(f"%o{s}_ok")
    big = all_of("big", conds)
    e(f"%small = arith.xori {big}, %yes : i1")
    e(f"%small_t = opal.promote %small : i1 -> {T}")
    sizes_in = "x".join(f"{{{1 + s}}}" for s in range(n))
    sizes_out = "x".join(f"{{{1 + n + s}}}" for s in range(n))
    args = ", ".join(["%channels"] + [f"%i{s}" for s in range(n)] + [f"%o{s}" for s in range(n)])
    e(f'opal.data_check %small_t, "Given input size: ({{0}}x{sizes_in}). Calculated output size: ({{0}}x{sizes_out}). Output size is too small" ({args}) : {T}')


def nonbatch_positive(n, fn):
    """PyTorch's pool3d_shape_check: every dim but a batch dim positive (its
    message names dimension 0 whichever is empty, as PyTorch 1.13's does)."""
    conds = []
    for d, v in enumerate(["%channels"] + [f"%i{s}" for s in range(n)]):
        e(f"%nb{d}_ok = arith.cmpi sgt, {v}, %c0 : i64")
        conds.append(f"%nb{d}_ok")
    ok = all_of("nonbatch", conds)
    e(f'opal.check {ok}, "{fn}: Expected input\'s non-batch dimensions to have positive length, but input has a shape of [{{0}}] and non-batch dimension 0 has length zero!" (%ss : {L})')


def filled_2d(message):
    """PyTorch's pool2d_shape_check: C, H and W nonzero (and N too for an
    unbatched input, whose C is its first dim)."""
    conds = []
    for d, v in enumerate(["%channels", "%i0", "%i1"]):
        e(f"%f{d} = arith.cmpi ne, {v}, %c0 : i64")
        conds.append(f"%f{d}")
    ok = all_of("filled", conds)
    e(f'opal.check {ok}, "{message}" (%ss : {L})')


def header(name, schema, args):
    e(f'opal.def "{name}({schema}"', 2)
    e(f'opal.decomposition "{name}" {{', 2)
    e(f"^bb0({args}):", 2)


def max_pool(n):
    nd = f"max_pool{n}d"
    w = WORDS[n]
    lists = ", ".join([f"int[{n}] kernel_size", f"int[{n}] stride=[]", f"int[{n}] padding=0",
                       f"int[{n}] dilation=1"])
    header(f"{nd}_with_indices", f"Tensor self, {lists}, bool ceil_mode=False) -> (Tensor, Tensor)",
           f"%self: {T}, %kernel_given: {L}, %stride_given: {L}, %padding_given: {L}, "
           f"%dilation_given: {L}, %ceil_mode: i1")
    constants()
    # (PyTorch 2's CPU kernels: every dtype but bool.)
    allowed = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
               "bfloat16"]
    dtype_constants(allowed)
    length_check("kernel", n, [1, n], f"{nd}: kernel_size must either be a single int, or a tuple of {w} ints")
    length_check("stride", n, [0, 1, n], f"{nd}: stride must either be omitted, a single int, or a tuple of {w} ints")
    length_check("padding", n, [1, n], f"{nd}: padding must be either be a single int, or a tuple of {w} ints")
    length_check("dilation", n, [1, n], f"{nd}: dilation must be either a single int, or a tuple of {w} ints")
    e(f"%rank0 = opal.shape_of %self : {T} -> {L}")
    e(f"%rank1 = opal.list_len %rank0 : {L} -> i64")
    e(f"%r_low = arith.cmpi eq, %rank1, %c{n + 1} : i64")
    e(f"%r_high = arith.cmpi eq, %rank1, %c{n + 2} : i64")
    e("%r_ok = arith.ori %r_low, %r_high : i1")
    e(f'opal.check %r_ok, "non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input"')
    expand("kernel", n)
    expand("stride", n, empty_is="kernel")
    expand("padding", n)
    expand("dilation", n)
    output_shape_checks(n, True)
    names = DIMS[n]
    batch(n)
    positive_check("kernel", n, "kernel size should be greater than zero, but got ", [f"k{x}" for x in names])
    positive_check("stride", n, "stride should be greater than zero, but got ", [f"d{x}" for x in names])
    positive_check("dilation", n, "dilation should be greater than zero, but got ", [f"dilation{x}" for x in names])
    kernel_half_check(n)
    if n == 3:
        nonbatch_positive(n, "max_pool3d_with_indices_out_cpu_template()")
        dtype_check(allowed, "max_pool3d")
    else:
        filled_2d("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]")
        dtype_check(allowed, "max_pool2d")
    e(f"%v, %i = prims.max_pool %x, %kernel, %stride, %padding, %dilation, %ceil_mode : ({T}, {L}, {L}, {L}, {L}, i1) -> ({T}, {T})")
    too_small_check(n, True)
    unbatch(["%v", "%i"])
    e("}", 2)
    header(nd, f"Tensor self, {lists}, bool ceil_mode=False) -> Tensor",
           f"%self: {T}, %kernel: {L}, %stride: {L}, %padding: {L}, %dilation: {L}, %ceil_mode: i1")
    e(f"%v, %i = aten.{nd}_with_indices %self, %kernel, %stride, %padding, %dilation, %ceil_mode : ({T}, {L}, {L}, {L}, {L}, i1) -> ({T}, {T})")
    e(f"opal.yield %v : {T}")
    e("}", 2)


def avg_pool(n):
    nd = f"avg_pool{n}d"
    w = WORDS[n]
    lists = ", ".join([f"int[{n}] kernel_size", f"int[{n}] stride=[]", f"int[{n}] padding=0"])
    header(nd, f"Tensor self, {lists}, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
           f"%self: {T}, %kernel_given: {L}, %stride_given: {L}, %padding_given: {L}, "
           f"%ceil_mode: i1, %count_include_pad: i1, %divisor_override: i64")
    constants()
    allowed = (["int64", "float16", "float32", "float64", "bfloat16"] if n == 2
               else ["int64", "float32", "float64"])
    dtype_constants(allowed)
    # (PyTorch's 2- and 3-d ops word these differently.)
    either = "either " if n == 2 else ""
    length_check("kernel", n, [1, n], f"{nd}: kernel_size must {either}be a single int, or a tuple of {w} ints")
    length_check("stride", n, [0, 1, n], f"{nd}: stride must {either}be omitted, a single int, or a tuple of {w} ints")
    length_check("padding", n, [1, n], f"{nd}: padding must {either}be a single int, or a tuple of {w} ints")
    e(f"%rank0 = opal.shape_of %self : {T} -> {L}")
    e(f"%rank1 = opal.list_len %rank0 : {L} -> i64")
    if n == 3:
        e("%r_low = arith.cmpi eq, %rank1, %c4 : i64")
        e("%r_high = arith.cmpi eq, %rank1, %c5 : i64")
        e("%r_ok = arith.ori %r_low, %r_high : i1")
        e('opal.check %r_ok, "non-empty 4D or 5D (batch mode) tensor expected for input"')
    e("%no_divisor = opal.is_none %divisor_override : i64 -> i1")
    e("opal.static_if %no_divisor {")
    e("  opal.yield")
    e("} else {")
    e("  %nonzero = arith.cmpi ne, %divisor_override, %c0 : i64")
    e('  opal.check %nonzero, "divisor must be not zero"')
    e("  opal.yield")
    e("}")
    if n == 2:
        # PyTorch reads the planes as size(-3): a lower rank is an index error.
        e("%has_planes = arith.cmpi sge, %rank1, %c3 : i64")
        e("%neg_rank = arith.subi %c0, %rank1 : i64")
        e("%top = arith.subi %rank1, %c1 : i64")
        e("%cm3 = arith.constant -3 : i64")
        e('opal.check %has_planes, "Dimension out of range (expected to be in range of [{0}, {1}], but got {2})" (%neg_rank, %top, %cm3 : i64, i64, i64)')
    expand("kernel", n)
    expand("stride", n, empty_is="kernel")
    expand("padding", n)
    output_shape_checks(n, False)
    names = DIMS[n]
    if n == 2:
        # A rank of 5 or more fails PyTorch's check of the planes' sizes.
        e("%r_low = arith.cmpi eq, %rank1, %c3 : i64")
        e("%r_high = arith.cmpi eq, %rank1, %c4 : i64")
        e("%r_ok = arith.ori %r_low, %r_high : i1")
        positive_check("kernel", n, "kernel size should be greater than zero, but got ", [f"k{x}" for x in names])
        positive_check("stride", n, "stride should be greater than zero, but got ", [f"d{x}" for x in names])
        e('opal.check %r_ok, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]" (%rank0 : !opal.list<i64>)')
        batch(n)
        filled_2d("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]")
    else:
        batch(n)
        positive_check("kernel", n, "kernel size should be greater than zero, but got ", [f"k{x}" for x in names])
        positive_check("stride", n, "stride should be greater than zero, but got ", [f"d{x}" for x in names])
        nonbatch_positive(n, "avg_pool3d()")
        conds = []
        for s in range(n):
            e(f"%big{s} = arith.cmpi sge, %i{s}, %kernel{s} : i64")
            conds.append(f"%big{s}")
        ok = all_of("input_big", conds)
        fields_in = " ".join(f"{x}: {{{s}}}" for s, x in enumerate(names))
        fields_k = " ".join(f"k{x}: {{{n + s}}}" for s, x in enumerate(names))
        args = ", ".join([f"%i{s}" for s in range(n)] + [f"%kernel{s}" for s in range(n)])
        e(f'opal.check {ok}, "input image ({fields_in}) smaller than kernel size ({fields_k})" ({args} : {", ".join(["i64"] * 2 * n)})')
    dtype_check(allowed, nd if n == 2 else "avg_pool3d_out_frame")
    e(f"%r = prims.avg_pool %x, %kernel, %stride, %padding, %ceil_mode, %count_include_pad, %divisor_override : ({T}, {L}, {L}, {L}, i1, i1, i64) -> {T}")
    too_small_check(n, False)
    unbatch(["%r"])
    e("}", 2)


def adaptive_avg_pool3d():
    header("_adaptive_avg_pool3d", "Tensor self, SymInt[3] output_size) -> Tensor",
           f"%self: {T}, %output_size: {L}")
    constants()
    allowed = ["float16", "float32", "float64", "bfloat16"]
    dtype_constants(allowed)
    e(f"%n = opal.list_len %output_size : {L} -> i64")
    e("%three = arith.cmpi eq, %n, %c3 : i64")
    e('opal.check %three, "adaptive_avg_pool3d: output_size must be 3"')
    e(f"%ss = opal.shape_of %self : {T} -> {L}")
    e(f"%rank = opal.list_len %ss : {L} -> i64")
    # Every dim from the second on has elements: sizes known per call (the
    # rank is checked after them, as PyTorch does).
    for d in range(1, 5):
        e(f"%has{d} = arith.cmpi sgt, %rank, %c{d} : i64")
        e(f"opal.static_if %has{d} {{")
        e(f"  %s{d} = opal.dim_size %self, {d} : {T} -> i64")
        e(f"  %s{d}_ok = arith.cmpi ne, %s{d}, %c0 : i64")
        e(f'  opal.check %s{d}_ok, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{{0}}] with dimension {{1}} being empty" (%ss, %c{d} : {L}, i64)')
        e("  opal.yield")
        e("} else {")
        e("  opal.yield")
        e("}")
    e("%r4 = arith.cmpi eq, %rank, %c4 : i64")
    e("%r5 = arith.cmpi eq, %rank, %c5 : i64")
    e("%r_ok = arith.ori %r4, %r5 : i1")
    e(f'opal.check %r_ok, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [{{0}}]" (%ss : {L})')
    # (PyTorch's allocation of the output refuses a negative size so.)
    conds = []
    for s in range(3):
        e(f"%o{s} = opal.list_item %output_size, {s} : {L} -> i64")
        e(f"%o{s}_ok = arith.cmpi sge, %o{s}, %c0 : i64")
        conds.append(f"%o{s}_ok")
    ok = all_of("sizes", conds)
    e(f'opal.check {ok}, "numel: integer multiplication overflow"')
    dtype_check(allowed, "adaptive_avg_pool3d_cpu")
    add_batch(3)
    e(f"%r = prims.adaptive_avg_pool %x, %output_size : ({T}, {L}) -> {T}")
    unbatch(["%r"])
    e("}", 2)
    # An output of 1 x 1 x 1 is the mean over T, H and W, as PyTorch
    # computes it.
    header("adaptive_avg_pool3d", "Tensor self, SymInt[3] output_size) -> Tensor",
           f"%self: {T}, %output_size: {L}")
    e("%c1 = arith.constant 1 : i64")
    e(f"%ones = opal.list %c1, %c1, %c1 : i64, i64, i64 -> {L}")
    e(f"%global = opal.list_eq %output_size, %ones : {L}, {L} -> i1")
    e(f"%r = opal.static_if %global -> {T} {{")
    e("  %cm1 = arith.constant -1 : i64")
    e("  %cm2 = arith.constant -2 : i64")
    e("  %cm3 = arith.constant -3 : i64")
    e(f"  %dims = opal.list %cm1, %cm2, %cm3 : i64, i64, i64 -> {L}")
    e("  %true = arith.constant true")
    e("  %none = opal.none")
    e(f"  %m = aten.mean.dim %self, %dims, %true, %none : ({T}, {L}, i1, !opal.none) -> {T}")
    e(f"  opal.yield %m : {T}")
    e("} else {")
    e(f"  %p = aten._adaptive_avg_pool3d %self, %output_size : ({T}, {L}) -> {T}")
    e(f"  opal.yield %p : {T}")
    e("}")
    e(f"opal.yield %r : {T}")
    e("}", 2)


def main():
    out.append(HEAD)
    for n in (2, 3):
        max_pool(n)
    for n in (2, 3):
        avg_pool(n)
    adaptive_avg_pool3d()
    out.append("}")
    print("\n".join(out))


main()
