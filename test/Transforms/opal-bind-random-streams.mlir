// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(opal-decompose,func.func(opal-bind-random-streams))" | FileCheck %s
// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(opal-decompose,func.func(opal-bind-random-streams),opal-lower-to-linalg)" | FileCheck %s --check-prefix=LINALG

// One random op: the function gains the seed and the offset as its last
// two arguments, and records one stream.
// CHECK-LABEL: func.func @rand
// CHECK-SAME: (%[[SEED:.*]]: i64, %[[OFFSET:.*]]: i64) -> tensor<2x3xf32>
// CHECK-SAME: opal.random_streams = 1 : i64
// CHECK-NOT: opal.random_stream
// CHECK: prims.philox_uniform %{{.*}}, %[[SEED]], %[[OFFSET]],
// LINALG-LABEL: func.func @rand
// LINALG: %[[EMPTY:.*]] = tensor.empty() : tensor<2x3xf32>
// LINALG: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} outs(%[[EMPTY]]
// (The last round's second product is dead: a float32 uniform reads word 0.)
// LINALG-COUNT-19: arith.mului_extended
// LINALG-NOT: arith.mului_extended
// LINALG: arith.uitofp
// LINALG: linalg.yield
func.func @rand() -> !opal.tensor {
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %size = opal.list %c2, %c3 : i64, i64 -> !opal.list<i64>
  %none = opal.none
  %r = aten.rand %size, %none, %none, %none, %none : (!opal.list<i64>, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// Streams are numbered in program order: the second takes offset + 1, the
// third offset + 2 (dropout's mask).
// CHECK-LABEL: func.func @three
// CHECK-SAME: (%{{.*}}: tensor<4xf32>, %{{.*}}: f64, %[[SEED:.*]]: i64, %[[OFFSET:.*]]: i64)
// CHECK-SAME: opal.random_streams = 3 : i64
// CHECK: prims.philox_uniform %{{.*}}, %[[SEED]], %[[OFFSET]],
// CHECK: %[[SECOND:.*]] = arith.addi %[[OFFSET]], %c1_i64 : i64
// CHECK: prims.philox_normal %{{.*}}, %[[SEED]], %[[SECOND]],
// CHECK: %[[THIRD:.*]] = arith.addi %[[OFFSET]], %c2_i64 : i64
// CHECK: prims.philox_uniform %{{.*}}, %[[SEED]], %[[THIRD]],
// LINALG-LABEL: func.func @three
// LINALG: math.log
// LINALG: math.cos
func.func @three(%x: tensor<4xf32>, %p: f64) -> (!opal.tensor, !opal.tensor, !opal.tensor) {
  %none = opal.none
  %a = aten.rand_like %x, %none, %none, %none, %none, %none : (tensor<4xf32>, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
  %b = aten.randn_like %x, %none, %none, %none, %none, %none : (tensor<4xf32>, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
  %true = arith.constant true
  %c = aten.dropout %x, %p, %true : (tensor<4xf32>, f64, i1) -> !opal.tensor
  return %a, %b, %c : !opal.tensor, !opal.tensor, !opal.tensor
}

// -----

// A function without random ops keeps its arguments.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT: opal.random_streams
func.func @plain(%x: tensor<4xf32>) -> !opal.tensor {
  %r = aten.exp %x : (tensor<4xf32>) -> !opal.tensor
  return %r : !opal.tensor
}
