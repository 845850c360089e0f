"""A tour of opal's compiler: an aten composite decomposed, lowered and run.

aten.gelu and aten.softplus are decomposed into prims (with PyTorch's type
promotion and broadcasting), lowered to linalg, compiled for this CPU with
`opal-opt --opal-to-llvm`, and run with mlir-runner; the values are compared
with the formulas in Python. (Issue 6 turns this path into the dispatcher's
JIT, so Python calls compile themselves.)

Run from the repository root after `make build`:
    /usr/bin/python3 examples/compile_tour.py
"""

import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPAL_OPT = os.path.join(os.environ.get("OPAL_BUILD_DIR", os.path.join(ROOT, "build")),
                        "bin", "opal-opt")
LLVM = "/usr/lib/llvm-22"

XS = [-2.0, -0.5, 0.0, 0.75, 3.0]
KERNEL = f"""
func.func @main() {{
  %x = arith.constant dense<{XS}> : tensor<5xf32>
  %approximate = opal.str "none"
  %g = aten.gelu %x, %approximate : (tensor<5xf32>, !opal.str) -> tensor<5xf32>
  %beta = arith.constant 1.0 : f64
  %threshold = arith.constant 20.0 : f64
  %s = aten.softplus %x, %beta, %threshold : (tensor<5xf32>, f64, f64) -> tensor<5xf32>
  call @print(%g) : (tensor<5xf32>) -> ()
  call @print(%s) : (tensor<5xf32>) -> ()
  return
}}
func.func @print(%t: tensor<5xf32>) {{
  %m = bufferization.to_buffer %t : tensor<5xf32> to memref<5xf32>
  %u = memref.cast %m : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}}
func.func private @printMemrefF32(memref<*xf32>) attributes {{llvm.emit_c_interface}}
"""


def opal_opt(*flags):
    return subprocess.run([OPAL_OPT, "-", *flags], input=KERNEL, capture_output=True,
                          text=True, check=True).stdout


def count(text, prefix):
    return sum(1 for line in text.splitlines() if f" {prefix}" in line and "= " in line)


decomposed = opal_opt("--opal-decompose")
print("== aten.gelu and aten.softplus, decomposed ==")
print(f"prims ops after opal-decompose:      {count(decomposed, 'prims.')}")
linalg = opal_opt("--opal-to-linalg")
print(f"linalg.generic ops after lowering:   {linalg.count('linalg.generic')}")
llvm_ir = opal_opt("--opal-to-llvm")
libs = ",".join(os.path.join(LLVM, "lib", name)
                for name in ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"])
ran = subprocess.run([os.path.join(LLVM, "bin", "mlir-runner"), "-e", "main",
                      "-entry-point-result=void", f"-shared-libs={libs}"],
                     input=llvm_ir, capture_output=True, text=True, check=True).stdout
rows = [[float(v) for v in line.strip("[]").split(",")]
        for line in ran.splitlines() if line.startswith("[")]

print("\n== Compiled for this CPU and run ==")
gelu = [0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in XS]
softplus = [x if x > 20 else math.log1p(math.exp(x)) for x in XS]
for name, got, want in [("gelu", rows[0], gelu), ("softplus", rows[1], softplus)]:
    print(f"{name:9}opal   " + "  ".join(f"{v:9.6f}" for v in got))
    print(f"{'':9}python " + "  ".join(f"{v:9.6f}" for v in want))
    worst = max(abs(a - b) for a, b in zip(got, want))
    print(f"{'':9}largest difference {worst:.1e} (mlir-runner prints 6 digits)")
