// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-map-to-gpu,cse))" --verify-diagnostics | FileCheck %s

// An elementwise op on contiguous buffers runs one thread per element over
// 1-D views: no division per element.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
func.func @elementwise(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
// CHECK: %[[TOTAL:.*]] = arith.muli
// CHECK-NEXT: %[[FX:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1]]
// CHECK-NEXT: %[[FOUT:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]]
// CHECK-NEXT: %[[B:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[GRID:.*]] = arith.ceildivui %[[TOTAL]], %[[B]]
// CHECK: scf.if
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]],
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK: arith.cmpi ult, %[[I]], %[[TOTAL]]
// CHECK-NOT: arith.divui
// CHECK: %[[V:.*]] = memref.load %[[FX]][%[[I]]]
// CHECK: %[[E:.*]] = math.exp %[[V]]
// CHECK: memref.store %[[E]], %[[FOUT]][%[[I]]]
// CHECK: gpu.terminator

// -----

// With every buffer known 16-byte aligned (opal.align on the arguments, or
// allocated by the function), each thread takes 16 bytes' worth of
// elements: a vector load per input, the payload once per lane, a vector
// store per output; the last thread's partial group runs element by element.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @vectorized(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32> {opal.align = 16 : i64}, %[[S:.*]]: f32, %[[OUT:.*]]: memref<?x?xf32> {opal.align = 16 : i64})
func.func @vectorized(%x: memref<?x?xf32> {opal.align = 16 : i64}, %s: f32,
                      %out: memref<?x?xf32> {opal.align = 16 : i64}) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<?x?xf32>, f32) outs(%out : memref<?x?xf32>) {
  ^bb0(%in: f32, %scale: f32, %o: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  }
  return
}
// CHECK: %[[TOTAL:.*]] = arith.muli
// CHECK: %[[FX:.*]] = memref.collapse_shape %[[X]]
// CHECK: %[[FOUT:.*]] = memref.collapse_shape %[[OUT]]
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[THREADS:.*]] = arith.ceildivui %[[TOTAL]], %[[FOUR]]
// CHECK: %[[B:.*]] = arith.constant 256 : index
// CHECK: %[[GRID:.*]] = arith.ceildivui %[[THREADS]], %[[B]]
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]],
// CHECK: %[[G:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK: arith.cmpi ult, %[[G]], %[[THREADS]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %[[FOUR]]
// CHECK: %[[END:.*]] = arith.addi %[[FIRST]], %[[FOUR]]
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %[[TOTAL]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK:   %[[V:.*]] = vector.load %[[FX]][%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK:   %[[V0:.*]] = vector.extract %[[V]][0]
// CHECK:   %[[M0:.*]] = arith.mulf %[[V0]], %[[S]]
// CHECK:   %[[V3:.*]] = vector.extract %[[V]][3]
// CHECK:   %[[M3:.*]] = arith.mulf %[[V3]], %[[S]]
// CHECK:   %[[R:.*]] = vector.from_elements %[[M0]], %{{.*}}, %{{.*}}, %[[M3]] : vector<4xf32>
// CHECK:   vector.store %[[R]], %[[FOUT]][%[[FIRST]]] {alignment = 16 : i64}
// CHECK: } else {
// CHECK:   %[[STOP:.*]] = arith.minui %[[END]], %[[TOTAL]]
// CHECK:   scf.for %[[I:.*]] = %[[FIRST]] to %[[STOP]]
// CHECK:     memref.load %[[FX]][%[[I]]]
// CHECK:     arith.mulf
// CHECK:     memref.store %{{.*}}, %[[FOUT]][%[[I]]]

// -----

// f64 takes two lanes; a temporary the function allocates is aligned too
// (device allocations start at 256-byte boundaries), and a bool output
// takes the f64s' lane count.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_lanes(
func.func @two_lanes(%x: memref<?xf64> {opal.align = 16 : i64}, %out: memref<?xi8> {opal.align = 16 : i64}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %t = memref.alloc(%n) : memref<?xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf64>) outs(%t : memref<?xf64>) {
  ^bb0(%in: f64, %o: f64):
    %e = math.exp %in : f64
    linalg.yield %e : f64
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<?xf64>) outs(%out : memref<?xi8>) {
  ^bb0(%in: f64, %o: i8):
    %z = arith.constant 0.0 : f64
    %c = arith.cmpf ogt, %in, %z : f64
    %b = arith.extui %c : i1 to i8
    linalg.yield %b : i8
  }
  memref.dealloc %t : memref<?xf64>
  return
}
// CHECK: gpu.alloc
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf64>, vector<2xf64>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf64>, vector<2xf64>
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf64>, vector<2xf64>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xi8>, vector<2xi8>
// CHECK: gpu.dealloc

// -----

// One buffer without a known alignment (or an i1 one) keeps the op at one
// element a thread.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @unknown_alignment(
func.func @unknown_alignment(%x: memref<?xf32> {opal.align = 16 : i64}, %y: memref<?xf32>,
                             %out: memref<?xf32> {opal.align = 16 : i64}) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : memref<?xf32>, memref<?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK: gpu.launch
// CHECK-NOT: vector.
// CHECK: memref.load
// CHECK-NOT: vector.
// CHECK: gpu.terminator

// -----

// A broadcast operand keeps its indexing map: the thread's linear index is
// split into (row, column).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @broadcast(
func.func @broadcast(%x: memref<?x?xf32>, %r: memref<?xf32>, %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<?x?xf32>, memref<?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}
// CHECK: gpu.launch
// CHECK: %[[COL:.*]] = arith.remui %[[I:.*]], %[[N:.*]] : index
// CHECK: %[[ROW:.*]] = arith.divui %[[I]], %[[N]] : index
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<?x?xf32>
// CHECK: memref.load %{{.*}}[%[[ROW]]] : memref<?xf32>
// CHECK: arith.subf
// CHECK: memref.store %{{.*}}[%[[ROW]], %[[COL]]] : memref<?x?xf32>

// -----

// A broadcast along the rows (x - the row's value) with aligned buffers:
// each thread takes four consecutive elements of one row; the row's value
// is loaded once and shared by the lanes. Rows start at vector boundaries
// only when the row length is a multiple of four, which is checked at run
// time; otherwise (and for a row's last, partial group) element by element.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_broadcast(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x?xf32> {opal.align = 16 : i64}, %[[R:[a-z0-9]+]]: memref<?xf32> {opal.align = 16 : i64}, %[[OUT:[a-z0-9]+]]: memref<?x?xf32> {opal.align = 16 : i64})
func.func @row_broadcast(%x: memref<?x?xf32> {opal.align = 16 : i64}, %r: memref<?xf32> {opal.align = 16 : i64},
                         %out: memref<?x?xf32> {opal.align = 16 : i64}) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<?x?xf32>, memref<?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}
