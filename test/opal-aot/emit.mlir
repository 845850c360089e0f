// opal-aot's stages: each precompiled kernel's optimized LLVM IR and its
// assembly, for a fixed ISA level (AVX2: eight floats a vector).
// RUN: opal-aot %s --cpu=x86-64-v3 --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: opal-aot %s --cpu=x86-64-v3 --emit=asm | FileCheck %s --check-prefix=ASM
// RUN: opal-aot %s --cpu=x86-64-v3 --archive=%t.a --stub=%t.c && FileCheck %s --check-prefix=STUB < %t.c
// The stub compiles cleanly under the strictest usual warnings.
// RUN: cc -std=c11 -Wall -Wextra -Werror -c %t.c -o %t.o

opal.library "aotlit" {
  opal.def "scale_add(Tensor x, Tensor y, float alpha) -> Tensor"
  opal.decomposition "scale_add" {
  ^bb0(%x: !opal.tensor, %y: !opal.tensor, %alpha: f64):
    %s = aten.mul.Scalar %x, %alpha : (!opal.tensor, f64) -> !opal.tensor
    %one = arith.constant 1.0 : f64
    %r = aten.add.Tensor %s, %y, %one : (!opal.tensor, !opal.tensor, f64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.precompile "scale_add" "(float32[?], float32[?], float)"
  opal.precompile "scale_add" "(float64[?,?], float64[1,?], float)"
}

// LLVM-LABEL: // ----- aotlit::scale_add(float32[?], float32[?], float)
// Only the packed entry points are exported; the kernel itself is internal
// (and inlined into its entry point). Its loop nest, which may split over
// threads, is a part kept out of line: called from the parallel region and
// from the entry point, it is vectorized once.
// LLVM-NOT: define void @opal_kernel(
// LLVM: define internal fastcc void @opal_kernel_part(
// The buffers are noalias, so the vector loop needs no runtime overlap check.
// LLVM-NOT: vector.memcheck
// LLVM: fmul <8 x float>
// LLVM: define void @opal_aot_emit_mlir_0_opal_kernel(ptr
// LLVM-NOT: fmul <8 x float>
// LLVM: call fastcc void @opal_kernel_part(
// LLVM: define void @opal_aot_emit_mlir_0_opal_kernel_shapes(ptr
// LLVM-LABEL: // ----- aotlit::scale_add(float64[?,?], float64[1,?], float)
// LLVM: define void @opal_aot_emit_mlir_1_opal_kernel(ptr

// ASM-LABEL: // ----- aotlit::scale_add(float32[?], float32[?], float)
// ASM: opal_kernel_part:
// ASM: vmulps {{.*}}%ymm
// ASM: opal_aot_emit_mlir_0_opal_kernel:
// ASM: callq opal_kernel_part

// STUB: struct opal_aot_library {
// STUB: void opal_aot_emit_mlir_0_opal_kernel(void **);
// STUB: void opal_aot_emit_mlir_0_opal_kernel_shapes(void **);
// STUB: {"aotlit::scale_add", "(float32[?], float32[?], float)",
// STUB-NEXT: "outputs: float32[?]\n"
// STUB-NEXT: "sizes: a0.0\n"
// STUB-NEXT: "checks: broadcast,aten::add.Tensor,0,a0.0,a1.0\n"
// STUB-NEXT: "reached: aotlit::scale_add aten::add.Tensor aten::mul.Scalar prims::add prims::broadcast_in_dim prims::full prims::mul\n",
// STUB-NEXT: opal_aot_emit_mlir_0_opal_kernel, opal_aot_emit_mlir_0_opal_kernel_shapes, 0, 0, 0, 0, 0, 0},
// STUB: {"aotlit::scale_add", "(float64[?,?], float64[1,?], float)",
// STUB: "DEF", text,
// STUB-NEXT: "x86_64-{{.*}} x86-64-v3",
// STUB-NEXT: "{{.*}}+avx2,
// STUB: __attribute__((constructor)) static void opal_aot_load(void) {
