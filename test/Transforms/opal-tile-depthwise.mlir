// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-tile-depthwise),canonicalize,cse)" | FileCheck %s
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-tile-depthwise{tile-rows=1 tile-vectors=1 vector-bytes=32}),canonicalize,cse)" | FileCheck %s --check-prefix=SMALL

// A depthwise convolution as opal-lower-to-linalg builds it: loops (n, g,
// f, c, kh, kw, oh, ow) over the padded input x, the weight w and the
// output y, after a fill of y. The output's (n, g, f) points are one loop
// (threads share it); in it, tiles of 4 rows by 2 vectors of 16 floats,
// whose 8 sums start from the fill's value, run over c, kh and kw in
// registers (per point: a broadcast of w, a vector load of x and an FMA
// per row and vector) and are stored once. Loads and stores are masked to
// the columns that exist (the row's last tile may have fewer); the last
// rows run as tiles of one row.
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?x?x?xf32>, %[[W:.*]]: memref<?x?x?x?x?xf32>, %[[Y:.*]]: memref<?x?x?x?x?xf32>)
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK:   %[[F:.*]] = arith.remui %[[P]]
// CHECK:   %[[GN:.*]] = arith.divui %[[P]]
// CHECK:   %[[G:.*]] = arith.remui %[[GN]]
// CHECK:   scf.for %[[I:.*]] = %c0 to %{{.*}} step %c4 {
// CHECK:     scf.for %[[J:.*]] = %c0 to %[[COLUMNS:.*]] step %c32 {
// CHECK:       %[[LEFT:.*]] = arith.subi %[[COLUMNS]], %[[J]] : index
// CHECK:       %[[LANES0:.*]] = arith.maxsi %[[LEFT]], %c0 : index
// CHECK:       %[[MASK0:.*]] = vector.create_mask %[[LANES0]] : vector<16xi1>
// CHECK:       %[[LEFT1:.*]] = arith.subi %[[LEFT]], %c16 : index
// CHECK:       %[[LANES1:.*]] = arith.maxsi %[[LEFT1]], %c0 : index
// CHECK:       %[[MASK1:.*]] = vector.create_mask %[[LANES1]] : vector<16xi1>
// CHECK:       %[[J16:.*]] = arith.addi %[[J]], %c16
// CHECK:       %{{.*}}:8 = scf.for %[[C:.*]] = %c0 to %{{.*}} step %c1 iter_args(%{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]])
// CHECK:         scf.for %[[KH:.*]] = %c0 to
// CHECK:           scf.for %[[KW:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[S0:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %[[S1:[a-z0-9_]+]] = %{{[a-z0-9_]+}},
// CHECK:             %[[WK:.*]] = memref.load %[[W]][%[[G]], %[[F]], %[[C]], %[[KH]], %[[KW]]]
// CHECK:             %[[SPLAT:.*]] = vector.broadcast %[[WK]] : f32 to vector<16xf32>
// CHECK:             %[[ROW:.*]] = affine.apply #{{.*}}(%[[KH]], %[[I]])
// CHECK:             %[[COL:.*]] = affine.apply #{{.*}}(%[[KW]], %[[J]])
// CHECK:             %[[X0:.*]] = vector.maskedload %[[X]][%{{.*}}, %[[G]], %[[C]], %[[ROW]], %[[COL]]], %[[MASK0]], %[[ZEROS]]
// CHECK:             vector.fma %[[X0]], %[[SPLAT]], %[[S0]] : vector<16xf32>
// CHECK:             %[[COL16:.*]] = affine.apply #{{.*}}(%[[KW]], %[[J16]])
// CHECK:             %[[X1:.*]] = vector.maskedload %[[X]][%{{.*}}, %[[G]], %[[C]], %[[ROW]], %[[COL16]]], %[[MASK1]], %[[ZEROS]]
// CHECK:             vector.fma %[[X1]], %[[SPLAT]], %[[S1]] : vector<16xf32>
// CHECK-COUNT-6:     vector.fma
// CHECK:             scf.yield
// CHECK:       vector.maskedstore %[[Y]][%{{.*}}, %[[G]], %[[F]], %[[I]], %[[J]]], %[[MASK0]]
// CHECK:       vector.maskedstore %[[Y]][%{{.*}}, %[[G]], %[[F]], %[[I]], %[[J16]]], %[[MASK1]]
// CHECK-COUNT-6: vector.maskedstore
// The last rows, one at a time.
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK:     scf.for %{{.*}} step %c32 {
// CHECK:       scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>) {
// CHECK:       vector.maskedstore
// CHECK: } {opal.parallel}
// SMALL-LABEL: func.func @depthwise
// SMALL: scf.for %{{.*}} step %c8 {
// SMALL:   scf.for {{.*}} -> (vector<8xf32>) {
// SMALL:     vector.maskedload {{.*}} vector<8xf32>
// SMALL:     vector.fma {{.*}} : vector<8xf32>
#x = affine_map<(n, g, f, c, kh, kw, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, f, c, kh, kw, oh, ow) -> (g, f, c, kh, kw)>
#o = affine_map<(n, g, f, c, kh, kw, oh, ow) -> (n, g, f, oh, ow)>
func.func @depthwise(%x: memref<?x?x?x?x?xf32>, %w: memref<?x?x?x?x?xf32>, %y: memref<?x?x?x?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x?x?x?x?xf32>)
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]}
      ins(%x, %w : memref<?x?x?x?x?xf32>, memref<?x?x?x?x?xf32>) outs(%y : memref<?x?x?x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Stride 2 and dilation 2 along the row (x read at 2 o + 2 k), a 1-d
// convolution of f64 (vectors of 8; its rows are the channels, each with
// its own weight) without a fill: the sums start from y's values. Each
// vector of x is two loads whose even lanes are kept, masked to the 2 n -
// 1 elements from the first of its n outputs (the odd one after the last
// would read past the row, or past the buffer).
// CHECK-LABEL: func.func @strided
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?xf64>, %[[W:.*]]: memref<?x?xf64>, %[[Y:.*]]: memref<?x?x?xf64>)
// CHECK: scf.for %[[J:.*]] = %c0 to %[[COLUMNS:.*]] step %c16 {
// CHECK:   %[[LEFT:.*]] = arith.subi %[[COLUMNS]], %[[J]]
// CHECK:   %[[LANES:.*]] = arith.maxsi %[[LEFT]], %c0
// CHECK:   %[[MASK:.*]] = vector.create_mask %[[LANES]] : vector<8xi1>
// CHECK:   %[[TWICE:.*]] = arith.addi %[[LEFT]], %[[LEFT]]
// CHECK:   %[[SPAN:.*]] = arith.subi %[[TWICE]], %c1
// CHECK:   %[[LOWLANES:.*]] = arith.maxsi %[[SPAN]], %c0
// CHECK:   %[[LOWMASK:.*]] = vector.create_mask %[[LOWLANES]] : vector<8xi1>
// CHECK:   %[[PAST:.*]] = arith.subi %[[TWICE]], %c9
// CHECK:   %[[HIGHLANES:.*]] = arith.maxsi %[[PAST]], %c0
// CHECK:   %[[HIGHMASK:.*]] = vector.create_mask %[[HIGHLANES]] : vector<8xi1>
// CHECK:   %[[Y0:.*]] = vector.maskedload %[[Y]][%{{.*}}, %{{.*}}, %[[J]]], %[[MASK]]
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[Y0]], %{{.*}}) -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>) {
// CHECK:     %[[AT:.*]] = affine.apply
// CHECK:     %[[LOW:.*]] = vector.maskedload %[[X]][%{{.*}}, %{{.*}}, %[[AT]]], %[[LOWMASK]]
// CHECK:     %[[NEXT:.*]] = arith.addi %[[AT]], %c8
// CHECK:     %[[HIGH:.*]] = vector.maskedload %[[X]][%{{.*}}, %{{.*}}, %[[NEXT]]], %[[HIGHMASK]]
// CHECK:     vector.shuffle %[[LOW]], %[[HIGH]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf64>, vector<8xf64>
// CHECK:   vector.maskedstore %[[Y]][%{{.*}}, %{{.*}}, %[[J]]], %[[MASK]]
#x1 = affine_map<(n, c, k, o) -> (n, c, 2 * o + 2 * k)>
#w1 = affine_map<(n, c, k, o) -> (c, k)>
#o1 = affine_map<(n, c, k, o) -> (n, c, o)>
func.func @strided(%x: memref<?x?x?xf64>, %w: memref<?x?xf64>, %y: memref<?x?x?xf64>) {
  linalg.generic {indexing_maps = [#x1, #w1, #o1], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?x?xf64>, memref<?x?xf64>) outs(%y : memref<?x?x?xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %b, %a : f64
    %s = arith.addf %p, %acc : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Left as they are: a stride of 3 along the row; a product whose second
// factor varies along the row (no broadcast); integers; no reduction; a
// body that is not a sum of products.
// CHECK-LABEL: func.func @stride_three
// CHECK: linalg.generic
#x3 = affine_map<(c, k, o) -> (c, 3 * o + k)>
#w3 = affine_map<(c, k, o) -> (c, k)>
#o3 = affine_map<(c, k, o) -> (c, o)>
func.func @stride_three(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#x3, #w3, #o3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @no_broadcast
// CHECK: linalg.generic
#xb = affine_map<(c, k, o) -> (c, o + k)>
#wb = affine_map<(c, k, o) -> (k, o)>
#ob = affine_map<(c, k, o) -> (c, o)>
func.func @no_broadcast(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#xb, #wb, #ob], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @integers
// CHECK: linalg.generic
func.func @integers(%x: memref<?x?xi32>, %w: memref<?x?xi32>, %y: memref<?x?xi32>) {
  linalg.generic {indexing_maps = [#x3, #w3, #o3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?xi32>, memref<?x?xi32>) outs(%y : memref<?x?xi32>) {
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %p = arith.muli %a, %b : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// CHECK-LABEL: func.func @no_reduction
// CHECK: linalg.generic
#xe = affine_map<(c, o) -> (c, o)>
#we = affine_map<(c, o) -> (c)>
func.func @no_reduction(%x: memref<?x?xf32>, %w: memref<?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#xe, #we, #xe], iterator_types = ["parallel", "parallel"]}
      ins(%x, %w : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @difference
// CHECK: linalg.generic
#xd = affine_map<(c, k, o) -> (c, o + k)>
func.func @difference(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#xd, #w3, #o3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.subf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The sums start from a bias per channel (opal-lower-to-linalg writes
// bias[g * F + f] into the output before a depthwise convolution with a
// bias): the generic that writes it goes, and each tile's sums start from
// a broadcast of the point's bias, loaded once per tile (its index ops of
// the rows and columns unread).
// CHECK-LABEL: func.func @depthwise_from_bias
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?x?x?xf32>, %[[W:.*]]: memref<?x?x?x?x?xf32>, %[[Y:.*]]: memref<?x?x?x?x?xf32>, %[[B:.*]]: memref<?xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[J:.*]] = %c0 to %{{.*}} step %c32 {
// CHECK:   %[[BIAS:.*]] = memref.load %[[B]][%{{.*}}] : memref<?xf32>
// CHECK:   %[[START:.*]] = vector.broadcast %[[BIAS]] : f32 to vector<16xf32>
// CHECK:   scf.for %{{.*}} iter_args(%{{.*}} = %[[START]], %{{.*}} = %[[START]], %{{.*}} = %[[START]], %{{.*}} = %[[START]], %{{.*}} = %[[START]], %{{.*}} = %[[START]], %{{.*}} = %[[START]], %{{.*}} = %[[START]])
// CHECK-NOT: vector.maskedload %[[Y]]
// CHECK: vector.maskedstore %[[Y]]
#xb = affine_map<(n, g, f, c, kh, kw, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#wb = affine_map<(n, g, f, c, kh, kw, oh, ow) -> (g, f, c, kh, kw)>
#ob = affine_map<(n, g, f, c, kh, kw, oh, ow) -> (n, g, f, oh, ow)>
#yb = affine_map<(n, g, f, oh, ow) -> (n, g, f, oh, ow)>
func.func @depthwise_from_bias(%x: memref<?x?x?x?x?xf32>, %w: memref<?x?x?x?x?xf32>, %y: memref<?x?x?x?x?xf32>, %b: memref<?xf32>) {
  %c2 = arith.constant 2 : index
  %fg = memref.dim %w, %c2 : memref<?x?x?x?x?xf32>
  linalg.generic {indexing_maps = [#yb], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%y : memref<?x?x?x?x?xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %g = linalg.index 1 : index
    %f = linalg.index 2 : index
    %i = linalg.index 3 : index
    %j = linalg.index 4 : index
    %gf = arith.muli %g, %fg : index
    %channel = arith.addi %gf, %f : index
    %v = memref.load %b[%channel] : memref<?xf32>
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#xb, #wb, #ob], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]}
      ins(%x, %w : memref<?x?x?x?x?xf32>, memref<?x?x?x?x?xf32>) outs(%y : memref<?x?x?x?x?xf32>) {
  ^bb0(%a: f32, %bw: f32, %acc: f32):
    %p = arith.mulf %a, %bw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A value that varies along the row (here the column's index) is no
// tile's start: the generic that writes it stays, and the tiles load the
// sums' start from the output.
// CHECK-LABEL: func.func @start_varies_along_the_row
// CHECK: linalg.generic
// CHECK: vector.maskedload %{{.*}} : memref<?x?xf32>
#xs = affine_map<(c, k, o) -> (c, o + k)>
#ws = affine_map<(c, k, o) -> (c, k)>
#os = affine_map<(c, k, o) -> (c, o)>
#ys = affine_map<(c, o) -> (c, o)>
func.func @start_varies_along_the_row(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#ys], iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<?x?xf32>) {
  ^bb0(%out: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %j : index to i32
    %v = arith.sitofp %i : i32 to f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#xs, #ws, #os], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %bw: f32, %acc: f32):
    %p = arith.mulf %a, %bw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
