// RUN: opal-opt %s --opal-lower-to-linalg --split-input-file | FileCheck %s

// Unary float math: one linalg.generic, output sized from the input.
// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[X]] : tensor<?x4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: math.log1p
// CHECK-NOT: prims.
func.func @unary(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = prims.log1p %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// slice_scatter (a cat's decomposition writes each part into zeros so)
// is src inserted into the slice, its sizes clamped to the slice's (a src
// of other sizes, refused by a data check after the call, writes nothing
// outside it): bufferized in place, each write touches its slice only.
// CHECK-LABEL: func.func @slice_scatter
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[S:.*]]: tensor<?x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[N:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[S]][0, 0] [%[[N]], %{{.*}}] [1, 1]
// CHECK: tensor.insert_slice %[[PART]] into %[[A]][%c1, 0] [%[[N]], %{{.*}}] [%c2, 1]
func.func @slice_scatter(%a: tensor<8x4xf32>, %s: tensor<?x4xf32>) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c7 = arith.constant 7 : i64
  %r = prims.slice_scatter %a, %s, %c1, %c7, %c2, %c0 : (tensor<8x4xf32>, tensor<?x4xf32>, i64, i64, i64, i64) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// Binary ops pick the float or integer arith op.
// CHECK-LABEL: func.func @binary
// CHECK: arith.mulf
// CHECK: arith.divsi
// CHECK: arith.maximumf
// CHECK: math.ipowi
func.func @binary(%a: tensor<3xf64>, %i: tensor<3xi64>)
    -> (tensor<3xf64>, tensor<3xi64>, tensor<3xf64>, tensor<3xi64>) {
  %m = prims.mul %a, %a : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %d = prims.div %i, %i : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %x = prims.maximum %a, %a : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %p = prims.pow %i, %i : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %m, %d, %x, %p : tensor<3xf64>, tensor<3xi64>, tensor<3xf64>, tensor<3xi64>
}

// -----

// A constant splat operand (prims.full broadcast, used twice) is read as
// its scalar in each payload, converted as prims.full converts it: the
// generics take only x, and the broadcast is left unused.
// CHECK-LABEL: func.func @constant_splat_operands
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: math.powf %[[IN]], %[[C]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[C]] : f32
func.func @constant_splat_operands(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c3 = arith.constant 3.0 : f64
  %f32 = arith.constant 6 : i64
  %false = arith.constant false
  %cpu = opal.device "cpu"
  %scalar = opal.list -> !opal.list<i64>
  %full = prims.full %scalar, %c3, %f32, %cpu, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %shape = opal.list %c4, %c8 : i64, i64 -> !opal.list<i64>
  %none = opal.list -> !opal.list<i64>
  %b = prims.broadcast_in_dim %full, %shape, %none : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<4x8xf32>
  %p = prims.pow %x, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = prims.mul %x, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %p, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Comparisons produce bool tensors; `where` selects.
// CHECK-LABEL: func.func @compare_select
// CHECK: arith.cmpf olt
// CHECK: -> tensor<2x2xi1>
// CHECK: arith.cmpi sge
// CHECK: arith.select
func.func @compare_select(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %i: tensor<2x2xi32>)
    -> (tensor<2x2xf32>, tensor<2x2xi1>) {
  %lt = prims.lt %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>
  %ge = prims.ge %i, %i : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
  %r = prims.where %lt, %a, %b : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r, %ge : tensor<2x2xf32>, tensor<2x2xi1>
}

// -----

// convert_element_type: the result type says the target dtype.
// CHECK-LABEL: func.func @convert
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.cmpf une
func.func @convert(%i: tensor<5xi64>, %f: tensor<5xf32>)
    -> (tensor<5xf32>, tensor<5xf64>, tensor<5xi1>) {
  %float = arith.constant 6 : i64
  %double = arith.constant 7 : i64
  %bool = arith.constant 11 : i64
  %a = prims.convert_element_type %i, %float : (tensor<5xi64>, i64) -> tensor<5xf32>
  %b = prims.convert_element_type %f, %double : (tensor<5xf32>, i64) -> tensor<5xf64>
  %c = prims.convert_element_type %f, %bool : (tensor<5xf32>, i64) -> tensor<5xi1>
  return %a, %b, %c : tensor<5xf32>, tensor<5xf64>, tensor<5xi1>
}

// -----

// Static shapes need no tensor.dim; 0-d tensors work too.
// CHECK-LABEL: func.func @static_and_scalar
// CHECK-NOT: tensor.dim
// CHECK: tensor.empty() : tensor<f32>
// CHECK: arith.negf
func.func @static_and_scalar(%x: tensor<f32>) -> tensor<f32> {
  %r = prims.neg %x : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// broadcast_in_dim: size-1 input dimensions read index 0.
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}]
// CHECK-SAME: ins(%arg0 : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @broadcast(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %shape = opal.list %c2, %c3, %c4 : i64, i64, i64 -> !opal.list<i64>
  %dims = opal.list %c1, %c2 : i64, i64 -> !opal.list<i64>
  %r = prims.broadcast_in_dim %x, %shape, %dims : (tensor<3x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<5x?x4xf32>
// CHECK: linalg.transpose ins(%arg0 : tensor<?x4x5xf32>) outs(%[[E]] : tensor<5x?x4xf32>) permutation = [2, 0, 1]
func.func @transpose(%y: tensor<?x4x5xf32>) -> tensor<5x?x4xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %perm = opal.list %c2, %c0, %c1 : i64, i64, i64 -> !opal.list<i64>
  %t = prims.transpose %y, %perm : (tensor<?x4x5xf32>, !opal.list<i64>) -> tensor<5x?x4xf32>
  return %t : tensor<5x?x4xf32>
}