// CHECK-DAG: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[COLS:.*]] = memref.dim %[[X]], %c1
// CHECK: %[[GROUPS:.*]] = arith.ceildivui %[[COLS]], %[[FOUR:.*]] : index
// CHECK: %[[THREADS:.*]] = arith.muli %[[ROWS]], %[[GROUPS]]
// CHECK: gpu.launch
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %[[GROUPS]]
// CHECK: %[[GROUP:.*]] = arith.remui %{{.*}}, %[[GROUPS]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[FOUR]]
// CHECK: %[[REM:.*]] = arith.remui %[[COLS]], %[[FOUR]]
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %c0
// CHECK: %[[END:.*]] = arith.addi %[[FIRST]], %[[FOUR]]
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[END]], %[[COLS]]
// CHECK: %[[WHOLE:.*]] = arith.andi %[[FITS]], %[[ALIGNED]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK:   %[[V:.*]] = vector.load %[[X]][%[[ROW]], %[[FIRST]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK:   %[[B:.*]] = memref.load %[[R]][%[[ROW]]] : memref<?xf32>
// CHECK:   %[[V0:.*]] = vector.extract %[[V]][0]
// CHECK:   arith.subf %[[V0]], %[[B]]
// CHECK:   vector.store %{{.*}}, %[[OUT]][%[[ROW]], %[[FIRST]]] {alignment = 16 : i64}
// CHECK: } else {
// CHECK:   scf.for %[[J:.*]] = %[[FIRST]] to
// CHECK:     memref.load %[[X]][%[[ROW]], %[[J]]]
// CHECK:     memref.store %{{.*}}, %[[OUT]][%[[ROW]], %[[J]]]

