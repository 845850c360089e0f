// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-fuse-rows))" | FileCheck %s
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-fuse-rows{shrink-temporaries=false}))" | FileCheck %s --check-prefix=WHOLE
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-fuse-rows{any-row-dims=false}))" | FileCheck %s --check-prefix=LEADING
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-fuse-rows{merge-dense-loops=false}))" | FileCheck %s --check-prefix=LOOPS

// softmax over the last dim after bufferization: the six ops run row by
// row in one loop; the exp temporary shrinks to one row, the row maximum
// and sum to a scalar buffer, both allocated before the loop.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>)
// CHECK: %[[ROWVAL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK: %[[ROW:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[ROWS]]
// CHECK:   linalg.generic {{.*}}iterator_types = []{{.*}} outs(%[[ROWVAL]] : memref<f32>)
// CHECK:   %[[XROW:.*]] = memref.subview %[[X]][%[[I]], 0] [1, %{{.*}}] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[XROW]] {{.*}} outs(%[[ROWVAL]] : memref<f32>)
// CHECK:     arith.maximumf
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%{{.*}}, %[[ROWVAL]] : {{.*}}) outs(%[[ROW]] : memref<?xf32>)
// CHECK:     math.exp
// CHECK:   linalg.generic {{.*}}iterator_types = []{{.*}} outs(%[[ROWVAL]] : memref<f32>)
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[ROW]] : memref<?xf32>) outs(%[[ROWVAL]] : memref<f32>)
// CHECK:   %[[YROW:.*]] = memref.subview %[[Y]][%[[I]], 0]
// CHECK:   linalg.generic {{.*}} ins(%[[ROW]], %[[ROWVAL]] : memref<?xf32>, memref<f32>) outs(%[[YROW]] : {{.*}})
// CHECK:     arith.divf
// CHECK: } {opal.parallel, opal.rows}
// CHECK: memref.dealloc %[[ROWVAL]] : memref<f32>
// CHECK: memref.dealloc %[[ROW]] : memref<?xf32>

