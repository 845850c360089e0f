#!/usr/bin/env python3
"""Writes lib/Library/aten-pool-backward.opal.mlir: PyTorch's backward ops of
average pooling (avg_pool2d_backward, avg_pool3d_backward,
_adaptive_avg_pool2d_backward, _adaptive_avg_pool3d_backward), which the
derivative formulas of the forward ops call. Each checks the gradient as
PyTorch 1.13 does (its sizes against the forward's output, its dtype), in
its order and words, then calls the pooling prim's gradient; where PyTorch
reads past its tensors (an adaptive pool's gradient of another rank or
batch), it refuses. The decomposition language has no loops, so this
script spells the checks out once per op. Edit it, not the .opal.mlir
file, and run

    /usr/bin/python3 scripts/generate-pool-backward-library.py > lib/Library/aten-pool-backward.opal.mlir

(test_builtin_libraries.py checks that the file is this script's output).
"""

def dtype_check(var, allowed, name):
    codes = {"int64":4, "float16":5, "float32":6, "float64":7, "bfloat16":15}
    out = []
    conds = []
    for i, a in enumerate(allowed):
        out.append(f"    %is_{a} = arith.cmpi eq, {var}, %c_{a} : i64")
        conds.append(f"%is_{a}")
    acc = conds[0]
    for i, c in enumerate(conds[1:]):
        out.append(f"    %dt_ok{i} = arith.ori {acc}, {c} : i1")
        acc = f"%dt_ok{i}"
    out.append(f"    opal.check {acc}, \"\\\"{name}\\\" not implemented for '{{0:dtype}}'\" ({var} : i64)")
    consts = [f"    %c_{a} = arith.constant {codes[a]} : i64" for a in allowed]
    return consts + out

def same_dtype(style, arg):
    if style == "ctype":
        return [f"    %same_dt = arith.cmpi eq, %gcode, %code : i64",
                f"    opal.check %same_dt, \"expected dtype {{0:ctype}} for `{arg}` but got dtype {{1:ctype}}\" (%code, %gcode : i64, i64)"]
    return [f"    %same_dt = arith.cmpi eq, %gcode, %code : i64",
            f"    opal.check %same_dt, \"expected scalar type {{0:dtype}} but found {{1:dtype}}\" (%code, %gcode : i64, i64)"]

def unbatch(k, prim_call):
    # k: spatial dims; unbatched inputs have rank k + 1
    return f"""    %unbatched = opal.has_rank %self, {k + 1} : !opal.tensor -> i1
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %g, %x = opal.static_if %unbatched -> !opal.tensor, !opal.tensor {{
      %gb = opal.keep_dims %grad, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %xb = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %gb, %xb : !opal.tensor, !opal.tensor
    }} else {{
      opal.yield %grad, %self : !opal.tensor, !opal.tensor
    }}
{prim_call}
    %out = opal.static_if %unbatched -> !opal.tensor {{
      %q = prims.squeeze %r, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %q : !opal.tensor
    }} else {{
      opal.yield %r : !opal.tensor
    }}
    opal.yield %out : !opal.tensor"""

def normalize(k):
    L = "!opal.list<i64>"
    out = []
    def rep(name, src, dst):
        elems = ", ".join(["%e"] * k)
        tys = ", ".join(["i64"] * k)
        return [f"    %{name}_n = opal.list_len {src} : {L} -> i64",
                f"    %{name}_one = arith.cmpi eq, %{name}_n, %c1 : i64",
                f"    {dst} = opal.static_if %{name}_one -> {L} {{",
                f"      %e = opal.list_item {src}, 0 : {L} -> i64",
                f"      %l = opal.list {elems} : {tys} -> {L}",
                f"      opal.yield %l : {L}",
                f"    }} else {{",
                f"      opal.yield {src} : {L}",
                f"    }}"]
    out.append("    %c1 = arith.constant 1 : i64")
    out += rep("kernel", "%kernel_size", "%kernel")
    out += rep("padding", "%padding", "%pad")
    out += rep("stride", "%stride", "%stride1")
    out += [f"    %stride_none = arith.cmpi eq, %stride_n, %c0 : i64",
            f"    %step = opal.static_if %stride_none -> {L} {{",
            f"      opal.yield %kernel : {L}",
            f"    }} else {{",
            f"      opal.yield %stride1 : {L}",
            f"    }}"]
    return "\n".join(out)

def leading(k):
    L = "!opal.list<i64>"
    return "\n".join([
        f"    %fits = opal.static_if %same_rank -> i1 {{",
        f"      %dc = arith.constant -{k + 1} : i64",
        f"      %gc = opal.size_at %grad, %dc : !opal.tensor, i64 -> i64",
        f"      %xc = opal.size_at %self, %dc : !opal.tensor, i64 -> i64",
        f"      %cs = arith.cmpi eq, %gc, %xc : i64",
        f"      %batched = opal.has_rank %self, {k + 2} : !opal.tensor -> i1",
        f"      %both = opal.static_if %batched -> i1 {{",
        f"        %gn = opal.dim_size %grad, 0 : !opal.tensor -> i64",
        f"        %xn = opal.dim_size %self, 0 : !opal.tensor -> i64",
        f"        %ns = arith.cmpi eq, %gn, %xn : i64",
        f"        %a = arith.andi %cs, %ns : i1",
        f"        opal.yield %a : i1",
        f"      }} else {{",
        f"        opal.yield %cs : i1",
        f"      }}",
        f"      opal.yield %both : i1",
        f"    }} else {{",
        f"      %no = arith.constant false",
        f"      opal.yield %no : i1",
        f"    }}"])

