// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-vectorize-transposes),canonicalize,cse)" | FileCheck %s
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-vectorize-transposes{lanes=4}),canonicalize,cse)" | FileCheck %s --check-prefix=FOUR

// An NCHW image made channels last: one loop over the (n, h) points, and
// in it tiles of 8 pixels x 8 channels. Eight rows of the source (channels c0 + k, eight
// pixels each) are loaded, transposed by three rounds of shuffles (x86's
// unpack by elements and by pairs within groups of four, then whole groups
// of four) and stored as eight rows of the destination (pixels
// w0 + k, eight channels each); the edges that fill no tile are copied
// element by element.
// CHECK-LABEL: func.func @channels_last
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?x?xf32>, %[[Y:.*]]: memref<?x?x?x?xf32>)
// CHECK-NOT: linalg.transpose
// Which loop of tiles is innermost is chosen per call: along the pixels
// when the source's rows (channel planes, stride H*W) lie farther apart
// than the destination's (pixels, stride C), as here; else along the
// channels.
// CHECK: %[[SRC:.*]], %{{.*}}, %{{.*}}:4, %[[XSTRIDES:.*]]:4 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[DST:.*]], %{{.*}}, %{{.*}}:4, %[[YSTRIDES:.*]]:4 = memref.extract_strided_metadata %[[Y]]
// CHECK: %[[ACROSS:.*]] = arith.cmpi ule, %[[YSTRIDES]]#2, %[[XSTRIDES]]#1 : index
// The source is an argument (from memory, its rows a plane apart): each
// tile prefetches the rows of its tile at the next (n, h) point.
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[H:.*]] = arith.remui %[[P]]
// CHECK:   %[[N:.*]] = arith.divui %[[P]]
// CHECK:   %[[FOLLOWING:.*]] = arith.addi %[[P]], %c1
// CHECK:   %[[NEXT:.*]] = arith.minui %[[FOLLOWING]], %{{.*}} : index
// CHECK:   %[[NH:.*]] = arith.remui %[[NEXT]]
// CHECK:   %[[NN:.*]] = arith.divui %[[NEXT]]
// CHECK:   scf.for %[[FIRST:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK:     scf.for %[[SECOND:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK:       %[[C0:.*]] = arith.select %[[ACROSS]], %[[FIRST]], %[[SECOND]] : index
// CHECK:       %[[W0:.*]] = arith.select %[[ACROSS]], %[[SECOND]], %[[FIRST]] : index
// CHECK:       vector.load %[[X]][%[[N]], %[[C0]], %[[H]], %[[W0]]] : memref<?x?x?x?xf32>, vector<8xf32>
// CHECK-COUNT-7: vector.load %[[X]][%[[N]], %{{.*}}, %[[H]], %[[W0]]]
// CHECK:       memref.prefetch %[[X]][%[[NN]], %[[C0]], %[[NH]], %[[W0]]], read, locality<3>, data
// CHECK-COUNT-7: memref.prefetch %[[X]][%[[NN]], %{{.*}}, %[[NH]], %[[W0]]], read, locality<3>, data
// CHECK-COUNT-8: vector.shuffle %{{.*}}, %{{.*}} [{{0, 8, 1, 9, 4, 12, 5, 13|2, 10, 3, 11, 6, 14, 7, 15}}]
// CHECK-COUNT-8: vector.shuffle %{{.*}}, %{{.*}} [{{0, 1, 8, 9, 4, 5, 12, 13|2, 3, 10, 11, 6, 7, 14, 15}}]
// CHECK-COUNT-8: vector.shuffle %{{.*}}, %{{.*}} [{{0, 1, 2, 3, 8, 9, 10, 11|4, 5, 6, 7, 12, 13, 14, 15}}]
// CHECK:       vector.store %{{.*}}, %[[Y]][%[[N]], %[[H]], %[[W0]], %[[C0]]] : memref<?x?x?x?xf32>, vector<8xf32>
// CHECK-COUNT-7: vector.store %{{.*}}, %[[Y]][%[[N]], %[[H]], %{{.*}}, %[[C0]]]
// CHECK:     }
// CHECK:   }
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK:       memref.load %[[X]]
// CHECK:       memref.store %{{.*}}, %[[Y]]
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK:       memref.load %[[X]]
// CHECK:       memref.store %{{.*}}, %[[Y]]
// CHECK: } {opal.parallel}
// FOUR-LABEL: func.func @channels_last
// FOUR: vector.load {{.*}} vector<4xf32>
// FOUR-COUNT-4: vector.shuffle %{{.*}}, %{{.*}} [{{0, 4, 1, 5|2, 6, 3, 7}}]
// FOUR-COUNT-4: vector.shuffle %{{.*}}, %{{.*}} [{{0, 1, 4, 5|2, 3, 6, 7}}]
func.func @channels_last(%x: memref<?x?x?x?xf32>, %y: memref<?x?x?x?xf32>) {
  linalg.transpose ins(%x : memref<?x?x?x?xf32>) outs(%y : memref<?x?x?x?xf32>) permutation = [0, 2, 3, 1]
  return
}

