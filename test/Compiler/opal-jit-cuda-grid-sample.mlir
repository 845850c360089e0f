// grid_sampler_2d on CUDA (bicubic, reflection padding, dynamic sizes): one
// kernel, a thread per output element, reads the 4 x 4 taps each through
// the reflection (floor, not trunc: the quotient is not negative) and reads
// nothing outside the input. ptxas accepts the PTX. (The input is the JIT's
// 2-entry-points.mlir for aten.grid_sampler_2d(x, grid, 2, 2, False).)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

module {
  func.func @opal_kernel(%arg0: tensor<1x?x?x?xf32> {bufferization.writable = false, llvm.noalias}, %arg1: tensor<1x?x?x?xf32> {bufferization.writable = false, llvm.noalias}, %arg2: memref<1x?x?x?xf32> {llvm.noalias}) {
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c2_i64 = arith.constant 2 : i64
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c1 = arith.constant 1 : index
    %dim = tensor.dim %arg0, %c1 : tensor<1x?x?x?xf32>
    %0 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %1 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %2 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg1, %c1 : tensor<1x?x?x?xf32>
    %3 = arith.index_cast %dim_2 : index to i64
    %dim_3 = tensor.dim %arg1, %c2 : tensor<1x?x?x?xf32>
    %4 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %arg1, %c3 : tensor<1x?x?x?xf32>
    %5 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg1, %c3 : tensor<1x?x?x?xf32>
    %6 = arith.index_cast %dim_5 : index to i64
    %7 = arith.cmpi eq, %6, %c2_i64 : i64
    opal.assert %7, "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [{0}]" groups [4](%c1_i64, %3, %4, %5 : i64, i64, i64, i64)
    %dim_6 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %8 = arith.index_cast %dim_6 : index to i64
    %dim_7 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %9 = arith.index_cast %dim_7 : index to i64
    %10 = arith.cmpi ne, %8, %c0_i64 : i64
    opal.assert %10, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [{0}] with dimension 2 being empty" groups [4](%c1_i64, %0, %1, %2 : i64, i64, i64, i64)
    %11 = arith.cmpi ne, %9, %c0_i64 : i64
    opal.assert %11, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [{0}] with dimension 3 being empty" groups [4](%c1_i64, %0, %1, %2 : i64, i64, i64, i64)
    %12 = prims.grid_sample %arg0, %arg1, %c2_i64, %c2_i64, %false : (tensor<1x?x?x?xf32>, tensor<1x?x?x?xf32>, i64, i64, i1) -> tensor<1x?x?x?xf32>
    bufferization.materialize_in_destination %12 in restrict writable %arg2 : (tensor<1x?x?x?xf32>, memref<1x?x?x?xf32>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<1x?x?x?xf32> {bufferization.writable = false}, %arg1: tensor<1x?x?x?xf32> {bufferization.writable = false}, %arg2: memref<?xi64>) {
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c2_i64 = arith.constant 2 : i64
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c1 = arith.constant 1 : index
    %dim = tensor.dim %arg0, %c1 : tensor<1x?x?x?xf32>
    %0 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %1 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %2 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg1, %c1 : tensor<1x?x?x?xf32>
    %3 = arith.index_cast %dim_2 : index to i64
    %dim_3 = tensor.dim %arg1, %c2 : tensor<1x?x?x?xf32>
    %4 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %arg1, %c3 : tensor<1x?x?x?xf32>
    %5 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg1, %c3 : tensor<1x?x?x?xf32>
    %6 = arith.index_cast %dim_5 : index to i64
    %7 = arith.cmpi eq, %6, %c2_i64 : i64
    opal.assert %7, "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [{0}]" groups [4](%c1_i64, %3, %4, %5 : i64, i64, i64, i64)
    %dim_6 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %8 = arith.index_cast %dim_6 : index to i64
    %dim_7 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %9 = arith.index_cast %dim_7 : index to i64
    %10 = arith.cmpi ne, %8, %c0_i64 : i64
    opal.assert %10, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [{0}] with dimension 2 being empty" groups [4](%c1_i64, %0, %1, %2 : i64, i64, i64, i64)
    %11 = arith.cmpi ne, %9, %c0_i64 : i64
    opal.assert %11, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [{0}] with dimension 3 being empty" groups [4](%c1_i64, %0, %1, %2 : i64, i64, i64, i64)
    %12 = prims.grid_sample %arg0, %arg1, %c2_i64, %c2_i64, %false : (tensor<1x?x?x?xf32>, tensor<1x?x?x?xf32>, i64, i64, i1) -> tensor<1x?x?x?xf32>
    %c1_8 = arith.constant 1 : index
    %dim_9 = tensor.dim %12, %c1_8 : tensor<1x?x?x?xf32>
    %13 = arith.index_cast %dim_9 : index to i64
    %c0 = arith.constant 0 : index
    memref.store %13, %arg2[%c0] : memref<?xi64>
    %c2_10 = arith.constant 2 : index
    %dim_11 = tensor.dim %12, %c2_10 : tensor<1x?x?x?xf32>
    %14 = arith.index_cast %dim_11 : index to i64
    %c1_12 = arith.constant 1 : index
    memref.store %14, %arg2[%c1_12] : memref<?xi64>
    %c3_13 = arith.constant 3 : index
    %dim_14 = tensor.dim %12, %c3_13 : tensor<1x?x?x?xf32>
    %15 = arith.index_cast %dim_14 : index to i64
    %c2_15 = arith.constant 2 : index
    memref.store %15, %arg2[%c2_15] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel(
// PTX: cvt.rmi.f32.f32
// PTX: min.NaN.f32
// PTX: ld.global.b32
// PTX: st.global.b32