// -----

// A transposed operand is not contiguous along the last dim: one element a
// thread.
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @transposed(
func.func @transposed(%x: memref<?x?xf32> {opal.align = 16 : i64}, %out: memref<?x?xf32> {opal.align = 16 : i64}) {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
// CHECK: gpu.launch
// CHECK-NOT: vector.
// CHECK: gpu.terminator

// -----

// A row reduction: one block per row of warps enough for 8 elements a
// thread (at most 32 warps), a strided loop per thread from the combiner's
// identity that loads 8 elements per step before it folds them (those past
// the row's end load the step's first and are dropped), a block-wide
// all_reduce, thread 0 folds into the output.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_max(
func.func @row_max(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  }
  return
}
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[COLS:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[WARPS:.*]] = arith.ceildivui %[[COLS]], %[[C256]]
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[SOME:.*]] = arith.minui %[[WARPS]], %[[C32]]
// CHECK: %[[T:.*]] = arith.muli %[[SOME]], %[[C32]]
// CHECK: %[[B:.*]] = arith.maxui %[[T]], %[[C32]]
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]],
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[STEP:.*]] = arith.muli %[[B]], %c8
// CHECK: %[[PART:.*]] = scf.for %[[J:.*]] = %[[TX]] to %[[COLS]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[NEG_INF]])
// CHECK:   %[[V0:.*]] = memref.load %{{.*}}[%[[BX]], %{{.*}}]
// CHECK:   %[[J1:.*]] = arith.addi %[[J]], %{{.*}}
// CHECK:   %[[IN1:.*]] = arith.cmpi ult, %[[J1]], %[[COLS]]
// CHECK:   %[[AT1:.*]] = arith.select %[[IN1]], %[[J1]], %[[J]]
// CHECK:   %[[V1:.*]] = memref.load %{{.*}}[%[[BX]], %[[AT1]]]
// CHECK-COUNT-6: memref.load
// CHECK:   %[[M0:.*]] = arith.maximumf %[[V0]], %[[ACC]]
// CHECK:   %[[S0:.*]] = arith.select %{{.*}}, %[[M0]], %[[ACC]]
// CHECK:   %[[M1:.*]] = arith.maximumf %[[V1]], %[[S0]]
// CHECK:   %[[S1:.*]] = arith.select %[[IN1]], %[[M1]], %[[S0]]
// CHECK-COUNT-6: arith.select
// CHECK:   scf.yield
// CHECK: %[[ALL:.*]] = gpu.all_reduce maximumf %[[PART]] uniform
// CHECK: arith.cmpi eq, %[[TX]], %c0
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[BX]]]
// CHECK: %[[NEW:.*]] = arith.maximumf %[[ALL]], %[[OLD]]
// CHECK: memref.store %[[NEW]], %{{.*}}[%[[BX]]]

// -----

// A payload with two outputs (argmax) has no shared combiner: one thread per
// block folds the row in order.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax(
func.func @argmax(%x: memref<?x?xf32>, %max: memref<?xf32>, %arg: memref<?xi64>) {
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%max, %arg : memref<?xf32>, memref<?xi64>) {
  ^bb0(%in: f32, %m: f32, %a: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %m : f32
    %nm = arith.select %gt, %in, %m : f32
    %na = arith.select %gt, %ji, %a : i64
    linalg.yield %nm, %na : f32, i64
  }
  return
}
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[ONE]],
// CHECK: scf.for %[[J:.*]] = %c0 to %{{.*}} step %[[ONE]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64)
// CHECK: arith.index_cast %[[J]] : index to i64
// CHECK-NOT: gpu.all_reduce

// -----