// -----

// Reductions: an init filled with the identity, then linalg.reduce.
// CHECK-LABEL: func.func @reductions
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[IMAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: linalg.reduce ins(%arg0 : tensor<?x4x5xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [0, 2]
// CHECK: arith.addf
// CHECK: linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: dimensions = [0, 1, 2]
// CHECK: arith.maximumf
// CHECK: linalg.fill ins(%[[IMAX]] : i64)
// CHECK: dimensions = [1]
// CHECK: arith.minsi
func.func @reductions(%y: tensor<?x4x5xf32>, %i: tensor<3x7xi64>) -> (tensor<4xf32>, tensor<f32>, tensor<3xi64>) {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %cm1 = arith.constant -1 : i64
  %none = opal.none
  %d02 = opal.list %c0, %c2 : i64, i64 -> !opal.list<i64>
  %dlast = opal.list %cm1 : i64 -> !opal.list<i64>
  %s = prims.sum %y, %d02, %none : (tensor<?x4x5xf32>, !opal.list<i64>, !opal.none) -> tensor<4xf32>
  %m = prims.amax %y, %none, %none : (tensor<?x4x5xf32>, !opal.none, !opal.none) -> tensor<f32>
  %n = prims.amin %i, %dlast, %none : (tensor<3x7xi64>, !opal.list<i64>, !opal.none) -> tensor<3xi64>
  return %s, %m, %n : tensor<4xf32>, tensor<f32>, tensor<3xi64>
}

// -----

// Matrix products accumulate into a zero-filled init.
// CHECK-LABEL: func.func @products
// CHECK: %[[ROWS:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[COLS:.*]] = tensor.dim %arg1, %c1
// CHECK: tensor.empty(%[[ROWS]], %[[COLS]]) : tensor<?x?xf32>
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<?x8xf32>, tensor<8x?xf32>)
// CHECK: linalg.batch_matmul ins(%arg2, %arg3 : tensor<2x3x4xf64>, tensor<2x4x5xf64>)
func.func @products(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>, %p: tensor<2x3x4xf64>, %q: tensor<2x4x5xf64>)
    -> (tensor<?x?xf32>, tensor<2x3x5xf64>) {
  %mm = prims.mm %a, %b : (tensor<?x8xf32>, tensor<8x?xf32>) -> tensor<?x?xf32>
  %bmm = prims.bmm %p, %q : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  return %mm, %bmm : tensor<?x?xf32>, tensor<2x3x5xf64>
}

// -----

// Creation and reshape.
// CHECK-LABEL: func.func @creation
// CHECK: %[[SHAPE:.*]] = arith.constant dense<[3, 4]> : tensor<2xindex>
// CHECK: tensor.reshape %arg0(%[[SHAPE]]) : (tensor<2x6xf32>, tensor<2xindex>) -> tensor<3x4xf32>
// CHECK: %[[V:.*]] = arith.truncf %arg1 : f64 to f32
// CHECK: linalg.fill ins(%[[V]] : f32) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[N:.*]] = arith.index_cast %arg2 : i64 to index
// CHECK: tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: linalg.index 0
// CHECK: arith.muli
func.func @creation(%x: tensor<2x6xf32>, %fill: f64, %n: i64) -> (tensor<3x4xf32>, tensor<2x3xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %f32 = arith.constant 6 : i64
  %long = arith.constant 4 : i64
  %cpu = opal.device "cpu"
  %false = arith.constant false
  %s34 = opal.list %c3, %c4 : i64, i64 -> !opal.list<i64>
  %r = prims.reshape %x, %s34 : (tensor<2x6xf32>, !opal.list<i64>) -> tensor<3x4xf32>
  %s23 = opal.list %c2, %c3 : i64, i64 -> !opal.list<i64>
  %full = prims.full %s23, %fill, %f32, %cpu, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<2x3xf32>
  %iota = prims.iota %n, %c0, %c2, %long, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> tensor<?xi64>
  return %r, %full, %iota : tensor<3x4xf32>, tensor<2x3xf32>, tensor<?xi64>
}

// -----

// A reshape to 0-d: an empty shape tensor (a regression: its type was
// inferred from the first size, and there is none).
// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK: %[[SHAPE:.*]] = arith.constant dense<> : tensor<0xindex>
// CHECK: tensor.reshape %arg0(%[[SHAPE]]) : (tensor<1x1xf32>, tensor<0xindex>) -> tensor<f32>
func.func @reshape_to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %none = opal.list -> !opal.list<i64>
  %r = prims.reshape %x, %none : (tensor<1x1xf32>, !opal.list<i64>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// squeeze: a collapse_shape; removed dims join the kept dim after them, or
// the last one; removing every dim gives a 0-d tensor.
// CHECK-LABEL: func.func @squeeze
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3, 4]] : tensor<1x?x1x4x1xf32> into tensor<?x4xf32>
// CHECK: tensor.collapse_shape %arg1 [] : tensor<1x1xf32> into tensor<f32>
func.func @squeeze(%x: tensor<1x?x1x4x1xf32>, %y: tensor<1x1xf32>) -> (tensor<?x4xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %l = opal.list %c0, %c2, %c4 : i64, i64, i64 -> !opal.list<i64>
  %r = prims.squeeze %x, %l : (tensor<1x?x1x4x1xf32>, !opal.list<i64>) -> tensor<?x4xf32>
  %l2 = opal.list %c0, %c1 : i64, i64 -> !opal.list<i64>
  %s = prims.squeeze %y, %l2 : (tensor<1x1xf32>, !opal.list<i64>) -> tensor<f32>
  return %r, %s : tensor<?x4xf32>, tensor<f32>
}