// Without shrinking (the GPU's way: a block per row), the temporaries keep
// their size and each row takes its own slice of them.
// WHOLE-LABEL: func.func @softmax
// WHOLE: %[[MAX:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// WHOLE: %[[E:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// WHOLE: scf.for %[[I:.*]] =
// WHOLE:   memref.subview %[[MAX]][%[[I]]] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
// WHOLE:   memref.subview %[[E]][%[[I]], 0]
// WHOLE: } {opal.parallel, opal.rows}
// WHOLE: memref.dealloc %[[MAX]] : memref<?xf32>
// WHOLE: memref.dealloc %[[E]] : memref<?x?xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
  %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<?xf32>)
  linalg.reduce ins(%arg0 : memref<?x?xf32>) outs(%alloc : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  %dim_1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %alloc_2 = memref.alloc(%dim, %dim_1) {alignment = 64 : i64} : memref<?x?xf32>
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc : memref<?x?xf32>, memref<?xf32>) outs(%alloc_2 : memref<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.subf %in, %in_3 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  linalg.fill ins(%cst : f32) outs(%alloc : memref<?xf32>)
  linalg.reduce ins(%alloc_2 : memref<?x?xf32>) outs(%alloc : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_2, %alloc : memref<?x?xf32>, memref<?xf32>) outs(%arg1 : memref<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.divf %in, %in_3 : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %alloc : memref<?xf32>
  memref.dealloc %alloc_2 : memref<?x?xf32>
  return
}

// -----

// Two leading dims shared by every op: one loop over the 2 x 3 rows, the
// row's indices from its number. The row sums are an argument, so they
// stay whole and are sliced per row.
// CHECK-LABEL: func.func @two_row_dims
// CHECK-NOT: memref.alloc
// CHECK: %[[ROWS:.*]] = arith.muli
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %[[ROWS]]
// CHECK:   %[[J:.*]] = arith.remui %[[N]], %{{.*}} : index
// CHECK:   %[[I:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK:     memref.subview %{{.*}}[%[[I]], %[[J]], 0] [1, 1, 8] [1, 1, 1] : memref<2x3x8xf32> to memref<8xf32, strided<[1], offset: ?>>
// CHECK:     memref.subview %{{.*}}[%[[I]], %[[J]]] [1, 1] [1, 1] : memref<2x3xf32> to memref<f32, strided<[], offset: ?>>
// CHECK:     linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:     linalg.generic {{.*}}iterator_types = ["parallel"]
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @two_row_dims(%x: memref<2x3x8xf32>, %sums: memref<2x3xf32>, %y: memref<2x3x8xf32>) {
  linalg.reduce ins(%x : memref<2x3x8xf32>) outs(%sums : memref<2x3xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sums : memref<2x3x8xf32>, memref<2x3xf32>) outs(%y : memref<2x3x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %s : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Left alone: a reduction over the rows (dim 0 is not parallel; rows of
// dim 1 would be columns, each element a cache line of its own), an
// elementwise-only run (nothing read twice), and a run cut by an op with a
// memory effect between its ops.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: scf.for
// CHECK: linalg.reduce
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: memref.copy
// CHECK: linalg.reduce
// CHECK-NOT: scf.for
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @untouched(%x: memref<4x8xf32>, %cols: memref<8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>, %rows: memref<4xf32>) {
  linalg.reduce ins(%x : memref<4x8xf32>) outs(%cols : memref<8xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : memref<4x8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.absf %in : f32
    linalg.yield %0 : f32
  }
  memref.copy %z, %y : memref<4x8xf32> to memref<4x8xf32>
  linalg.reduce ins(%y : memref<4x8xf32>) outs(%rows : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return
}

// -----

// A temporary that is read after the run keeps its full size.
// CHECK-LABEL: func.func @temporary_used_later
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: scf.for
// CHECK:   memref.subview %[[T]]
// CHECK: memref.copy %[[T]], %{{.*}}
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @temporary_used_later(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %out: memref<4xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.reduce ins(%x : memref<4x8xf32>) outs(%t : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %t : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  }
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// A view of another buffer (here its transpose) could tie one op's row to
// other rows of the other's: not fused.
// CHECK-LABEL: func.func @view_operand
// CHECK-NOT: scf.for
// CHECK: linalg.reduce
// CHECK: linalg.generic
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row3 = affine_map<(d0, d1) -> (d0)>
func.func @view_operand(%x: memref<4x4xf32>, %m: memref<4xf32>, %y: memref<4x4xf32>) {
  linalg.reduce ins(%x : memref<4x4xf32>) outs(%m : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  %t = memref.transpose %y (d0, d1) -> (d1, d0) : memref<4x4xf32> to memref<4x4xf32, strided<[1, 4]>>
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<4x4xf32>, memref<4xf32>) outs(%t : memref<4x4xf32, strided<[1, 4]>>) {
  ^bb0(%in: f32, %mm: f32, %o: f32):
    %0 = arith.subf %in, %mm : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A layer norm's affine tail: the weight and bias no row loop indexes are
// read whole by every row (passed as they are, their maps kept), so the
// tail joins the run and the centered temporary shrinks to one row.
// CHECK-LABEL: func.func @affine_tail
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[W:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?x?xf32>)
// CHECK: scf.for %[[I:.*]] =
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]}
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}} : {{.*}}) outs(%[[ROW:.*]] : memref<?xf32>)
// CHECK:   %[[YROW:.*]] = memref.subview %[[Y]][%[[I]], 0]
// CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%[[ROW]], %[[W]], %[[B]] : memref<?xf32>, memref<?xf32>, memref<?xf32>) outs(%[[YROW]] : {{.*}})
// CHECK: } {opal.parallel, opal.rows}
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @affine_tail(%x: memref<?x?xf32>, %w: memref<?xf32>, %b: memref<?xf32>, %y: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  %sum = memref.alloc(%rows) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %centered = memref.alloc(%rows, %cols) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<?x?xf32>, memref<?xf32>) outs(%centered : memref<?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %w, %b : memref<?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%c: f32, %g: f32, %h: f32, %o: f32):
    %p = arith.mulf %c, %g : f32
    %q = arith.addf %p, %h : f32
    linalg.yield %q : f32
  }
  memref.dealloc %sum : memref<?xf32>
  memref.dealloc %centered : memref<?x?xf32>
  return
}

// -----

// A gather along dim 1 with its index's check (opal-derive-data-checks:
// row by row, then over the rows): the check and the gather read each row
// of the index once. The gather's body reads its row's index (linalg.index
// 0, now the loop's row) and its source from outside the op, which no op of
// the run writes.
// CHECK-LABEL: func.func @gather_checked
// CHECK-SAME: (%[[SRC:.*]]: memref<?x?xf32>, %[[IDX:.*]]: memref<?x?xi64>, %[[OUT:.*]]: memref<?x?xf32>, %[[FOUND:.*]]: memref<i64>)
// CHECK: %[[FLAGS:.*]] = memref.alloc
// CHECK: scf.for %[[I:.*]] =
// CHECK:   %[[FLAG:.*]] = memref.subview %[[FLAGS]][%[[I]]]
// CHECK:   linalg.generic {{.*}}iterator_types = []} ins(%{{.*}} : i64) outs(%[[FLAG]]
// CHECK:   %[[ROW:.*]] = memref.subview %[[IDX]][%[[I]], 0]
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[ROW]] {{.*}} outs(%{{.*}} : memref<i64, strided<[], offset: ?>>)
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]}
// CHECK-NOT: linalg.index 0
// CHECK:     memref.load %[[SRC]][%[[I]], %{{.*}}]
// CHECK: } {opal.parallel, opal.rows}
// CHECK: linalg.generic {{.*}}ins(%[[FLAGS]] : memref<?xi64>) outs(%[[FOUND]] : memref<i64>)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> ()>
func.func @gather_checked(%src: memref<?x?xf32>, %idx: memref<?x?xi64>, %out: memref<?x?xf32>, %found: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %f0 = arith.constant 0.0 : f32
  %rows = memref.dim %idx, %c0 : memref<?x?xi64>
  %n = memref.dim %src, %c1 : memref<?x?xf32>
  %n64 = arith.index_cast %n : index to i64
  %flags = memref.alloc(%rows) {alignment = 64 : i64} : memref<?xi64>
  linalg.fill ins(%zero : i64) outs(%flags : memref<?xi64>)
  linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%idx : memref<?x?xi64>) outs(%flags : memref<?xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %low = arith.cmpi slt, %in, %zero : i64
    %high = arith.cmpi sge, %in, %n64 : i64
    %bad = arith.ori %low, %high : i1
    %flag = arith.extui %bad : i1 to i64
    %r = arith.ori %acc, %flag : i64
    linalg.yield %r : i64
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%idx : memref<?x?xi64>) outs(%out : memref<?x?xf32>) {
  ^bb0(%in: i64, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %in : i64 to index
    %ok = arith.cmpi ult, %j, %n : index
    %v = scf.if %ok -> (f32) {
      %l = memref.load %src[%i, %j] : memref<?x?xf32>
      scf.yield %l : f32
    } else {
      scf.yield %f0 : f32
    }
    linalg.yield %v : f32
  }
  linalg.fill ins(%zero : i64) outs(%found : memref<i64>)
  linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction"]} ins(%flags : memref<?xi64>) outs(%found : memref<i64>) {
  ^bb0(%in: i64, %acc: i64):
    %r = arith.ori %acc, %in : i64
    linalg.yield %r : i64
  }
  memref.dealloc %flags : memref<?xi64>
  return
}

