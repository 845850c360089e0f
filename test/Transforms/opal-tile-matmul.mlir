// RUN: opal-opt %s --pass-pipeline="builtin.module(opal-tile-matmul{tile-m=4 tile-k=16 tile-n=32})" --split-input-file | FileCheck %s

// A float product on dense buffers: blocks of 16 x 32 of B packed into one
// buffer as panels of 16 floats (one 64-byte vector; 17 rows apart, one
// vector of space after each), then register tiles
// of 4 rows x 16 columns of C: per k, one vector of the packed B, one
// broadcast of A per row, four fused multiply-adds. The last rows run as
// a tile of two rows where two are left, then one-row tiles; the last
// columns of a block are masked. No scalar loops.
// CHECK-LABEL: func.func @mm(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32>, %[[B:[a-z0-9]+]]: memref<?x?xf32>, %[[C:[a-z0-9]+]]: memref<?x?xf32>)
// CHECK: %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<544xf32>
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c16
// Packing: each row of B in the block read in order, one vector of each
// panel at a time, masked past the block's last column.
// CHECK: scf.for %[[PK:.*]] = %[[K0]] to
// CHECK: scf.for %[[PJ:.*]] = %[[J0]] to
// CHECK: %[[PMASK:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: %[[ROW:.*]] = vector.maskedload %[[B]][%[[PK]], %[[PJ]]], %[[PMASK]]
// CHECK: vector.store %[[ROW]], %[[PACKED]]
// Its rows are independent too: threads share the packing, whose work is
// the block's (32 floats a row of B), not B's.
// CHECK: } {opal.parallel, opal.parallel_work = 32 : i64}
// The register tiles of 4 rows.
// CHECK: scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %c4
// CHECK: scf.for %[[JJ:.*]] = %[[J0]] to %{{.*}} step %c16
// CHECK: %[[MASK:.*]] = vector.create_mask
// CHECK-COUNT-4: vector.maskedload %[[C]]{{.*}}, %[[MASK]]
// CHECK: scf.for %{{.*}} = %[[K0]] to %{{.*}} step %{{.*}} iter_args(
// CHECK: vector.load %[[PACKED]]{{.*}} : memref<544xf32>, vector<16xf32>
// CHECK-COUNT-4: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-4: vector.maskedstore %[[C]]
// Register tiles are independent: opal-parallelize may split their loop.
// CHECK: } {opal.parallel}
// A tile of two rows where two are left (a power of two below tile-m).
// CHECK: %[[TWO:.*]] = arith.cmpi uge, %{{.*}}, %c2 : index
// CHECK: scf.if %[[TWO]] {
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-2: vector.fma
// CHECK-NOT: vector.fma
// CHECK-COUNT-2: vector.maskedstore %[[C]]
// One-row tiles for the row left.
// CHECK: %[[FROM:.*]] = arith.select %[[TWO]]
// CHECK: scf.for %{{.*}} = %[[FROM]] to
// CHECK: scf.for
// CHECK: vector.maskedload %[[C]]
// CHECK: vector.fma
// CHECK-NOT: vector.fma
// CHECK: vector.maskedstore %[[C]]
// CHECK-NOT: memref.store
// CHECK: memref.dealloc %[[PACKED]]
// CHECK-NOT: linalg.matmul
func.func @mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// A batched f64 product: the same loops inside a loop over the batch, with
// vectors of 8 doubles; the packing buffer serves every batch.
// CHECK-LABEL: func.func @bmm
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<544xf64>
// CHECK: scf.for %[[BATCH:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.maskedload %{{.*}}[%[[BATCH]], %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<2x3x5xf64>, vector<8xi1>, vector<8xf64>
// CHECK: vector.fma {{.*}} : vector<8xf64>
// CHECK: memref.dealloc
func.func @bmm(%a: memref<2x3x4xf64>, %b: memref<2x4x5xf64>, %c: memref<2x3x5xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf64>, memref<2x4x5xf64>) outs(%c : memref<2x3x5xf64>)
  return
}

// -----