// -----

// argmax: one generic reduces dim 1 into the extreme so far and its index
// (linalg.index), the first one winning; NaN counts as the extreme.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[VALUES:.*]] = linalg.fill ins(%{{.*}} : f32)
// CHECK: %[[INDICES:.*]] = linalg.fill ins(%{{.*}} : i64)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<4x?xf32>) outs(%[[VALUES]], %[[INDICES]] : tensor<4xf32>, tensor<4xi64>)
// CHECK: linalg.index 1
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK-NOT: prims.
func.func @argmax(%x: tensor<4x?xf32>) -> tensor<4xi64> {
  %c1 = arith.constant 1 : i64
  %r = prims.argmax %x, %c1 : (tensor<4x?xf32>, i64) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// take (embedding's gather): the index is an operand read through its own
// map; `a` is read with tensor.extract only where the index is in range.
// CHECK-LABEL: func.func @take
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x?xi64>) outs(%{{.*}} : tensor<2x?x3xf32>)
// CHECK: scf.if
// CHECK: tensor.extract
// CHECK-NOT: prims.
func.func @take(%w: tensor<?x3xf32>, %i: tensor<2x?xi64>) -> tensor<2x?x3xf32> {
  %c0 = arith.constant 0 : i64
  %r = prims.take %w, %c0, %i : (tensor<?x3xf32>, i64, tensor<2x?xi64>) -> tensor<2x?x3xf32>
  return %r : tensor<2x?x3xf32>
}

// -----

// max_pool whose indices nothing reads (max_pool2d): the input padded with
// -inf (by the padding before; after, by what the last window reaches past
// the input, at least 0), then one generic over (N, C, KH, KW, OH, OW), the
// output loops innermost, reading the padded input at o * stride + k *
// dilation without a check: the maximum (NaN wins) into -inf. No index.
// CHECK-LABEL: func.func @max_pool_values
// CHECK: %[[PADDED:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, %{{.*}}, %{{.*}}]
// CHECK: tensor.yield %cst
// CHECK: %[[INIT:.*]] = linalg.fill ins(%cst : f32)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%[[PADDED]], %{{.*}} : tensor<?x?x?x?xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<?x?x?x?xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: arith.select
// CHECK: return
func.func @max_pool_values(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %false = arith.constant false
  %k = opal.list %c3, %c3 : i64, i64 -> !opal.list<i64>
  %s = opal.list %c2, %c2 : i64, i64 -> !opal.list<i64>
  %p = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %d = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %v, %i = prims.max_pool %x, %k, %s, %p, %d, %false : (tensor<?x?x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xi64>)
  return %v : tensor<?x?x?x?xf32>
}

// -----

// avg_pool's gradient: one generic divides each output's gradient by its
// window's divisor, a second sums, for each input element, the windows
// that cover it: loops from ceil((i + padding - kernel + 1) / stride) to
// floor((i + padding) / stride), clipped to the output; nothing branches.
// CHECK-LABEL: func.func @avg_pool_backward
// CHECK: %[[SHARE:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3x4x4xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]{{.*}} outs({{.*}} : tensor<2x3x7x6xf32>)
// CHECK: arith.ceildivsi
// CHECK: arith.floordivsi
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract %[[SHARE]]
// CHECK-NOT: scf.if
// CHECK-NOT: prims.
func.func @avg_pool_backward(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x7x6xf32>) -> tensor<2x3x7x6xf32> {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %true = arith.constant true
  %false = arith.constant false
  %k = opal.list %c3, %c2 : i64, i64 -> !opal.list<i64>
  %s = opal.list %c2, %c2 : i64, i64 -> !opal.list<i64>
  %p = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %none = opal.none
  %r = prims.avg_pool_backward %g, %x, %k, %s, %p, %true, %false, %none : (tensor<2x3x4x4xf32>, tensor<2x3x7x6xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, !opal.none) -> tensor<2x3x7x6xf32>
  return %r : tensor<2x3x7x6xf32>
}

// -----

// adaptive_avg_pool's gradient: each cell's gradient divided by the cell's
// size, then each input element i sums the cells [floor(i n / L),
// ceil((i + 1) n / L)) that cover it (n cells over L elements).
// CHECK-LABEL: func.func @adaptive_avg_pool_backward
// CHECK: %[[SHARE:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<?x3x2x?xf64>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<?x3x5x?xf64>)
// CHECK: arith.floordivsi
// CHECK: arith.ceildivsi
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract %[[SHARE]]
// CHECK-NOT: prims.
func.func @adaptive_avg_pool_backward(%g: tensor<?x3x2x?xf64>, %x: tensor<?x3x5x?xf64>) -> tensor<?x3x5x?xf64> {
  %r = prims.adaptive_avg_pool_backward %g, %x : (tensor<?x3x2x?xf64>, tensor<?x3x5x?xf64>) -> tensor<?x3x5x?xf64>
  return %r : tensor<?x3x5x?xf64>
}