// -----

// A body that reads, from outside its op, a buffer the run writes (here
// the row maxima, read at another row): rows cannot run one at a time.
// CHECK-LABEL: func.func @reads_what_the_run_writes
// CHECK-NOT: scf.for
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @reads_what_the_run_writes(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %low = arith.constant 0xFF800000 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %max = memref.alloc(%rows) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%low : f32) outs(%max : memref<?xf32>)
  linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%max : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %last = arith.subi %rows, %c1 : index
    %other = arith.subi %last, %i : index
    %m = memref.load %max[%other] : memref<?xf32>
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  }
  memref.dealloc %max : memref<?xf32>
  return
}

// -----

// softmax with the row sum in a buffer of its own (as bufferization leaves
// it in the JIT): in the row's body, exp(x - max) merges into its sum, one
// loop that stores each element and adds it up; the sum's fill stays
// before it. The division then reads the stored row.
// CHECK-LABEL: func.func @exp_into_sum
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>)
// CHECK: %[[MAX:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK: %[[ROW:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[SUM:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK: scf.for
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : {{.*}}) outs(%[[MAX]] : memref<f32>)
// CHECK:   linalg.generic {{.*}}iterator_types = []{{.*}} outs(%[[SUM]] : memref<f32>)
// CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[ELEMENT:.*]], #{{.*}}], iterator_types = ["reduction"]} ins(%{{.*}}, %[[MAX]] : {{.*}}) outs(%[[ROW]], %[[SUM]] : memref<?xf32>, memref<f32>)
// CHECK:   ^bb0(%[[IN:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK:     %[[D:.*]] = arith.subf %[[IN]], %[[M]] : f32
// CHECK:     %[[E:.*]] = math.exp %[[D]] : f32
// CHECK:     %[[S:.*]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK:     linalg.yield %[[E]], %[[S]] : f32, f32
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[ROW]], %[[SUM]] : {{.*}})
// CHECK:     arith.divf
// CHECK: } {opal.parallel, opal.rows}
// For the GPU (merge-into-reductions=false), the ops stay as they are.
// WHOLE-LABEL: func.func @exp_into_sum
// WHOLE: linalg.generic {{.*}}iterator_types = ["parallel"]
// WHOLE:   math.exp
// WHOLE: linalg.generic {{.*}}iterator_types = []
// WHOLE: linalg.generic {{.*}}iterator_types = ["reduction"]
// WHOLE:   arith.addf
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @exp_into_sum(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
  %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<?xf32>)
  linalg.reduce ins(%arg0 : memref<?x?xf32>) outs(%alloc : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  %dim_1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %alloc_2 = memref.alloc(%dim, %dim_1) {alignment = 64 : i64} : memref<?x?xf32>
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc : memref<?x?xf32>, memref<?xf32>) outs(%alloc_2 : memref<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.subf %in, %in_3 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  %alloc_s = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_s : memref<?xf32>)
  linalg.reduce ins(%alloc_2 : memref<?x?xf32>) outs(%alloc_s : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_2, %alloc_s : memref<?x?xf32>, memref<?xf32>) outs(%arg1 : memref<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.divf %in, %in_3 : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %alloc : memref<?xf32>
  memref.dealloc %alloc_2 : memref<?x?xf32>
  memref.dealloc %alloc_s : memref<?xf32>
  return
}

