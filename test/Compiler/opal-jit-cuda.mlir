// The JIT's passes for CUDA, as opal-opt's --opal-jit-cuda pipeline: a
// kernel split into entry points becomes host code that launches one
// fused kernel, and a gpu.binary with its PTX (format=isa) for the chosen
// compute capability, which ptxas accepts.
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefixes=PTX,SM90 < %t.sm_90.ptx
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_80 format=isa" --opal-print-gpu-objects -o /dev/null > %t.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=PTX,SM80 < %t.sm_80.ptx
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa" | FileCheck %s --check-prefix=LOWERED
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// The JIT marks the buffers that start at a 16-byte boundary opal.align.
func.func @opal_kernel(%x: tensor<?x?xf32> {llvm.noalias, opal.align = 16 : i64},
                       %y: tensor<?x?xf32> {llvm.noalias, opal.align = 16 : i64},
                       %out: memref<?x?xf32> {llvm.noalias, opal.align = 16 : i64}) {
  %m = prims.mul %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %e = prims.exp %m : (tensor<?x?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %e in restrict writable %out
      : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// Host code: one launch over the flattened elements, four a thread and 256
// threads a block, skipped when there are none; no temporary.
// HOST-LABEL: func.func @opal_kernel(
// HOST-NOT: gpu.alloc
// HOST-DAG: %[[B:.*]] = arith.constant 256 : index
// HOST-DAG: %[[FOUR:.*]] = arith.constant 4 : index
// HOST: %[[THREADS:.*]] = arith.ceildivui %{{.*}}, %[[FOUR]] : index
// HOST: %[[GRID:.*]] = arith.ceildivui %[[THREADS]], %[[B]] : index
// HOST: scf.if
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[B]], %{{.*}}, %{{.*}})
// HOST-NOT: gpu.launch_func
// HOST: return
// HOST: gpu.binary @opal_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">

// What the JIT links (lower-host, the default): host code in the LLVM
// dialect that launches through opal's CUDA runtime, and the binary.
// LOWERED: module attributes {gpu.container_module, opal.gpu_kernels = ["opal_kernel_kernel"]}
// LOWERED: llvm.func @opal_kernel(
// LOWERED: llvm.call @opal_cuda_launch(
// LOWERED-NOT: gpu.launch_func
// LOWERED: gpu.binary @opal_kernels

// The kernel: global index = block * 256 + thread (the constants are sunk
// into the kernel, not passed), no division; the last thread's partial group
// element by element, then a whole group of four: one 128-bit load per
// operand, exp through libdevice (ex2.approx) per lane, one 128-bit store.
// PTX: // gpu.binary @opal_kernels target #nvvm.target<O = 3, chip = "sm_{{[89]}}0"> format isa
// SM90: .target sm_90
// SM80: .target sm_80
// PTX: .visible .entry opal_kernel_kernel(
// PTX: .maxntid 256, 1, 1
// PTX-DAG: %ctaid.x
// PTX-DAG: %tid.x
// PTX: mul.wide.u32 %{{.*}}, %{{.*}}, 256;
// PTX: setp.ge.u64
// PTX-NOT: div.u64
// PTX-NOT: rem.u64
// PTX: ld.global.b32
// PTX: ld.global.b32
// PTX: mul.rn.f32
// PTX: ex2.approx
// PTX: st.global.b32
// PTX: ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// PTX: ld.global.v4.b32
// PTX-COUNT-4: ex2.approx
// PTX: st.global.v4.b32
// PTX: ret;