// -----

// With shifted-convolutions (the CPU JIT's), a convolution of stride 1 is
// a sum of matrix products over shifted rows: the input padded and
// channels last as [G, 1 (one phase), N, padded plane, Cg], seen as rows
// [G, N*P, Cg] (a float32 input: zero in the padding
// along each dim, the input transposed into the planes' interior, zero past
// the channels the input has),
// the weight as [G, K, Cg, Fg] (one group: a transpose of the weight); the rows of sums, summed over the kernel
// positions, each the product of rows shifted by the position's offset
// (from a table of offsets) with the position's weights; then the rows seen as
// [G, N, padded plane, Fg], whose corner of each plane, transposed, is the
// output. Without the option (and for CUDA), the im2col product.
// A float convolution of one group takes one of two lowerings per call:
// where its padded planes hold more than 1.4 times the rows its outputs
// need (small planes: a 2x2 plane padded to 4x4 is 16 rows for 4
// outputs), the im2col rows [N*O, C*K] read from the padded planes times
// the weight read in place as [F, C*K] (transposed maps, as linear's
// product), else the shifted products; each yields its sums channels last
// [N, O..., F], transposed once after the branch.
// RUN: opal-opt %s --opal-lower-to-linalg=shifted-convolutions --split-input-file | FileCheck %s --check-prefix=SHIFTED
// SHIFTED-LABEL: func.func @conv_shifted
// SHIFTED: %[[SMALL:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : index
// SHIFTED: %[[BRANCH:.*]] = scf.if %[[SMALL]] -> (tensor<?x?x?x?xf32>) {
// SHIFTED: %[[COLUMNS:.*]] = tensor.reshape %{{.*}}(%{{.*}}) {opal.regrouped} : (tensor<?x?x?x?x?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// SHIFTED: %[[MATRIX:.*]] = tensor.reshape %arg1(%{{.*}}) {opal.regrouped} : (tensor<?x?x?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// SHIFTED: %[[PRODUCT:.*]] = linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[COLUMNS]], %[[MATRIX]] : tensor<?x?xf32>, tensor<?x?xf32>)
// SHIFTED: %[[LAST:.*]] = tensor.reshape %[[PRODUCT]](%{{.*}}) {opal.regrouped} : (tensor<?x?xf32>, tensor<4xindex>) -> tensor<?x?x?x?xf32>
// SHIFTED: %[[ALL:.*]] = tensor.extract_slice %[[LAST]][0, 0, 0, 0]
// SHIFTED: scf.yield %[[ALL]] : tensor<?x?x?x?xf32>
// SHIFTED: } else {
// SHIFTED-COUNT-4: linalg.fill {{.*}} -> tensor<?x?x?x{{1x\?|\?x1}}x?xf32>
// SHIFTED: %[[CHANNELS:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// SHIFTED: %[[FROM:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [%{{.*}}, %[[CHANNELS]], %{{.*}}, %{{.*}}] [1, 1, 1, 1] : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
// SHIFTED: %[[INTERIOR:.*]] = tensor.extract_slice %[[PADDED:.*]][%{{.*}}, %{{.*}}, 0, 1, 1, 0] [1, 1, %{{.*}}, %{{.*}}, %{{.*}}, %[[CHANNELS]]] [1, 1, 1, 1, 1, 1] : tensor<?x?x?x?x?x?xf32> to tensor<?x?x?x?xf32>
// SHIFTED: %[[MOVED:.*]] = linalg.transpose ins(%[[FROM]] : tensor<?x?x?x?xf32>) outs(%[[INTERIOR]] : tensor<?x?x?x?xf32>) permutation = [0, 2, 3, 1]
// SHIFTED: %[[INSIDE:.*]] = tensor.insert_slice %[[MOVED]] into %[[PADDED]]
// SHIFTED: linalg.fill
// SHIFTED: %[[XT:.*]] = tensor.insert_slice %{{.*}} into %[[INSIDE]][%{{.*}}, %{{.*}}, 0, 1, 1, %[[CHANNELS]]]
// SHIFTED: %[[ROWS:.*]] = tensor.collapse_shape %[[XT]] {{\[\[}}0], [1, 2, 3, 4], [5]] : tensor<?x?x?x?x?x?xf32> into tensor<?x?x?xf32>
// One group: the weight [F, C, KH, KW] seen as [F, C, K] and transposed to
// [K, C, F] (a linalg.transpose), then [1, K, C, F].
// SHIFTED: %[[FLAT:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : tensor<?x?x?x?xf32> into tensor<?x?x?xf32>
// SHIFTED: %[[WT:.*]] = linalg.transpose ins(%[[FLAT]] : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) permutation = [2, 1, 0]
// SHIFTED: %[[WEIGHTS:.*]] = tensor.expand_shape %[[WT]] {{\[\[}}0, 1], [2], [3]] output_shape [1, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x?x?xf32> into tensor<1x?x?x?xf32>
// Q, the rows of sums computed.
// SHIFTED: %[[Q:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// Each kernel position's offset in the padded plane, a table computed once.
// SHIFTED: %[[SHIFTS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xindex>)
// SHIFTED: arith.remui
// SHIFTED: arith.divui
// The Q rows of sums filled, then each position's product summed into them.
// SHIFTED: %[[BLOCK:.*]] = tensor.extract_slice %[[SUMS:.*]][0, 0, 0] [%{{.*}}, %[[Q]], %{{.*}}] [1, 1, 1]
// SHIFTED: %[[ZEROS:.*]] = linalg.fill {{.*}} outs(%[[BLOCK]]
// SHIFTED: %[[SUMMED:.*]] = scf.for %[[K:.*]] = %{{.*}} iter_args(%{{.*}} = %[[ZEROS]])
// SHIFTED-NOT: arith.divui
// SHIFTED: %[[SHIFT:.*]] = tensor.extract %[[SHIFTS]][%[[K]]] : tensor<?xindex>
// SHIFTED: tensor.extract_slice %[[ROWS]][0, %[[SHIFT]], 0] [%{{.*}}, %[[Q]], %{{.*}}]
// SHIFTED: tensor.extract_slice %[[WEIGHTS]][0, %[[K]], 0, 0]
// SHIFTED: linalg.batch_matmul
// SHIFTED: tensor.insert_slice %[[SUMMED]] into %[[SUMS]][0, 0, 0]
// SHIFTED-NOT: linalg.batch_matmul
// SHIFTED: %[[PLANES:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4]] output_shape
// SHIFTED: %[[CORNER:.*]] = tensor.extract_slice %[[PLANES]][0, 0, 0, 0, 0] [1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [1, 1, 1, 1, 1] : tensor<?x?x?x?x?xf32> to tensor<?x?x?x?xf32>
// SHIFTED: scf.yield %[[CORNER]] : tensor<?x?x?x?xf32>
// SHIFTED: %[[OUT:.*]] = linalg.transpose ins(%[[BRANCH]] : tensor<?x?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?x?xf32>) permutation = [0, 3, 1, 2]
// SHIFTED: return %[[OUT]]
// PLAIN-LABEL: func.func @conv_shifted
// PLAIN-NOT: scf.for
// PLAIN: linalg.batch_matmul
// RUN: opal-opt %s --opal-lower-to-linalg --split-input-file | FileCheck %s --check-prefix=PLAIN
func.func @conv_shifted(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %one = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %one, %one, %one, %c1 : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// With shifted-convolutions, a pointwise convolution (a 1x1 kernel, stride
// 1, no padding, one group) of one image, or of planes of at least 128
// pixels, is one product per image and chunk of 512 pixels: the weight
// [F, C, 1, 1] read in place as [F, C] times the image's chunk [C, <= 512]
// (a slice of the input read in place as [N, C, H*W]), into that image's
// rows of the sums [N, F, H*W] at the chunk's columns, each zero-filled
// right before its product; the images and, inside them, the chunks are
// marked for threads (opal.parallel). No columns, no copy of the weight.
// Else (chosen per call) im2col's one product over every image's pixels,
// of the input as [N, C, H*W] and the weight as [F, C, 1]. Either branch
// yields the sums [N, F, H*W], read as [N, F, H, W] after it. Without the
// option, im2col.
// RUN: opal-opt %s --opal-lower-to-linalg=shifted-convolutions --split-input-file | FileCheck %s --check-prefix=POINTWISE
// POINTWISE-LABEL: func.func @conv_pointwise
// POINTWISE: %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// POINTWISE: %[[WIDE:.*]] = arith.cmpi sge, %{{.*}}, %c128 : index
// POINTWISE: %[[EITHER:.*]] = arith.ori %[[ONE]], %[[WIDE]] : i1
// POINTWISE: %[[SUMS:.*]] = scf.if %[[EITHER]] -> (tensor<?x?x?xf32>) {
// The channels both have (a data check raises where they differ; no product
// reads past either):
// POINTWISE: %[[C:.*]] = arith.minui
// POINTWISE: %[[WM:.*]] = tensor.reshape %arg1(%{{.*}}) {opal.regrouped} : (tensor<?x?x1x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// POINTWISE: %[[W:.*]] = tensor.extract_slice %[[WM]][0, 0] [%{{.*}}, %[[C]]] [1, 1]
// POINTWISE: %[[IMAGES:.*]] = tensor.reshape %arg0(%{{.*}}) {opal.regrouped} : (tensor<?x?x?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
// POINTWISE: %[[EACH:.*]] = scf.for %[[N:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<?x?x?xf32>)
// POINTWISE: %[[CHUNKS:.*]] = scf.for %[[J:.*]] = %c0 to %{{.*}} step %c512 iter_args(%[[PART:.*]] = %[[ACC]]) -> (tensor<?x?x?xf32>)
// POINTWISE: %[[WIDTH:.*]] = arith.minui %{{.*}}, %c512 : index
// POINTWISE: %[[X:.*]] = tensor.extract_slice %[[IMAGES]][%[[N]], 0, %[[J]]] [1, %[[C]], %[[WIDTH]]] [1, 1, 1] : tensor<?x?x?xf32> to tensor<?x?xf32>
// POINTWISE: %[[ROWS:.*]] = tensor.extract_slice %[[PART]][%[[N]], 0, %[[J]]]
// POINTWISE: %[[ZEROS:.*]] = linalg.fill {{.*}} outs(%[[ROWS]] : tensor<?x?xf32>)
// POINTWISE: %[[P:.*]] = linalg.matmul ins(%[[W]], %[[X]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[ZEROS]] : tensor<?x?xf32>)
// POINTWISE: tensor.insert_slice %[[P]] into %[[PART]][%[[N]], 0, %[[J]]]
// POINTWISE: } {opal.parallel}
// POINTWISE: scf.yield %[[CHUNKS]]
// POINTWISE: } {opal.parallel}
// POINTWISE: scf.yield %[[EACH]] : tensor<?x?x?xf32>
// POINTWISE: } else {
// The columns: zeros where the input has no channel, else read from the
// input itself (no choice of a tensor to read, which bufferization would
// copy the input for):
// POINTWISE: %[[NONE:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// POINTWISE: scf.if %[[NONE]] -> (tensor<?x?x?xf32>) {
// POINTWISE: linalg.fill
// POINTWISE: } else {
// POINTWISE: %[[LINE:.*]] = tensor.reshape %arg0(%{{.*}}) {opal.regrouped} : (tensor<?x?x?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
// POINTWISE: tensor.reshape %arg1(%{{.*}}) {opal.regrouped} : (tensor<?x?x1x1xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
// POINTWISE-NOT: scf.if
// POINTWISE: tensor.extract %[[LINE]]
// POINTWISE: linalg.batch_matmul
// POINTWISE: scf.yield %{{.*}} : tensor<?x?x?xf32>
// POINTWISE: %[[OUT:.*]] = tensor.reshape %[[SUMS]](%{{.*}}) {opal.regrouped} : (tensor<?x?x?xf32>, tensor<4xindex>) -> tensor<?x?x?x?xf32>
// POINTWISE: return %[[OUT]]
// PLAIN-LABEL: func.func @conv_pointwise
// PLAIN: linalg.batch_matmul
func.func @conv_pointwise(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x1x1xf32>) -> tensor<?x?x?x?xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %zero = opal.list %c0, %c0 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %one, %zero, %one, %c1 : (tensor<?x?x?x?xf32>, tensor<?x?x1x1xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// With the bias aten's decomposition adds: each image's product starts
// from the bias's rows (a generic right before it, which opal-tile-matmul
// starts its tiles from), the columns add it in a pass of their own, and
// an input without channels gives the bias; no add or broadcast is left.
// POINTWISE-LABEL: func.func @conv_pointwise_bias
// POINTWISE-SAME: %[[B:[a-z0-9]+]]: tensor<?xf32>)
// POINTWISE: scf.for
// POINTWISE-NOT: linalg.fill
// POINTWISE: tensor.extract %[[B]]
// POINTWISE: linalg.matmul
// POINTWISE: } else {
// POINTWISE: linalg.fill
// POINTWISE: arith.addf
// POINTWISE: } else {
// POINTWISE: linalg.batch_matmul
// POINTWISE: arith.addf
// POINTWISE-NOT: prims.
// POINTWISE: return
func.func @conv_pointwise_bias(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x1x1xf32>, %b: tensor<?xf32>) -> tensor<?x?x?x?xf32> {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %zero = opal.list %c0, %c0 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %one, %zero, %one, %c1 : (tensor<?x?x?x?xf32>, tensor<?x?x1x1xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  %d0 = tensor.dim %r, %i0 : tensor<?x?x?x?xf32>
  %d1 = tensor.dim %r, %i1 : tensor<?x?x?x?xf32>
  %d2 = tensor.dim %r, %i2 : tensor<?x?x?x?xf32>
  %d3 = tensor.dim %r, %i3 : tensor<?x?x?x?xf32>
  %s0 = arith.index_cast %d0 : index to i64
  %s1 = arith.index_cast %d1 : index to i64
  %s2 = arith.index_cast %d2 : index to i64
  %s3 = arith.index_cast %d3 : index to i64
  %shape = opal.list %s0, %s1, %s2, %s3 : i64, i64, i64, i64 -> !opal.list<i64>
  %at = opal.list %c1 : i64 -> !opal.list<i64>
  %bb = prims.broadcast_in_dim %b, %shape, %at : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x?x?x?xf32>
  %a = prims.add %r, %bb : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %a : tensor<?x?x?x?xf32>
}

// -----

// With shifted-convolutions, a convolution of stride 2 also sums products
// over shifted rows, of its padded input's four phases (the pixels of even
// or odd padded row and column, each a plane of ceil(padded / 2)^2 rows):
// xT [G, 4, N, P, P, Cg], filled with zero, then a loop over the phases:
// phase (a, b) is the input read with a stride of 2 from its first pixel
// in that phase ((a - 1) mod 2, (b - 1) mod 2 with a padding of 1),
// transposed into the phase's interior (from row (first + 1 - a) / 2). A
// kernel position (kh, kw) reads phase (kh mod 2, kw mod 2) at offset
// (kh div 2, kw div 2) in its plane: the table of shifts adds the phase's
// first row (N planes per phase).
// SHIFTED-LABEL: func.func @conv_strided
// SHIFTED: %[[EMPTY:.*]] = tensor.empty(%{{.*}}, %c4, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x?x?x?xf32>
// SHIFTED: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<?x?x?x?x?x?xf32>)
// SHIFTED: %[[XT:.*]] = scf.for %[[PHASE:.*]] = %c0 to %c4 step %c1 iter_args(%[[INTO:.*]] = %[[ZEROS]])
// SHIFTED:   %[[A:.*]] = arith.remui %{{.*}}, %c2 : index
// SHIFTED:   %[[PLUS:.*]] = arith.addi %[[A]], %c1 : index
// SHIFTED:   %[[FIRSTROW:.*]] = arith.remui %[[PLUS]], %c2 : index
// SHIFTED:   %[[B:.*]] = arith.remui %[[PHASE]], %c2 : index
// SHIFTED:   %[[FIRSTCOL:.*]] = arith.remui %{{.*}}, %c2 : index
// SHIFTED:   %[[FROM:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, %[[FIRSTROW]], %[[FIRSTCOL]]] [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [1, 1, 2, 2]
// SHIFTED:   %[[INTERIOR:.*]] = tensor.extract_slice %[[INTO]][%{{.*}}, %[[PHASE]], 0, %{{.*}}, %{{.*}}, 0]
// SHIFTED:   %[[MOVED:.*]] = linalg.transpose ins(%[[FROM]] : tensor<?x?x?x?xf32>) outs(%[[INTERIOR]] : tensor<?x?x?x?xf32>) permutation = [0, 2, 3, 1]
// SHIFTED:   tensor.insert_slice %[[MOVED]] into %[[INTO]][%{{.*}}, %[[PHASE]], 0, %{{.*}}, %{{.*}}, 0]
// SHIFTED-NOT: linalg.transpose
// SHIFTED: scf.yield
// SHIFTED: %[[ROWS:.*]] = tensor.collapse_shape %[[XT]] {{\[\[}}0], [1, 2, 3, 4], [5]]
// SHIFTED: linalg.generic {{.*}} outs(%{{.*}} : tensor<?xindex>)
// SHIFTED: arith.remui %{{.*}}, %c2 : index
// SHIFTED: arith.divui %{{.*}}, %c2 : index
// SHIFTED: arith.remui %{{.*}}, %c2 : index
// SHIFTED: arith.divui %{{.*}}, %c2 : index
// SHIFTED-NEXT: arith.muli
// SHIFTED-NEXT: arith.addi
// SHIFTED-NEXT: %[[PHASEFIRST:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// SHIFTED-NEXT: %[[SHIFT:.*]] = arith.addi %{{.*}}, %[[PHASEFIRST]] : index
// SHIFTED-NEXT: linalg.yield %[[SHIFT]] : index
// SHIFTED: linalg.batch_matmul
func.func @conv_strided(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %one = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %two = opal.list %c2, %c2 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %two, %one, %one, %c1 : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// With shifted-convolutions, a convolution of several groups whose channels
// per group are few or unknown (a depthwise one) is one generic over
// (n, g, f, c, k..., o...): the padded input read at o * stride + k *
// dilation, the output loops innermost; no products. The padded input is
// zero in the padding (a row above and below, a column left and right,
// past the input's channels) and a copy of the input in the interior,
// seen as [N, G, Cg, padded...]: no generic that elementwise fusion would
// recompute at each kernel position.
// SHIFTED-LABEL: func.func @conv_grouped
// SHIFTED-SAME: (%[[X:.*]]: tensor<?x?x?x?xf32>, %[[W:.*]]: tensor<?x?x?x?xf32>)
// SHIFTED-COUNT-4: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x?x{{.*}}x{{.*}}xf32>)
// SHIFTED: %[[FROM:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0]
// SHIFTED: %[[INTERIOR:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1]
// SHIFTED: %[[COPIED:.*]] = linalg.copy ins(%[[FROM]] : tensor<?x?x?x?xf32>) outs(%[[INTERIOR]] : tensor<?x?x?x?xf32>)
// SHIFTED: tensor.insert_slice %[[COPIED]] into %{{.*}}[0, 0, 1, 1]
// SHIFTED: linalg.fill
// SHIFTED: %[[PADDED:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 4, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x?x?x?xf32> into tensor<?x4x?x?x?xf32>
// SHIFTED: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%[[PADDED]], %{{.*}} :
// SHIFTED: arith.mulf
// SHIFTED: arith.addf
// SHIFTED-NOT: linalg.batch_matmul
// SHIFTED: return
func.func @conv_grouped(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %one = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %two = opal.list %c2, %c2 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %two, %one, %one, %c4 : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// Groups given at run time (a CPU kernel for every grouped convolution):
// the same generic, with the groups dim of the padded input dynamic and
// its size the argument's value.
// SHIFTED-LABEL: func.func @conv_runtime_groups
// SHIFTED-SAME: (%[[X:.*]]: tensor<?x?x?x?xf32>, %[[W:.*]]: tensor<?x1x?x?xf32>, %[[G:.*]]: i64)
// SHIFTED: %[[GROUPS:.*]] = arith.index_cast %[[G]] : i64 to index
// SHIFTED: %[[PADDED:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, %[[GROUPS]], %{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x?x?x?xf32> into tensor<?x?x?x?x?xf32>
// SHIFTED: linalg.generic {{.*}} ins(%[[PADDED]], %{{.*}} :
// SHIFTED-NOT: linalg.batch_matmul
// SHIFTED: return
func.func @conv_runtime_groups(%x: tensor<?x?x?x?xf32>, %w: tensor<?x1x?x?xf32>, %groups: i64) -> tensor<?x?x?x?xf32> {
  %c1 = arith.constant 1 : i64
  %one = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %one, %one, %one, %groups : (tensor<?x?x?x?xf32>, tensor<?x1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// A grouped convolution whose bias aten's decomposition adds after it
// (prims.add of a prims.broadcast_in_dim along dim 1): the sums start from
// bias[g * Fg + f] (a generic writes it where they start; the tiles of
// opal-tile-depthwise start from it), and no add or broadcast is left.
// SHIFTED-LABEL: func.func @conv_grouped_bias
// SHIFTED-SAME: %[[B:[a-z0-9]+]]: tensor<?xf32>, %{{.*}}: i64)
// SHIFTED: tensor.extract %[[B]]
// SHIFTED: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
// SHIFTED-NOT: linalg.generic
// SHIFTED-NOT: prims.
// SHIFTED: return
func.func @conv_grouped_bias(%x: tensor<?x?x?x?xf32>, %w: tensor<?x1x?x?xf32>, %b: tensor<?xf32>, %groups: i64) -> tensor<?x?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one64 = arith.constant 1 : i64
  %one = opal.list %one64, %one64 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %one, %one, %one, %groups : (tensor<?x?x?x?xf32>, tensor<?x1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  %d0 = tensor.dim %r, %c0 : tensor<?x?x?x?xf32>
  %d1 = tensor.dim %r, %c1 : tensor<?x?x?x?xf32>
  %d2 = tensor.dim %r, %c2 : tensor<?x?x?x?xf32>
  %d3 = tensor.dim %r, %c3 : tensor<?x?x?x?xf32>
  %i0 = arith.index_cast %d0 : index to i64
  %i1 = arith.index_cast %d1 : index to i64
  %i2 = arith.index_cast %d2 : index to i64
  %i3 = arith.index_cast %d3 : index to i64
  %shape = opal.list %i0, %i1, %i2, %i3 : i64, i64, i64, i64 -> !opal.list<i64>
  %at = opal.list %one64 : i64 -> !opal.list<i64>
  %bb = prims.broadcast_in_dim %b, %shape, %at : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x?x?x?xf32>
  %a = prims.add %r, %bb : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %a : tensor<?x?x?x?xf32>
}

// -----

// The same with the sum read twice: the add stays, and the sums start from
// zero.
// SHIFTED-LABEL: func.func @conv_grouped_bias_read_twice
// SHIFTED: linalg.fill
// SHIFTED: arith.addf
// SHIFTED: return
func.func @conv_grouped_bias_read_twice(%x: tensor<?x?x?x?xf32>, %w: tensor<?x1x?x?xf32>, %b: tensor<?x?x?x?xf32>, %groups: i64) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %one64 = arith.constant 1 : i64
  %one = opal.list %one64, %one64 : i64, i64 -> !opal.list<i64>
  %r = prims.conv %x, %w, %one, %one, %one, %groups : (tensor<?x?x?x?xf32>, tensor<?x1x?x?xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<?x?x?x?xf32>
  %a = prims.add %r, %b : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %a, %r : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// A product with a transposed matrix (linear's weight) reads the matrix
// itself through transposed indexing maps: no transposed copy.
// CHECK-LABEL: func.func @mm_of_transpose
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%arg0, %arg1 : tensor<?x?xf32>, tensor<?x?xf32>)
func.func @mm_of_transpose(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %perm = opal.list %c1, %c0 : i64, i64 -> !opal.list<i64>
  %t = prims.transpose %w, %perm : (tensor<?x?xf32>, !opal.list<i64>) -> tensor<?x?xf32>
  %r = prims.mm %x, %t : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Static sizes (a kernel compiled per shape): a stem's 7x7/2 over 64x64
// planes (canonicalization later folds the choice of lowering to the
// shifted products: its phases' planes, 35x35, are 1.2 times its 32x32
// outputs); every op keeps the static sizes its operands have (an
// expand_shape of the static weight to dynamic sizes did not verify).
// SHIFTED-LABEL: func.func @conv_static
// SHIFTED: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] output_shape [1, 49, 3, 64] : tensor<49x3x64xf32> into tensor<1x49x3x64xf32>
// SHIFTED: linalg.batch_matmul
// SHIFTED: return %{{.*}} : tensor<8x64x32x32xf32>
func.func @conv_static(%x: tensor<8x3x64x64xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<8x64x32x32xf32> {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %s = opal.list %c2, %c2 : i64, i64 -> !opal.list<i64>
  %p = opal.list %c3, %c3 : i64, i64 -> !opal.list<i64>
  %d = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
  %0 = prims.conv %x, %w, %s, %p, %d, %c1 : (tensor<8x3x64x64xf32>, tensor<64x3x7x7xf32>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> tensor<8x64x32x32xf32>
  return %0 : tensor<8x64x32x32xf32>
}

// -----

// A matrix two products read transposed (a recurrent layer's weight, once
// per step) is transposed once (the copies CSE into one) and read in rows
// by each product, instead of each packing it transposed anew.
// CHECK-LABEL: func.func @shared_transpose
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<?x?xf32>) {{.*}} permutation = [1, 0]
// CHECK: linalg.matmul ins(%arg0, %[[T]] : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK: %[[T2:.*]] = linalg.transpose ins(%arg1 : tensor<?x?xf32>) {{.*}} permutation = [1, 0]
// CHECK: linalg.matmul ins(%{{.*}}, %[[T2]] : tensor<?x?xf32>, tensor<?x?xf32>)
func.func @shared_transpose(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %perm = opal.list %c1, %c0 : i64, i64 -> !opal.list<i64>
  %t = prims.transpose %w, %perm : (tensor<?x?xf32>, !opal.list<i64>) -> tensor<?x?xf32>
  %h = prims.mm %x, %t : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t2 = prims.transpose %w, %perm : (tensor<?x?xf32>, !opal.list<i64>) -> tensor<?x?xf32>
  %r = prims.mm %h, %t2 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