// -----

// log_softmax's exp is read only by its sum: merged, the element is no
// longer stored (its row temporary goes), and x - max merges in too.
// CHECK-LABEL: func.func @exp_only_summed
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>)
// CHECK: scf.for
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : {{.*}}) outs(%[[MAX:.*]] : memref<f32>)
// CHECK:   linalg.generic {{.*}}iterator_types = []{{.*}} outs(%[[SUM:.*]] : memref<f32>)
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}}, %[[MAX]] : {{.*}}) outs(%[[SHIFTED:.*]], %[[SUM]] : memref<?xf32>, memref<f32>)
// CHECK:     arith.subf
// CHECK:     math.exp
// CHECK:     arith.addf
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[SHIFTED]], %[[SUM]] : {{.*}})
// CHECK:     math.log
// CHECK: } {opal.parallel, opal.rows}
// CHECK-NOT: linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @exp_only_summed(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
  %dim_1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<?xf32>)
  linalg.reduce ins(%arg0 : memref<?x?xf32>) outs(%alloc : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  %shifted = memref.alloc(%dim, %dim_1) {alignment = 64 : i64} : memref<?x?xf32>
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc : memref<?x?xf32>, memref<?xf32>) outs(%shifted : memref<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.subf %in, %in_3 : f32
    linalg.yield %0 : f32
  }
  %e = memref.alloc(%dim, %dim_1) {alignment = 64 : i64} : memref<?x?xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%shifted : memref<?x?xf32>) outs(%e : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  %alloc_s = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_s : memref<?xf32>)
  linalg.reduce ins(%e : memref<?x?xf32>) outs(%alloc_s : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%shifted, %alloc_s : memref<?x?xf32>, memref<?xf32>) outs(%arg1 : memref<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = math.log %in_3 : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %alloc : memref<?xf32>
  memref.dealloc %shifted : memref<?x?xf32>
  memref.dealloc %e : memref<?x?xf32>
  memref.dealloc %alloc_s : memref<?xf32>
  return
}

