// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-reshape-outputs-in-place))" | FileCheck %s

// group_norm after bufferization: the result is computed in the grouped
// shape, then reshaped and copied into the output argument. The output
// argument, seen in the grouped shape, takes the allocation's place; the
// copy, the reshape and the deallocation go.
// CHECK-LABEL: func.func @grouped
// CHECK-SAME: (%[[X:.*]]: memref<2x4x6xf32>, %[[SHAPE:.*]]: memref<3xindex>, %[[OUT:.*]]: memref<2x8x3xf32>)
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [2, 4, 6], strides: [24, 6, 1] : memref<2x8x3xf32> to memref<2x4x6xf32, strided<[24, 6, 1]>>
// CHECK: %[[Y:.*]] = memref.cast %[[VIEW]] : memref<2x4x6xf32, strided<[24, 6, 1]>> to memref<2x4x6xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<2x4x6xf32>) outs(%[[Y]] : memref<2x4x6xf32>)
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.dealloc
// CHECK: return
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @grouped(%x: memref<2x4x6xf32>, %shape: memref<3xindex>, %out: memref<2x8x3xf32>) {
  %a = memref.alloc() : memref<2x4x6xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x4x6xf32>) outs(%a : memref<2x4x6xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  %r = memref.reshape %a(%shape) : (memref<2x4x6xf32>, memref<3xindex>) -> memref<2x8x3xf32>
  memref.copy %r, %out : memref<2x8x3xf32> to memref<2x8x3xf32>
  memref.dealloc %a : memref<2x4x6xf32>
  return
}

// -----

// Dynamic sizes: the strides are products of the allocation's sizes.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[M:.*]] = memref.dim %[[X]], %c1
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%[[N]], %[[M]]], strides: [%[[M]], 1] : memref<?xf32> to memref<?x?xf32, strided<[?, 1]>>
// CHECK: %[[Y:.*]] = memref.cast %[[VIEW]] : memref<?x?xf32, strided<[?, 1]>> to memref<?x?xf32>
// CHECK: linalg.generic {{.*}} outs(%[[Y]] : memref<?x?xf32>)
// CHECK-NOT: memref.copy
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %a = memref.alloc(%n, %m) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%a : memref<?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  %r = memref.collapse_shape %a [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  memref.copy %r, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?x?xf32>
  return
}

// -----

// Left alone: the buffer read after the copy (it must keep its own
// memory), an output argument read elsewhere, and a plain copy with no
// reshape (bufferization's to avoid).
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: memref.reinterpret_cast
// CHECK: memref.copy
// CHECK: memref.copy
// CHECK: memref.copy
// CHECK: return
#id1 = affine_map<(d0) -> (d0)>
func.func @untouched(%x: memref<8xf32>, %out: memref<2x4xf32>, %out2: memref<2x4xf32>, %out3: memref<8xf32>, %sink: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  %r = memref.expand_shape %a [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  memref.copy %r, %out : memref<2x4xf32> to memref<2x4xf32>
  memref.copy %x, %sink : memref<8xf32> to memref<8xf32>
  %later = memref.load %a[%c0] : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %rb = memref.expand_shape %b [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  memref.copy %rb, %out2 : memref<2x4xf32> to memref<2x4xf32>
  %seen = memref.load %out2[%c0, %c0] : memref<2x4xf32>
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  %sum = arith.addf %later, %seen : f32
  return %sum : f32
}
