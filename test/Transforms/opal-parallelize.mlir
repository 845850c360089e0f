// RUN: opal-opt %s --split-input-file --opal-parallelize | FileCheck %s

// An elementwise op splits along its first parallel loop (d0): the op moves
// into @add_part(begin, end, operands...), which runs it on rows
// [begin, end) of every operand indexed by d0 (the transposed input along
// its dim 1). The kernel asks the runtime for threads (the work is the
// product of the loop sizes); one thread runs the whole range, more run in
// an omp.parallel region, where thread t of a team of n (asked of the
// runtime: opal_parallel_thread, opal_parallel_team) runs the t-th of n
// contiguous parts (no loop over parts: a team smaller than asked for
// makes fewer, larger parts). The threads go back after the region, or,
// on one thread, before the call (for nests inside it).
// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x?xf32>, %[[Y:[a-z0-9]+]]: memref<?x?xf32>, %[[Z:[a-z0-9]+]]: memref<?x?xf32>)
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[COLS:.*]] = memref.dim %[[X]], %c1
// CHECK: %[[W:.*]] = arith.muli %{{.*}}, %[[COLS]] : index
// CHECK: %[[WORK:.*]] = arith.index_cast %[[W]] : index to i64
// CHECK: %[[N:.*]] = call @opal_parallel_begin(%[[WORK]]) : (i64) -> i64
// CHECK: %[[MULTI:.*]] = arith.cmpi sgt, %[[N]], %c1_i64
// CHECK: scf.if %[[MULTI]] {
// CHECK:   %[[N32:.*]] = arith.trunci %[[N]] : i64 to i32
// CHECK:   omp.parallel num_threads(%[[N32]] : i32) {
// CHECK-NOT: omp.wsloop
// CHECK:     %[[T64:.*]] = func.call @opal_parallel_thread() : () -> i64
// CHECK:     %[[T:.*]] = arith.index_cast %[[T64]] : i64 to index
// CHECK:     %[[TEAM64:.*]] = func.call @opal_parallel_team() : () -> i64
// CHECK:     %[[TEAM:.*]] = arith.index_cast %[[TEAM64]] : i64 to index
// CHECK:     %[[CHUNK:.*]] = arith.ceildivsi %[[ROWS]], %[[TEAM]] : index
// CHECK:     %[[START:.*]] = arith.muli %[[T]], %[[CHUNK]] : index
// CHECK:     %[[BEGIN:.*]] = arith.minsi %[[START]], %[[ROWS]] : index
// CHECK:     %[[STOP:.*]] = arith.addi %[[BEGIN]], %[[CHUNK]] : index
// CHECK:     %[[END:.*]] = arith.minsi %[[STOP]], %[[ROWS]] : index
// CHECK:     func.call @add_part(%[[BEGIN]], %[[END]], %[[X]], %[[Y]], %[[Z]])
// CHECK-NEXT: omp.terminator
// CHECK:   }
// CHECK-NEXT: func.call @opal_parallel_end(%[[WORK]], %[[N]]) : (i64, i64) -> ()
// CHECK: } else {
// CHECK-NEXT: func.call @opal_parallel_end(%[[WORK]], %[[N]]) : (i64, i64) -> ()
// CHECK:   func.call @add_part(%{{.*}}, %[[ROWS]], %[[X]], %[[Y]], %[[Z]])
// CHECK: }
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK: func.func private @add_part(%[[B:.*]]: index, %[[E:.*]]: index, %[[PX:.*]]: memref<?x?xf32>, %[[PY:.*]]: memref<?x?xf32>, %[[PZ:.*]]: memref<?x?xf32>) attributes {opal.parallel_part}
// CHECK: %[[SX:.*]] = memref.subview %[[PX]][%[[B]], 0] [%{{.*}}, %{{.*}}] [1, 1]
// CHECK: %[[SY:.*]] = memref.subview %[[PY]][0, %[[B]]] [%{{.*}}, %{{.*}}] [1, 1]
// CHECK: %[[SZ:.*]] = memref.subview %[[PZ]][%[[B]], 0]
// CHECK: linalg.generic {{.*}} ins(%[[SX]], %[[SY]] : {{.*}}) outs(%[[SZ]] : {{.*}})
// CHECK: func.func private @opal_parallel_begin(i64) -> i64
// CHECK: func.func private @opal_parallel_end(i64, i64)
// CHECK: func.func private @opal_parallel_thread() -> i64
// CHECK: func.func private @opal_parallel_team() -> i64
// CHECK-NOT: omp_get
func.func @add(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %z: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<?x?xf32>, memref<?x?xf32>) outs(%z : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full reduction splits along its reduction loop: with more than one
// thread, each reduces its part into its own slot of partials that start
// at the combining op's neutral element (-inf for maximumf), and the
// partials are combined into the output in thread order. One thread
// reduces into the output itself.
// CHECK-LABEL: func.func @amax(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?xf32>, %[[Y:[a-z0-9]+]]: memref<f32>)
// CHECK: scf.if
// CHECK:   %[[PARTIALS:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:   %[[NEUTRAL:.*]] = arith.constant 0xFF800000 : f32
// CHECK:   linalg.fill ins(%[[NEUTRAL]] : f32) outs(%[[PARTIALS]] : memref<?xf32>)
// CHECK:   omp.parallel
// CHECK:     %[[SLOT:.*]] = memref.subview %[[PARTIALS]][%{{.*}}] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
// CHECK:     func.call @amax_part(%{{.*}}, %{{.*}}, %[[SLOT]], %[[X]])
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[PARTIALS]] : memref<?xf32>) outs(%[[Y]] : memref<f32>)
// CHECK:     arith.maximumf
// CHECK:   memref.dealloc %[[PARTIALS]]
// CHECK: } else {
// CHECK:   %[[WHOLE:.*]] = memref.cast %[[Y]] : memref<f32> to memref<f32, strided<[], offset: ?>>
// CHECK:   func.call @amax_part(%{{.*}}, %{{.*}}, %[[WHOLE]], %[[X]])
// CHECK: func.func private @amax_part(%[[B:.*]]: index, %[[E:.*]]: index, %[[OUT:.*]]: memref<f32, strided<[], offset: ?>>, %[[PX:.*]]: memref<?xf32>)
// CHECK: %[[SX:.*]] = memref.subview %[[PX]][%[[B]]]
// CHECK: linalg.reduce ins(%[[SX]] : {{.*}}) outs(%[[OUT]] : {{.*}}) dimensions = [0]
func.func @amax(%x: memref<?xf32>, %y: memref<f32>) {
  linalg.reduce ins(%x : memref<?xf32>) outs(%y : memref<f32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  return
}

// -----

// A loop of static size 1 does not split; linalg.index of the loop that
// does counts from the part's start.
// CHECK-LABEL: func.func private @iota_part(
// CHECK-SAME: %[[B:[a-z0-9]+]]: index
// CHECK: memref.subview %{{.*}}[0, %[[B]]] [1, %{{.*}}] [1, 1] : memref<1x?xi64> to memref<1x?xi64, strided<[?, 1], offset: ?>>
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[SHIFTED:.*]] = arith.addi %[[I]], %[[B]] : index
// CHECK: arith.index_cast %[[SHIFTED]] : index to i64
func.func @iota(%z: memref<1x?xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%z : memref<1x?xi64>) {
  ^bb0(%c: i64):
    %i = linalg.index 1 : index
    %v = arith.index_cast %i : index to i64
    linalg.yield %v : i64
  }
  return
}