// -----

// Transposes whose two sides are dense along the same dim (rows copied in
// order) or not dense along the last (a strided view) stay as they are.
// CHECK-LABEL: func.func @stays
// CHECK: linalg.transpose {{.*}}permutation = [1, 0, 2]
// CHECK: linalg.transpose {{.*}}permutation = [1, 0]
func.func @stays(%x: memref<?x?x?xf32>, %y: memref<?x?x?xf32>,
                 %a: memref<?x?xf32, strided<[1, ?]>>, %b: memref<?x?xf32>) {
  linalg.transpose ins(%x : memref<?x?x?xf32>) outs(%y : memref<?x?x?xf32>) permutation = [1, 0, 2]
  linalg.transpose ins(%a : memref<?x?xf32, strided<[1, ?]>>) outs(%b : memref<?x?xf32>) permutation = [1, 0]
  return
}

// -----

// A temporary source (just written: in the cache) is not prefetched.
// CHECK-LABEL: func.func @temporary_source
// CHECK: vector.load
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @temporary_source(%x: memref<?x?x?x?xf32>, %y: memref<?x?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %x, %c0 : memref<?x?x?x?xf32>
  %c = memref.dim %x, %c1 : memref<?x?x?x?xf32>
  %h = memref.dim %x, %c2 : memref<?x?x?x?xf32>
  %w = memref.dim %x, %c3 : memref<?x?x?x?xf32>
  %t = memref.alloc(%n, %c, %h, %w) : memref<?x?x?x?xf32>
  memref.copy %x, %t : memref<?x?x?x?xf32> to memref<?x?x?x?xf32>
  linalg.transpose ins(%t : memref<?x?x?x?xf32>) outs(%y : memref<?x?x?x?xf32>) permutation = [0, 2, 3, 1]
  memref.dealloc %t : memref<?x?x?x?xf32>
  return
}

// -----