# The constants every body starts with.
CONSTANTS = ["    %c0 = arith.constant 0 : i64",
             "    %yes = arith.constant true",
             "    %none = opal.none"]


def avg(k):
    L = "!opal.list<i64>"
    name = f"avg_pool{k}d"
    lines = [f'  opal.def "{name}_backward(Tensor grad_output, Tensor self, int[{k}] kernel_size, int[{k}] stride, int[{k}] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor"',
             f'  opal.decomposition "{name}_backward" {{',
             f'  ^bb0(%grad: !opal.tensor, %self: !opal.tensor, %kernel_size: {L}, %stride: {L}, %padding: {L}, %ceil_mode: i1, %count_include_pad: i1, %divisor_override: i64):',
             *CONSTANTS,
             "    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64",
             "    %gcode = opal.dtype_of %grad, %none : !opal.tensor, !opal.none -> i64"]
    if k == 2:
        lines += dtype_check("%code", ["int64", "float32", "float64", "bfloat16"], "avg_pool2d_backward")
    else:
        lines += dtype_check("%code", ["int64", "float32", "float64"], "avg_pool3d_backward_out_frame")
    lines += [f"    // The forward's checks and its output's shape (its values are unused).",
              f"    %y = aten.{name} %self, %kernel_size, %stride, %padding, %ceil_mode, %count_include_pad, %divisor_override : (!opal.tensor, {L}, {L}, {L}, i1, i1, i64) -> !opal.tensor",
              f"    %xs = opal.shape_of %self : !opal.tensor -> {L}",
              f"    %gs = opal.shape_of %grad : !opal.tensor -> {L}",
              f"    %xr = opal.list_len %xs : {L} -> i64",
              f"    %gr = opal.list_len %gs : {L} -> i64",
              f"    %same_rank = arith.cmpi eq, %gr, %xr : i64"]
    # PyTorch's check_dim_size on the last k + 1 dims, in order
    lines.append("    opal.static_if %same_rank {")
    for j in range(k + 1):
        off = k + 1 - j
        lines += [f"      %d{j} = arith.constant -{off} : i64",
                  f"      %pos{j} = arith.addi %xr, %d{j} : i64",
                  f"      %want{j} = opal.size_at %y, %d{j} : !opal.tensor, i64 -> i64",
                  f"      %got{j} = opal.size_at %grad, %d{j} : !opal.tensor, i64 -> i64",
                  f"      %off{j} = arith.cmpi ne, %got{j}, %want{j} : i64",
                  f"      %off{j}_t = opal.promote %off{j} : i1 -> !opal.tensor",
                  f"      opal.data_check %off{j}_t, \"Expected a tensor of dimension {{0}} and tensor.size[{{1}}] == {{2}} but got: dimension {{0}} and tensor.size[{{1}}] = {{3}}\" (%xr, %pos{j}, %want{j}, %got{j}) : !opal.tensor"]
    lines.append("      opal.yield")
    lines.append("    } else {")
    lines += [f"      %dc = arith.constant -{k + 1} : i64",
              f"      %atc = arith.addi %xr, %dc : i64",
              f"      %wantc = opal.size_at %y, %dc : !opal.tensor, i64 -> i64",
              f"      %reaches = arith.cmpi sgt, %gr, %atc : i64",
              f"      %no = arith.constant false",
              f"      opal.static_if %reaches {{",
              f"        %gotc = opal.size_at %grad, %atc : !opal.tensor, i64 -> i64",
              f"        opal.check %no, \"Expected a tensor of dimension {{0}} and tensor.size[{{1}}] == {{2}} but got: dimension {{3}} and tensor.size[{{1}}] = {{4}}\" (%xr, %atc, %wantc, %gr, %gotc : i64, i64, i64, i64, i64)",
              f"        opal.yield",
              f"      }} else {{",
              f"        opal.check %no, \"Expected a tensor of dimension {{0}} and tensor.size[{{1}}] == {{2}} but got: dimension {{3}}\" (%xr, %atc, %wantc, %gr : i64, i64, i64, i64)",
              f"        opal.yield",
              f"      }}",
              "      opal.yield",
              "    }"]
    lines += same_dtype("ctype" if k == 2 else "scalar", "gradOutput")
    prim = f"    %r = prims.avg_pool_backward %g, %x, %kernel, %step, %pad, %ceil_mode, %count_include_pad, %divisor_override : (!opal.tensor, !opal.tensor, {L}, {L}, {L}, i1, i1, i64) -> !opal.tensor"
    lines.append(normalize(k))
    lines.append(unbatch(k, prim))
    lines.append("  }")
    return "\n".join(lines)

