// A row reduction on CUDA: one block per row, of a warp per 256 elements
// (32 warps at most); each thread sums a strided share of the row, eight
// loads at a time, then the block combines its threads with warp shuffles
// and shared memory (gpu.all_reduce), and thread 0 writes the row's sum.
// The fill of the output (with 0) is folded into the reduction: one kernel,
// whose thread 0 adds the block's sum to 0 instead of reading the output.
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

func.func @opal_kernel(%x: tensor<?x?xf32> {llvm.noalias}, %out: memref<?xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : i64
  %dims = opal.list %c1 : i64 -> !opal.list<i64>
  %none = opal.none
  %s = prims.sum %x, %dims, %none : (tensor<?x?xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
  bufferization.materialize_in_destination %s in restrict writable %out
      : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// HOST-LABEL: func.func @opal_kernel(
// HOST: %[[WARPS:.*]] = arith.ceildivui %{{.*}}, %c256
// HOST: %[[SOME:.*]] = arith.minui %[[WARPS]], %c32
// HOST: %[[T:.*]] = arith.muli %[[SOME]], %c32
// HOST: %[[THREADS:.*]] = arith.maxui %[[T]], %c32
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[THREADS]],
// HOST-NOT: gpu.launch_func
// HOST: gpu.binary @opal_kernels

// PTX: .visible .entry opal_kernel_kernel(
// PTX: .shared
// PTX-COUNT-8: ld.global.b32
// PTX: add.rn.f32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: st.global.b32
// PTX: ret;
// PTX-NOT: .entry