// tile-vectors=2: register tiles of 4 rows x 2 vectors,
// 8 accumulators; per k, two vectors of B (from two panels) and one
// broadcast of A per row, each used twice, over the block's whole pairs of
// vectors; the columns left (a block's last 16 of 48, or all of a block
// narrower than a pair) run as tiles of one vector, so no tile computes a
// vector of masked-off lanes. The buffer holds whole pairs of panels (48
// columns round up to 64).
// RUN: opal-opt %s --pass-pipeline="builtin.module(opal-tile-matmul{tile-m=4 tile-vectors=2 tile-k=16 tile-n=48})" --split-input-file | FileCheck %s --check-prefix=PAIR
// PAIR-LABEL: func.func @mm_pairs
// PAIR: memref.alloc() {alignment = 64 : i64} : memref<1088xf32>
// PAIR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// PAIR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// PAIR-COUNT-2: vector.create_mask
// PAIR-COUNT-8: vector.maskedload
// PAIR: scf.for {{.*}} iter_args(
// PAIR-COUNT-2: vector.load
// PAIR: memref.load
// PAIR-COUNT-2: vector.fma
// PAIR: memref.load
// PAIR-COUNT-2: vector.fma
// PAIR: scf.yield
// PAIR-COUNT-8: vector.maskedstore
// PAIR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// PAIR: vector.create_mask
// PAIR-COUNT-4: vector.maskedload
// PAIR: scf.for {{.*}} iter_args(
// PAIR: vector.load
// PAIR: memref.load
// PAIR-NEXT: vector.broadcast
// PAIR-NEXT: vector.fma
// PAIR-NEXT: memref.load
// PAIR: scf.yield
// PAIR-COUNT-4: vector.maskedstore
// PAIR: } {opal.parallel}
func.func @mm_pairs(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// Integer products keep the row-update scheme: loops i, k, j (j innermost,
// contiguous in B and C), with k and j tiled.
// CHECK-LABEL: func.func @mm_int
// CHECK-NOT: vector.
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-NOT: linalg.matmul
func.func @mm_int(%a: memref<?x?xi64>, %b: memref<?x?xi64>, %c: memref<?x?xi64>) {
  linalg.matmul ins(%a, %b : memref<?x?xi64>, memref<?x?xi64>) outs(%c : memref<?x?xi64>)
  return
}

// -----

// Views whose rows are contiguous (any offset and row stride: the shifted
// rows of a convolution's input) get the register tiles too.
// CHECK-LABEL: func.func @mm_view
// CHECK: vector.maskedload %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: memref.load %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
func.func @mm_view(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                   %b: memref<?x?xf32, strided<[?, 1], offset: ?>>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                             memref<?x?xf32, strided<[?, 1], offset: ?>>)
                outs(%c : memref<?x?xf32>)
  return
}

// -----

// Views with strided rows keep the earlier scheme.
// CHECK-LABEL: func.func @mm_strided
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @mm_strided(%a: memref<?x?xf32, strided<[?, 2], offset: ?>>, %b: memref<?x?xf32>,
                      %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32, strided<[?, 2], offset: ?>>, memref<?x?xf32>)
                outs(%c : memref<?x?xf32>)
  return
}

// -----