// -----

// group_norm's statistics: the rows are a reshape of an input no op
// writes ([N, C, HW] as [N, groups, C / groups x HW]), read row by row; the
// normalized rows go to an allocation read after the run (by the affine
// part in the input's layout), which keeps its size.
// CHECK-LABEL: func.func @reshaped_input
// CHECK-SAME: (%[[X:.*]]: memref<2x8x16xf32>, %[[Y:.*]]: memref<2x8x16xf32>)
// CHECK: %[[G:.*]] = memref.expand_shape %[[X]]
// CHECK: %[[R:.*]] = memref.collapse_shape %[[G]]
// CHECK: %[[N:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x32xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK:   memref.subview %[[R]]
// CHECK:   memref.subview %[[R]]
// CHECK:   memref.subview %[[N]]
// CHECK: } {opal.parallel, opal.rows}
// CHECK: memref.expand_shape %[[N]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reshaped_input(%x: memref<2x8x16xf32>, %y: memref<2x8x16xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %g = memref.expand_shape %x [[0], [1, 2], [3]] output_shape [2, 4, 2, 16] : memref<2x8x16xf32> into memref<2x4x2x16xf32>
  %rows = memref.collapse_shape %g [[0], [1], [2, 3]] : memref<2x4x2x16xf32> into memref<2x4x32xf32>
  %sum = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
  linalg.fill ins(%cst : f32) outs(%sum : memref<2x4xf32>)
  linalg.reduce ins(%rows : memref<2x4x32xf32>) outs(%sum : memref<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %n = memref.alloc() {alignment = 64 : i64} : memref<2x4x32xf32>
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%rows, %sum : memref<2x4x32xf32>, memref<2x4xf32>) outs(%n : memref<2x4x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %s : f32
    linalg.yield %0 : f32
  }
  %back = memref.expand_shape %n [[0], [1], [2, 3]] output_shape [2, 4, 2, 16] : memref<2x4x32xf32> into memref<2x4x2x16xf32>
  %flat = memref.collapse_shape %back [[0], [1, 2], [3]] : memref<2x4x2x16xf32> into memref<2x8x16xf32>
  memref.copy %flat, %y : memref<2x8x16xf32> to memref<2x8x16xf32>
  memref.dealloc %sum : memref<2x4xf32>
  memref.dealloc %n : memref<2x4x32xf32>
  return
}

// -----

// The same reshape of an argument that something writes (here the copy
// into it) is not an input: nothing fuses.
// CHECK-LABEL: func.func @reshaped_written
// CHECK-NOT: scf.for
// CHECK: linalg.reduce
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reshaped_written(%x: memref<2x8x16xf32>, %y: memref<2x4x32xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %g = memref.expand_shape %x [[0], [1, 2], [3]] output_shape [2, 4, 2, 16] : memref<2x8x16xf32> into memref<2x4x2x16xf32>
  %rows = memref.collapse_shape %g [[0], [1], [2, 3]] : memref<2x4x2x16xf32> into memref<2x4x32xf32>
  %sum = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
  linalg.fill ins(%cst : f32) outs(%sum : memref<2x4xf32>)
  linalg.reduce ins(%rows : memref<2x4x32xf32>) outs(%sum : memref<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%rows, %sum : memref<2x4x32xf32>, memref<2x4xf32>) outs(%y : memref<2x4x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %s : f32
    linalg.yield %0 : f32
  }
  memref.copy %y, %rows : memref<2x4x32xf32> to memref<2x4x32xf32>
  memref.dealloc %sum : memref<2x4xf32>
  return
}

// -----

