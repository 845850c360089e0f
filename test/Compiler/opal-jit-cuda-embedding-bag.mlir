// _embedding_bag on CUDA (mode 0 with padding_idx 4, so offset2bag is
// computed): the bags' sums in one kernel (a thread per output element
// looping over its bag), offset2bag by a binary search per index, and the
// data checks (first offset, last offset, order, index range) in kernels of
// their own. ptxas accepts the PTX. (The input is the JIT's
// 2-entry-points.mlir for aten._embedding_bag(w, idx, off, False, 0,
// False, None, False, 4).)
// RUN: opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa lower-host=false" --opal-print-gpu-objects -o %t.host.mlir > %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.host.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
module {
  func.func @opal_kernel(%arg0: tensor<?x?xf32> {bufferization.writable = false, llvm.noalias}, %arg1: tensor<?xi64> {bufferization.writable = false, llvm.noalias}, %arg2: tensor<?xi64> {bufferization.writable = false, llvm.noalias}, %arg3: memref<?x?xf32> {llvm.noalias}, %arg4: memref<?xi64> {llvm.noalias}, %arg5: memref<?xi64> {llvm.noalias}, %arg6: memref<?xi64> {llvm.noalias}, %arg7: memref<i64> {llvm.noalias}, %arg8: memref<i64> {llvm.noalias}, %arg9: memref<i64> {llvm.noalias}, %arg10: memref<i64> {llvm.noalias}, %arg11: memref<i64> {llvm.noalias}, %arg12: memref<i64> {llvm.noalias}, %arg13: memref<i64> {llvm.noalias}, %arg14: memref<i64> {llvm.noalias}, %arg15: memref<i64> {llvm.noalias}) attributes {opal.data_checks = "aten::_embedding_bag,2,offsets[0]%20has%20to%20be%200%2C%20i.e.%2C%20the%20first%20sequence%20in%20the%20mini-batch%20has%20to%20start%20from%20position%200.%20However%2C%20got%20%7B0%7D aten::_embedding_bag,3,offsets[-1]%20can%20not%20be%20greater%20than%20input's%20length%20%7B1%7D%20but%20got%20offsets[-1]%20of%20%7B0%7D aten::_embedding_bag,2,opal%20takes%20non-decreasing%20offsets%20for%20_embedding_bag%2C%20but%20an%20offset%20of%20%7B0%7D%20follows%20a%20larger%20one aten::_embedding_bag,2,embedding_bag:%20Expected%20idx%20%3E=%200%20%26%26%20idx%20%3C%20num_embeddings%20but%20found%20idx%20to%20be%20%7B0%7D"} {
    %c1 = arith.constant 1 : index
    %c4_i64 = arith.constant 4 : i64
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %true = arith.constant true
    %c6_i64 = arith.constant 6 : i64
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg1, %c0 : tensor<?xi64>
    %0 = arith.index_cast %dim : index to i64
    %1 = opal.list -> !opal.list<i64>
    %2 = opal.device "cpu"
    %3 = prims.full %1, %c1_i64, %c6_i64, %2, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
    %dim_0 = tensor.dim %arg2, %c0 : tensor<?xi64>
    %4 = arith.index_cast %dim_0 : index to i64
    %5 = opal.str "sum"
    %6:3 = prims.embedding_bag %arg0, %arg1, %arg2, %3, %c4_i64, %5, %false : (tensor<?x?xf32>, tensor<?xi64>, tensor<?xi64>, tensor<f32>, i64, !opal.str, i1) -> (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?xi64>)
    %7 = arith.minsi %4, %c1_i64 : i64
    %8 = prims.slice_in_dim %arg2, %c0_i64, %7, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %9 = opal.list -> !opal.list<i64>
    %10 = opal.device "cpu"
    %11 = prims.full %9, %c0_i64, %c4_i64, %10, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_1 = tensor.dim %8, %c0 : tensor<?xi64>
    %12 = arith.index_cast %dim_1 : index to i64
    %13 = opal.list %12 : i64 -> !opal.list<i64>
    %14 = opal.list -> !opal.list<i64>
    %15 = prims.broadcast_in_dim %11, %13, %14 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %16 = prims.ne %8, %15 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %c0_i64_2 = arith.constant 0 : i64
    %17 = tensor.empty() : tensor<i64>
    %18 = linalg.fill ins(%c0_i64_2 : i64) outs(%17 : tensor<i64>) -> tensor<i64>
    %19:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%16, %8 : tensor<?xi1>, tensor<?xi64>) outs(%18, %18 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_12: i64, %out: i64, %out_13: i64):
      %85 = arith.extui %in : i1 to i64
      %86 = arith.ori %out, %85 : i64
      %87 = arith.cmpi eq, %out, %c0_i64_2 : i64
      %88 = arith.andi %87, %in : i1
      %89 = arith.select %88, %in_12, %out_13 : i64
      linalg.yield %86, %89 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %20 = arith.subi %4, %7 : i64
    %21 = prims.slice_in_dim %arg2, %20, %4, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %22 = opal.list -> !opal.list<i64>
    %23 = opal.device "cpu"
    %24 = prims.full %22, %0, %c4_i64, %23, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_3 = tensor.dim %21, %c0 : tensor<?xi64>
    %25 = arith.index_cast %dim_3 : index to i64
    %26 = opal.list %25 : i64 -> !opal.list<i64>
    %27 = opal.list -> !opal.list<i64>
    %28 = prims.broadcast_in_dim %24, %26, %27 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %29 = prims.gt %21, %28 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %c0_i64_4 = arith.constant 0 : i64
    %30 = tensor.empty() : tensor<i64>
    %31 = linalg.fill ins(%c0_i64_4 : i64) outs(%30 : tensor<i64>) -> tensor<i64>
    %32:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%29, %21 : tensor<?xi1>, tensor<?xi64>) outs(%31, %31 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_12: i64, %out: i64, %out_13: i64):
      %85 = arith.extui %in : i1 to i64
      %86 = arith.ori %out, %85 : i64
      %87 = arith.cmpi eq, %out, %c0_i64_4 : i64
      %88 = arith.andi %87, %in : i1
      %89 = arith.select %88, %in_12, %out_13 : i64
      linalg.yield %86, %89 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %33 = tensor.empty() : tensor<i64>
    %34 = linalg.fill {opal.data_check_word = 2 : i64} ins(%0 : i64) outs(%33 : tensor<i64>) -> tensor<i64>
    %35 = prims.slice_in_dim %arg2, %7, %4, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %36 = arith.subi %4, %7 : i64
    %37 = prims.slice_in_dim %arg2, %c0_i64, %36, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %38 = prims.lt %35, %37 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %c0_i64_5 = arith.constant 0 : i64
    %39 = tensor.empty() : tensor<i64>
    %40 = linalg.fill ins(%c0_i64_5 : i64) outs(%39 : tensor<i64>) -> tensor<i64>
    %41:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%38, %35 : tensor<?xi1>, tensor<?xi64>) outs(%40, %40 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_12: i64, %out: i64, %out_13: i64):
      %85 = arith.extui %in : i1 to i64
      %86 = arith.ori %out, %85 : i64
      %87 = arith.cmpi eq, %out, %c0_i64_5 : i64
      %88 = arith.andi %87, %in : i1
      %89 = arith.select %88, %in_12, %out_13 : i64
      linalg.yield %86, %89 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %dim_6 = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %42 = arith.index_cast %dim_6 : index to i64
    %43 = opal.list -> !opal.list<i64>
    %44 = opal.device "cpu"
    %45 = prims.full %43, %c0_i64, %c4_i64, %44, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %46 = opal.list -> !opal.list<i64>
    %47 = opal.device "cpu"
    %48 = prims.full %46, %42, %c4_i64, %47, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_7 = tensor.dim %arg1, %c0 : tensor<?xi64>
    %49 = arith.index_cast %dim_7 : index to i64
    %50 = opal.list %49 : i64 -> !opal.list<i64>
    %51 = opal.list -> !opal.list<i64>
    %52 = prims.broadcast_in_dim %45, %50, %51 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %53 = opal.list -> !opal.list<i64>
    %54 = prims.broadcast_in_dim %48, %50, %53 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %55 = prims.lt %arg1, %52 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %56 = prims.ge %arg1, %54 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %57 = prims.bitwise_or %55, %56 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0_i64_8 = arith.constant 0 : i64
    %58 = tensor.empty() : tensor<i64>
    %59 = linalg.fill ins(%c0_i64_8 : i64) outs(%58 : tensor<i64>) -> tensor<i64>
    %60:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%57, %arg1 : tensor<?xi1>, tensor<?xi64>) outs(%59, %59 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_12: i64, %out: i64, %out_13: i64):
      %85 = arith.extui %in : i1 to i64
      %86 = arith.ori %out, %85 : i64
      %87 = arith.cmpi eq, %out, %c0_i64_8 : i64
      %88 = arith.andi %87, %in : i1
      %89 = arith.select %88, %in_12, %out_13 : i64
      linalg.yield %86, %89 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %dim_9 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %61 = arith.index_cast %dim_9 : index to i64
    %62 = arith.cmpi eq, %61, %c0_i64 : i64
    %63 = arith.xori %62, %true : i1
    %64 = arith.andi %false, %63 : i1
    %65 = arith.select %64, %c0_i64, %0 : i64
    %66 = opal.device "cpu"
    %dim_10 = tensor.dim %6#0, %c0 : tensor<?x?xf32>
    %67 = arith.index_cast %dim_10 : index to i64
    %68 = prims.slice_in_dim %arg2, %c0_i64, %67, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %69 = prims.iota %65, %c0_i64, %c1_i64, %c4_i64, %66, %false : (i64, i64, i64, i64, !opal.device, i1) -> tensor<?xi64>
    %70 = prims.searchsorted %68, %69, %true : (tensor<?xi64>, tensor<?xi64>, i1) -> tensor<?xi64>
    %71 = opal.list -> !opal.list<i64>
    %72 = opal.device "cpu"
    %73 = prims.full %71, %c1_i64, %c4_i64, %72, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %74 = opal.list -> !opal.list<i64>
    %75 = opal.device "cpu"
    %76 = prims.full %74, %c1_i64, %c4_i64, %75, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %77 = prims.mul %73, %76 : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %dim_11 = tensor.dim %70, %c0 : tensor<?xi64>
    %78 = arith.index_cast %dim_11 : index to i64
    %79 = opal.list %78 : i64 -> !opal.list<i64>
    %80 = opal.list -> !opal.list<i64>
    %81 = prims.broadcast_in_dim %77, %79, %80 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %82 = prims.sub %70, %81 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
    %83 = opal.list %67 : i64 -> !opal.list<i64>
    %84 = prims.full %83, %c0_i64, %c4_i64, %66, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<?xi64>
    bufferization.materialize_in_destination %6#0 in restrict writable %arg3 : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
    bufferization.materialize_in_destination %82 in restrict writable %arg4 : (tensor<?xi64>, memref<?xi64>) -> ()
    bufferization.materialize_in_destination %84 in restrict writable %arg5 : (tensor<?xi64>, memref<?xi64>) -> ()
    bufferization.materialize_in_destination %84 in restrict writable %arg6 : (tensor<?xi64>, memref<?xi64>) -> ()
    bufferization.materialize_in_destination %19#0 in restrict writable %arg7 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %19#1 in restrict writable %arg8 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %32#0 in restrict writable %arg9 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %32#1 in restrict writable %arg10 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %34 in restrict writable %arg11 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %41#0 in restrict writable %arg12 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %41#1 in restrict writable %arg13 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %60#0 in restrict writable %arg14 : (tensor<i64>, memref<i64>) -> ()
    bufferization.materialize_in_destination %60#1 in restrict writable %arg15 : (tensor<i64>, memref<i64>) -> ()
    return
  }
  func.func @opal_kernel_shapes(%arg0: tensor<?x?xf32> {bufferization.writable = false}, %arg1: tensor<?xi64> {bufferization.writable = false}, %arg2: tensor<?xi64> {bufferization.writable = false}, %arg3: memref<?xi64>) attributes {opal.data_checks = "aten::_embedding_bag,2,offsets[0]%20has%20to%20be%200%2C%20i.e.%2C%20the%20first%20sequence%20in%20the%20mini-batch%20has%20to%20start%20from%20position%200.%20However%2C%20got%20%7B0%7D aten::_embedding_bag,3,offsets[-1]%20can%20not%20be%20greater%20than%20input's%20length%20%7B1%7D%20but%20got%20offsets[-1]%20of%20%7B0%7D aten::_embedding_bag,2,opal%20takes%20non-decreasing%20offsets%20for%20_embedding_bag%2C%20but%20an%20offset%20of%20%7B0%7D%20follows%20a%20larger%20one aten::_embedding_bag,2,embedding_bag:%20Expected%20idx%20%3E=%200%20%26%26%20idx%20%3C%20num_embeddings%20but%20found%20idx%20to%20be%20%7B0%7D"} {
    %c1 = arith.constant 1 : index
    %c4_i64 = arith.constant 4 : i64
    %false = arith.constant false
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %true = arith.constant true
    %c6_i64 = arith.constant 6 : i64
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg1, %c0 : tensor<?xi64>
    %0 = arith.index_cast %dim : index to i64
    %1 = opal.list -> !opal.list<i64>
    %2 = opal.device "cpu"
    %3 = prims.full %1, %c1_i64, %c6_i64, %2, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
    %dim_0 = tensor.dim %arg2, %c0 : tensor<?xi64>
    %4 = arith.index_cast %dim_0 : index to i64
    %5 = opal.str "sum"
    %6:3 = prims.embedding_bag %arg0, %arg1, %arg2, %3, %c4_i64, %5, %false : (tensor<?x?xf32>, tensor<?xi64>, tensor<?xi64>, tensor<f32>, i64, !opal.str, i1) -> (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?xi64>)
    %7 = arith.minsi %4, %c1_i64 : i64
    %8 = prims.slice_in_dim %arg2, %c0_i64, %7, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %9 = opal.list -> !opal.list<i64>
    %10 = opal.device "cpu"
    %11 = prims.full %9, %c0_i64, %c4_i64, %10, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_1 = tensor.dim %8, %c0 : tensor<?xi64>
    %12 = arith.index_cast %dim_1 : index to i64
    %13 = opal.list %12 : i64 -> !opal.list<i64>
    %14 = opal.list -> !opal.list<i64>
    %15 = prims.broadcast_in_dim %11, %13, %14 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %16 = prims.ne %8, %15 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %c0_i64_2 = arith.constant 0 : i64
    %17 = tensor.empty() : tensor<i64>
    %18 = linalg.fill ins(%c0_i64_2 : i64) outs(%17 : tensor<i64>) -> tensor<i64>
    %19:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%16, %8 : tensor<?xi1>, tensor<?xi64>) outs(%18, %18 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_24: i64, %out: i64, %out_25: i64):
      %90 = arith.extui %in : i1 to i64
      %91 = arith.ori %out, %90 : i64
      %92 = arith.cmpi eq, %out, %c0_i64_2 : i64
      %93 = arith.andi %92, %in : i1
      %94 = arith.select %93, %in_24, %out_25 : i64
      linalg.yield %91, %94 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %20 = arith.subi %4, %7 : i64
    %21 = prims.slice_in_dim %arg2, %20, %4, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %22 = opal.list -> !opal.list<i64>
    %23 = opal.device "cpu"
    %24 = prims.full %22, %0, %c4_i64, %23, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_3 = tensor.dim %21, %c0 : tensor<?xi64>
    %25 = arith.index_cast %dim_3 : index to i64
    %26 = opal.list %25 : i64 -> !opal.list<i64>
    %27 = opal.list -> !opal.list<i64>
    %28 = prims.broadcast_in_dim %24, %26, %27 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %29 = prims.gt %21, %28 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %c0_i64_4 = arith.constant 0 : i64
    %30 = tensor.empty() : tensor<i64>
    %31 = linalg.fill ins(%c0_i64_4 : i64) outs(%30 : tensor<i64>) -> tensor<i64>
    %32:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%29, %21 : tensor<?xi1>, tensor<?xi64>) outs(%31, %31 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_24: i64, %out: i64, %out_25: i64):
      %90 = arith.extui %in : i1 to i64
      %91 = arith.ori %out, %90 : i64
      %92 = arith.cmpi eq, %out, %c0_i64_4 : i64
      %93 = arith.andi %92, %in : i1
      %94 = arith.select %93, %in_24, %out_25 : i64
      linalg.yield %91, %94 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %33 = tensor.empty() : tensor<i64>
    %34 = linalg.fill {opal.data_check_word = 2 : i64} ins(%0 : i64) outs(%33 : tensor<i64>) -> tensor<i64>
    %35 = prims.slice_in_dim %arg2, %7, %4, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %36 = arith.subi %4, %7 : i64
    %37 = prims.slice_in_dim %arg2, %c0_i64, %36, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %38 = prims.lt %35, %37 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %c0_i64_5 = arith.constant 0 : i64
    %39 = tensor.empty() : tensor<i64>
    %40 = linalg.fill ins(%c0_i64_5 : i64) outs(%39 : tensor<i64>) -> tensor<i64>
    %41:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%38, %35 : tensor<?xi1>, tensor<?xi64>) outs(%40, %40 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_24: i64, %out: i64, %out_25: i64):
      %90 = arith.extui %in : i1 to i64
      %91 = arith.ori %out, %90 : i64
      %92 = arith.cmpi eq, %out, %c0_i64_5 : i64
      %93 = arith.andi %92, %in : i1
      %94 = arith.select %93, %in_24, %out_25 : i64
      linalg.yield %91, %94 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %dim_6 = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %42 = arith.index_cast %dim_6 : index to i64
    %43 = opal.list -> !opal.list<i64>
    %44 = opal.device "cpu"
    %45 = prims.full %43, %c0_i64, %c4_i64, %44, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %46 = opal.list -> !opal.list<i64>
    %47 = opal.device "cpu"
    %48 = prims.full %46, %42, %c4_i64, %47, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %dim_7 = tensor.dim %arg1, %c0 : tensor<?xi64>
    %49 = arith.index_cast %dim_7 : index to i64
    %50 = opal.list %49 : i64 -> !opal.list<i64>
    %51 = opal.list -> !opal.list<i64>
    %52 = prims.broadcast_in_dim %45, %50, %51 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %53 = opal.list -> !opal.list<i64>
    %54 = prims.broadcast_in_dim %48, %50, %53 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %55 = prims.lt %arg1, %52 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %56 = prims.ge %arg1, %54 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
    %57 = prims.bitwise_or %55, %56 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0_i64_8 = arith.constant 0 : i64
    %58 = tensor.empty() : tensor<i64>
    %59 = linalg.fill ins(%c0_i64_8 : i64) outs(%58 : tensor<i64>) -> tensor<i64>
    %60:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["reduction"]} ins(%57, %arg1 : tensor<?xi1>, tensor<?xi64>) outs(%59, %59 : tensor<i64>, tensor<i64>) {
    ^bb0(%in: i1, %in_24: i64, %out: i64, %out_25: i64):
      %90 = arith.extui %in : i1 to i64
      %91 = arith.ori %out, %90 : i64
      %92 = arith.cmpi eq, %out, %c0_i64_8 : i64
      %93 = arith.andi %92, %in : i1
      %94 = arith.select %93, %in_24, %out_25 : i64
      linalg.yield %91, %94 : i64, i64
    } -> (tensor<i64>, tensor<i64>)
    %dim_9 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %61 = arith.index_cast %dim_9 : index to i64
    %62 = arith.cmpi eq, %61, %c0_i64 : i64
    %63 = arith.xori %62, %true : i1
    %64 = arith.andi %false, %63 : i1
    %65 = arith.select %64, %c0_i64, %0 : i64
    %66 = opal.device "cpu"
    %dim_10 = tensor.dim %6#0, %c0 : tensor<?x?xf32>
    %67 = arith.index_cast %dim_10 : index to i64
    %68 = prims.slice_in_dim %arg2, %c0_i64, %67, %c1_i64, %c0_i64 : (tensor<?xi64>, i64, i64, i64, i64) -> tensor<?xi64>
    %69 = prims.iota %65, %c0_i64, %c1_i64, %c4_i64, %66, %false : (i64, i64, i64, i64, !opal.device, i1) -> tensor<?xi64>
    %70 = prims.searchsorted %68, %69, %true : (tensor<?xi64>, tensor<?xi64>, i1) -> tensor<?xi64>
    %71 = opal.list -> !opal.list<i64>
    %72 = opal.device "cpu"
    %73 = prims.full %71, %c1_i64, %c4_i64, %72, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %74 = opal.list -> !opal.list<i64>
    %75 = opal.device "cpu"
    %76 = prims.full %74, %c1_i64, %c4_i64, %75, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
    %77 = prims.mul %73, %76 : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %dim_11 = tensor.dim %70, %c0 : tensor<?xi64>
    %78 = arith.index_cast %dim_11 : index to i64
    %79 = opal.list %78 : i64 -> !opal.list<i64>
    %80 = opal.list -> !opal.list<i64>
    %81 = prims.broadcast_in_dim %77, %79, %80 : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xi64>
    %82 = prims.sub %70, %81 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
    %83 = opal.list %67 : i64 -> !opal.list<i64>
    %84 = prims.full %83, %c0_i64, %c4_i64, %66, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<?xi64>
    %c0_12 = arith.constant 0 : index
    %dim_13 = tensor.dim %6#0, %c0_12 : tensor<?x?xf32>
    %85 = arith.index_cast %dim_13 : index to i64
    %c0_14 = arith.constant 0 : index
    memref.store %85, %arg3[%c0_14] : memref<?xi64>
    %c1_15 = arith.constant 1 : index
    %dim_16 = tensor.dim %6#0, %c1_15 : tensor<?x?xf32>
    %86 = arith.index_cast %dim_16 : index to i64
    %c1_17 = arith.constant 1 : index
    memref.store %86, %arg3[%c1_17] : memref<?xi64>
    %c0_18 = arith.constant 0 : index
    %dim_19 = tensor.dim %82, %c0_18 : tensor<?xi64>
    %87 = arith.index_cast %dim_19 : index to i64
    %c2 = arith.constant 2 : index
    memref.store %87, %arg3[%c2] : memref<?xi64>
    %c0_20 = arith.constant 0 : index
    %dim_21 = tensor.dim %84, %c0_20 : tensor<?xi64>
    %88 = arith.index_cast %dim_21 : index to i64
    %c3 = arith.constant 3 : index
    memref.store %88, %arg3[%c3] : memref<?xi64>
    %c0_22 = arith.constant 0 : index
    %dim_23 = tensor.dim %84, %c0_22 : tensor<?xi64>
    %89 = arith.index_cast %dim_23 : index to i64
    %c4 = arith.constant 4 : index
    memref.store %89, %arg3[%c4] : memref<?xi64>
    return
  }
}

// HOST-LABEL: func.func @opal_kernel(
// HOST: gpu.launch_func @opal_kernels::@opal_kernel_kernel blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// HOST: gpu.binary @opal_kernels
// PTX: .visible .entry opal_kernel_kernel(
// PTX: ld.global
// PTX: add.rn.f32
