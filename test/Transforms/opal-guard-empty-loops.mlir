// RUN: opal-opt %s --pass-pipeline='builtin.module(func.func(opal-guard-empty-loops))' | FileCheck %s

// A reduction over dynamic dims runs only when none of its loops is empty:
// a tensor of shape (2^62, 0) no longer steps through 2^62 empty rows.
// CHECK-LABEL: func.func @sum_all
// CHECK: %[[D0:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK: %[[D1:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[NZ0:.*]] = arith.cmpi ne, %[[D0]], %[[ZERO]] : index
// CHECK: %[[NZ1:.*]] = arith.cmpi ne, %[[D1]], %[[ZERO]] : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[NZ0]], %[[NZ1]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK-NEXT: linalg.reduce
// CHECK: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @sum_all(%x: memref<?x?xf32>, %out: memref<f32>) {
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%out : memref<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// Only the dynamic sizes are tested.
// CHECK-LABEL: func.func @rows
// CHECK: %[[D:.*]] = memref.dim %arg0, %{{.*}} : memref<4x?xf32>
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[D]], %{{.*}} : index
// CHECK-NOT: arith.andi
// CHECK: scf.if %[[NZ]] {
// CHECK-NEXT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: memref<4x?xf32>, %out: memref<4x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x?xf32>) outs(%out : memref<4x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// Static loops and ops on tensors are left alone.
// CHECK-LABEL: func.func @static
// CHECK-NOT: scf.if
// CHECK: linalg.fill
// CHECK-NOT: scf.if
// CHECK: linalg.fill
func.func @static(%out: memref<4x8xf32>, %t: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4x8xf32>)
  %r = linalg.fill ins(%zero : f32) outs(%t : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
