// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-rows-in-outputs))" | FileCheck %s

// softmax's row loop after convert-linalg-to-loops: the row's max, then
// exp(x - max) into a temporary row with its sum, then the temporary times
// 1 / sum into the output row. The exp pass stores into the output row
// (its view made before that pass); the last pass reads it back from there;
// the temporary goes.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK-NOT: memref.alloc(%
// CHECK: scf.for %[[ROW:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: %[[VIEW:.*]] = memref.subview %[[OUT]][%[[ROW]], 0] [1, %{{.*}}] [1, 1]
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK: %[[E:.*]] = math.exp
// CHECK: memref.store %[[E]], %[[VIEW]][%[[J]]]
// CHECK: scf.for %[[K:.*]] =
// CHECK-NEXT: %[[V:.*]] = memref.load %[[VIEW]][%[[K]]]
// CHECK: %[[R:.*]] = arith.mulf %[[V]]
// CHECK-NEXT: memref.store %[[R]], %{{.*}}[%[[K]]]
// CHECK: } {opal.rows}
// CHECK-NOT: memref.dealloc %{{.*}} : memref<?xf32>
// CHECK: return
func.func @softmax(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %low = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %max = memref.alloc() : memref<f32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  %sum = memref.alloc() : memref<f32>
  scf.for %i = %c0 to %rows step %c1 {
    memref.store %low, %max[] : memref<f32>
    %row = memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %row[%j] : memref<?xf32, strided<[1], offset: ?>>
      %m = memref.load %max[] : memref<f32>
      %r = arith.maximumf %v, %m : f32
      memref.store %r, %max[] : memref<f32>
    }
    memref.store %zero, %sum[] : memref<f32>
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %row[%j] : memref<?xf32, strided<[1], offset: ?>>
      %m = memref.load %max[] : memref<f32>
      %s = memref.load %sum[] : memref<f32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      %t = arith.addf %e, %s : f32
      memref.store %e, %tmp[%j] : memref<?xf32>
      memref.store %t, %sum[] : memref<f32>
    }
    %o = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %tmp[%k] : memref<?xf32>
      %s = memref.load %sum[] : memref<f32>
      %inv = arith.divf %one, %s : f32
      %r = arith.mulf %v, %inv : f32
      memref.store %r, %o[%k] : memref<?xf32, strided<[1], offset: ?>>
    }
  } {opal.rows}
  memref.dealloc %max : memref<f32>
  memref.dealloc %tmp : memref<?xf32>
  memref.dealloc %sum : memref<f32>
  return
}

// -----

// The temporary's element type differs from the output's (a bf16 result
// computed in f32): it stays.
// CHECK-LABEL: func.func @other_type
// CHECK: %[[TMP:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[TMP]][%{{.*}}] : memref<?xf32>
// CHECK: memref.load %[[TMP]][%{{.*}}] : memref<?xf32>
func.func @other_type(%x: memref<?x?xf32>, %out: memref<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %row = memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %row[%j] : memref<?xf32, strided<[1], offset: ?>>
      %e = math.exp %v : f32
      memref.store %e, %tmp[%j] : memref<?xf32>
    }
    %o = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xbf16> to memref<?xbf16, strided<[1], offset: ?>>
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %tmp[%k] : memref<?xf32>
      %r = arith.truncf %v : f32 to bf16
      memref.store %r, %o[%k] : memref<?xbf16, strided<[1], offset: ?>>
    }
  } {opal.rows}
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// The temporary is read at another index than the one its pass steps
// (a reversed row): computed in the output, the last pass would read
// elements it had already overwritten. It stays.
// CHECK-LABEL: func.func @shifted_read
// CHECK: %[[TMP:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.load %[[TMP]]
func.func @shifted_read(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %last = arith.subi %n, %c1 : index
  %tmp = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %row = memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %row[%j] : memref<?xf32, strided<[1], offset: ?>>
      %e = math.exp %v : f32
      memref.store %e, %tmp[%j] : memref<?xf32>
    }
    %o = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %k = %c0 to %n step %c1 {
      %back = arith.subi %last, %k : index
      %v = memref.load %tmp[%back] : memref<?xf32>
      memref.store %v, %o[%k] : memref<?xf32, strided<[1], offset: ?>>
    }
  } {opal.rows}
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// The row loop also reads the output argument: it stays as it is.
// CHECK-LABEL: func.func @output_read
// CHECK: %[[TMP:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[TMP]]
func.func @output_read(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %row = memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %row[%j] : memref<?xf32, strided<[1], offset: ?>>
      %w = memref.load %o[%j] : memref<?xf32, strided<[1], offset: ?>>
      %e = arith.addf %v, %w : f32
      memref.store %e, %tmp[%j] : memref<?xf32>
    }
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %tmp[%k] : memref<?xf32>
      memref.store %v, %o[%k] : memref<?xf32, strided<[1], offset: ?>>
    }
  } {opal.rows}
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// Without the row loop's attribute (not a loop of opal-fuse-rows), nothing
// changes.
// CHECK-LABEL: func.func @not_rows
// CHECK: %[[TMP:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[TMP]]
func.func @not_rows(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %row = memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %row[%j] : memref<?xf32, strided<[1], offset: ?>>
      memref.store %v, %tmp[%j] : memref<?xf32>
    }
    %o = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %tmp[%k] : memref<?xf32>
      memref.store %v, %o[%k] : memref<?xf32, strided<[1], offset: ?>>
    }
  }
  memref.dealloc %tmp : memref<?xf32>
  return
}
