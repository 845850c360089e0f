// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-collapse-elementwise))" | FileCheck %s

// An optimizer's update of a [F, C, 3, 3] weight: every operand dense and
// read at the loops' own point, so the four loops merge into one of every
// element (an innermost loop of 3 no more).
// CHECK-LABEL: func.func @update
// CHECK: %[[P:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : memref<?x?x3x3xf32> into memref<?xf32>
// CHECK: %[[G:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2, 3]] : memref<?x?x3x3xf32> into memref<?xf32>
// CHECK: %[[O:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1, 2, 3]] : memref<?x?x3x3xf32> into memref<?xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[P]], %[[G]] : memref<?xf32>, memref<?xf32>) outs(%[[O]] : memref<?xf32>)
// CHECK: arith.mulf
// CHECK: arith.subf
func.func @update(%p: memref<?x?x3x3xf32>, %g: memref<?x?x3x3xf32>, %o: memref<?x?x3x3xf32>) {
  %lr = arith.constant 0.01 : f32
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                   affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                   affine_map<(a, b, c, d) -> (a, b, c, d)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %g : memref<?x?x3x3xf32>, memref<?x?x3x3xf32>) outs(%o : memref<?x?x3x3xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.mulf %y, %lr : f32
    %t = arith.subf %x, %s : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A per-channel operand of an [N, C, H, W] op keeps the channel its own
// loop: N, C and H x W.
// CHECK-LABEL: func.func @per_channel
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : memref<?x?x?x?xf32> into memref<?x?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
func.func @per_channel(%x: memref<?x?x?x?xf32>, %b: memref<?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                   affine_map<(a, b, c, d) -> (b)>,
                                   affine_map<(a, b, c, d) -> (a, b, c, d)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : memref<?x?x?x?xf32>, memref<?xf32>) outs(%o : memref<?x?x?x?xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left as they are: a view (its rows not dense), a transpose (no two
// loops read in the same order by both), a broadcast of a dim of size 1
// (a constant in a map), a reduction, a body that reads its position.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: memref.collapse_shape
func.func @stays(%v: memref<?x?xf32, strided<[?, 1], offset: ?>>, %x: memref<?x?xf32>,
                 %y: memref<?x?xf32>, %one: memref<?x1xf32>, %r: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<?x?xf32, strided<[?, 1], offset: ?>>) outs(%x : memref<?x?xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (b, a)>, affine_map<(a, b) -> (a, b)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, 0)>, affine_map<(a, b) -> (a, b)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%one : memref<?x1xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%r : memref<?xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.addf %a, %out : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  }
  return
}
