// col2im on CUDA (dynamic sizes): one kernel, a thread per output
// element, sums the blocks' elements that land on it over the kernel
// positions; the size checks that need arithmetic run as data checks. ptxas
// accepts the PTX. (The input is the JIT's 2-entry-points.mlir for
// aten.col2im(x, [3, 4], [2, 2], [1, 1], [0, 0], [1, 1]).)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

#map = affine_map<() -> ()>
module {
  func.func @opal_kernel(%arg0: tensor<1x?x?xf32> {bufferization.writable = false, llvm.noalias}, %arg1: memref<1x?x3x4xf32> {llvm.noalias}, %arg2: memref<i64> {llvm.noalias}, %arg3: memref<i64> {llvm.noalias}, %arg4: memref<i64> {llvm.noalias}, %arg5: memref<i64> {llvm.noalias}, %arg6: memref<i64> {llvm.noalias}, %arg7: memref<i64> {llvm.noalias}, %arg8: memref<i64> {llvm.noalias}, %arg9: memref<i64> {llvm.noalias}, %arg10: memref<i64> {llvm.noalias}, %arg11: memref<i64> {llvm.noalias}, %arg12: memref<i64> {llvm.noalias}, %arg13: memref<i64> {llvm.noalias}, %arg14: memref<i64> {llvm.noalias}, %arg15: memref<i64> {llvm.noalias}, %arg16: memref<i64> {llvm.noalias}, %arg17: memref<i64> {llvm.noalias}, %arg18: memref<i64> {llvm.noalias}, %arg19: memref<i64> {llvm.noalias}, %arg20: memref<i64> {llvm.noalias}, %arg21: memref<i64> {llvm.noalias}, %arg22: memref<i64> {llvm.noalias}, %arg23: memref<i64> {llvm.noalias}, %arg24: memref<i64> {llvm.noalias}, %arg25: memref<i64> {llvm.noalias}, %arg26: memref<i64> {llvm.noalias}, %arg27: memref<i64> {llvm.noalias}, %arg28: memref<i64> {llvm.noalias}, %arg29: memref<i64> {llvm.noalias}, %arg30: memref<i64> {llvm.noalias}, %arg31: memref<i64> {llvm.noalias}, %arg32: memref<i64> {llvm.noalias}, %arg33: memref<i64> {llvm.noalias}, %arg34: memref<i64> {llvm.noalias}, %arg35: memref<i64> {llvm.noalias}, %arg36: memref<i64> {llvm.noalias}) attributes {opal.data_checks = "aten::col2im,4,Expected%20size%20of%20input's%20dimension%201%20to%20be%20divisible%20by%20the%20product%20of%20kernel_size%2C%20but%20got%20input.size(1)=%7B0%7D%20and%20kernel_size=(%7B1%7D%2C%20%7B2%7D). aten::col2im,15,Given%20output_size=(%7B0%7D%2C%20%7B1%7D)%2C%20kernel_size=(%7B2%7D%2C%20%7B3%7D)%2C%20dilation=(%7B4%7D%2C%20%7B5%7D)%2C%20padding=(%7B6%7D%2C%20%7B7%7D)%2C%20stride=(%7B8%7D%2C%20%7B9%7D)%2C%20expected%20size%20of%20input's%20dimension%202%20to%20match%20the%20calculated%20number%20of%20sliding%20blocks%20%7B10%7D%20*%20%7B11%7D%20=%20%7B12%7D%2C%20but%20got%20input.size(2)=%7B13%7D. aten::col2im,13,Given%20output_size=(%7B0%7D%2C%20%7B1%7D)%2C%20kernel_size=(%7B2%7D%2C%20%7B3%7D)%2C%20dilation=(%7B4%7D%2C%20%7B5%7D)%2C%20padding=(%7B6%7D%2C%20%7B7%7D)%2C%20stride=(%7B8%7D%2C%20%7B9%7D)%2C%20calculated%20shape%20of%20the%20array%20of%20sliding%20blocks%20as%20(%7B10%7D%2C%20%7B11%7D)%2C%20which%20is%20too%20small%20(non-positive) aten::col2im,3,Expected%20output%20spatial%20size%20to%20be%20positive%2C%20but%20got:%20output_size=(%7B0%7D%2C%20%7B1%7D)."} {
    %c6_i64 = arith.constant 6 : i64
    %c11_i64 = arith.constant 11 : i64
    %false = arith.constant false
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c3_i64 = arith.constant 3 : i64
    %c4_i64 = arith.constant 4 : i64
    %0 = opal.list %c3_i64, %c4_i64 : i64, i64 -> !opal.list<i64>
    %1 = opal.list %c2_i64, %c2_i64 : i64, i64 -> !opal.list<i64>
    %2 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %3 = opal.list %c0_i64, %c0_i64 : i64, i64 -> !opal.list<i64>
    %4 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %dim = tensor.dim %arg0, %c1 : tensor<1x?x?xf32>
    %5 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c2 : tensor<1x?x?xf32>
    %6 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg0, %c1 : tensor<1x?x?xf32>
    %7 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg0, %c2 : tensor<1x?x?xf32>
    %8 = arith.index_cast %dim_2 : index to i64
    %9 = arith.cmpi ne, %7, %c0_i64 : i64
    %10 = arith.cmpi ne, %8, %c0_i64 : i64
    %11 = arith.andi %9, %10 : i1
    opal.assert %11, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [{0}]" groups [3](%c1_i64, %5, %6 : i64, i64, i64)
    %12 = prims.col2im %arg0, %0, %1, %2, %3, %4 : (tensor<1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<1x?x3x4xf32>
    %13 = arith.remsi %7, %c4_i64 : i64
    %14 = arith.cmpi ne, %13, %c0_i64 : i64
    %15 = opal.list -> !opal.list<i64>
    %16 = opal.device "cpu"
    %17 = prims.full %15, %14, %c11_i64, %16, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_3 = arith.constant 0 : i64
    %18 = tensor.empty() : tensor<i64>
    %19 = linalg.fill ins(%c0_i64_3 : i64) outs(%18 : tensor<i64>) -> tensor<i64>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%17 : tensor<i1>) outs(%19 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %102 = arith.extui %in : i1 to i64
      %103 = arith.ori %out, %102 : i64
      linalg.yield %103 : i64
    } -> tensor<i64>
    %21 = tensor.empty() : tensor<i64>
    %22 = linalg.fill {opal.data_check_word = 1 : i64} ins(%7 : i64) outs(%21 : tensor<i64>) -> tensor<i64>
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c2_i64 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = tensor.empty() : tensor<i64>
    %26 = linalg.fill {opal.data_check_word = 3 : i64} ins(%c2_i64 : i64) outs(%25 : tensor<i64>) -> tensor<i64>
    %27 = arith.cmpi ne, %8, %c6_i64 : i64
    %28 = opal.list -> !opal.list<i64>
    %29 = opal.device "cpu"
    %30 = prims.full %28, %27, %c11_i64, %29, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_4 = arith.constant 0 : i64
    %31 = tensor.empty() : tensor<i64>
    %32 = linalg.fill ins(%c0_i64_4 : i64) outs(%31 : tensor<i64>) -> tensor<i64>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%30 : tensor<i1>) outs(%32 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %102 = arith.extui %in : i1 to i64
      %103 = arith.ori %out, %102 : i64
      linalg.yield %103 : i64
    } -> tensor<i64>
    %34 = tensor.empty() : tensor<i64>
    %35 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c3_i64 : i64) outs(%34 : tensor<i64>) -> tensor<i64>
    %36 = tensor.empty() : tensor<i64>
    %37 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c4_i64 : i64) outs(%36 : tensor<i64>) -> tensor<i64>
    %38 = tensor.empty() : tensor<i64>
    %39 = linalg.fill {opal.data_check_word = 3 : i64} ins(%c2_i64 : i64) outs(%38 : tensor<i64>) -> tensor<i64>
    %40 = tensor.empty() : tensor<i64>
    %41 = linalg.fill {opal.data_check_word = 4 : i64} ins(%c2_i64 : i64) outs(%40 : tensor<i64>) -> tensor<i64>
    %42 = tensor.empty() : tensor<i64>
    %43 = linalg.fill {opal.data_check_word = 5 : i64} ins(%c1_i64 : i64) outs(%42 : tensor<i64>) -> tensor<i64>
    %44 = tensor.empty() : tensor<i64>
    %45 = linalg.fill {opal.data_check_word = 6 : i64} ins(%c1_i64 : i64) outs(%44 : tensor<i64>) -> tensor<i64>
    %46 = tensor.empty() : tensor<i64>
    %47 = linalg.fill {opal.data_check_word = 7 : i64} ins(%c0_i64 : i64) outs(%46 : tensor<i64>) -> tensor<i64>
    %48 = tensor.empty() : tensor<i64>
    %49 = linalg.fill {opal.data_check_word = 8 : i64} ins(%c0_i64 : i64) outs(%48 : tensor<i64>) -> tensor<i64>
    %50 = tensor.empty() : tensor<i64>
    %51 = linalg.fill {opal.data_check_word = 9 : i64} ins(%c1_i64 : i64) outs(%50 : tensor<i64>) -> tensor<i64>
    %52 = tensor.empty() : tensor<i64>
    %53 = linalg.fill {opal.data_check_word = 10 : i64} ins(%c1_i64 : i64) outs(%52 : tensor<i64>) -> tensor<i64>
    %54 = tensor.empty() : tensor<i64>
    %55 = linalg.fill {opal.data_check_word = 11 : i64} ins(%c2_i64 : i64) outs(%54 : tensor<i64>) -> tensor<i64>
    %56 = tensor.empty() : tensor<i64>
    %57 = linalg.fill {opal.data_check_word = 12 : i64} ins(%c3_i64 : i64) outs(%56 : tensor<i64>) -> tensor<i64>
    %58 = tensor.empty() : tensor<i64>
    %59 = linalg.fill {opal.data_check_word = 13 : i64} ins(%c6_i64 : i64) outs(%58 : tensor<i64>) -> tensor<i64>
    %60 = tensor.empty() : tensor<i64>
    %61 = linalg.fill {opal.data_check_word = 14 : i64} ins(%8 : i64) outs(%60 : tensor<i64>) -> tensor<i64>
    %62 = opal.list -> !opal.list<i64>
    %63 = opal.device "cpu"
    %64 = prims.full %62, %false, %c11_i64, %63, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_5 = arith.constant 0 : i64
    %65 = tensor.empty() : tensor<i64>
    %66 = linalg.fill ins(%c0_i64_5 : i64) outs(%65 : tensor<i64>) -> tensor<i64>
    %67 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%64 : tensor<i1>) outs(%66 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %102 = arith.extui %in : i1 to i64
      %103 = arith.ori %out, %102 : i64
      linalg.yield %103 : i64
    } -> tensor<i64>
    %68 = tensor.empty() : tensor<i64>
    %69 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c3_i64 : i64) outs(%68 : tensor<i64>) -> tensor<i64>
    %70 = tensor.empty() : tensor<i64>
    %71 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c4_i64 : i64) outs(%70 : tensor<i64>) -> tensor<i64>
    %72 = tensor.empty() : tensor<i64>
    %73 = linalg.fill {opal.data_check_word = 3 : i64} ins(%c2_i64 : i64) outs(%72 : tensor<i64>) -> tensor<i64>
    %74 = tensor.empty() : tensor<i64>
    %75 = linalg.fill {opal.data_check_word = 4 : i64} ins(%c2_i64 : i64) outs(%74 : tensor<i64>) -> tensor<i64>
    %76 = tensor.empty() : tensor<i64>
    %77 = linalg.fill {opal.data_check_word = 5 : i64} ins(%c1_i64 : i64) outs(%76 : tensor<i64>) -> tensor<i64>
    %78 = tensor.empty() : tensor<i64>
    %79 = linalg.fill {opal.data_check_word = 6 : i64} ins(%c1_i64 : i64) outs(%78 : tensor<i64>) -> tensor<i64>
    %80 = tensor.empty() : tensor<i64>
    %81 = linalg.fill {opal.data_check_word = 7 : i64} ins(%c0_i64 : i64) outs(%80 : tensor<i64>) -> tensor<i64>
    %82 = tensor.empty() : tensor<i64>
    %83 = linalg.fill {opal.data_check_word = 8 : i64} ins(%c0_i64 : i64) outs(%82 : tensor<i64>) -> tensor<i64>
    %84 = tensor.empty() : tensor<i64>
    %85 = linalg.fill {opal.data_check_word = 9 : i64} ins(%c1_i64 : i64) outs(%84 : tensor<i64>) -> tensor<i64>
    %86 = tensor.empty() : tensor<i64>
    %87 = linalg.fill {opal.data_check_word = 10 : i64} ins(%c1_i64 : i64) outs(%86 : tensor<i64>) -> tensor<i64>
    %88 = tensor.empty() : tensor<i64>
    %89 = linalg.fill {opal.data_check_word = 11 : i64} ins(%c2_i64 : i64) outs(%88 : tensor<i64>) -> tensor<i64>
    %90 = tensor.empty() : tensor<i64>
    %91 = linalg.fill {opal.data_check_word = 12 : i64} ins(%c3_i64 : i64) outs(%90 : tensor<i64>) -> tensor<i64>
    %92 = opal.list -> !opal.list<i64>
    %93 = opal.device "cpu"
    %94 = prims.full %92, %false, %c11_i64, %93, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_6 = arith.constant 0 : i64
    %95 = tensor.empty() : tensor<i64>
    %96 = linalg.fill ins(%c0_i64_6 : i64) outs(%95 : tensor<i64>) -> tensor<i64>
    %97 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%94 : tensor<i1>) outs(%96 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %102 = arith.extui %in : i1 to i64
      %103 = arith.ori %out, %102 : i64
      linalg.yield %103 : i64
    } -> tensor<i64>
    %98 = tensor.empty() : tensor<i64>
    %99 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c3_i64 : i64) outs(%98 : tensor<i64>) -> tensor<i64>
    %100 = tensor.empty() : tensor<i64>
    %101 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c4_i64 : i64) outs(%100 : tensor<i64>) -> tensor<i64>
    bufferization.materialize_in_destination %12 in restrict writable %arg1 : (tensor<1x?x3x4xf32>, memref<1x?x3x4xf32>) -> ()
    bufferization.materialize_in_destination %20 in restrict writable %arg2 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %22 in restrict writable %arg3 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %24 in restrict writable %arg4 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %26 in restrict writable %arg5 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %33 in restrict writable %arg6 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %35 in restrict writable %arg7 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %37 in restrict writable %arg8 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %39 in restrict writable %arg9 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %41 in restrict writable %arg10 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %43 in restrict writable %arg11 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %45 in restrict writable %arg12 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %47 in restrict writable %arg13 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %49 in restrict writable %arg14 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %51 in restrict writable %arg15 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %53 in restrict writable %arg16 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %55 in restrict writable %arg17 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %57 in restrict writable %arg18 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %59 in restrict writable %arg19 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %61 in restrict writable %arg20 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %67 in restrict writable %arg21 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %69 in restrict writable %arg22 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %71 in restrict writable %arg23 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %73 in restrict writable %arg24 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %75 in restrict writable %arg25 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %77 in restrict writable %arg26 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %79 in restrict writable %arg27 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %81 in restrict writable %arg28 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %83 in restrict writable %arg29 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %85 in restrict writable %arg30 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %87 in restrict writable %arg31 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %89 in restrict writable %arg32 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %91 in restrict writable %arg33 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %97 in restrict writable %arg34 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %99 in restrict writable %arg35 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %101 in restrict writable %arg36 : (tensor<i64>, memref<i64>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<1x?x?xf32> {bufferization.writable = false}, %arg1: memref<?xi64>) attributes {opal.data_checks = "aten::col2im,4,Expected%20size%20of%20input's%20dimension%201%20to%20be%20divisible%20by%20the%20product%20of%20kernel_size%2C%20but%20got%20input.size(1)=%7B0%7D%20and%20kernel_size=(%7B1%7D%2C%20%7B2%7D). aten::col2im,15,Given%20output_size=(%7B0%7D%2C%20%7B1%7D)%2C%20kernel_size=(%7B2%7D%2C%20%7B3%7D)%2C%20dilation=(%7B4%7D%2C%20%7B5%7D)%2C%20padding=(%7B6%7D%2C%20%7B7%7D)%2C%20stride=(%7B8%7D%2C%20%7B9%7D)%2C%20expected%20size%20of%20input's%20dimension%202%20to%20match%20the%20calculated%20number%20of%20sliding%20blocks%20%7B10%7D%20*%20%7B11%7D%20=%20%7B12%7D%2C%20but%20got%20input.size(2)=%7B13%7D. aten::col2im,13,Given%20output_size=(%7B0%7D%2C%20%7B1%7D)%2C%20kernel_size=(%7B2%7D%2C%20%7B3%7D)%2C%20dilation=(%7B4%7D%2C%20%7B5%7D)%2C%20padding=(%7B6%7D%2C%20%7B7%7D)%2C%20stride=(%7B8%7D%2C%20%7B9%7D)%2C%20calculated%20shape%20of%20the%20array%20of%20sliding%20blocks%20as%20(%7B10%7D%2C%20%7B11%7D)%2C%20which%20is%20too%20small%20(non-positive) aten::col2im,3,Expected%20output%20spatial%20size%20to%20be%20positive%2C%20but%20got:%20output_size=(%7B0%7D%2C%20%7B1%7D)."} {
    %c6_i64 = arith.constant 6 : i64
    %c11_i64 = arith.constant 11 : i64
    %false = arith.constant false
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c3_i64 = arith.constant 3 : i64
    %c4_i64 = arith.constant 4 : i64
    %0 = opal.list %c3_i64, %c4_i64 : i64, i64 -> !opal.list<i64>
    %1 = opal.list %c2_i64, %c2_i64 : i64, i64 -> !opal.list<i64>
    %2 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %3 = opal.list %c0_i64, %c0_i64 : i64, i64 -> !opal.list<i64>
    %4 = opal.list %c1_i64, %c1_i64 : i64, i64 -> !opal.list<i64>
    %dim = tensor.dim %arg0, %c1 : tensor<1x?x?xf32>
    %5 = arith.index_cast %dim : index to i64
    %dim_0 = tensor.dim %arg0, %c2 : tensor<1x?x?xf32>
    %6 = arith.index_cast %dim_0 : index to i64
    %dim_1 = tensor.dim %arg0, %c1 : tensor<1x?x?xf32>
    %7 = arith.index_cast %dim_1 : index to i64
    %dim_2 = tensor.dim %arg0, %c2 : tensor<1x?x?xf32>
    %8 = arith.index_cast %dim_2 : index to i64
    %9 = arith.cmpi ne, %7, %c0_i64 : i64
    %10 = arith.cmpi ne, %8, %c0_i64 : i64
    %11 = arith.andi %9, %10 : i1
    opal.assert %11, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [{0}]" groups [3](%c1_i64, %5, %6 : i64, i64, i64)
    %12 = prims.col2im %arg0, %0, %1, %2, %3, %4 : (tensor<1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<1x?x3x4xf32>
    %13 = arith.remsi %7, %c4_i64 : i64
    %14 = arith.cmpi ne, %13, %c0_i64 : i64
    %15 = opal.list -> !opal.list<i64>
    %16 = opal.device "cpu"
    %17 = prims.full %15, %14, %c11_i64, %16, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_3 = arith.constant 0 : i64
    %18 = tensor.empty() : tensor<i64>
    %19 = linalg.fill ins(%c0_i64_3 : i64) outs(%18 : tensor<i64>) -> tensor<i64>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%17 : tensor<i1>) outs(%19 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %103 = arith.extui %in : i1 to i64
      %104 = arith.ori %out, %103 : i64
      linalg.yield %104 : i64
    } -> tensor<i64>
    %21 = tensor.empty() : tensor<i64>
    %22 = linalg.fill {opal.data_check_word = 1 : i64} ins(%7 : i64) outs(%21 : tensor<i64>) -> tensor<i64>
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c2_i64 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = tensor.empty() : tensor<i64>
    %26 = linalg.fill {opal.data_check_word = 3 : i64} ins(%c2_i64 : i64) outs(%25 : tensor<i64>) -> tensor<i64>
    %27 = arith.cmpi ne, %8, %c6_i64 : i64
    %28 = opal.list -> !opal.list<i64>
    %29 = opal.device "cpu"
    %30 = prims.full %28, %27, %c11_i64, %29, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_4 = arith.constant 0 : i64
    %31 = tensor.empty() : tensor<i64>
    %32 = linalg.fill ins(%c0_i64_4 : i64) outs(%31 : tensor<i64>) -> tensor<i64>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%30 : tensor<i1>) outs(%32 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %103 = arith.extui %in : i1 to i64
      %104 = arith.ori %out, %103 : i64
      linalg.yield %104 : i64
    } -> tensor<i64>
    %34 = tensor.empty() : tensor<i64>
    %35 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c3_i64 : i64) outs(%34 : tensor<i64>) -> tensor<i64>
    %36 = tensor.empty() : tensor<i64>
    %37 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c4_i64 : i64) outs(%36 : tensor<i64>) -> tensor<i64>
    %38 = tensor.empty() : tensor<i64>
    %39 = linalg.fill {opal.data_check_word = 3 : i64} ins(%c2_i64 : i64) outs(%38 : tensor<i64>) -> tensor<i64>
    %40 = tensor.empty() : tensor<i64>
    %41 = linalg.fill {opal.data_check_word = 4 : i64} ins(%c2_i64 : i64) outs(%40 : tensor<i64>) -> tensor<i64>
    %42 = tensor.empty() : tensor<i64>
    %43 = linalg.fill {opal.data_check_word = 5 : i64} ins(%c1_i64 : i64) outs(%42 : tensor<i64>) -> tensor<i64>
    %44 = tensor.empty() : tensor<i64>
    %45 = linalg.fill {opal.data_check_word = 6 : i64} ins(%c1_i64 : i64) outs(%44 : tensor<i64>) -> tensor<i64>
    %46 = tensor.empty() : tensor<i64>
    %47 = linalg.fill {opal.data_check_word = 7 : i64} ins(%c0_i64 : i64) outs(%46 : tensor<i64>) -> tensor<i64>
    %48 = tensor.empty() : tensor<i64>
    %49 = linalg.fill {opal.data_check_word = 8 : i64} ins(%c0_i64 : i64) outs(%48 : tensor<i64>) -> tensor<i64>
    %50 = tensor.empty() : tensor<i64>
    %51 = linalg.fill {opal.data_check_word = 9 : i64} ins(%c1_i64 : i64) outs(%50 : tensor<i64>) -> tensor<i64>
    %52 = tensor.empty() : tensor<i64>
    %53 = linalg.fill {opal.data_check_word = 10 : i64} ins(%c1_i64 : i64) outs(%52 : tensor<i64>) -> tensor<i64>
    %54 = tensor.empty() : tensor<i64>
    %55 = linalg.fill {opal.data_check_word = 11 : i64} ins(%c2_i64 : i64) outs(%54 : tensor<i64>) -> tensor<i64>
    %56 = tensor.empty() : tensor<i64>
    %57 = linalg.fill {opal.data_check_word = 12 : i64} ins(%c3_i64 : i64) outs(%56 : tensor<i64>) -> tensor<i64>
    %58 = tensor.empty() : tensor<i64>
    %59 = linalg.fill {opal.data_check_word = 13 : i64} ins(%c6_i64 : i64) outs(%58 : tensor<i64>) -> tensor<i64>
    %60 = tensor.empty() : tensor<i64>
    %61 = linalg.fill {opal.data_check_word = 14 : i64} ins(%8 : i64) outs(%60 : tensor<i64>) -> tensor<i64>
    %62 = opal.list -> !opal.list<i64>
    %63 = opal.device "cpu"
    %64 = prims.full %62, %false, %c11_i64, %63, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_5 = arith.constant 0 : i64
    %65 = tensor.empty() : tensor<i64>
    %66 = linalg.fill ins(%c0_i64_5 : i64) outs(%65 : tensor<i64>) -> tensor<i64>
    %67 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%64 : tensor<i1>) outs(%66 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %103 = arith.extui %in : i1 to i64
      %104 = arith.ori %out, %103 : i64
      linalg.yield %104 : i64
    } -> tensor<i64>
    %68 = tensor.empty() : tensor<i64>
    %69 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c3_i64 : i64) outs(%68 : tensor<i64>) -> tensor<i64>
    %70 = tensor.empty() : tensor<i64>
    %71 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c4_i64 : i64) outs(%70 : tensor<i64>) -> tensor<i64>
    %72 = tensor.empty() : tensor<i64>
    %73 = linalg.fill {opal.data_check_word = 3 : i64} ins(%c2_i64 : i64) outs(%72 : tensor<i64>) -> tensor<i64>
    %74 = tensor.empty() : tensor<i64>
    %75 = linalg.fill {opal.data_check_word = 4 : i64} ins(%c2_i64 : i64) outs(%74 : tensor<i64>) -> tensor<i64>
    %76 = tensor.empty() : tensor<i64>
    %77 = linalg.fill {opal.data_check_word = 5 : i64} ins(%c1_i64 : i64) outs(%76 : tensor<i64>) -> tensor<i64>
    %78 = tensor.empty() : tensor<i64>
    %79 = linalg.fill {opal.data_check_word = 6 : i64} ins(%c1_i64 : i64) outs(%78 : tensor<i64>) -> tensor<i64>
    %80 = tensor.empty() : tensor<i64>
    %81 = linalg.fill {opal.data_check_word = 7 : i64} ins(%c0_i64 : i64) outs(%80 : tensor<i64>) -> tensor<i64>
    %82 = tensor.empty() : tensor<i64>
    %83 = linalg.fill {opal.data_check_word = 8 : i64} ins(%c0_i64 : i64) outs(%82 : tensor<i64>) -> tensor<i64>
    %84 = tensor.empty() : tensor<i64>
    %85 = linalg.fill {opal.data_check_word = 9 : i64} ins(%c1_i64 : i64) outs(%84 : tensor<i64>) -> tensor<i64>
    %86 = tensor.empty() : tensor<i64>
    %87 = linalg.fill {opal.data_check_word = 10 : i64} ins(%c1_i64 : i64) outs(%86 : tensor<i64>) -> tensor<i64>
    %88 = tensor.empty() : tensor<i64>
    %89 = linalg.fill {opal.data_check_word = 11 : i64} ins(%c2_i64 : i64) outs(%88 : tensor<i64>) -> tensor<i64>
    %90 = tensor.empty() : tensor<i64>
    %91 = linalg.fill {opal.data_check_word = 12 : i64} ins(%c3_i64 : i64) outs(%90 : tensor<i64>) -> tensor<i64>
    %92 = opal.list -> !opal.list<i64>
    %93 = opal.device "cpu"
    %94 = prims.full %92, %false, %c11_i64, %93, %false : (!opal.list<i64>, i1, i64, !opal.device, i1) -> tensor<i1>
    %c0_i64_6 = arith.constant 0 : i64
    %95 = tensor.empty() : tensor<i64>
    %96 = linalg.fill ins(%c0_i64_6 : i64) outs(%95 : tensor<i64>) -> tensor<i64>
    %97 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%94 : tensor<i1>) outs(%96 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %103 = arith.extui %in : i1 to i64
      %104 = arith.ori %out, %103 : i64
      linalg.yield %104 : i64
    } -> tensor<i64>
    %98 = tensor.empty() : tensor<i64>
    %99 = linalg.fill {opal.data_check_word = 1 : i64} ins(%c3_i64 : i64) outs(%98 : tensor<i64>) -> tensor<i64>
    %100 = tensor.empty() : tensor<i64>
    %101 = linalg.fill {opal.data_check_word = 2 : i64} ins(%c4_i64 : i64) outs(%100 : tensor<i64>) -> tensor<i64>
    %c1_7 = arith.constant 1 : index
    %dim_8 = tensor.dim %12, %c1_7 : tensor<1x?x3x4xf32>
    %102 = arith.index_cast %dim_8 : index to i64
    %c0 = arith.constant 0 : index
    memref.store %102, %arg1[%c0] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel(
// PTX: ld.global.b32
// PTX: add.rn.f32
