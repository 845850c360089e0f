// RUN: opal-opt %s --pass-pipeline="builtin.module(func.func(opal-map-to-gpu))" | FileCheck %s

// A loop over rows from opal-fuse-rows (softmax, temporaries kept whole)
// becomes one kernel with a block per row. Rows of 1 to 8192 elements take
// the first: a warp per 256 elements, each thread loading its 8 elements of
// x once; exp(x - max) is stored into its temporary and kept, so the sum
// and the division load nothing. Longer rows take the second: its ops run
// one after the other, shared by the block's 256 threads, a barrier after
// each. The two reductions (the row's maximum, its sum) fold a strided
// share per thread and combine with gpu.all_reduce; the temporaries live on
// the device.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG: %[[MAX:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK-DAG: %[[E:.*]] = gpu.alloc (%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK: %[[N:.*]] = memref.dim %arg0, %c1
// CHECK: %[[LONG:.*]] = arith.cmpi ule, %[[N]], %c8192
// CHECK: %[[FITS:.*]] = arith.andi %{{.*}}, %[[LONG]]
// CHECK: %[[WARPS:.*]] = arith.ceildivui %[[N]], %c256
// CHECK: %[[THREADS:.*]] = arith.muli %[[WARPS]], %c32
// CHECK: scf.if %{{.*}} {
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[THREADS]],
// CHECK-COUNT-8: memref.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NOT: memref.load
// CHECK: gpu.all_reduce maximumf
// CHECK-NOT: memref.load
// CHECK: gpu.all_reduce add
// CHECK-NOT: memref.load
// CHECK: arith.divf
// CHECK: gpu.terminator
// CHECK: } else {
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// CHECK-NOT: gpu.launch
// The row maximum's fill: thread 0.
// CHECK:   memref.subview %[[MAX]][%[[ROW]]] [1] [1]
// CHECK:   scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} {
// CHECK:   gpu.barrier
// CHECK:   scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} iter_args
// CHECK:     arith.maximumf
// CHECK:   gpu.all_reduce maximumf %{{.*}} uniform
// CHECK:   gpu.barrier
// CHECK:   gpu.barrier
// exp(x - max) into the row of the temporary.
// CHECK:   memref.subview %[[E]][%[[ROW]], 0]
// CHECK:   scf.for %{{.*}} = %[[T]] to
// CHECK:     math.exp
// CHECK:   gpu.barrier
// CHECK:   gpu.all_reduce add %{{.*}} uniform
// CHECK:   arith.divf
// CHECK:   gpu.barrier
// CHECK:   gpu.terminator
// CHECK-NOT: linalg.
// CHECK: gpu.dealloc %[[MAX]]
// CHECK: gpu.dealloc %[[E]]
#map = affine_map<() -> ()>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0) -> ()>
func.func @softmax(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
  %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
  %dim_1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %alloc_2 = memref.alloc(%dim, %dim_1) {alignment = 64 : i64} : memref<?x?xf32>
  scf.for %arg2 = %c0 to %dim step %c1 {
    %subview = memref.subview %alloc[%arg2] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%cst_0 : f32) outs(%subview : memref<f32, strided<[], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %dim_3 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %subview_4 = memref.subview %arg0[%arg2, 0] [1, %dim_3] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %subview_5 = memref.subview %alloc[%arg2] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction"]} ins(%subview_4 : memref<?xf32, strided<[1], offset: ?>>) outs(%subview_5 : memref<f32, strided<[], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %in, %out : f32
      linalg.yield %0 : f32
    }
    %dim_6 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %subview_7 = memref.subview %arg0[%arg2, 0] [1, %dim_6] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %subview_8 = memref.subview %alloc[%arg2] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
    %subview_9 = memref.subview %alloc_2[%arg2, 0] [1, %dim_1] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel"]} ins(%subview_7, %subview_8 : memref<?xf32, strided<[1], offset: ?>>, memref<f32, strided<[], offset: ?>>) outs(%subview_9 : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %0 = arith.subf %in, %in_17 : f32
      %1 = math.exp %0 : f32
      linalg.yield %1 : f32
    }
    %subview_10 = memref.subview %alloc[%arg2] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%cst : f32) outs(%subview_10 : memref<f32, strided<[], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %subview_11 = memref.subview %alloc_2[%arg2, 0] [1, %dim_1] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %subview_12 = memref.subview %alloc[%arg2] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction"]} ins(%subview_11 : memref<?xf32, strided<[1], offset: ?>>) outs(%subview_12 : memref<f32, strided<[], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %out : f32
      linalg.yield %0 : f32
    }
    %subview_13 = memref.subview %alloc_2[%arg2, 0] [1, %dim_1] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %subview_14 = memref.subview %alloc[%arg2] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
    %dim_15 = memref.dim %arg1, %c1 : memref<?x?xf32>
    %subview_16 = memref.subview %arg1[%arg2, 0] [1, %dim_15] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel"]} ins(%subview_13, %subview_14 : memref<?xf32, strided<[1], offset: ?>>, memref<f32, strided<[], offset: ?>>) outs(%subview_16 : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %0 = arith.divf %in, %in_17 : f32
      linalg.yield %0 : f32
    }
  } {opal.rows}
  memref.dealloc %alloc : memref<?xf32>
  memref.dealloc %alloc_2 : memref<?x?xf32>
  return
}

// A row op that reads one element for the whole row (a map other than the
// row's own index) leaves the loop to the barrier kernel alone: no kernel
// with the row in registers, no choice by length.
// CHECK-LABEL: func.func @first_of_row
// CHECK-NOT: 8192
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %c256
// CHECK-NOT: gpu.launch
#first = affine_map<(d0) -> (0)>
#row = affine_map<(d0) -> (d0)>
func.func @first_of_row(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %xi = memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %oi = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#row, #first, #row], iterator_types = ["parallel"]} ins(%xi, %xi : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>) outs(%oi : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %d = arith.subf %a, %b : f32
      linalg.yield %d : f32
    }
  } {opal.rows}
  return
}
