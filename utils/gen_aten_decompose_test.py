"""Writes test/Transforms/aten-decompose.mlir: one case per aten op, with the
prims opal-decompose makes as CHECK lines (review the diff before committing).
Run after `make build`: /usr/bin/python3 utils/gen_aten_decompose_test.py
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPAL_OPT = os.path.join(ROOT, "build", "bin", "opal-opt")
import subprocess, re
F="tensor<2x3xf32>"; I="tensor<3xi32>"; L="tensor<2x3xi64>"; B="tensor<2x3xi1>"
cases = []  # (name, args decl, op text, result type, comment)
def add(fn, comment, params, body_op, result):
    cases.append((fn, comment, params, body_op, result))
for n in ["add","sub"]:
    add(f"{n}_tensor", f"{n}.Tensor: int tensor broadcast to the float one, alpha scales other", f"%x: {F}, %y: {I}",
        f"%c2 = arith.constant 2 : i64\n  %r = aten.{n}.Tensor %x, %y, %c2 : ({F}, {I}, i64) -> {F}", F)
    add(f"{n}_scalar", f"{n}.Scalar: a float scalar makes an int tensor float32", f"%x: {L}",
        f"%s = arith.constant 1.5 : f64\n  %c1 = arith.constant 1 : i64\n  %r = aten.{n}.Scalar %x, %s, %c1 : ({L}, f64, i64) -> {F}", F)
add("mul_tensor", "mul.Tensor: same dtype, rank-1 operand broadcast", f"%x: {F}, %y: tensor<3xf32>",
    f"%r = aten.mul.Tensor %x, %y : ({F}, tensor<3xf32>) -> {F}", F)
add("mul_scalar", "mul.Scalar: an int scalar keeps an int tensor int", f"%x: {L}",
    f"%s = arith.constant 3 : i64\n  %r = aten.mul.Scalar %x, %s : ({L}, i64) -> {L}", L)
add("div_tensor", "div.Tensor: true division of ints computes in float32", f"%x: {L}, %y: {L}",
    f"%r = aten.div.Tensor %x, %y : ({L}, {L}) -> {F}", F)
add("div_scalar", "div.Scalar", f"%x: {F}",
    f"%s = arith.constant 2.0 : f64\n  %r = aten.div.Scalar %x, %s : ({F}, f64) -> {F}", F)
add("pow_tensor_tensor", "pow.Tensor_Tensor: a 0-d float64 tensor does not widen float32 (same category)", f"%x: {F}, %y: tensor<f64>",
    f"%r = aten.pow.Tensor_Tensor %x, %y : ({F}, tensor<f64>) -> {F}", F)
add("pow_tensor_scalar", "pow.Tensor_Scalar", f"%x: {F}",
    f"%s = arith.constant 2.0 : f64\n  %r = aten.pow.Tensor_Scalar %x, %s : ({F}, f64) -> {F}", F)
add("maximum", "maximum: a 0-d float tensor of higher category makes an int tensor float", f"%x: {L}, %y: tensor<f64>",
    f"%r = aten.maximum %x, %y : ({L}, tensor<f64>) -> tensor<2x3xf64>", "tensor<2x3xf64>")
add("minimum", "minimum: float16 with bfloat16 gives float32", f"%x: tensor<2x3xf16>, %y: tensor<2x3xbf16>",
    f"%r = aten.minimum %x, %y : (tensor<2x3xf16>, tensor<2x3xbf16>) -> {F}", F)
for n in ["eq","ne","lt","le","gt","ge"]:
    add(f"{n}_tensor", f"{n}.Tensor: compared in the promoted dtype, bool result", f"%x: {F}, %y: {I}",
        f"%r = aten.{n}.Tensor %x, %y : ({F}, {I}) -> {B}", B)
    add(f"{n}_scalar", f"{n}.Scalar", f"%x: {L}",
        f"%s = arith.constant 0 : i64\n  %r = aten.{n}.Scalar %x, %s : ({L}, i64) -> {B}", B)
add("neg", "neg keeps an int dtype", f"%x: {L}", f"%r = aten.neg %x : ({L}) -> {L}", L)
add("abs", "abs", f"%x: {F}", f"%r = aten.abs %x : ({F}) -> {F}", F)
for n in ["exp","log","log1p","sqrt","rsqrt","sin","cos","tanh","erf"]:
    add(n, f"{n}: an int tensor is computed in float32", f"%x: {L}", f"%r = aten.{n} %x : ({L}) -> {F}", F)
add("relu", "relu: maximum with a broadcast zero", f"%x: {F}", f"%r = aten.relu %x : ({F}) -> {F}", F)
add("sigmoid", "sigmoid: 1 / (1 + exp(-x))", f"%x: {F}", f"%r = aten.sigmoid %x : ({F}) -> {F}", F)
add("silu", "silu: x * sigmoid(x), through aten.sigmoid", f"%x: {F}", f"%r = aten.silu %x : ({F}) -> {F}", F)
add("where_self", "where.self: the condition broadcasts too", f"%c: tensor<3xi1>, %x: {F}, %y: tensor<f32>",
    f"%r = aten.where.self %c, %x, %y : (tensor<3xi1>, {F}, tensor<f32>) -> {F}", F)

add("softplus", "softplus: linear above threshold / beta, log1p(exp(x * beta)) / beta below", f"%x: {F}",
    f"%b = arith.constant 1.0 : f64\n  %t = arith.constant 20.0 : f64\n  %r = aten.softplus %x, %b, %t : ({F}, f64, f64) -> {F}", F)
add("leaky_relu", "leaky_relu: where(x > 0, x, x * slope)", f"%x: {F}",
    f"%s = arith.constant 0.01 : f64\n  %r = aten.leaky_relu %x, %s : ({F}, f64) -> {F}", F)
add("hardtanh", "hardtanh: minimum(maximum(x, min_val), max_val)", f"%x: {F}",
    f"%lo = arith.constant -1.0 : f64\n  %hi = arith.constant 1.0 : f64\n  %r = aten.hardtanh %x, %lo, %hi : ({F}, f64, f64) -> {F}", F)
add("clamp_min", "clamp_min: an int bound keeps a float tensor float", f"%x: {F}",
    f"%m = arith.constant 0 : i64\n  %r = aten.clamp_min %x, %m : ({F}, i64) -> {F}", F)
add("clamp_max", "clamp_max", f"%x: {L}",
    f"%m = arith.constant 5 : i64\n  %r = aten.clamp_max %x, %m : ({L}, i64) -> {L}", L)
add("rsub_scalar", "rsub.Scalar: other - alpha * self", f"%x: {F}",
    f"%o = arith.constant 1.0 : f64\n  %c1 = arith.constant 1 : i64\n  %r = aten.rsub.Scalar %x, %o, %c1 : ({F}, f64, i64) -> {F}", F)
add("reciprocal", "reciprocal: 1 / x, in float32 for ints", f"%x: {L}", f"%r = aten.reciprocal %x : ({L}) -> {F}", F)
add("square", "square: x * x", f"%x: {L}", f"%r = aten.square %x : ({L}) -> {L}", L)
add("mm", "mm: a float16 operand is promoted to the other's float32", "%a: tensor<2x3xf32>, %b: tensor<3x4xf16>",
    "%r = aten.mm %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>", "tensor<2x4xf32>")
add("bmm", "bmm", "%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>",
    "%r = aten.bmm %a, %b : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>", "tensor<5x2x4xf32>")

DL = "!opal.list<i64>"
add("sum_dim", "sum.dim_IntList: int32 sums in int64, a negative dim is normalized", f"%x: tensor<2x3xi32>",
    f"%d = arith.constant -1 : i64\n  %l = opal.list %d : i64 -> {DL}\n  %k = arith.constant false\n  %n = opal.none\n  %r = aten.sum.dim_IntList %x, %l, %k, %n : (tensor<2x3xi32>, {DL}, i1, !opal.none) -> tensor<2xi64>", "tensor<2xi64>")
add("sum_all_keepdim", "sum.dim_IntList: None means every dim; keepdim restores them as size 1; dtype converts first", f"%x: {F}",
    f"%n = opal.none\n  %k = arith.constant true\n  %dt = arith.constant 7 : i64\n  %r = aten.sum.dim_IntList %x, %n, %k, %dt : ({F}, !opal.none, i1, i64) -> tensor<1x1xf64>", "tensor<1x1xf64>")
add("mean_dim", "mean.dim: sum divided by the count of the reduced dims (read at run time when dynamic)", "%x: tensor<?x4xf32>",
    f"%d = arith.constant 0 : i64\n  %l = opal.list %d : i64 -> {DL}\n  %k = arith.constant true\n  %n = opal.none\n  %r = aten.mean.dim %x, %l, %k, %n : (tensor<?x4xf32>, {DL}, i1, !opal.none) -> tensor<1x4xf32>", "tensor<1x4xf32>")
for n in ["amax", "amin"]:
    add(n, f"{n}: [] means every dim", f"%x: {F}",
        f"%l = opal.list -> {DL}\n  %k = arith.constant false\n  %r = aten.{n} %x, %l, %k : ({F}, {DL}, i1) -> tensor<f32>", "tensor<f32>")
add("softmax", "softmax.int: exp(x - amax) / sum, along a dynamic batch", "%x: tensor<?x4xf32>",
    f"%d = arith.constant 1 : i64\n  %n = opal.none\n  %r = aten.softmax.int %x, %d, %n : (tensor<?x4xf32>, i64, !opal.none) -> tensor<?x4xf32>", "tensor<?x4xf32>")
add("log_softmax", "log_softmax.int: (x - amax) - log(sum(exp(x - amax)))", f"%x: {F}",
    f"%d = arith.constant -1 : i64\n  %n = opal.none\n  %r = aten.log_softmax.int %x, %d, %n : ({F}, i64, !opal.none) -> {F}", F)
add("transpose_int", "transpose.int: negative dims count from the end", "%x: tensor<2x3x4xf32>",
    f"%a = arith.constant 0 : i64\n  %b = arith.constant -1 : i64\n  %r = aten.transpose.int %x, %a, %b : (tensor<2x3x4xf32>, i64, i64) -> tensor<4x3x2xf32>", "tensor<4x3x2xf32>")
add("t", "t", "%x: tensor<2x?xf32>", "%r = aten.t %x : (tensor<2x?xf32>) -> tensor<?x2xf32>", "tensor<?x2xf32>")
add("permute", "permute", "%x: tensor<2x3x4xf32>",
    f"%a = arith.constant 2 : i64\n  %b = arith.constant 0 : i64\n  %c = arith.constant -2 : i64\n  %l = opal.list %a, %b, %c : i64, i64, i64 -> {DL}\n  %r = aten.permute %x, %l : (tensor<2x3x4xf32>, {DL}) -> tensor<4x2x3xf32>", "tensor<4x2x3xf32>")

add("gelu_none", "gelu, approximate=\"none\": 0.5 * x * (1 + erf(x / sqrt(2)))", f"%x: {F}",
    f"%a = opal.str \"none\"\n  %r = aten.gelu %x, %a : ({F}, !opal.str) -> {F}", F)
add("gelu_tanh", "gelu, approximate=\"tanh\": the tanh formula, and no erf", f"%x: {F}",
    f"%a = opal.str \"tanh\"\n  %r = aten.gelu %x, %a : ({F}, !opal.str) -> {F}", F)
add("clamp_both", "clamp with both bounds: maximum, then minimum", f"%x: {F}",
    f"%lo = arith.constant -1.0 : f64\n  %hi = arith.constant 1.0 : f64\n  %r = aten.clamp %x, %lo, %hi : ({F}, f64, f64) -> {F}", F)
add("clamp_max_only", "clamp with min=None: only the minimum", f"%x: {F}",
    f"%n = opal.none\n  %hi = arith.constant 1.0 : f64\n  %r = aten.clamp %x, %n, %hi : ({F}, !opal.none, f64) -> {F}", F)

N5 = ", ".join(["!opal.none"] * 5)
add("unsqueeze", "unsqueeze: a negative dim counts in the result's rank", "%x: tensor<2x?xf32>",
    "%d = arith.constant -1 : i64\n  %r = aten.unsqueeze %x, %d : (tensor<2x?xf32>, i64) -> tensor<2x?x1xf32>", "tensor<2x?x1xf32>")
add("expand", "expand: -1 keeps a size, a new leading dim is added", "%x: tensor<3x1xf32>",
    f"%a = arith.constant 2 : i64\n  %b = arith.constant -1 : i64\n  %c = arith.constant 4 : i64\n  %l = opal.list %a, %b, %c : i64, i64, i64 -> {DL}\n  %f = arith.constant false\n  %r = aten.expand %x, %l, %f : (tensor<3x1xf32>, {DL}, i1) -> tensor<2x3x4xf32>", "tensor<2x3x4xf32>")
add("reshape", "reshape: -1 is inferred", "%x: tensor<2x6xf32>",
    f"%a = arith.constant -1 : i64\n  %b = arith.constant 4 : i64\n  %l = opal.list %a, %b : i64, i64 -> {DL}\n  %r = aten.reshape %x, %l : (tensor<2x6xf32>, {DL}) -> tensor<3x4xf32>", "tensor<3x4xf32>")
add("view", "view", "%x: tensor<12xi32>",
    f"%a = arith.constant 3 : i64\n  %b = arith.constant 4 : i64\n  %l = opal.list %a, %b : i64, i64 -> {DL}\n  %r = aten.view %x, %l : (tensor<12xi32>, {DL}) -> tensor<3x4xi32>", "tensor<3x4xi32>")
add("zeros_like", "zeros_like: the shape is read at run time where dynamic", "%x: tensor<?x3xf32>",
    f"%n = opal.none\n  %r = aten.zeros_like %x, %n, %n, %n, %n, %n : (tensor<?x3xf32>, {N5}) -> tensor<?x3xf32>", "tensor<?x3xf32>")
add("ones_like", "ones_like with a dtype (float64 = 7)", f"%x: {L}",
    f"%n = opal.none\n  %dt = arith.constant 7 : i64\n  %r = aten.ones_like %x, %dt, %n, %n, %n, %n : ({L}, i64, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<2x3xf64>", "tensor<2x3xf64>")
add("full_like", "full_like", f"%x: {F}",
    f"%n = opal.none\n  %v = arith.constant 2.5 : f64\n  %r = aten.full_like %x, %v, %n, %n, %n, %n, %n : ({F}, f64, {N5}) -> {F}", F)
add("layer_norm", "layer_norm over the last dim, with weight and bias", "%x: tensor<?x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>",
    f"%c8 = arith.constant 8 : i64\n  %ns = opal.list %c8 : i64 -> {DL}\n  %eps = arith.constant 1.0e-5 : f64\n  %t = arith.constant true\n  %r = aten.layer_norm %x, %ns, %w, %b, %eps, %t : (tensor<?x8xf32>, {DL}, tensor<8xf32>, tensor<8xf32>, f64, i1) -> tensor<?x8xf32>", "tensor<?x8xf32>")

add("squeeze_dim", "squeeze.dim: removes a dim of size 1", "%x: tensor<2x1x?xf32>",
    "%d = arith.constant -2 : i64\n  %r = aten.squeeze.dim %x, %d : (tensor<2x1x?xf32>, i64) -> tensor<2x?xf32>", "tensor<2x?xf32>")
add("squeeze_dim_kept", "squeeze.dim: a dim of another size stays", "%x: tensor<2x3xf32>",
    "%d = arith.constant 0 : i64\n  %r = aten.squeeze.dim %x, %d : (tensor<2x3xf32>, i64) -> tensor<2x3xf32>", "tensor<2x3xf32>")

add("matmul_dot", "matmul of two vectors: a dot product (0-d)", "%a: tensor<3xf32>",
    "%r = aten.matmul %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>", "tensor<f32>")
add("matmul_vm", "matmul vector @ matrix: unsqueeze, mm, squeeze", "%a: tensor<3xf32>, %b: tensor<3x4xf32>",
    "%r = aten.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>", "tensor<4xf32>")
add("matmul_mv", "matmul matrix @ vector", "%a: tensor<5x3xf32>, %b: tensor<3xf32>",
    "%r = aten.matmul %a, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5xf32>", "tensor<5xf32>")
add("matmul_mm", "matmul of matrices: mm", "%a: tensor<5x3xf32>, %b: tensor<3x4xf32>",
    "%r = aten.matmul %a, %b : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>", "tensor<5x4xf32>")
add("matmul_batched", "matmul 3-d @ 2-d: the matrix is broadcast along the (dynamic) batch, then bmm", "%a: tensor<?x5x3xf32>, %b: tensor<3x4xf32>",
    "%r = aten.matmul %a, %b : (tensor<?x5x3xf32>, tensor<3x4xf32>) -> tensor<?x5x4xf32>", "tensor<?x5x4xf32>")
add("linear", "linear: input @ weight.t() + bias", "%x: tensor<?x3xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>",
    "%r = aten.linear %x, %w, %b : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>", "tensor<?x4xf32>")

src = []
for fn, comment, params, body, result in cases:
    src.append(f"// {comment}\nfunc.func @{fn}({params}) -> {result} {{\n  {body}\n  return %r : {result}\n}}")
text = "\n\n// -----\n\n".join(src) + "\n"
out = subprocess.run([OPAL_OPT, "-", "--opal-decompose", "--split-input-file"], input=text, capture_output=True, text=True)
assert out.returncode==0, out.stderr
chunks = out.stdout.split("// -----")
res = ["// RUN: opal-opt %s --opal-decompose --split-input-file | FileCheck %s",
       "// RUN: opal-opt %s --opal-to-linalg --split-input-file | FileCheck %s --check-prefix=LOWER",
       "// Every case also goes all the way to linalg.",
       "// LOWER-NOT: aten.", "// LOWER-NOT: prims.", "// LOWER: linalg.", "// LOWER-NOT: aten.", "// LOWER-NOT: prims.",
       "// One test per aten composite: the prims it becomes, with PyTorch's type",
       "// promotion (convert_element_type, full) and broadcasting (broadcast_in_dim).",""]
for (fn, comment, params, body, result), chunk, s in zip(cases, chunks, src):
    checks=[f"// CHECK-LABEL: func.func @{fn}"]
    for line in chunk.splitlines():
        m = re.search(r"= (prims\.\w+) .* : (\(.*\) -> .*)$", line)
        if m:
            checks.append(f"// CHECK: {m.group(1)} {{{{.*}}}} : {m.group(2)}")
    checks.append("// CHECK-NOT: aten.")
    first, rest = s.split("\n", 1)
    res.append(first + "\n" + "\n".join(checks) + "\n" + rest)
open(os.path.join(ROOT, "test", "Transforms", "aten-decompose.mlir"), "w").write(
    "\n".join(res[:11]) + "\n" + "\n\n// -----\n\n".join(res[11:]) + "\n")
