// RUN: opal-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(opal-free-at-last-use))' | FileCheck %s

// Deallocations at the end of the block move up to the last use of their
// buffer: %a's last use is the copy out of its view, %b's the loop that
// reads it; the buffer the function allocates for the next step is then
// free to take %a's memory.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.fill ins(%{{.*}}) outs(%[[A]]
// CHECK: %[[B:.*]] = memref.alloc() : memref<32xf32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[A]]
// CHECK: memref.copy %[[FLAT]], %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[C:.*]] = memref.alloc() : memref<32xf32>
// CHECK: scf.for
// CHECK: memref.load %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: memref.copy %[[C]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NEXT: return
func.func @chain(%out: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8xf32>)
  %b = memref.alloc() : memref<32xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  memref.copy %flat, %b : memref<32xf32> to memref<32xf32>
  %c = memref.alloc() : memref<32xf32>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %b[%i] : memref<32xf32>
    memref.store %v, %c[%i] : memref<32xf32>
  }
  memref.copy %c, %out : memref<32xf32> to memref<32xf32>
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<32xf32>
  memref.dealloc %c : memref<32xf32>
  return
}

// -----

// A buffer an op forwards into its regions (an iteration argument) may be
// read through them after its last visible use: its deallocation stays.
// CHECK-LABEL: func.func @forwarded(
// CHECK: scf.for
// CHECK: linalg.fill
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @forwarded(%out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%buf = %a) -> (memref<4xf32>) {
    scf.yield %buf : memref<4xf32>
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}
