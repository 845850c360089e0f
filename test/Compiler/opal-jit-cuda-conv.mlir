// conv2d on CUDA: the convolution is a batched matrix product, one kernel
// each for the columns (im2col: a thread per element; unpadded, every read
// lies inside the input but for channels, read clamped to its last), the
// weight matrix, the product and the result
// (the batch moved in front); its data check (a kernel larger than the
// padded input) is written by small kernels of its own. ptxas accepts the
// PTX. (The input is the JIT's 2-entry-points.mlir for aten.conv2d(x, w)
// with x 1x2x5x5 and w 3x2x3x3, float32 cuda tensors.)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

#map = affine_map<() -> ()>
module {
  func.func @opal_kernel(%arg0: tensor<1x?x?x?xf32> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg1: tensor<?x?x?x?xf32> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg2: memref<1x?x?x?xf32> {llvm.noalias, opal.align = 16 : i64}, %arg3: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg4: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg5: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg6: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg7: memref<i64> {llvm.noalias, opal.align = 16 : i64}) attributes {opal.data_checks = "aten::convolution,5,Calculated%20padded%20input%20size%20per%20channel:%20(%7B0%7D%20x%20%7B1%7D).%20Kernel%20size:%20(%7B2%7D%20x%20%7B3%7D).%20Kernel%20size%20can't%20be%20greater%20than%20actual%20input%20size"} {
    %c11_i64 = arith.constant 11 : i64
    %false = arith.constant false
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %0 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %1 = opal.list %c0_i64, %c0_i64 : i64, i64 -> !opal.list<i64>
    %2 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %dim = tensor.dim %arg1, %c0 : tensor<?x?x?x?xf32>
    %3 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg1, %c1 : tensor<?x?x?x?xf32>
    %4 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg1, %c2 : tensor<?x?x?x?xf32>
    %5 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg1, %c3 : tensor<?x?x?x?xf32>
    %6 = arith.index_cast %dim_2 : index to i64
    %dim_3 = tensor.dim %arg0, %c1 : tensor<1x?x?x?xf32>
    %7 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %8 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %9 = arith.index_cast %dim_5 : index to i64
    %dim_6 = tensor.dim %arg0, %c1 : tensor<1x?x?x?xf32>
    %10 = arith.index_cast %dim_6 : index to i64
    %dim_7 = tensor.dim %arg1, %c1 : tensor<?x?x?x?xf32>
    %11 = arith.index_cast %dim_7 : index to i64
    %12 = arith.cmpi eq, %10, %11 : i64
    opal.assert %12, "Given groups={0}, weight of size [{1}], expected input[{2}] to have {3} channels, but got {4} channels instead" groups [1, 4, 4, 1, 1](%c1_i64, %3, %4, %5, %6, %c1_i64, %7, %8, %9, %11, %10 : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
    %dim_8 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %13 = arith.index_cast %dim_8 : index to i64
    %dim_9 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %14 = arith.index_cast %dim_9 : index to i64
    %dim_10 = tensor.dim %arg1, %c2 : tensor<?x?x?x?xf32>
    %15 = arith.index_cast %dim_10 : index to i64
    %dim_11 = tensor.dim %arg1, %c3 : tensor<?x?x?x?xf32>
    %16 = arith.index_cast %dim_11 : index to i64
    %17 = arith.cmpi slt, %13, %15 : i64
    %18 = arith.cmpi slt, %14, %16 : i64
    %19 = arith.ori %17, %18 : i1
    %20 = opal.list -> !opal.list<i64>
    %21 = opal.device "cpu"
    %22 = prims.full %20, %19, %c11_i64, %21, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_12 = arith.constant 0 : i64
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill ins(%c0_i64_12 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%22 : tensor<i1>) outs(%24 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %35 = arith.extui %in : i1 to i64
      %36 = arith.ori %out, %35 : i64
      linalg.yield %36 : i64
    } -> tensor<i64>
    %26 = tensor.empty() : tensor<i64>
    %27 = linalg.fill {opal.data_check_word = 1 : i64} ins(%13 : i64) outs(%26 : tensor<i64>) -> tensor<i64>
    %28 = tensor.empty() : tensor<i64>
    %29 = linalg.fill {opal.data_check_word = 2 : i64} ins(%14 : i64) outs(%28 : tensor<i64>) -> tensor<i64>
    %30 = tensor.empty() : tensor<i64>
    %31 = linalg.fill {opal.data_check_word = 3 : i64} ins(%15 : i64) outs(%30 : tensor<i64>) -> tensor<i64>
    %32 = tensor.empty() : tensor<i64>
    %33 = linalg.fill {opal.data_check_word = 4 : i64} ins(%16 : i64) outs(%32 : tensor<i64>) -> tensor<i64>
    %34 = prims.conv %arg0, %arg1, %0, %1, %2, %c1_i64 : (tensor<1x?x?x?xf32>, tensor<?x?x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<1x?x?x?xf32>
    bufferization.materialize_in_destination %34 in restrict writable %arg2 : (tensor<1x?x?x?xf32>, memref<1x?x?x?xf32>) -> ()
    bufferization.materialize_in_destination %25 in restrict writable %arg3 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %27 in restrict writable %arg4 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %29 in restrict writable %arg5 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %31 in restrict writable %arg6 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %33 in restrict writable %arg7 : (tensor<i64>, memref<i64>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<1x?x?x?xf32> {bufferization.writable = false, opal.align = 16 : i64}, %arg1: tensor<?x?x?x?xf32> {bufferization.writable = false, opal.align = 16 : i64}, %arg2: memref<?xi64>) attributes {opal.data_checks = "aten::convolution,5,Calculated%20padded%20input%20size%20per%20channel:%20(%7B0%7D%20x%20%7B1%7D).%20Kernel%20size:%20(%7B2%7D%20x%20%7B3%7D).%20Kernel%20size%20can't%20be%20greater%20than%20actual%20input%20size"} {
    %c11_i64 = arith.constant 11 : i64
    %false = arith.constant false
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %0 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %1 = opal.list %c0_i64, %c0_i64 : i64, i64 -> !opal.list<i64>
    %2 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %dim = tensor.dim %arg1, %c0 : tensor<?x?x?x?xf32>
    %3 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg1, %c1 : tensor<?x?x?x?xf32>
    %4 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg1, %c2 : tensor<?x?x?x?xf32>
    %5 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg1, %c3 : tensor<?x?x?x?xf32>
    %6 = arith.index_cast %dim_2 : index to i64
    %dim_3 = tensor.dim %arg0, %c1 : tensor<1x?x?x?xf32>
    %7 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %8 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %9 = arith.index_cast %dim_5 : index to i64
    %dim_6 = tensor.dim %arg0, %c1 : tensor<1x?x?x?xf32>
    %10 = arith.index_cast %dim_6 : index to i64
    %dim_7 = tensor.dim %arg1, %c1 : tensor<?x?x?x?xf32>
    %11 = arith.index_cast %dim_7 : index to i64
    %12 = arith.cmpi eq, %10, %11 : i64
    opal.assert %12, "Given groups={0}, weight of size [{1}], expected input[{2}] to have {3} channels, but got {4} channels instead" groups [1, 4, 4, 1, 1](%c1_i64, %3, %4, %5, %6, %c1_i64, %7, %8, %9, %11, %10 : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
    %dim_8 = tensor.dim %arg0, %c2 : tensor<1x?x?x?xf32>
    %13 = arith.index_cast %dim_8 : index to i64
    %dim_9 = tensor.dim %arg0, %c3 : tensor<1x?x?x?xf32>
    %14 = arith.index_cast %dim_9 : index to i64
    %dim_10 = tensor.dim %arg1, %c2 : tensor<?x?x?x?xf32>
    %15 = arith.index_cast %dim_10 : index to i64
    %dim_11 = tensor.dim %arg1, %c3 : tensor<?x?x?x?xf32>
    %16 = arith.index_cast %dim_11 : index to i64
    %17 = arith.cmpi slt, %13, %15 : i64
    %18 = arith.cmpi slt, %14, %16 : i64
    %19 = arith.ori %17, %18 : i1
    %20 = opal.list -> !opal.list<i64>
    %21 = opal.device "cpu"
    %22 = prims.full %20, %19, %c11_i64, %21, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_12 = arith.constant 0 : i64
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill ins(%c0_i64_12 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%22 : tensor<i1>) outs(%24 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %38 = arith.extui %in : i1 to i64
      %39 = arith.ori %out, %38 : i64
      linalg.yield %39 : i64
    } -> tensor<i64>
    %26 = tensor.empty() : tensor<i64>
    %27 = linalg.fill {opal.data_check_word = 1 : i64} ins(%13 : i64) outs(%26 : tensor<i64>) -> tensor<i64>
    %28 = tensor.empty() : tensor<i64>
    %29 = linalg.fill {opal.data_check_word = 2 : i64} ins(%14 : i64) outs(%28 : tensor<i64>) -> tensor<i64>
    %30 = tensor.empty() : tensor<i64>
    %31 = linalg.fill {opal.data_check_word = 3 : i64} ins(%15 : i64) outs(%30 : tensor<i64>) -> tensor<i64>
    %32 = tensor.empty() : tensor<i64>
    %33 = linalg.fill {opal.data_check_word = 4 : i64} ins(%16 : i64) outs(%32 : tensor<i64>) -> tensor<i64>
    %34 = prims.conv %arg0, %arg1, %0, %1, %2, %c1_i64 : (tensor<1x?x?x?xf32>, tensor<?x?x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<1x?x?x?xf32>
    %c1_13 = arith.constant 1 : index
    %dim_14 = tensor.dim %34, %c1_13 : tensor<1x?x?x?xf32>
    %35 = arith.index_cast %dim_14 : index to i64
    %c0_15 = arith.constant 0 : index
    memref.store %35, %arg2[%c0_15] : memref<?xi64>
    %c2_16 = arith.constant 2 : index
    %dim_17 = tensor.dim %34, %c2_16 : tensor<1x?x?x?xf32>
    %36 = arith.index_cast %dim_17 : index to i64
    %c1_18 = arith.constant 1 : index
    memref.store %36, %arg2[%c1_18] : memref<?xi64>
    %c3_19 = arith.constant 3 : index
    %dim_20 = tensor.dim %34, %c3_19 : tensor<1x?x?x?xf32>
    %37 = arith.index_cast %dim_20 : index to i64
    %c2_21 = arith.constant 2 : index
    memref.store %37, %arg2[%c2_21] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// Zeros to read in place of an input without channels (a data check
// raises after the call), filled only then:
// HOST: %[[NONE:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// HOST: %[[READ:.*]] = scf.if %[[NONE]] -> (memref<1x?x?x?xf32>) {
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_5
// HOST: } else {
// HOST-NEXT: scf.yield %arg0 : memref<1x?x?x?xf32>
// The columns, from the input (unpadded: every read inside it):
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_6 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args({{.*}}%[[READ]] : memref<1x?x?x?xf32>
// The weight matrix, from the weight:
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_7 {{.*}} args(%arg1 : memref<?x?x?x?xf32>
// The product of the two, then the result:
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_8 {{.*}} args(%collapse_shape : memref<1x?x?xf32>, %collapse_shape_{{[0-9]+}} : memref<1x?x?xf32>
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_9
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel_6(
// PTX: ld.global
// PTX: st.global
// PTX: .visible .entry opal_kernel_kernel_8(
// PTX: {{fma.rn.f32|mul.rn.f32}}
// PTX: st.global
