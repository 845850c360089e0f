// rand on CUDA: the Philox prim is one elementwise kernel, a thread per
// element; the seed and offset (the kernel's two i64 arguments, bound by
// opal-bind-random-streams) are split into 32-bit words on the host and
// passed as launch parameters. The ten rounds are 32x32->64-bit products
// and xors; ptxas accepts the PTX. (The input is the JIT's
// 2-entry-points.mlir for aten.rand([1000], device="cuda").)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

func.func @opal_kernel(%arg0: i64, %arg1: i64, %arg2: memref<1000xf32> {llvm.noalias, opal.align = 16 : i64}) attributes {opal.random_streams = 1 : i64} {
  %c6_i64 = arith.constant 6 : i64
  %c1000_i64 = arith.constant 1000 : i64
  %0 = opal.list %c1000_i64 : i64 -> !opal.list<i64>
  %1 = opal.device "cpu"
  %2 = prims.philox_uniform %0, %arg0, %arg1, %c6_i64, %1 : (!opal.list<i64>, i64, i64, i64, !opal.device) -> tensor<1000xf32>
  bufferization.materialize_in_destination %2 in restrict writable %arg2 : (tensor<1000xf32>, memref<1000xf32>) -> ()
  return
}

// HOST-LABEL: func.func @opal_kernel(%arg0: i64, %arg1: i64,
// HOST: arith.trunci %arg0 : i64 to i32
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %arg2 : memref<1000xf32>)
// HOST-NOT: gpu.launch_func
// PTX: .visible .entry opal_kernel_kernel(
// PTX-NOT: .entry
// The round multipliers 0xD2511F53 and 0xCD9E8D57, as signed 32-bit.
// PTX: mul.wide.u32 {{.*}}, -766435501;
// PTX: mul.wide.u32 {{.*}}, -845247145;
// PTX: cvt.rn.f32.u32
// PTX: st.global