// Products on tensors are left alone (the pass runs after bufferization).
// CHECK-LABEL: func.func @on_tensors
// CHECK: linalg.matmul
func.func @on_tensors(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A column tile that is not a multiple of the vector (20 columns, vectors
// of 16): the packing buffer holds two whole panels of 4 rows, each
// followed by one vector of space (panels not 4 KiB apart).
// RUN: opal-opt %s --pass-pipeline="builtin.module(opal-tile-matmul{tile-m=2 tile-k=4 tile-n=20})" --split-input-file | FileCheck %s --check-prefix=ODD
// ODD-LABEL: func.func @odd_tiles
// ODD: memref.alloc() {alignment = 64 : i64} : memref<160xf32>
func.func @odd_tiles(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// B given transposed ([n, k]: linear's weight, read through transposed
// indexing maps): each panel of 16 columns is packed by opal's runtime
// (opal_pack_panel_f32, declared in the module), a call per panel with B as
// a view of any strides, the panel's first column, how many columns it
// has, the block's k, the buffer, where the panel starts, and the lanes.
// The calls share the panels' loop over threads. The register tiles are
// the same.
// CHECK-LABEL: func.func @mm_transposed_b
// CHECK: %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<544xf32>
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[JEND:.*]] = arith.minui
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[KEND:.*]] = arith.minui
// CHECK: %[[B:.*]] = memref.cast %arg1 : memref<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[BUFFER:.*]] = memref.cast %[[PACKED]] : memref<544xf32> to memref<?xf32>
// CHECK: scf.for %[[JJ:.*]] = %[[J0]] to %[[JEND]] step %{{.*}} {
// CHECK: %[[LEFT:.*]] = arith.subi %[[JEND]], %[[JJ]] : index
// CHECK: %[[COLUMNS:.*]] = arith.minui %[[LEFT]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %c272 : index
// CHECK: func.call @opal_pack_panel_f32(%[[B]], %[[JJ]], %[[COLUMNS]], %[[K0]], %[[KEND]], %[[BUFFER]], %[[START]], %{{.*}}) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, index, index, index, index, memref<?xf32>, index, index) -> ()
// CHECK-NEXT: } {opal.parallel, opal.parallel_work = 256 : i64}
// CHECK: vector.load %[[PACKED]]
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @opal_pack_panel_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, index, index, index, index, memref<?xf32>, index, index)
func.func @mm_transposed_b(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                 affine_map<(d0, d1, d2) -> (d1, d2)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// C filled right before the product (mm's zeros): the fill goes, and the
// register tiles of the first block of k start from the fill value instead
// of loading C; later blocks load the sums. The blocks of k run at least
// once, so that an empty reduction still writes the fill.
// CHECK-LABEL: func.func @filled
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32>, %[[B:[a-z0-9]+]]: memref<?x?xf32>, %[[C:[a-z0-9]+]]: memref<?x?xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[K:.*]] = memref.dim %[[A]], %{{.*}}
// CHECK: %[[BLOCKS:.*]] = arith.maxui %[[K]], %{{.*}}
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %[[BLOCKS]] step %{{.*}}
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K0]], %{{.*}}
// CHECK: scf.if %[[FIRST]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[START:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: scf.yield %[[START]], %[[START]], %[[START]], %[[START]]
// CHECK: } else {
// CHECK-COUNT-4: vector.maskedload %[[C]]
// CHECK-NOT: linalg.fill
func.func @filled(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// C written right before the product with a value per row (a pointwise
// convolution's bias per filter, as opal-lower-to-linalg writes it): the
// generic goes; the first block of k starts from zero, and each row's
// value is added to the sums of that block before they are stored (after
// the block, so that the values hold no registers the sums need).
// CHECK-LABEL: func.func @row_start
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32>, %[[B:[a-z0-9]+]]: memref<?x?xf32>, %[[C:[a-z0-9]+]]: memref<?x?xf32>, %[[BIAS:[a-z0-9]+]]: memref<?xf32>
// CHECK-NOT: linalg.generic
// CHECK: scf.if %{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.yield %[[Z:.*]], %[[Z]], %[[Z]], %[[Z]]
// CHECK: } else {
// CHECK-COUNT-4: vector.maskedload %[[C]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: %[[VALUE:.*]] = memref.load %[[BIAS]][%{{.*}}] : memref<?xf32>
// CHECK: %[[ROW:.*]] = vector.broadcast %[[VALUE]] : f32 to vector<16xf32>
// CHECK: %[[ADD:.*]] = arith.select %[[FIRST]], %[[ROW]], %{{.*}} : vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[ADD]] : vector<16xf32>
// CHECK: vector.maskedstore %[[C]][%{{.*}}], %{{.*}}, %[[SUM]]
// CHECK-NOT: linalg.generic
func.func @row_start(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %bias: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = memref.load %bias[%i] : memref<?xf32>
    linalg.yield %v : f32
  }
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// A value that varies along the row is no start: the generic stays before
// the tiles, which load C.
// CHECK-LABEL: func.func @column_start
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK-NOT: arith.addf {{.*}} : vector<16xf32>
// CHECK: return
func.func @column_start(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %bias: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<?x?xf32>) {
  ^bb0(%out: f32):
    %j = linalg.index 1 : index
    %v = memref.load %bias[%j] : memref<?xf32>
    linalg.yield %v : f32
  }
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// linear's bias: a temporary product added to bias[j] into D right after.
// The tiles write D directly, their first block of k starting from the
// bias's vectors at their columns; the temporary, its fill, the addition
// and its dealloc go.
// CHECK-LABEL: func.func @biased
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32>, %[[B:[a-z0-9]+]]: memref<?x?xf32>, %[[BIAS:[a-z0-9]+]]: memref<?xf32>, %[[D:[a-z0-9]+]]: memref<?x?xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.if %{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[START:.*]] = vector.maskedload %[[BIAS]][%{{.*}}], %{{.*}}, %{{.*}} : memref<?xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: scf.yield %[[START]], %[[START]], %[[START]], %[[START]]
// CHECK: } else {
// CHECK-COUNT-4: vector.maskedload %[[D]]
// CHECK: vector.fma
// CHECK-COUNT-4: vector.maskedstore %[[D]]
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc %{{.*}} : memref<?x?xf32>
func.func @biased(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %bias: memref<?xf32>, %d: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %b, %c1 : memref<?x?xf32>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<?x?xf32>, memref<?xf32>) outs(%d : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %y, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<?x?xf32>
  return
}

// -----

// A temporary that another op also reads keeps its addition (and the
// fill's start, which the tiles still take).
// CHECK-LABEL: func.func @read_again
// CHECK-NOT: linalg.fill
// CHECK: vector.broadcast
// CHECK: linalg.generic
// CHECK: memref.copy
func.func @read_again(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %bias: memref<?xf32>, %d: memref<?x?xf32>, %e: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %b, %c1 : memref<?x?xf32>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<?x?xf32>, memref<?xf32>) outs(%d : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.copy %c, %e : memref<?x?xf32> to memref<?x?xf32>
  memref.dealloc %c : memref<?x?xf32>
  return
}

// -----

// A convolution's block of sums: filled, then a loop over the kernel
// positions whose only op that touches memory is the product into it (and
// loads from other buffers: the table of the positions' offsets). The
// loop moves inside the register tiles: every position's block of B is
// packed at its own offset (one buffer for all), and each tile sums every
// position's product in registers before it is stored once. The fill goes
// (the tiles write it even when the loop runs no iteration), and so does
// the loop.
// CHECK-LABEL: func.func @positions
// CHECK-SAME: %[[ROWS:[a-z0-9]+]]: memref<1x?x?xf32>, %[[W:[a-z0-9]+]]: memref<1x?x?x?xf32>, %[[SUMS:[a-z0-9]+]]: memref<1x?x?xf32>, %[[N:[a-z0-9]+]]: index
// CHECK: %[[SHIFTS:.*]] = memref.alloc(%[[N]]) : memref<?xindex>
// CHECK-NOT: linalg.fill
// CHECK: %[[COUNT:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[SIZE:.*]] = arith.muli %[[COUNT]], %{{.*}} : index
// CHECK: %[[PACKED:.*]] = memref.alloc(%[[SIZE]]) {alignment = 64 : i64} : memref<?xf32>
// Packing: each position's weights at its offset.
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK: memref.subview %[[W]][0, %[[P]], 0, 0]
// CHECK: vector.store %{{.*}}, %[[PACKED]]
// The tiles: the positions loop carries the sums.
// CHECK: scf.if %{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[SUM:.*]]:4 = scf.for %[[Q:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(
// CHECK: %[[SHIFT:.*]] = memref.load %[[SHIFTS]][%[[Q]]]
// CHECK: memref.subview %[[ROWS]][0, %[[SHIFT]], 0]
// CHECK: scf.for
// CHECK-COUNT-4: vector.fma
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK-COUNT-4: vector.maskedstore %[[SUMS]]
// CHECK-NOT: linalg.batch_matmul
func.func @positions(%rows: memref<1x?x?xf32>, %weights: memref<1x?x?x?xf32>, %sums: memref<1x?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %m = memref.dim %sums, %c1 : memref<1x?x?xf32>
  %f = memref.dim %sums, %c2 : memref<1x?x?xf32>
  %c = memref.dim %rows, %c2 : memref<1x?x?xf32>
  %shifts = memref.alloc(%n) : memref<?xindex>
  linalg.fill ins(%zero : f32) outs(%sums : memref<1x?x?xf32>)
  scf.for %k = %c0 to %n step %c1 {
    %shift = memref.load %shifts[%k] : memref<?xindex>
    %a = memref.subview %rows[0, %shift, 0] [1, %m, %c] [1, 1, 1] : memref<1x?x?xf32> to memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>
    %b = memref.subview %weights[0, %k, 0, 0] [1, 1, %c, %f] [1, 1, 1, 1] : memref<1x?x?x?xf32> to memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>
    linalg.batch_matmul ins(%a, %b : memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%sums : memref<1x?x?xf32>)
  }
  return
}

// -----

// A load from the sums' own buffer in the loop of products (it could see
// a sum half done): the loop stays where it is, around a tiled product.
// CHECK-LABEL: func.func @positions_reading_sums
// CHECK: scf.for %[[P:.*]] = {{.*}} {
// CHECK: memref.load %arg2
// CHECK: scf.for
// CHECK: vector.fma
func.func @positions_reading_sums(%rows: memref<1x?x?xf32>, %weights: memref<1x?x?x?xf32>, %sums: memref<1x?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %sums, %c1 : memref<1x?x?xf32>
  %f = memref.dim %sums, %c2 : memref<1x?x?xf32>
  %c = memref.dim %rows, %c2 : memref<1x?x?xf32>
  scf.for %k = %c0 to %n step %c1 {
    %v = memref.load %sums[%c0, %c0, %c0] : memref<1x?x?xf32>
    %i = arith.fptosi %v : f32 to i32
    %j = arith.index_cast %i : i32 to index
    %a = memref.subview %rows[0, %j, 0] [1, %m, %c] [1, 1, 1] : memref<1x?x?xf32> to memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>
    %b = memref.subview %weights[0, %k, 0, 0] [1, 1, %c, %f] [1, 1, 1, 1] : memref<1x?x?x?xf32> to memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>
    linalg.batch_matmul ins(%a, %b : memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%sums : memref<1x?x?xf32>)
  }
  return
}

// -----

// RUN: opal-opt %s --pass-pipeline="builtin.module(opal-tile-matmul{tile-m=4 tile-k=16 tile-n=32 direct-rows=64})" --split-input-file | FileCheck %s --check-prefix=DIRECT

// With direct-rows, a call whose product has at most that many rows reads
// B where it is: the packing runs only when the rows are more, and the
// register tiles read one row of elements (B's base buffer, or the panels)
// at a start and a row stride chosen per call.
// DIRECT-LABEL: func.func @mm_direct
// DIRECT: %[[M:.*]] = memref.dim %arg2, %c0
// DIRECT: %[[DIRECT:.*]] = arith.cmpi ule, %[[M]], %c64
// DIRECT: %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %arg1
// DIRECT: %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]]
// DIRECT: %[[SOURCE:.*]] = arith.select %[[DIRECT]], %[[FLAT]], %{{.*}} : memref<?xf32, strided<[1], offset: ?>>
// DIRECT: %[[PACKS:.*]] = arith.xori %[[DIRECT]], %true
// DIRECT: scf.if %[[PACKS]] {
// DIRECT: vector.maskedload %arg1
// DIRECT: vector.store
// DIRECT: }
// DIRECT: %[[STRIDE:[a-z0-9_]+]] = arith.select %[[DIRECT]], %[[STRIDES]]#0, %c16
// DIRECT: scf.for %[[K:[a-z0-9_]+]] =
// DIRECT: %[[STEP:[a-z0-9_]+]] = arith.muli %[[K]], %[[STRIDE]]
// DIRECT: vector.maskedload %[[SOURCE]]
// DIRECT: vector.fma
func.func @mm_direct(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}