// A source read with a stride of 2 along its last dim (a strided
// convolution's phase: every other pixel of each channel's row): its rows
// are read through a view of the same buffer with a unit stride and twice
// the elements, a tile's row one load of 16 lanes, the 16th masked off (the
// odd element after the last one read may lie past the buffer), whose even
// lanes are kept.
// CHECK-LABEL: func.func @every_other
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?xf32, strided<[?, ?, 2], offset: ?>>, %[[Y:.*]]: memref<?x?x?xf32>)
// CHECK: %{{.*}}, %[[OFFSET:.*]], %[[SIZES:.*]]:3, %[[STRIDES:.*]]:3 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[TWICE:.*]] = arith.addi %[[SIZES]]#2, %[[SIZES]]#2 : index
// CHECK: %[[PAIRS:.*]] = memref.reinterpret_cast %[[X]] to offset: [%[[OFFSET]]], sizes: [%[[SIZES]]#0, %[[SIZES]]#1, %[[TWICE]]], strides: [%[[STRIDES]]#0, %[[STRIDES]]#1, 1]
// CHECK: %[[FIFTEEN:.*]] = vector.constant_mask [15] : vector<16xi1>
// CHECK: scf.for %[[FIRST:.*]] = %{{.*}} step %c8 {
// CHECK:   scf.for %[[SECOND:.*]] = %{{.*}} step %c8 {
// CHECK:     %[[I0:.*]] = arith.select %{{.*}}, %[[FIRST]], %[[SECOND]] : index
// CHECK:     %[[A0:.*]] = arith.select %{{.*}}, %[[SECOND]], %[[FIRST]] : index
// CHECK:     %[[AT:.*]] = arith.addi %[[A0]], %[[A0]] : index
// CHECK:     %[[PAIR:.*]] = vector.maskedload %[[PAIRS]][%{{.*}}, %[[I0]], %[[AT]]], %[[FIFTEEN]]
// CHECK:     vector.shuffle %[[PAIR]], %[[PAIR]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK-COUNT-7: vector.maskedload %[[PAIRS]]
// CHECK:     memref.prefetch %[[PAIRS]]
// The edges, element by element, read the source itself.
// CHECK: memref.load %[[X]]
func.func @every_other(%x: memref<?x?x?xf32, strided<[?, ?, 2], offset: ?>>, %y: memref<?x?x?xf32>) {
  linalg.transpose ins(%x : memref<?x?x?xf32, strided<[?, ?, 2], offset: ?>>) outs(%y : memref<?x?x?xf32>) permutation = [0, 2, 1]
  return
}

// -----

// A branch yielding buffers of one layout through casts to a fully dynamic
// one (as one-shot bufferization types an scf.if whose branches it cannot
// tell apart: a convolution's sums, channels last, from either lowering)
// takes that layout, so the transpose that reads it knows its rows dense
// and runs in tiles; a user that is not a structured op (the return)
// reads it through a cast back.
// CHECK-LABEL: func.func @branch_layout
// CHECK: %[[BRANCH:.*]] = scf.if %{{.*}} -> (memref<?x?x?xf32, strided<[?, ?, 1]>>) {
// CHECK-NOT: memref.cast
// CHECK: scf.yield %{{.*}} : memref<?x?x?xf32, strided<[?, ?, 1]>>
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : memref<?x?x?xf32, strided<[?, ?, 1]>>
// CHECK: %[[WIDE:.*]] = memref.cast %[[BRANCH]] : memref<?x?x?xf32, strided<[?, ?, 1]>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NOT: linalg.transpose
// CHECK: vector.shuffle
// CHECK: return %[[WIDE]]
func.func @branch_layout(%c: i1, %a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>,
                         %y: memref<?x?x?xf32>) -> memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %y, %c0 : memref<?x?x?xf32>
  %f = memref.dim %y, %c1 : memref<?x?x?xf32>
  %o = memref.dim %y, %c2 : memref<?x?x?xf32>
  %r = scf.if %c -> (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) {
    %s = memref.subview %a[0, 0, 0] [%n, %o, %f] [1, 1, 1] : memref<?x?x?xf32> to memref<?x?x?xf32, strided<[?, ?, 1]>>
    %w = memref.cast %s : memref<?x?x?xf32, strided<[?, ?, 1]>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
    scf.yield %w : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  } else {
    %s = memref.subview %b[0, 0, 0] [%n, %o, %f] [1, 1, 1] : memref<?x?x?xf32> to memref<?x?x?xf32, strided<[?, ?, 1]>>
    %w = memref.cast %s : memref<?x?x?xf32, strided<[?, ?, 1]>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
    scf.yield %w : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  }
  linalg.transpose ins(%r : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) outs(%y : memref<?x?x?xf32>) permutation = [0, 2, 1]
  return %r : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
}