// A copy over a unit dim its input does not read, then summed (an
// adaptive pool's mean): merged into the sum, the copy still stores its
// element, whose map alone indexes the unit loop.
// CHECK-LABEL: func.func @unit_dim_into_sum
// CHECK: scf.for
// CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : {{.*}}) outs(%{{.*}}, %{{.*}} : memref<1x?xf32>, memref<f32>)
// CHECK: } {opal.parallel, opal.rows}
#in = affine_map<(d0, d1, d2) -> (d0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0) -> (d0)>
func.func @unit_dim_into_sum(%x: memref<?x?xf32>, %y: memref<?xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  %wide = memref.alloc(%rows, %cols) {alignment = 64 : i64} : memref<?x1x?xf32>
  linalg.generic {indexing_maps = [#in, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%wide : memref<?x1x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %sum = memref.alloc(%rows) {alignment = 64 : i64} : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%sum : memref<?xf32>)
  linalg.reduce ins(%wide : memref<?x1x?xf32>) outs(%sum : memref<?xf32>) dimensions = [1, 2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#one, #one], iterator_types = ["parallel"]} ins(%sum : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %wide : memref<?x1x?xf32>
  memref.dealloc %sum : memref<?xf32>
  return
}

// -----

// Batch norm's statistics: the rows are the channels, loop 1 of the ops
// on the input but loop 0 of the fill of the [C] sums (matched through the
// sums both write); each row is a strided [N, HxW] slice of the input, the
// weight is read at the row's channel, the sums shrink to a scalar.
// CHECK-LABEL: func.func @channel_rows
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?xf32>, %[[W:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?x?x?xf32>)
// CHECK: %[[SUM:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[CHANNELS:.*]] = memref.dim %[[X]], %c1
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[CHANNELS]]
// CHECK:   linalg.generic {{.*}}iterator_types = []{{.*}} outs(%[[SUM]] : memref<f32>)
// CHECK:   %[[XROW:.*]] = memref.subview %[[X]][0, %[[C]], 0] [%{{.*}}, 1, %{{.*}}] [1, 1, 1] : memref<?x?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[XROW]] {{.*}} outs(%[[SUM]] : memref<f32>)
// CHECK:   %[[WROW:.*]] = memref.subview %[[W]][%[[C]]] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
// CHECK:   %[[YROW:.*]] = memref.subview %[[Y]][0, %[[C]], 0]
// CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[SUM]], %[[WROW]] : {{.*}}) outs(%[[YROW]] : {{.*}})
// CHECK: } {opal.parallel, opal.rows}
// CHECK: memref.dealloc %[[SUM]] : memref<f32>
// Rows of leading dims only (the GPU's way), the channels are none.
// LEADING-LABEL: func.func @channel_rows
// LEADING-NOT: scf.for
// LEADING: return
#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d1)>
func.func @channel_rows(%x: memref<?x?x?xf32>, %w: memref<?xf32>, %y: memref<?x?x?xf32>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %dim = memref.dim %x, %c1 : memref<?x?x?xf32>
  %sum = memref.alloc(%dim) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%sum : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [0, 2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#x, #c, #c, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum, %w : memref<?x?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %scale: f32, %out: f32):
    %0 = arith.subf %in, %s : f32
    %1 = arith.mulf %0, %scale : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %sum : memref<?xf32>
  return
}

// -----

// group_norm's rows are (sample, group); its weight, [groups, C / groups]
// here, is indexed by the group only: each row reads the weight's row of
// its group. The output is an argument seen in the grouped shape
// (opal-reshape-outputs-in-place), which nothing else uses.
// CHECK-LABEL: func.func @group_rows
// CHECK-SAME: (%[[X:.*]]: memref<2x3x8xf32>, %[[W:.*]]: memref<3x8xf32>, %[[OUT:.*]]: memref<48xf32>)
// CHECK: %[[Y:.*]] = memref.cast
// CHECK: scf.for %[[N:.*]] =
// CHECK:   %[[J:.*]] = arith.remui %[[N]], %{{.*}} : index
// CHECK:   %[[I:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK:   memref.subview %[[W]][%[[J]], 0] [1, 8] [1, 1] : memref<3x8xf32> to memref<8xf32, strided<[1], offset: ?>>
// CHECK:   memref.subview %[[Y]][%[[I]], %[[J]], 0] [1, 1, 8] [1, 1, 1] : memref<2x3x8xf32> to memref<8xf32, strided<[1], offset: ?>>
// CHECK: } {opal.parallel, opal.rows}
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#group = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @group_rows(%x: memref<2x3x8xf32>, %w: memref<3x8xf32>, %out: memref<48xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %view = memref.reinterpret_cast %out to offset: [0], sizes: [2, 3, 8], strides: [24, 8, 1] : memref<48xf32> to memref<2x3x8xf32, strided<[24, 8, 1]>>
  %y = memref.cast %view : memref<2x3x8xf32, strided<[24, 8, 1]>> to memref<2x3x8xf32>
  %sum = memref.alloc() : memref<2x3xf32>
  linalg.fill ins(%cst : f32) outs(%sum : memref<2x3xf32>)
  linalg.reduce ins(%x : memref<2x3x8xf32>) outs(%sum : memref<2x3xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#id3, #rows2, #group, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum, %w : memref<2x3x8xf32>, memref<2x3xf32>, memref<3x8xf32>) outs(%y : memref<2x3x8xf32>) {
  ^bb0(%in: f32, %s: f32, %scale: f32, %o: f32):
    %0 = arith.subf %in, %s : f32
    %1 = arith.mulf %0, %scale : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %sum : memref<2x3xf32>
  return
}

// -----

// A channel of [N, C, H, W] is [N, H, W] with H and W dense together: the
// row's ops run them as one loop of HxW (a collapse of the slice, cast to
// its unit inner stride), N stays apart (its stride is C x H x W).
// CHECK-LABEL: func.func @channel_rows_dense
// CHECK: scf.for %[[C:.*]] =
// CHECK:   %[[XROW:.*]] = memref.subview %{{.*}}[0, %[[C]], 0, 0] {{.*}} : memref<?x?x?x?xf32> to memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
// CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[XROW]] {{\[}}[0], [1, 2]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>> into memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:   %[[DENSE:.*]] = memref.cast %[[FLAT]] : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[DENSE]] : {{.*}})
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]}
// CHECK: } {opal.parallel, opal.rows}
// Without merge-dense-loops (CUDA's way), the row keeps its three loops.
// LOOPS-LABEL: func.func @channel_rows_dense
// LOOPS-NOT: memref.collapse_shape
// LOOPS: iterator_types = ["reduction", "reduction", "reduction"]
// LOOPS: } {opal.parallel, opal.rows}
#x4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c4 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @channel_rows_dense(%x: memref<?x?x?x?xf32>, %y: memref<?x?x?x?xf32>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %dim = memref.dim %x, %c1 : memref<?x?x?x?xf32>
  %sum = memref.alloc(%dim) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%sum : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?x?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [0, 2, 3]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.generic {indexing_maps = [#x4, #c4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %sum : memref<?x?x?x?xf32>, memref<?xf32>) outs(%y : memref<?x?x?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %s : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %sum : memref<?xf32>
  return
}

// -----

// Rows are tried as subsets of the coordinates the ops share, the largest
// first: here the first coordinate disagrees (the [1, C] buffer's unit dim
// against the input's N), so the rows are the channels alone, not nothing.
// CHECK-LABEL: func.func @subset_of_rows
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<?x?x?xf32>
// CHECK: %[[ONE:.*]] = memref.alloc() : memref<1xf32>
// CHECK: %[[C:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C]]
// CHECK:   outs(%[[ONE]] : memref<1xf32>)
// CHECK:   memref.subview %[[X]][0, %[[I]], 0]
// CHECK: } {opal.parallel, opal.rows}
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#nc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @subset_of_rows(%x: memref<?x?x?xf32>, %t: memref<?x?xf32>, %y: memref<?x?x?xf32>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %dim = memref.dim %x, %c1 : memref<?x?x?xf32>
  %s = memref.alloc(%dim) : memref<1x?xf32>
  linalg.fill ins(%cst : f32) outs(%s : memref<1x?xf32>)
  linalg.generic {indexing_maps = [#x3, #nc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<?x?x?xf32>) outs(%t : memref<?x?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#x3, #nc, #x3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %t : memref<?x?x?xf32>, memref<?x?xf32>) outs(%y : memref<?x?x?xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %0 = arith.subf %in, %sum : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %s : memref<1x?xf32>
  return
}
