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

// -----

// A convolution's paths chosen per call: an scf.if whose branches each
// yield a fresh buffer, read through a cast to a strided layout. The copy
// into a fresh buffer that memref.reshape wants reads the result itself,
// and each branch's buffer becomes the output argument; no copy is left,
// and nothing frees the output argument.
// CHECK-LABEL: func.func @branches
// CHECK-SAME: (%[[C:.*]]: i1, %[[X:.*]]: memref<2x12xf32>, %[[SHAPE:.*]]: memref<3xindex>, %[[OUT:.*]]: memref<2x3x4xf32>)
// CHECK: scf.if %[[C]]
// CHECK: %[[V1:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [2, 12], strides: [12, 1]
// CHECK: %[[A:.*]] = memref.cast %[[V1]]
// CHECK: linalg.generic {{.*}} outs(%[[A]] : memref<2x12xf32>)
// CHECK: } else {
// CHECK: %[[V2:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [2, 12], strides: [12, 1]
// CHECK: %[[B:.*]] = memref.cast %[[V2]]
// CHECK: linalg.generic {{.*}} outs(%[[B]] : memref<2x12xf32>)
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.dealloc
// CHECK: return
#row = affine_map<(d0, d1) -> (d0, d1)>
func.func @branches(%c: i1, %x: memref<2x12xf32>, %shape: memref<3xindex>, %out: memref<2x3x4xf32>) {
  %r = scf.if %c -> (memref<2x12xf32>) {
    %a = memref.alloc() : memref<2x12xf32>
    linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x12xf32>) outs(%a : memref<2x12xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.negf %in : f32
      linalg.yield %0 : f32
    }
    scf.yield %a : memref<2x12xf32>
  } else {
    %b = memref.alloc() : memref<2x12xf32>
    linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x12xf32>) outs(%b : memref<2x12xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.absf %in : f32
      linalg.yield %0 : f32
    }
    scf.yield %b : memref<2x12xf32>
  }
  %strided = memref.cast %r : memref<2x12xf32> to memref<2x12xf32, strided<[?, ?], offset: ?>>
  %dense = memref.alloc() : memref<2x12xf32>
  memref.copy %strided, %dense : memref<2x12xf32, strided<[?, ?], offset: ?>> to memref<2x12xf32>
  %shaped = memref.reshape %dense(%shape) : (memref<2x12xf32>, memref<3xindex>) -> memref<2x3x4xf32>
  memref.copy %shaped, %out : memref<2x3x4xf32> to memref<2x3x4xf32>
  memref.dealloc %dense : memref<2x12xf32>
  %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %strided : memref<2x12xf32, strided<[?, ?], offset: ?>> -> memref<f32>, index, index, index, index, index
  memref.dealloc %base : memref<f32>
  return
}

// -----

// The branches keep their buffers, and the result is copied (into the
// output argument, seen in the result's shape): a branch yields the input
// (not a buffer of its own); a result is read again after the copy.
// CHECK-LABEL: func.func @branches_untouched
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<8xf32>
// CHECK: %[[R:.*]] = scf.if
// CHECK: memref.alloc()
// CHECK: scf.yield %[[X]]
// CHECK: memref.copy %[[R]],
// CHECK: %[[S:.*]] = scf.if
// CHECK-COUNT-2: memref.alloc()
// CHECK: memref.copy %[[S]],
// CHECK: memref.load %[[S]]
// CHECK: return
func.func @branches_untouched(%c: i1, %x: memref<8xf32>, %shape: memref<2xindex>, %out: memref<2x4xf32>, %out2: memref<2x4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %r = scf.if %c -> (memref<8xf32>) {
    %a = memref.alloc() : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  %dense = memref.alloc() : memref<8xf32>
  memref.copy %r, %dense : memref<8xf32> to memref<8xf32>
  %shaped = memref.reshape %dense(%shape) : (memref<8xf32>, memref<2xindex>) -> memref<2x4xf32>
  memref.copy %shaped, %out : memref<2x4xf32> to memref<2x4xf32>
  %s = scf.if %c -> (memref<8xf32>) {
    %a = memref.alloc() : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    %b = memref.alloc() : memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  %dense2 = memref.alloc() : memref<8xf32>
  memref.copy %s, %dense2 : memref<8xf32> to memref<8xf32>
  %shaped2 = memref.reshape %dense2(%shape) : (memref<8xf32>, memref<2xindex>) -> memref<2x4xf32>
  memref.copy %shaped2, %out2 : memref<2x4xf32> to memref<2x4xf32>
  %later = memref.load %s[%c0] : memref<8xf32>
  return %later : f32
}