def adaptive(k):
    L = "!opal.list<i64>"
    name = f"adaptive_avg_pool{k}d"
    lines = [f'  opal.def "_{name}_backward(Tensor grad_output, Tensor self) -> Tensor"',
             f'  opal.decomposition "_{name}_backward" {{',
             f'  ^bb0(%grad: !opal.tensor, %self: !opal.tensor):',
             *CONSTANTS,
             f"    %xs = opal.shape_of %self : !opal.tensor -> {L}",
             f"    %gs = opal.shape_of %grad : !opal.tensor -> {L}",
             f"    %xr = opal.list_len %xs : {L} -> i64",
             f"    %gr = opal.list_len %gs : {L} -> i64"]
    # non-zero sizes for dims 1.. of grad (up to rank k + 2)
    for d in (range(1, k + 2) if k == 2 else []):
        lines += [f"    %c{d} = arith.constant {d} : i64",
                  f"    %has{d} = arith.cmpi sgt, %gr, %c{d} : i64",
                  f"    opal.static_if %has{d} {{",
                  f"      %s{d} = opal.dim_size %grad, {d} : !opal.tensor -> i64",
                  f"      %s{d}_ok = arith.cmpi ne, %s{d}, %c0 : i64",
                  f"      opal.check %s{d}_ok, \"{name}_backward(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes [{{0}}] with dimension {{1}} being empty\" (%gs, %c{d} : {L}, i64)",
                  f"      opal.yield",
                  f"    }} else {{",
                  f"      opal.yield",
                  f"    }}"]
    rank_lines = [f"    %rl = arith.constant {k + 1} : i64",
                  f"    %rh = arith.constant {k + 2} : i64",
                  f"    %is_rl = arith.cmpi eq, %gr, %rl : i64",
                  f"    %is_rh = arith.cmpi eq, %gr, %rh : i64",
                  f"    %rank_ok = arith.ori %is_rl, %is_rh : i1"]
    dtypes = ["    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64",
              "    %gcode = opal.dtype_of %grad, %none : !opal.tensor, !opal.none -> i64"]
    if k == 2:
        # PyTorch 2's order and words (its template's name, then
        # "Expected"): the dtypes agree, the ranks agree, the rank is 3 or 4.
        template = "adaptive_avg_pool2d_backward_out_cpu_template: "
        lines += dtypes
        lines += [line.replace("\"expected dtype", f"\"{template}Expected dtype")
                  for line in same_dtype("ctype", "grad_output")]
        lines += [f"    %ranks_agree = arith.cmpi eq, %gr, %xr : i64",
                  f"    opal.check %ranks_agree, \"{template}Expected dimensions {{0}} for `grad_output` but got dimensions {{1}}\" (%xr, %gr : i64, i64)"]
        lines += rank_lines
        lines.append(f"    opal.check %rank_ok, \"{template}Expected 3D or 4D tensor, but got [{{0}}]\" (%xs : {L})")
        lines += dtype_check("%code", ["float16", "float32", "float64", "bfloat16"], "adaptive_avg_pool2d_backward")
    else:
        lines += rank_lines
        lines.append(f"    opal.check %rank_ok, \"{name}_backward(): Expected 4D or 5D tensor, but got [{{0}}]\" (%gs : {L})")
        lines += dtypes
        lines += same_dtype("scalar", "")
        lines += dtype_check("%code", ["float16", "float32", "float64"], "adaptive_avg_pool3d_backward_cpu")
    # opal's own check (PyTorch reads out of bounds here)
    lines += [f"    %same_rank = arith.cmpi eq, %gr, %xr : i64",
              leading(k),
              f"    opal.check %fits, \"{name}_backward(): expected grad_output with the rank, batch and channel sizes of input [{{0}}], but got grad_output of shape [{{1}}]\" (%xs, %gs : {L}, {L})"]
    prim = f"    %r = prims.adaptive_avg_pool_backward %g, %x : (!opal.tensor, !opal.tensor) -> !opal.tensor"
    lines.append(unbatch(k, prim))
    lines.append("  }")
    return "\n".join(lines)


HEAD = """// The aten library, continued: the backward ops of average pooling, with
// PyTorch's schemas. Generated by scripts/generate-pool-backward-library.py:
// edit that script and run it, not this file.
//
// avg_poolNd_backward calls the forward op for its checks and its output's
// shape (the values are never computed: only sizes are read, and the
// compiler drops the rest); the gradient's sizes are checked as the kernel
// runs (they are computed), then prims.avg_pool_backward gathers each input
// element's share. _adaptive_avg_poolNd_backward: PyTorch's checks, opal's
// check that the gradient has the input's rank, batch and channels, then
// prims.adaptive_avg_pool_backward."""


def main():
    print(HEAD)
    print('opal.library "aten" {')
    for text in (avg(2), avg(3), adaptive(2), adaptive(3)):
        print(text)
    print("}")


if __name__ == "__main__":
    main()
