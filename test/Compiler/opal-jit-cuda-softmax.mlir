// softmax over the last dim on CUDA: opal-fuse-rows makes the six ops of
// its bufferized form one loop over rows, and opal-map-to-gpu one kernel
// with a block per row. Rows of up to 8 * 1024 elements take the first
// kernel: each thread loads its 8 elements of the row once, up front, and
// keeps them in registers; the row's maximum and sum (shuffles and shared
// memory) stay in registers too. Longer rows take the second: the threads
// find the row's maximum, write exp(x - max), sum it, divide, reading the
// row again for each step, with a barrier after each.
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

func.func @opal_kernel(%arg0: tensor<?x?xf32> {llvm.noalias}, %arg1: memref<?x?xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %0 = opal.list %c1_i64 : i64 -> !opal.list<i64>
  %1 = opal.none
  %2 = prims.amax %arg0, %0, %1 : (tensor<?x?xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
  %dim = tensor.dim %2, %c0 : tensor<?xf32>
  %3 = arith.index_cast %dim : index to i64
  %4 = opal.list %3, %c1_i64 : i64, i64 -> !opal.list<i64>
  %5 = opal.list %c0_i64 : i64 -> !opal.list<i64>
  %6 = prims.broadcast_in_dim %2, %4, %5 : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x1xf32>
  %dim_0 = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  %7 = arith.index_cast %dim_0 : index to i64
  %dim_1 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
  %8 = arith.index_cast %dim_1 : index to i64
  %9 = opal.list %7, %8 : i64, i64 -> !opal.list<i64>
  %10 = opal.list %c0_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
  %11 = prims.broadcast_in_dim %6, %9, %10 : (tensor<?x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x?xf32>
  %12 = prims.sub %arg0, %11 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %13 = prims.exp %12 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %14 = prims.sum %13, %0, %1 : (tensor<?x?xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
  %dim_2 = tensor.dim %14, %c0 : tensor<?xf32>
  %15 = arith.index_cast %dim_2 : index to i64
  %16 = opal.list %15, %c1_i64 : i64, i64 -> !opal.list<i64>
  %17 = opal.list %c0_i64 : i64 -> !opal.list<i64>
  %18 = prims.broadcast_in_dim %14, %16, %17 : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x1xf32>
  %dim_3 = tensor.dim %13, %c0 : tensor<?x?xf32>
  %19 = arith.index_cast %dim_3 : index to i64
  %dim_4 = tensor.dim %13, %c1 : tensor<?x?xf32>
  %20 = arith.index_cast %dim_4 : index to i64
  %21 = opal.list %19, %20 : i64, i64 -> !opal.list<i64>
  %22 = opal.list %c0_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
  %23 = prims.broadcast_in_dim %18, %21, %22 : (tensor<?x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x?xf32>
  %24 = prims.div %13, %23 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %24 in restrict writable %arg1 : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// HOST-LABEL: func.func @opal_kernel(
// HOST: %[[FITS:.*]] = arith.cmpi ule, %[[N:.*]], %c8192
// HOST: %[[WARPS:.*]] = arith.ceildivui %[[N]], %c256
// HOST: %[[THREADS:.*]] = arith.muli %[[WARPS]], %c32
// HOST: scf.if
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[THREADS]],
// HOST: } else {
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%c256,
// HOST-NOT: gpu.launch_func
// HOST: gpu.binary @opal_kernels

// The row in registers: eight loads of x, then only shuffles, exp and
// stores of the output (and of the row's max and sum, by thread 0).
// PTX: .visible .entry opal_kernel_kernel(
// PTX-COUNT-8: ld.global.b32
// PTX-NOT: ld.global
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: ex2.approx
// PTX: shfl.sync.bfly.b32
// PTX-NOT: ld.global
// PTX: div.rn.f32
// PTX: .entry opal_kernel_kernel_0(
// PTX: .shared
// PTX: max.NaN.f32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: ex2.approx
// PTX: add.rn.f32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: div.rn.f32
