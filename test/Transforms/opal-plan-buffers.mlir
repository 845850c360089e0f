// RUN: opal-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(opal-plan-buffers))' | FileCheck %s

// Three temporaries: %a and %b live together, %c is allocated after %a is
// freed and takes its place; the largest (%b, 256 bytes) goes first, at 0.
// One 384-byte buffer, 64-byte aligned, freed before the return.
// CHECK-LABEL: func.func @chain(
// CHECK-NEXT: %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<384xi8>
// CHECK: %[[OA:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[S]][%[[OA]]][] : memref<384xi8> to memref<4x8xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[A]]
// CHECK-NEXT: %[[OB:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[S]][%[[OB]]][] : memref<384xi8> to memref<64xf32>
// CHECK: %[[OC:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[S]][%[[OC]]][] : memref<384xi8> to memref<32xi32>
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK-NOT: memref.dealloc %[[B]]
// CHECK-NOT: memref.dealloc %[[C]]
// CHECK: memref.dealloc %[[S]] : memref<384xi8>
// CHECK-NEXT: return
func.func @chain(%out: memref<32xi32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8xf32>)
  %b = memref.alloc() : memref<64xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %half = memref.subview %b[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  memref.copy %flat, %half : memref<32xf32> to memref<32xf32, strided<[1]>>
  memref.dealloc %a : memref<4x8xf32>
  %c = memref.alloc() : memref<32xi32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%half : memref<32xf32, strided<[1]>>) outs(%c : memref<32xi32>) {
  ^bb0(%x: f32, %y: i32):
    %i = arith.fptosi %x : f32 to i32
    linalg.yield %i : i32
  }
  memref.dealloc %b : memref<64xf32>
  memref.copy %c, %out : memref<32xi32> to memref<32xi32>
  memref.dealloc %c : memref<32xi32>
  return
}

// -----

// Dynamic sizes, a buffer freed in another block, one an iteration
// argument forwards into a loop, one the function returns, one of more than
// 1 TiB (the allocator refuses it; placed, its size and offset could
// overflow): none is placed, and the one candidate left (%alone) stays an
// allocation of its own.
// CHECK-LABEL: func.func @left(
// CHECK-NOT: memref.view
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.alloc() : memref<2xf32>
// CHECK: memref.alloc() : memref<2305843009213693952xf32>
// CHECK-NOT: memref.view
func.func @left(%n: index, %flag: i1, %out: memref<16xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %dynamic = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%dynamic : memref<?xf32>)
  memref.dealloc %dynamic : memref<?xf32>
  %branch = memref.alloc() : memref<8xf32>
  scf.if %flag {
    memref.dealloc %branch : memref<8xf32>
  }
  %carried = memref.alloc() : memref<16xf32>
  %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%buffer = %carried) -> memref<16xf32> {
    scf.yield %buffer : memref<16xf32>
  }
  memref.copy %last, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %carried : memref<16xf32>
  %returned = memref.alloc() : memref<4xf32>
  %alone = memref.alloc() : memref<2xf32>
  linalg.fill ins(%zero : f32) outs(%alone : memref<2xf32>)
  memref.dealloc %alone : memref<2xf32>
  %huge = memref.alloc() : memref<2305843009213693952xf32>
  linalg.fill ins(%zero : f32) outs(%huge : memref<2305843009213693952xf32>)
  memref.dealloc %huge : memref<2305843009213693952xf32>
  return %returned : memref<4xf32>
}

// -----

// A deallocation of a view (not of an allocation) may free part of what
// would be shared: the function is left as it is.
// CHECK-LABEL: func.func @freed_view(
// CHECK-NOT: memref.view
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc() : memref<8xf32>
func.func @freed_view(%out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  memref.copy %b, %out : memref<8xf32> to memref<8xf32>
  %cast = memref.cast %a : memref<8xf32> to memref<?xf32>
  memref.dealloc %cast : memref<?xf32>
  memref.dealloc %b : memref<8xf32>
  return
}
