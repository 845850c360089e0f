// scatter_add on CUDA: the output starts as a copy of `self` (a kernel of
// four floats a thread), then one thread adds each element of `src` at its
// index, in the index's order (the order PyTorch's CPU kernel adds in, so
// float sums round the same way); an index out of range is skipped there
// (nothing is written outside the output) and raised by the data checks
// that follow. ptxas accepts the PTX. (The input is the JIT's
// 2-entry-points.mlir for aten.scatter_add(x, 1, i, s) on cuda tensors: x
// 4x6 float32, i 2x3 int64, s 2x3 float32.)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> ()>
#map4 = affine_map<() -> ()>
module {
  func.func @opal_kernel(%arg0: tensor<?x?xf32> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg1: tensor<?x?xi64> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg2: tensor<?x?xf32> {bufferization.writable = false, llvm.noalias, opal.align = 16 : i64}, %arg3: memref<?x?xf32> {llvm.noalias, opal.align = 16 : i64}, %arg4: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg5: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg6: memref<i64> {llvm.noalias, opal.align = 16 : i64}, %arg7: memref<i64> {llvm.noalias, opal.align = 16 : i64}) attributes {opal.data_checks = "aten::scatter_reduce.two,4,index%20%7B0%7D%20is%20out%20of%20bounds%20for%20dimension%20%7B1%7D%20with%20size%20%7B2%7D"} {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %c1_i64 = arith.constant 1 : i64
    %0 = opal.str "sum"
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %1 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %2 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg1, %c0 : tensor<?x?xi64>
    %3 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg1, %c1 : tensor<?x?xi64>
    %4 = arith.index_cast %dim_2 : index to i64
    %dim_3 = tensor.dim %arg2, %c0 : tensor<?x?xf32>
    %5 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %arg2, %c1 : tensor<?x?xf32>
    %6 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg1, %c0 : tensor<?x?xi64>
    %7 = arith.index_cast %dim_5 : index to i64
    %dim_6 = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %8 = arith.index_cast %dim_6 : index to i64
    %9 = arith.cmpi sle, %7, %8 : i64
    %dim_7 = tensor.dim %arg1, %c0 : tensor<?x?xi64>
    %10 = arith.index_cast %dim_7 : index to i64
    %dim_8 = tensor.dim %arg2, %c0 : tensor<?x?xf32>
    %11 = arith.index_cast %dim_8 : index to i64
    %12 = arith.cmpi sle, %10, %11 : i64
    %dim_9 = tensor.dim %arg1, %c1 : tensor<?x?xi64>
    %13 = arith.index_cast %dim_9 : index to i64
    %dim_10 = tensor.dim %arg2, %c1 : tensor<?x?xf32>
    %14 = arith.index_cast %dim_10 : index to i64
    %15 = arith.cmpi sle, %13, %14 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.andi %9, %16 : i1
    opal.assert %17, "Expected index [{0}] to be smaller than self [{1}] apart from dimension {2} and to be smaller size than src [{3}]" groups [2, 2, 1, 2](%3, %4, %1, %2, %c1_i64, %5, %6 : i64, i64, i64, i64, i64, i64, i64)
    %c1_11 = arith.constant 1 : index
    %dim_12 = tensor.dim %arg0, %c1_11 : tensor<?x?xf32>
    %18 = arith.index_cast %dim_12 : index to i64
    %c1_i64_13 = arith.constant 1 : i64
    %c0_14 = arith.constant 0 : index
    %dim_15 = tensor.dim %arg1, %c0_14 : tensor<?x?xi64>
    %19 = tensor.empty(%dim_15) : tensor<?xi64>
    %c0_i64 = arith.constant 0 : i64
    %20 = linalg.fill {opal.data_check_init = 0 : i64} ins(%c0_i64 : i64) outs(%19 : tensor<?xi64>) -> tensor<?xi64>
    %21 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<?x?xi64>) outs(%20 : tensor<?xi64>) {
    ^bb0(%in: i64, %out: i64):
      %c0_i64_18 = arith.constant 0 : i64
      %33 = arith.cmpi slt, %in, %c0_i64_18 : i64
      %34 = arith.cmpi sge, %in, %18 : i64
      %35 = arith.ori %33, %34 : i1
      %36 = arith.extui %35 : i1 to i64
      %37 = arith.ori %out, %36 : i64
      linalg.yield %37 : i64
    } -> tensor<?xi64>
    %22 = prims.scatter %arg0, %c1_i64, %arg1, %arg2, %0, %true : (tensor<?x?xf32>, i64, tensor<?x?xi64>, tensor<?x?xf32>, !opal.str, i1) -> tensor<?x?xf32>
    %23 = tensor.empty() : tensor<i64>
    %c0_i64_16 = arith.constant 0 : i64
    %24 = linalg.fill {opal.data_check_init = 1 : i64} ins(%c0_i64_16 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction"]} ins(%21 : tensor<?xi64>) outs(%24 : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %c0_i64_18 = arith.constant 0 : i64
      %33 = arith.cmpi ne, %in, %c0_i64_18 : i64
      %34 = arith.extui %33 : i1 to i64
      %35 = arith.ori %out, %34 : i64
      linalg.yield %35 : i64
    } -> tensor<i64>
    %26 = tensor.empty() : tensor<i64>
    %c0_i64_17 = arith.constant 0 : i64
    %27 = linalg.fill {opal.data_check_init = 2 : i64} ins(%c0_i64_17 : i64) outs(%26 : tensor<i64>) -> tensor<i64>
    %28 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = []} ins(%25 : tensor<i64>) outs(%27 : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %c0_i64_18 = arith.constant 0 : i64
      %33 = arith.cmpi ne, %in, %c0_i64_18 : i64
      %34 = scf.if %33 -> (i64) {
        %c1_19 = arith.constant 1 : index
        %c0_20 = arith.constant 0 : index
        %dim_21 = tensor.dim %arg1, %c0_20 : tensor<?x?xi64>
        %35 = arith.muli %c1_19, %dim_21 : index
        %c1_22 = arith.constant 1 : index
        %dim_23 = tensor.dim %arg1, %c1_22 : tensor<?x?xi64>
        %36 = arith.muli %35, %dim_23 : index
        %c0_24 = arith.constant 0 : index
        %c1_25 = arith.constant 1 : index
        %37 = arith.subi %36, %c1_25 : index
        %38 = scf.while (%arg8 = %c0_24) : (index) -> index {
          %42 = arith.cmpi ult, %arg8, %36 : index
          %43 = arith.minui %arg8, %37 : index
          %c1_28 = arith.constant 1 : index
          %dim_29 = tensor.dim %arg1, %c1_28 : tensor<?x?xi64>
          %44 = arith.remui %43, %dim_29 : index
          %45 = arith.divui %43, %dim_29 : index
          %extracted_30 = tensor.extract %arg1[%45, %44] : tensor<?x?xi64>
          %c0_i64_31 = arith.constant 0 : i64
          %46 = arith.cmpi slt, %extracted_30, %c0_i64_31 : i64
          %47 = arith.cmpi sge, %extracted_30, %18 : i64
          %48 = arith.ori %46, %47 : i1
          %true_32 = arith.constant true
          %49 = arith.xori %48, %true_32 : i1
          %50 = arith.andi %42, %49 : i1
          scf.condition(%50) %arg8 : index
        } do {
        ^bb0(%arg8: index):
          %42 = arith.addi %arg8, %c1_25 : index
          scf.yield %42 : index
        }
        %39 = arith.minui %38, %37 : index
        %c1_26 = arith.constant 1 : index
        %dim_27 = tensor.dim %arg1, %c1_26 : tensor<?x?xi64>
        %40 = arith.remui %39, %dim_27 : index
        %41 = arith.divui %39, %dim_27 : index
        %extracted = tensor.extract %arg1[%41, %40] : tensor<?x?xi64>
        scf.yield %extracted : i64
      } else {
        scf.yield %out : i64
      }
      linalg.yield %34 : i64
    } -> tensor<i64>
    %29 = tensor.empty() : tensor<i64>
    %30 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c1_i64_13 : i64) outs(%29 : tensor<i64>) -> tensor<i64>
    %31 = tensor.empty() : tensor<i64>
    %32 = linalg.fill {opal.data_check_word = 3 : i64} ins(%18 : i64) outs(%31 : tensor<i64>) -> tensor<i64>
    bufferization.materialize_in_destination %22 in restrict writable %arg3 : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
    bufferization.materialize_in_destination %25 in restrict writable %arg4 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %28 in restrict writable %arg5 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %30 in restrict writable %arg6 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %32 in restrict writable %arg7 : (tensor<i64>, memref<i64>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<?x?xf32> {bufferization.writable = false, opal.align = 16 : i64}, %arg1: tensor<?x?xi64> {bufferization.writable = false, opal.align = 16 : i64}, %arg2: tensor<?x?xf32> {bufferization.writable = false, opal.align = 16 : i64}, %arg3: memref<?xi64>) attributes {opal.data_checks = "aten::scatter_reduce.two,4,index%20%7B0%7D%20is%20out%20of%20bounds%20for%20dimension%20%7B1%7D%20with%20size%20%7B2%7D"} {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %c1_i64 = arith.constant 1 : i64
    %0 = opal.str "sum"
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %1 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %2 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg1, %c0 : tensor<?x?xi64>
    %3 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg1, %c1 : tensor<?x?xi64>
    %4 = arith.index_cast %dim_2 : index to i64
    %dim_3 = tensor.dim %arg2, %c0 : tensor<?x?xf32>
    %5 = arith.index_cast %dim_3 : index to i64
    %dim_4 = tensor.dim %arg2, %c1 : tensor<?x?xf32>
    %6 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg1, %c0 : tensor<?x?xi64>
    %7 = arith.index_cast %dim_5 : index to i64
    %dim_6 = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %8 = arith.index_cast %dim_6 : index to i64
    %9 = arith.cmpi sle, %7, %8 : i64
    %dim_7 = tensor.dim %arg1, %c0 : tensor<?x?xi64>
    %10 = arith.index_cast %dim_7 : index to i64
    %dim_8 = tensor.dim %arg2, %c0 : tensor<?x?xf32>
    %11 = arith.index_cast %dim_8 : index to i64
    %12 = arith.cmpi sle, %10, %11 : i64
    %dim_9 = tensor.dim %arg1, %c1 : tensor<?x?xi64>
    %13 = arith.index_cast %dim_9 : index to i64
    %dim_10 = tensor.dim %arg2, %c1 : tensor<?x?xf32>
    %14 = arith.index_cast %dim_10 : index to i64
    %15 = arith.cmpi sle, %13, %14 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.andi %9, %16 : i1
    opal.assert %17, "Expected index [{0}] to be smaller than self [{1}] apart from dimension {2} and to be smaller size than src [{3}]" groups [2, 2, 1, 2](%3, %4, %1, %2, %c1_i64, %5, %6 : i64, i64, i64, i64, i64, i64, i64)
    %c1_11 = arith.constant 1 : index
    %dim_12 = tensor.dim %arg0, %c1_11 : tensor<?x?xf32>
    %18 = arith.index_cast %dim_12 : index to i64
    %c1_i64_13 = arith.constant 1 : i64
    %c0_14 = arith.constant 0 : index
    %dim_15 = tensor.dim %arg1, %c0_14 : tensor<?x?xi64>
    %19 = tensor.empty(%dim_15) : tensor<?xi64>
    %c0_i64 = arith.constant 0 : i64
    %20 = linalg.fill {opal.data_check_init = 0 : i64} ins(%c0_i64 : i64) outs(%19 : tensor<?xi64>) -> tensor<?xi64>
    %21 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<?x?xi64>) outs(%20 : tensor<?xi64>) {
    ^bb0(%in: i64, %out: i64):
      %c0_i64_24 = arith.constant 0 : i64
      %35 = arith.cmpi slt, %in, %c0_i64_24 : i64
      %36 = arith.cmpi sge, %in, %18 : i64
      %37 = arith.ori %35, %36 : i1
      %38 = arith.extui %37 : i1 to i64
      %39 = arith.ori %out, %38 : i64
      linalg.yield %39 : i64
    } -> tensor<?xi64>
    %22 = prims.scatter %arg0, %c1_i64, %arg1, %arg2, %0, %true : (tensor<?x?xf32>, i64, tensor<?x?xi64>, tensor<?x?xf32>, !opal.str, i1) -> tensor<?x?xf32>
    %23 = tensor.empty() : tensor<i64>
    %c0_i64_16 = arith.constant 0 : i64
    %24 = linalg.fill {opal.data_check_init = 1 : i64} ins(%c0_i64_16 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction"]} ins(%21 : tensor<?xi64>) outs(%24 : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %c0_i64_24 = arith.constant 0 : i64
      %35 = arith.cmpi ne, %in, %c0_i64_24 : i64
      %36 = arith.extui %35 : i1 to i64
      %37 = arith.ori %out, %36 : i64
      linalg.yield %37 : i64
    } -> tensor<i64>
    %26 = tensor.empty() : tensor<i64>
    %c0_i64_17 = arith.constant 0 : i64
    %27 = linalg.fill {opal.data_check_init = 2 : i64} ins(%c0_i64_17 : i64) outs(%26 : tensor<i64>) -> tensor<i64>
    %28 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = []} ins(%25 : tensor<i64>) outs(%27 : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %c0_i64_24 = arith.constant 0 : i64
      %35 = arith.cmpi ne, %in, %c0_i64_24 : i64
      %36 = scf.if %35 -> (i64) {
        %c1_25 = arith.constant 1 : index
        %c0_26 = arith.constant 0 : index
        %dim_27 = tensor.dim %arg1, %c0_26 : tensor<?x?xi64>
        %37 = arith.muli %c1_25, %dim_27 : index
        %c1_28 = arith.constant 1 : index
        %dim_29 = tensor.dim %arg1, %c1_28 : tensor<?x?xi64>
        %38 = arith.muli %37, %dim_29 : index
        %c0_30 = arith.constant 0 : index
        %c1_31 = arith.constant 1 : index
        %39 = arith.subi %38, %c1_31 : index
        %40 = scf.while (%arg4 = %c0_30) : (index) -> index {
          %44 = arith.cmpi ult, %arg4, %38 : index
          %45 = arith.minui %arg4, %39 : index
          %c1_34 = arith.constant 1 : index
          %dim_35 = tensor.dim %arg1, %c1_34 : tensor<?x?xi64>
          %46 = arith.remui %45, %dim_35 : index
          %47 = arith.divui %45, %dim_35 : index
          %extracted_36 = tensor.extract %arg1[%47, %46] : tensor<?x?xi64>
          %c0_i64_37 = arith.constant 0 : i64
          %48 = arith.cmpi slt, %extracted_36, %c0_i64_37 : i64
          %49 = arith.cmpi sge, %extracted_36, %18 : i64
          %50 = arith.ori %48, %49 : i1
          %true_38 = arith.constant true
          %51 = arith.xori %50, %true_38 : i1
          %52 = arith.andi %44, %51 : i1
          scf.condition(%52) %arg4 : index
        } do {
        ^bb0(%arg4: index):
          %44 = arith.addi %arg4, %c1_31 : index
          scf.yield %44 : index
        }
        %41 = arith.minui %40, %39 : index
        %c1_32 = arith.constant 1 : index
        %dim_33 = tensor.dim %arg1, %c1_32 : tensor<?x?xi64>
        %42 = arith.remui %41, %dim_33 : index
        %43 = arith.divui %41, %dim_33 : index
        %extracted = tensor.extract %arg1[%43, %42] : tensor<?x?xi64>
        scf.yield %extracted : i64
      } else {
        scf.yield %out : i64
      }
      linalg.yield %36 : i64
    } -> tensor<i64>
    %29 = tensor.empty() : tensor<i64>
    %30 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c1_i64_13 : i64) outs(%29 : tensor<i64>) -> tensor<i64>
    %31 = tensor.empty() : tensor<i64>
    %32 = linalg.fill {opal.data_check_word = 3 : i64} ins(%18 : i64) outs(%31 : tensor<i64>) -> tensor<i64>
    %c0_18 = arith.constant 0 : index
    %dim_19 = tensor.dim %22, %c0_18 : tensor<?x?xf32>
    %33 = arith.index_cast %dim_19 : index to i64
    %c0_20 = arith.constant 0 : index
    memref.store %33, %arg3[%c0_20] : memref<?xi64>
    %c1_21 = arith.constant 1 : index
    %dim_22 = tensor.dim %22, %c1_21 : tensor<?x?xf32>
    %34 = arith.index_cast %dim_22 : index to i64
    %c1_23 = arith.constant 1 : index
    memref.store %34, %arg3[%c1_23] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// HOST-SAME: opal.data_checks
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_0 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg1 : memref<?x?xi64>
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel_0(
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// PTX: .visible .entry opal_kernel_kernel_1(
// PTX: setp.lt.s64
// PTX: setp.ge.s64
// PTX: @%p{{[0-9]+}} bra
// PTX: ld.global.b32
// PTX: add.rn.f32
// PTX: st.global.b32
// PTX: ret;