// -----

// Not split: a reduction whose outputs are not plain combinations (the
// arg max), and a static nest below the grain.
// CHECK-LABEL: func.func @argmax(
// CHECK-NOT: omp.parallel
// CHECK: linalg.generic
// CHECK-LABEL: func.func @small(
// CHECK-NOT: omp.parallel
// CHECK: linalg.generic
// CHECK-NOT: opal_parallel_begin
func.func @argmax(%x: memref<?xf32>, %v: memref<f32>, %i: memref<i64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<?xf32>) outs(%v, %i : memref<f32>, memref<i64>) {
  ^bb0(%a: f32, %b: f32, %c: i64):
    %gt = arith.cmpf ogt, %a, %b : f32
    %m = arith.select %gt, %a, %b : f32
    %j = linalg.index 0 : index
    %j64 = arith.index_cast %j : index to i64
    %n = arith.select %gt, %j64, %c : i64
    linalg.yield %m, %n : f32, i64
  }
  return
}
func.func @small(%x: memref<4x8xf32>, %z: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%a: f32, %c: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A loop marked opal.parallel splits over its iterations; the buffer
// allocated before it and used only inside it becomes each part's own.
// CHECK-LABEL: func.func @rows(
// CHECK-NOT: memref.alloc
// CHECK: call @opal_parallel_begin
// CHECK: func.call @rows_part
// CHECK: func.call @rows_part
// CHECK-NOT: memref.dealloc
// CHECK: return
// The part takes whole buffers only: the sizes (and any view) it uses are
// made again inside it.
// CHECK: func.func private @rows_part(%[[B:[a-z0-9]+]]: index, %[[E:[a-z0-9]+]]: index, %[[X:[a-z0-9]+]]: memref<?x?xf32>, %[[Y:[a-z0-9]+]]: memref<?x?xf32>) attributes {opal.parallel_part}
// CHECK: %[[COLS:.*]] = memref.dim %[[X]], %c1
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[TMP:.*]] = memref.alloc(%[[COLS]]) : memref<?xf32>
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %[[ROWS]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step %c1 {
// CHECK:   memref.copy %{{.*}}, %[[TMP]]
// CHECK:   memref.copy %[[TMP]], %{{.*}}
// CHECK: }
// CHECK-NOT: opal.parallel}
// CHECK: memref.dealloc %[[TMP]]
func.func @rows(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  %tmp = memref.alloc(%cols) : memref<?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %xr = memref.subview %x[%i, 0] [1, %cols] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %yr = memref.subview %y[%i, 0] [1, %cols] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    memref.copy %xr, %tmp : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32>
    memref.copy %tmp, %yr : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  } {opal.parallel}
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// A marked loop inside a marked loop (a pointwise convolution's images,
// each a product whose rows threads share) splits too, inner loop first:
// the outer loop's part calls the inner one's through the runtime, which
// grants it one thread while the outer loop's threads run, and the threads
// the outer loop gives back when it runs on one (a batch of one image).
// A loop forks no more threads than it has iterations.
// CHECK-LABEL: func.func @images(
// CHECK: %[[COUNT:.*]] = arith.ceildivsi
// CHECK: %[[GRANTED:.*]] = call @opal_parallel_begin
// CHECK: %[[COUNT64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[N:.*]] = arith.minsi %[[GRANTED]], %[[COUNT64]] : i64
// CHECK: %[[MULTI:.*]] = arith.cmpi sgt, %[[N]], %c1_i64
// CHECK: scf.if %[[MULTI]] {
// CHECK:   omp.parallel
// CHECK:     func.call @images_part_0(
// CHECK: } else {
// CHECK-NEXT: func.call @opal_parallel_end(%{{.*}}, %[[GRANTED]])
// CHECK:   func.call @images_part_0(
// CHECK: func.func private @images_part_0(
// CHECK: scf.for
// CHECK:   call @opal_parallel_begin
// CHECK:   omp.parallel
// CHECK:     func.call @images_part(
// CHECK: func.func private @images_part(
// CHECK: scf.for
// CHECK-NOT: opal.parallel}
func.func @images(%x: memref<?x?x?xf32>, %y: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %x, %c0 : memref<?x?x?xf32>
  %rows = memref.dim %x, %c1 : memref<?x?x?xf32>
  %cols = memref.dim %x, %c2 : memref<?x?x?xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %r = %c0 to %rows step %c1 {
      %xr = memref.subview %x[%i, %r, 0] [1, 1, %cols] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
      %yr = memref.subview %y[%i, %r, 0] [1, 1, %cols] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
      memref.copy %xr, %yr : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    } {opal.parallel}
  } {opal.parallel}
  return
}

// -----

// A linalg op in a branch of a choice made per call (a convolution's
// path) runs once per call: it splits as at the top of the function; one
// inside a loop does not.
// CHECK-LABEL: func.func @chosen(
// CHECK: scf.if %{{.*}} {
// CHECK:   call @opal_parallel_begin
// CHECK:   omp.parallel
// CHECK:     func.call @chosen_part(
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     linalg.generic
// CHECK-NOT: opal_parallel_begin
// CHECK: return
#chosen = affine_map<(d0, d1) -> (d0, d1)>
func.func @chosen(%c: i1, %x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.if %c {
    linalg.generic {indexing_maps = [#chosen, #chosen], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.negf %in : f32
      linalg.yield %0 : f32
    }
  } else {
    scf.for %i = %c0 to %c4 step %c1 {
      linalg.generic {indexing_maps = [#chosen, #chosen], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %0 = math.absf %in : f32
        linalg.yield %0 : f32
      }
    }
  }
  return
}

// -----

// A loop that says what one iteration does (opal.parallel_work: here 32
// elements, a matrix product's packing of a block of B) has its
// iterations times that for its work, not the elements of the large
// buffer it reads a part of.
// CHECK-LABEL: func.func @packing(
// CHECK-SAME: %[[B:[a-z0-9]+]]: memref<?x?xf32>
// CHECK: %[[COUNT:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[WORK:.*]] = arith.muli %[[COUNT]], %c32 : index
// CHECK: %[[WORK64:.*]] = arith.index_cast %[[WORK]] : index to i64
// CHECK: call @opal_parallel_begin(%[[WORK64]])
func.func @packing(%b: memref<?x?xf32>, %packed: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %k = memref.dim %b, %c0 : memref<?x?xf32>
  %end = arith.minui %k, %c16 : index
  scf.for %kk = %c0 to %end step %c1 {
    %row = memref.subview %b[%kk, 0] [1, 32] [1, 1] : memref<?x?xf32> to memref<32xf32, strided<[1], offset: ?>>
    %to = arith.muli %kk, %c16 : index
    %dest = memref.subview %packed[%to] [32] [1] : memref<512xf32> to memref<32xf32, strided<[1], offset: ?>>
    memref.copy %row, %dest : memref<32xf32, strided<[1], offset: ?>> to memref<32xf32, strided<[1], offset: ?>>
  } {opal.parallel, opal.parallel_work = 32 : i64}
  return
}

// -----

// A copy of a whole buffer (a clone: the result is the input) splits as a
// linalg.copy along its first dim; a small static copy stays one memcpy.
// CHECK-LABEL: func.func @clone(
// CHECK-NOT: memref.copy
// CHECK: call @opal_parallel_begin
// CHECK: omp.parallel
// CHECK: func.call @clone_part(
// CHECK-LABEL: func.func private @clone_part(
// CHECK-SAME: %[[BEGIN:[a-z0-9]+]]: index, %[[END:[a-z0-9]+]]: index, %[[X:[a-z0-9]+]]: memref<?x?xf32>, %[[Z:[a-z0-9]+]]: memref<?x?xf32>)
// CHECK: %[[N:.*]] = arith.subi %[[END]], %[[BEGIN]]
// CHECK: %[[FROM:.*]] = memref.subview %[[X]][%[[BEGIN]], 0] [%[[N]], %{{.*}}] [1, 1]
// CHECK: %[[TO:.*]] = memref.subview %[[Z]][%[[BEGIN]], 0] [%{{.*}}, %{{.*}}] [1, 1]
// CHECK: linalg.copy ins(%[[FROM]] : {{.*}}) outs(%[[TO]] : {{.*}})
// CHECK-LABEL: func.func @small_clone(
// CHECK-NOT: opal_parallel_begin
// CHECK: memref.copy
func.func @clone(%x: memref<?x?xf32>, %z: memref<?x?xf32>) {
  memref.copy %x, %z : memref<?x?xf32> to memref<?x?xf32>
  return
}
func.func @small_clone(%x: memref<4x8xf32>, %z: memref<4x8xf32>) {
  memref.copy %x, %z : memref<4x8xf32> to memref<4x8xf32>
  return
}