// A fill of a reduction's output right before it is folded into the
// reduction: thread 0 combines with the fill's value (no load of the
// output), and the fill has no kernel.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @fill_then_sum(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?xf32>)
func.func @fill_then_sum(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  %zero = arith.constant 1.5 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK: %[[INIT:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: gpu.launch
// CHECK: %[[ALL:.*]] = gpu.all_reduce add
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: %[[NEW:.*]] = arith.addf %[[ALL]], %[[INIT]]
// CHECK: memref.store %[[NEW]], %[[OUT]]
// CHECK-NOT: gpu.launch
// CHECK: return

// -----

// When the buffer is used between the fill and the reduction, both keep
// their kernels.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @fill_used_before_the_sum(
func.func @fill_used_before_the_sum(%x: memref<?x?xf32>, %out: memref<?xf32>,
                                    %copy: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?xf32>)
  memref.copy %out, %copy : memref<?xf32> to memref<?xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-COUNT-3: gpu.launch
// CHECK: gpu.all_reduce add
// CHECK: memref.load
// CHECK: arith.addf

// -----

// Temporaries become device buffers; fills and copies become kernels.
// CHECK-LABEL: func.func @temporaries(
func.func @temporaries(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?xf32>)
  memref.copy %t, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return
}
// CHECK: %[[T:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK: gpu.launch
// CHECK: memref.store %cst, %[[T]]
// CHECK: gpu.launch
// CHECK: memref.load %[[T]]
// CHECK: gpu.dealloc %[[T]] : memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc

// -----

// The shape function stays on the host.
// CHECK-LABEL: func.func @opal_kernel_shapes(
// CHECK-NOT: gpu.launch
// CHECK: memref.store
func.func @opal_kernel_shapes(%x: memref<?xf32>, %sizes: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %i = arith.index_cast %n : index to i64
  memref.store %i, %sizes[%c0] : memref<?xi64>
  return
}

// -----

// Loads and stores left on the host (a loop of one iteration folded away)
// run in one GPU thread, in order.
// CHECK-LABEL: func.func @host_load(
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]],
// CHECK-NEXT: %[[V:.*]] = memref.load
// CHECK-NEXT: memref.store %[[V]]
// CHECK-NEXT: gpu.terminator
func.func @host_load(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xf32>
  memref.store %v, %out[%c0] : memref<?xf32>
  return
}

// -----

func.func @host_use(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xf32>
  // expected-error @+1 {{opal-map-to-gpu: 'func.call' uses on the host a value computed from device memory}}
  func.call @host(%v) : (f32) -> ()
  return
}
func.func private @host(f32)

// -----

// A value the run loads from a buffer nothing writes later (a scatter's
// index, which a data check also reports) is loaded again in the launch
// that reads it; the buffer a run stores into is allocated before the run.
#map0 = affine_map<() -> ()>
// CHECK-LABEL: func.func @host_value_read_again(
// CHECK: %[[KEPT:.*]] = gpu.alloc () : memref<1xi64>
// CHECK: gpu.launch
// CHECK-NEXT: %[[I:.*]] = memref.load %arg0
// CHECK-NEXT: memref.store %[[I]], %[[KEPT]]
// CHECK-NEXT: arith.index_cast %[[I]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.terminator
// CHECK: gpu.launch
// CHECK-NEXT: %[[AGAIN:.*]] = memref.load %arg0
// CHECK: arith.select %{{.*}}, %[[AGAIN]]
func.func @host_value_read_again(%index: memref<1xi64>, %out: memref<1xf32>, %flag: memref<i64>, %word: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %one = arith.constant 1.0 : f32
  %i = memref.load %index[%c0] : memref<1xi64>
  %kept = memref.alloc() : memref<1xi64>
  memref.store %i, %kept[%c0] : memref<1xi64>
  %j = arith.index_cast %i : i64 to index
  memref.store %one, %out[%j] : memref<1xf32>
  linalg.generic {indexing_maps = [#map0, #map0], iterator_types = []} ins(%flag : memref<i64>) outs(%word : memref<i64>) {
  ^bb0(%in: i64, %o: i64):
    %bad = arith.cmpi ne, %in, %c0_i64 : i64
    %w = arith.select %bad, %i, %o : i64
    linalg.yield %w : i64
  }
  memref.dealloc %kept : memref<1xi64>
  return
}

// -----

// A buffer the run's value is read from must not change before the launch
// that would read it again.
func.func @host_value_overwritten(%index: memref<1xi64>, %word: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : i64
  %i = memref.load %index[%c0] : memref<1xi64>
  memref.store %c5, %index[%c0] : memref<1xi64>
  linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%word : memref<i64>) {
  ^bb0(%o: i64):
    // expected-error @+1 {{opal-map-to-gpu: 'arith.addi' uses on the host a value computed from device memory}}
    %w = arith.addi %i, %o : i64
    linalg.yield %w : i64
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @on_tensors(%x: tensor<?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{opal-map-to-gpu: expected a linalg op on buffers (run one-shot-bufferize first)}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A loop over rows holds only what opal-fuse-rows puts there.
func.func @foreign_op(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{opal-map-to-gpu: 'memref.load' in a loop over rows has no GPU mapping}}
    %v = memref.load %x[%i, %c0] : memref<4x8xf32>
    memref.store %v, %y[%i] : memref<4xf32>
  } {opal.rows}
  return
}

// -----

func.func @strided_rows(%x: memref<4x8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{opal-map-to-gpu: a loop over rows must run from 0 by 1}}
  scf.for %i = %c1 to %c4 step %c2 {
  } {opal.rows}
  return
}

