// avg_pool2d on CUDA: one kernel, a block per row of outputs
// (opal-fuse-rows: the window counts are read whole by every row), sums
// each output's window (padding reads nothing) and divides by the window's
// count; the data check for an output too small is written by kernels of
// its own.
// ptxas accepts the PTX. (The input is the JIT's 2-entry-points.mlir for
// aten.avg_pool2d(x, [2, 2]) on a 1x1x4x6 float32 cuda tensor.)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

#map = affine_map<() -> ()>
module {
  func.func @opal_kernel(%arg0: tensor<1x1x?x?xf32> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg1: memref<1x1x?x?xf32> {llvm.noalias, opal.align = 16 : i64}, %arg2: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg3: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg4: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg5: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg6: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg7: memref<i64> {llvm.noalias, opal.align = 16 : i64}) attributes {opal.data_checks = "aten::avg_pool2d,6,Given%20input%20size:%20(%7B0%7Dx%7B1%7Dx%7B2%7D).%20Calculated%20output%20size:%20(%7B0%7Dx%7B3%7Dx%7B4%7D).%20Output%20size%20is%20too%20small"} {
    %c11_i64 = arith.constant 11 : i64
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c1_i64 = arith.constant 1 : i64
    %true = arith.constant true
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c2_i64 = arith.constant 2 : i64
    %0 = opal.list %c2_i64, %c2_i64 : i64, i64 -> !opal.list<i64>
    %1 = opal.list %c0_i64, %c0_i64 : i64, i64 -> !opal.list<i64>
    %2 = opal.none
    %dim = tensor.dim %arg0, %c2 : tensor<1x1x?x?xf32>
    %3 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c3 : tensor<1x1x?x?xf32>
    %4 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg0, %c2 : tensor<1x1x?x?xf32>
    %5 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg0, %c3 : tensor<1x1x?x?xf32>
    %6 = arith.index_cast %dim_2 : index to i64
    %7 = arith.cmpi ne, %5, %c0_i64 : i64
    %8 = arith.cmpi ne, %6, %c0_i64 : i64
    %9 = arith.andi %true, %7 : i1
    %10 = arith.andi %9, %8 : i1
    opal.assert %10, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]" groups [4](%c1_i64, %c1_i64, %3, %4 : i64, i64, i64, i64)
    %11 = prims.avg_pool %arg0, %0, %0, %1, %false, %true, %2 : (tensor<1x1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, !opal.none) -> tensor<1x1x?x?xf32>
    %dim_3 = tensor.dim %11, %c2 : tensor<1x1x?x?xf32>
    %12 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %11, %c3 : tensor<1x1x?x?xf32>
    %13 = arith.index_cast %dim_4 : index to i64
    %14 = arith.cmpi sge, %12, %c1_i64 : i64
    %15 = arith.cmpi sge, %13, %c1_i64 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.xori %16, %true : i1
    %18 = opal.list -> !opal.list<i64>
    %19 = opal.device "cpu"
    %20 = prims.full %18, %17, %c11_i64, %19, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_5 = arith.constant 0 : i64
    %21 = tensor.empty() : tensor<i64>
    %22 = linalg.fill ins(%c0_i64_5 : i64) outs(%21 : tensor<i64>) -> tensor<i64>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%20 : tensor<i1>) outs(%22 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %34 = arith.extui %in : i1 to i64
      %35 = arith.ori %out, %34 : i64
      linalg.yield %35 : i64
    } -> tensor<i64>
    %24 = tensor.empty() : tensor<i64>
    %25 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c1_i64 : i64) outs(%24 : tensor<i64>) -> tensor<i64>
    %26 = tensor.empty() : tensor<i64>
    %27 = linalg.fill {opal.data_check_word = 2 : i64} ins(%5 : i64) outs(%26 : tensor<i64>) -> tensor<i64>
    %28 = tensor.empty() : tensor<i64>
    %29 = linalg.fill {opal.data_check_word = 3 : i64} ins(%6 : i64) outs(%28 : tensor<i64>) -> tensor<i64>
    %30 = tensor.empty() : tensor<i64>
    %31 = linalg.fill {opal.data_check_word = 4 : i64} ins(%12 : i64) outs(%30 : tensor<i64>) -> tensor<i64>
    %32 = tensor.empty() : tensor<i64>
    %33 = linalg.fill {opal.data_check_word = 5 : i64} ins(%13 : i64) outs(%32 : tensor<i64>) -> tensor<i64>
    bufferization.materialize_in_destination %11 in restrict writable %arg1 : (tensor<1x1x?x?xf32>, memref<1x1x?x?xf32>) -> ()
    bufferization.materialize_in_destination %23 in restrict writable %arg2 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %25 in restrict writable %arg3 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %27 in restrict writable %arg4 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %29 in restrict writable %arg5 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %31 in restrict writable %arg6 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %33 in restrict writable %arg7 : (tensor<i64>, memref<i64>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<1x1x?x?xf32> {bufferization.writable = false, opal.align = 16 : i64}, %arg1: memref<?xi64>) attributes {opal.data_checks = "aten::avg_pool2d,6,Given%20input%20size:%20(%7B0%7Dx%7B1%7Dx%7B2%7D).%20Calculated%20output%20size:%20(%7B0%7Dx%7B3%7Dx%7B4%7D).%20Output%20size%20is%20too%20small"} {
    %c11_i64 = arith.constant 11 : i64
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c1_i64 = arith.constant 1 : i64
    %true = arith.constant true
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c2_i64 = arith.constant 2 : i64
    %0 = opal.list %c2_i64, %c2_i64 : i64, i64 -> !opal.list<i64>
    %1 = opal.list %c0_i64, %c0_i64 : i64, i64 -> !opal.list<i64>
    %2 = opal.none
    %dim = tensor.dim %arg0, %c2 : tensor<1x1x?x?xf32>
    %3 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c3 : tensor<1x1x?x?xf32>
    %4 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg0, %c2 : tensor<1x1x?x?xf32>
    %5 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg0, %c3 : tensor<1x1x?x?xf32>
    %6 = arith.index_cast %dim_2 : index to i64
    %7 = arith.cmpi ne, %5, %c0_i64 : i64
    %8 = arith.cmpi ne, %6, %c0_i64 : i64
    %9 = arith.andi %true, %7 : i1
    %10 = arith.andi %9, %8 : i1
    opal.assert %10, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]" groups [4](%c1_i64, %c1_i64, %3, %4 : i64, i64, i64, i64)
    %11 = prims.avg_pool %arg0, %0, %0, %1, %false, %true, %2 : (tensor<1x1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, !opal.none) -> tensor<1x1x?x?xf32>
    %dim_3 = tensor.dim %11, %c2 : tensor<1x1x?x?xf32>
    %12 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %11, %c3 : tensor<1x1x?x?xf32>
    %13 = arith.index_cast %dim_4 : index to i64
    %14 = arith.cmpi sge, %12, %c1_i64 : i64
    %15 = arith.cmpi sge, %13, %c1_i64 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.xori %16, %true : i1
    %18 = opal.list -> !opal.list<i64>
    %19 = opal.device "cpu"
    %20 = prims.full %18, %17, %c11_i64, %19, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_5 = arith.constant 0 : i64
    %21 = tensor.empty() : tensor<i64>
    %22 = linalg.fill ins(%c0_i64_5 : i64) outs(%21 : tensor<i64>) -> tensor<i64>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%20 : tensor<i1>) outs(%22 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %36 = arith.extui %in : i1 to i64
      %37 = arith.ori %out, %36 : i64
      linalg.yield %37 : i64
    } -> tensor<i64>
    %24 = tensor.empty() : tensor<i64>
    %25 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c1_i64 : i64) outs(%24 : tensor<i64>) -> tensor<i64>
    %26 = tensor.empty() : tensor<i64>
    %27 = linalg.fill {opal.data_check_word = 2 : i64} ins(%5 : i64) outs(%26 : tensor<i64>) -> tensor<i64>
    %28 = tensor.empty() : tensor<i64>
    %29 = linalg.fill {opal.data_check_word = 3 : i64} ins(%6 : i64) outs(%28 : tensor<i64>) -> tensor<i64>
    %30 = tensor.empty() : tensor<i64>
    %31 = linalg.fill {opal.data_check_word = 4 : i64} ins(%12 : i64) outs(%30 : tensor<i64>) -> tensor<i64>
    %32 = tensor.empty() : tensor<i64>
    %33 = linalg.fill {opal.data_check_word = 5 : i64} ins(%13 : i64) outs(%32 : tensor<i64>) -> tensor<i64>
    %c2_6 = arith.constant 2 : index
    %dim_7 = tensor.dim %11, %c2_6 : tensor<1x1x?x?xf32>
    %34 = arith.index_cast %dim_7 : index to i64
    %c0 = arith.constant 0 : index
    memref.store %34, %arg1[%c0] : memref<?xi64>
    %c3_8 = arith.constant 3 : index
    %dim_9 = tensor.dim %11, %c3_8 : tensor<1x1x?x?xf32>
    %35 = arith.index_cast %dim_9 : index to i64
    %c1 = arith.constant 1 : index
    memref.store %35, %arg1[%c1] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args(%arg0 : memref<1x1x?x?xf32>,
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_0 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel(
// PTX: ld.global
// PTX: add.rn.f32
// PTX: div.rn.f32
// PTX: .visible .entry opal_kernel_kernel_0(
