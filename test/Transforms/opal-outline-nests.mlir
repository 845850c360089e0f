// RUN: opal-opt %s --split-input-file --opal-outline-nests | FileCheck %s
// RUN: opal-opt %s --split-input-file --opal-parallelize --opal-outline-nests | FileCheck %s --check-prefix=FORK

// Two layers that compute the same nests on their own buffers: each nest
// moves into a function of the whole buffers it uses (the constant and the
// view it reads are cloned into it), and the second layer's equal nests
// call the first layer's functions: one copy of each is left.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @layers(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<4x8xf32>, %[[Y:[a-z0-9]+]]: memref<32xf32>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: call @layers_part(%[[X]], %[[A]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK: call @layers_part_0(%[[A]]) : (memref<4x8xf32>) -> ()
// CHECK: %[[B:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: call @layers_part(%[[A]], %[[B]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK: call @layers_part_0(%[[B]]) : (memref<4x8xf32>) -> ()
// CHECK-NOT: linalg
// CHECK: memref.copy
// CHECK: return
// CHECK: func.func private @layers_part(%[[IN:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4x8xf32>)
// CHECK-SAME: attributes {opal.parallel_part}
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[IN]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[HALF]]
// CHECK: return
// CHECK: func.func private @layers_part_0(%[[BUF:.*]]: memref<4x8xf32>)
// CHECK: %[[ROWS:.*]] = memref.collapse_shape %[[BUF]]
// CHECK: scf.for
// CHECK: memref.load %[[ROWS]]
// CHECK-NOT: func.func private
func.func @layers(%x: memref<4x8xf32>, %y: memref<32xf32>) {
  %half = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  }
  %ra = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %ra[%i] : memref<32xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %ra[%i] : memref<32xf32>
  }
  %b = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  }
  %rb = memref.collapse_shape %b [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %rb[%i] : memref<32xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %rb[%i] : memref<32xf32>
  }
  memref.copy %rb, %y : memref<32xf32> to memref<32xf32>
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<4x8xf32>
  return
}

// -----

// A nest that runs once goes back inline: the kernel is as before.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @once(
// CHECK: linalg.generic
// CHECK-NOT: call
// CHECK: return
// CHECK-NOT: func.func private
func.func @once(%x: memref<8xf32>, %y: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.negf %in : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Nests that differ (a constant, a buffer's shape) are not merged, and
// each, called once, goes back inline; a nest that would take a buffer that
// is not a whole one (an scf.if's result: it could be a view of another
// argument) stays in place.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @different(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<8xf32>, %[[Y:[a-z0-9]+]]: memref<8xf32>, %[[Z:[a-z0-9]+]]: memref<4xf32>, %[[W:[a-z0-9]+]]: memref<4xf32>
// CHECK: call @different_part(%[[X]], %[[Y]])
// CHECK: arith.constant 2.000000e+00
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[Y]]
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[W]]
// CHECK: call @different_part(%[[X]], %[[Y]])
// CHECK: %[[PICKED:.*]] = scf.if
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[PICKED]]
// CHECK: return
// CHECK: func.func private @different_part(
// CHECK-NOT: func.func private
func.func @different(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<4xf32>, %w: memref<4xf32>, %p: i1) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %one : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %two : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : memref<4xf32>) outs(%w : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %one : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %one : f32
    linalg.yield %m : f32
  }
  %picked = scf.if %p -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    scf.yield %y : memref<8xf32>
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%picked : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %one : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// After opal-parallelize, two equal nests are two equal parts, each run
// by a choice between a parallel region and one thread: the parts merge,
// then the choices (which now call the same part) move into one function
// the kernel calls twice, so one parallel region is left to compile.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @twice(
// FORK-LABEL: func.func @twice(
// FORK-SAME: %[[X:[a-z0-9]+]]: memref<?xf32>, %[[Y:[a-z0-9]+]]: memref<?xf32>, %[[Z:[a-z0-9]+]]: memref<?xf32>)
// FORK: %[[N:.*]] = call @opal_parallel_begin
// FORK: %[[MULTI:.*]] = arith.cmpi sgt, %[[N]]
// FORK: call @[[FORKS:twice_part_[0-9]+]](%[[N]], %[[X]], %[[Y]], %{{.*}}, %[[MULTI]])
// FORK: %[[N2:.*]] = call @opal_parallel_begin
// FORK: %[[MULTI2:.*]] = arith.cmpi sgt, %[[N2]]
// FORK: call @[[FORKS]](%[[N2]], %[[Y]], %[[Z]], %{{.*}}, %[[MULTI2]])
// FORK-NOT: omp.parallel
// FORK: return
// FORK: func.func private @[[PART:twice_part_[0-9]+]](%{{.*}}: index, %{{.*}}: index,
// FORK: linalg.generic
// FORK: func.func private @[[FORKS]](
// FORK: omp.parallel
// FORK: func.call @[[PART]](
// FORK: call @opal_parallel_end
// FORK: } else {
// FORK: call @opal_parallel_end
// FORK: func.call @[[PART]](
// FORK-NOT: omp.parallel
func.func @twice(%x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.negf %in : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : memref<?xf32>) outs(%z : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.negf %in : f32
    linalg.yield %m : f32
  }
  return
}
