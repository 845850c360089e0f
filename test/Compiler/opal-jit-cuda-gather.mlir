// index_select on CUDA: the gather and its data checks (an index out of
// range: a reduction that flags it, one that finds the first such index)
// become kernels the host launches in order. The gather's threads guard
// their load: an index outside [0, size) reads nothing (0 is written), so
// nothing is read outside the input before the check raises. ptxas accepts
// the PTX. (The input is the JIT's 2-entry-points.mlir for
// aten.index_select(x, 0, i) on a 4x6 float32 cuda tensor, i int64.)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
module {
  func.func @opal_kernel(%arg0: tensor<?x?xf32> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg1: tensor<?xi64> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg2: memref<?x?xf32> {llvm.noalias, opal.align = 16 : i64}, %arg3: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg4: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg5: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg6: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg7: memref<i64> {llvm.noalias, opal.align = 16 : i64}) attributes {opal.data_checks = "aten::index_select,1,index%20out%20of%20range%20in%20self aten::index_select,4,index%20%7B0%7D%20is%20out%20of%20bounds%20for%20dimension%20%7B1%7D%20with%20size%20%7B2%7D"} {
    %c4_i64 = arith.constant 4 : i64
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %0 = arith.index_cast %dim : index to i64
    %1 = opal.list -> !opal.list<i64>
    %2 = opal.device "cpu"
    %3 = prims.full %1, %c0_i64, %c4_i64, %2, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %4 = opal.list -> !opal.list<i64>
    %5 = opal.device "cpu"
    %6 = prims.full %4, %0, %c4_i64, %5, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_0 = tensor.dim %arg1, %c0 : tensor<?xi64>
    %7 = arith.index_cast %dim_0 : index to i64
    %8 = opal.list %7 : i64 -> !opal.list<i64>
    %9 = opal.list -> !opal.list<i64>
    %10 = prims.broadcast_in_dim %3, %8, %9 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %11 = opal.list -> !opal.list<i64>
    %12 = prims.broadcast_in_dim %6, %8, %11 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %13 = prims.lt %arg1, %10 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %14 = prims.ge %arg1, %12 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %15 = prims.bitwise_or %13, %14 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0_i64_1 = arith.constant 0 : i64
    %16 = tensor.empty() : tensor<i64>
    %17 = linalg.fill ins(%c0_i64_1 : i64) outs(%16 : tensor<i64>) -> tensor<i64>
    %18 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%15 : tensor<?xi1>) outs(%17 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %28 = arith.extui %in : i1 to i64
      %29 = arith.ori %out, %28 : i64
      linalg.yield %29 : i64
    } -> tensor<i64>
    %c0_2 = arith.constant 0 : index
    %dim_3 = tensor.dim %arg0, %c0_2 : tensor<?x?xf32>
    %19 = arith.index_cast %dim_3 : index to i64
    %c0_i64_4 = arith.constant 0 : i64
    %c0_i64_5 = arith.constant 0 : i64
    %20 = tensor.empty() : tensor<i64>
    %21 = linalg.fill ins(%c0_i64_5 : i64) outs(%20 : tensor<i64>) -> tensor<i64>
    %22:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["reduction"]} ins(%arg1 : tensor<?xi64>) outs(%21, %21 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i64, %out: i64, %out_6: i64):
      %c0_i64_7 = arith.constant 0 : i64
      %28 = arith.cmpi slt, %in, %c0_i64_7 : i64
      %29 = arith.cmpi sge, %in, %19 : i64
      %30 = arith.ori %28, %29 : i1
      %31 = arith.extui %30 : i1 to i64
      %32 = arith.ori %out, %31 : i64
      %33 = arith.cmpi eq, %out, %c0_i64_5 : i64
      %34 = arith.andi %33, %30 : i1
      %35 = arith.select %34, %in, %out_6 : i64
      linalg.yield %32, %35 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c0_i64_4 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = tensor.empty() : tensor<i64>
    %26 = linalg.fill {opal.data_check_word = 3 : i64} ins(%19 : i64) outs(%25 : tensor<i64>) -> tensor<i64>
    %27 = prims.take %arg0, %c0_i64, %arg1 : (tensor<?x?xf32>, i64, tensor<?xi64>) -> tensor<?x?xf32>
    bufferization.materialize_in_destination %27 in restrict writable %arg2 : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
    bufferization.materialize_in_destination %18 in restrict writable %arg3 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %22#0 in restrict writable %arg4 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %22#1 in restrict writable %arg5 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %24 in restrict writable %arg6 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %26 in restrict writable %arg7 : (tensor<i64>, memref<i64>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<?x?xf32> {bufferization.writable = false, opal.align = 16 : i64}, %arg1: tensor<?xi64> {bufferization.writable = false, opal.align = 16 : i64}, %arg2: memref<?xi64>) attributes {opal.data_checks = "aten::index_select,1,index%20out%20of%20range%20in%20self aten::index_select,4,index%20%7B0%7D%20is%20out%20of%20bounds%20for%20dimension%20%7B1%7D%20with%20size%20%7B2%7D"} {
    %c4_i64 = arith.constant 4 : i64
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %0 = arith.index_cast %dim : index to i64
    %1 = opal.list -> !opal.list<i64>
    %2 = opal.device "cpu"
    %3 = prims.full %1, %c0_i64, %c4_i64, %2, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %4 = opal.list -> !opal.list<i64>
    %5 = opal.device "cpu"
    %6 = prims.full %4, %0, %c4_i64, %5, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_0 = tensor.dim %arg1, %c0 : tensor<?xi64>
    %7 = arith.index_cast %dim_0 : index to i64
    %8 = opal.list %7 : i64 -> !opal.list<i64>
    %9 = opal.list -> !opal.list<i64>
    %10 = prims.broadcast_in_dim %3, %8, %9 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %11 = opal.list -> !opal.list<i64>
    %12 = prims.broadcast_in_dim %6, %8, %11 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %13 = prims.lt %arg1, %10 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %14 = prims.ge %arg1, %12 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %15 = prims.bitwise_or %13, %14 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0_i64_1 = arith.constant 0 : i64
    %16 = tensor.empty() : tensor<i64>
    %17 = linalg.fill ins(%c0_i64_1 : i64) outs(%16 : tensor<i64>) -> tensor<i64>
    %18 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%15 : tensor<?xi1>) outs(%17 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %30 = arith.extui %in : i1 to i64
      %31 = arith.ori %out, %30 : i64
      linalg.yield %31 : i64
    } -> tensor<i64>
    %c0_2 = arith.constant 0 : index
    %dim_3 = tensor.dim %arg0, %c0_2 : tensor<?x?xf32>
    %19 = arith.index_cast %dim_3 : index to i64
    %c0_i64_4 = arith.constant 0 : i64
    %c0_i64_5 = arith.constant 0 : i64
    %20 = tensor.empty() : tensor<i64>
    %21 = linalg.fill ins(%c0_i64_5 : i64) outs(%20 : tensor<i64>) -> tensor<i64>
    %22:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["reduction"]} ins(%arg1 : tensor<?xi64>) outs(%21, %21 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i64, %out: i64, %out_11: i64):
      %c0_i64_12 = arith.constant 0 : i64
      %30 = arith.cmpi slt, %in, %c0_i64_12 : i64
      %31 = arith.cmpi sge, %in, %19 : i64
      %32 = arith.ori %30, %31 : i1
      %33 = arith.extui %32 : i1 to i64
      %34 = arith.ori %out, %33 : i64
      %35 = arith.cmpi eq, %out, %c0_i64_5 : i64
      %36 = arith.andi %35, %32 : i1
      %37 = arith.select %36, %in, %out_11 : i64
      linalg.yield %34, %37 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c0_i64_4 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = tensor.empty() : tensor<i64>
    %26 = linalg.fill {opal.data_check_word = 3 : i64} ins(%19 : i64) outs(%25 : tensor<i64>) -> tensor<i64>
    %27 = prims.take %arg0, %c0_i64, %arg1 : (tensor<?x?xf32>, i64, tensor<?xi64>) -> tensor<?x?xf32>
    %c0_6 = arith.constant 0 : index
    %dim_7 = tensor.dim %27, %c0_6 : tensor<?x?xf32>
    %28 = arith.index_cast %dim_7 : index to i64
    %c0_8 = arith.constant 0 : index
    memref.store %28, %arg2[%c0_8] : memref<?xi64>
    %c1 = arith.constant 1 : index
    %dim_9 = tensor.dim %27, %c1 : tensor<?x?xf32>
    %29 = arith.index_cast %dim_9 : index to i64
    %c1_10 = arith.constant 1 : index
    memref.store %29, %arg2[%c1_10] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// HOST-SAME: opal.data_checks
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_5 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args(%arg2 : memref<?x?xf32>, %arg0 : memref<?x?xf32>, %{{.*}} : index, %arg1 : memref<?xi64>)
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel_5(
// PTX: setp.lt.s64
// PTX: setp.ge.s64
// PTX: @%p{{[0-9]+}} bra
// PTX: ld.global.b32
// PTX: st.global.b32
// PTX: ret;