// -----

// A loop on buffers whose iterations are independent (opal.parallel: a
// cumsum's lines) runs a GPU thread per iteration, the body as it is (here
// the line's sequential scan).
// CHECK-LABEL: func.func @lines(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[COUNT:.*]] = arith.maxsi
// CHECK: %[[B:.*]] = arith.constant 256 : index
// CHECK: %[[GRID:.*]] = arith.ceildivui %[[COUNT]], %[[B]]
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]],
// CHECK: %[[ID:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[COUNT]]
// CHECK: scf.if %[[IN]] {
// CHECK: scf.for %[[J:.*]] = %c0 to %{{.*}} step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: memref.load %[[X]][%{{.*}}, %[[J]]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%{{.*}}, %[[J]]]
// CHECK-NOT: opal.parallel
func.func @lines(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %s = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %t = arith.addf %acc, %v : f32
      memref.store %t, %out[%i, %j] : memref<?x?xf32>
      scf.yield %t : f32
    }
  } {opal.parallel}
  return
}

// -----

// Any other loop on buffers (a cumsum of one line, a scatter's ordered
// loop over its index) runs in one GPU thread.
// CHECK-LABEL: func.func @one_line(
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]],
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store
func.func @one_line(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    %t = arith.addf %acc, %v : f32
    memref.store %t, %out[%j] : memref<?xf32>
    scf.yield %t : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @loop_result_stored(
// CHECK: gpu.launch
// CHECK: %[[S:.*]] = scf.for
// CHECK: memref.store %[[S]]
// CHECK-NEXT: gpu.terminator
func.func @loop_result_stored(%x: memref<?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    %t = arith.addf %acc, %v : f32
    scf.yield %t : f32
  }
  memref.store %s, %out[] : memref<f32>
  return
}

// -----

func.func @call_in_loop(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %j = %c0 to %n step %c1 {
    %v = memref.load %x[%j] : memref<?xf32>
    // expected-error @+1 {{opal-map-to-gpu: 'func.call' uses on the host a value computed from device memory}}
    func.call @host(%v) : (f32) -> ()
  }
  return
}
func.func private @host(f32)

// -----

// An output written at every step of a reduction loop (what fusing a
// producer that keeps its result into a reduction would make) is refused,
// not miscompiled.
func.func @output_along_reduction(%x: memref<?xf32>, %seen: memref<?xf32>, %sum: memref<f32>) {
  // expected-error @+1 {{opal-map-to-gpu: output #0 is indexed by reduction loop d0; it has no GPU mapping}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<?xf32>) outs(%seen, %sum : memref<?xf32>, memref<f32>) {
  ^bb0(%a: f32, %s: f32, %t: f32):
    %u = arith.addf %a, %t : f32
    linalg.yield %a, %u : f32, f32
  }
  return
}
