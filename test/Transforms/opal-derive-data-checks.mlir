// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(opal-decompose,func.func(opal-derive-data-checks))" | FileCheck %s

// An integer division gains a check of its divisor: a reduction of
// `divisor == 0` into a 0-d int64 result after the function's own, named
// with its op and message in opal.data_checks.
// CHECK-LABEL: func.func @div
// CHECK-SAME: -> (tensor<?xi64>, tensor<i64>)
// CHECK-SAME: opal.data_checks = "aten::floor_divide,1,ZeroDivisionError"
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK: arith.cmpi eq
// CHECK: arith.ori
// CHECK: return %{{.*}}, %{{.*}} : tensor<?xi64>, tensor<i64>
func.func @div(%x: tensor<?xi64>, %y: tensor<?xi64>) -> !opal.tensor {
  %r = aten.floor_divide %x, %y : (tensor<?xi64>, tensor<?xi64>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A float division needs none.
// CHECK-LABEL: func.func @true_div
// CHECK-NOT: opal.data_checks
// CHECK-SAME: {
func.func @true_div(%x: tensor<?xf32>, %y: tensor<?xf32>) -> !opal.tensor {
  %r = aten.div.Tensor %x, %y : (tensor<?xf32>, tensor<?xf32>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A gather's index: the first one out of [0, size) and the dim and size
// for the message, four words; index_select's own opal.data_check comes
// first, with PyTorch's message for it.
// CHECK-LABEL: func.func @index_select
// CHECK-SAME: -> (tensor<?x?xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
// CHECK-SAME: opal.data_checks = "aten::index_select,1,index%20out%20of%20range%20in%20self aten::index_select,4,index%20%7B0%7D%20is%20out%20of%20bounds%20for%20dimension%20%7B1%7D%20with%20size%20%7B2%7D"
// CHECK-NOT: opal.data_check %
func.func @index_select(%x: tensor<?x?xf32>, %i: tensor<?xi64>) -> !opal.tensor {
  %c0 = arith.constant 0 : i64
  %r = aten.index_select %x, %c0, %i : (tensor<?x?xf32>, i64, tensor<?xi64>) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// `first`: the element of %i at the first violation is the check's first
// word after `found` ({0}); the values follow ({1}). `found` is an or over
// the violations; the first is looked for only when there is one, by a scan
// that stops at it.
// CHECK-LABEL: func.func @first_value
// CHECK-SAME: -> (tensor<i64>, tensor<i64>, tensor<i64>)
// CHECK-SAME: opal.data_checks = "first_value,3,index%20%7B0%7D%20past%20%7B1%7D"
// CHECK: %[[FOUND:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<?xi1>) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.ori
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}}iterator_types = []} ins(%[[FOUND]] : tensor<i64>)
// CHECK: scf.if
// CHECK: scf.while
// CHECK: tensor.extract %arg0
// CHECK: scf.condition
// CHECK: tensor.extract %arg1
// CHECK: return %[[FOUND]], %[[FIRST]], %{{.*}} : tensor<i64>, tensor<i64>, tensor<i64>
func.func @first_value(%bad: tensor<?xi1>, %i: tensor<?xi64>, %n: i64) {
  opal.data_check %bad first %i : tensor<?xi64>, "index {0} past {1}" (%n) : tensor<?xi1>
  return
}

// -----

// A check of a tensor of two dims or more: row by row right before the
// gather (opal-fuse-rows can then read each row of the index once for
// both), the rows' results after it.
// CHECK-LABEL: func.func @gather
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<?x?xi64>) outs(%{{.*}} : tensor<?xi64>)
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sge
// CHECK: %[[GATHER:.*]] = prims.gather
// CHECK: %[[FOUND:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[ROWS]] : tensor<?xi64>) outs(%{{.*}} : tensor<i64>)
// CHECK: return %[[GATHER]], %[[FOUND]],
func.func @gather(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>) -> !opal.tensor {
  %c1 = arith.constant 1 : i64
  %false = arith.constant false
  %r = aten.gather %x, %c1, %i, %false : (tensor<?x?xf32>, i64, tensor<?x?xi64>, i1) -> !opal.tensor
  return %r : !opal.tensor
}

// -----

// A check whose violations are known false when the kernel compiles (sizes
// all static: slice_scatter's src fits its slice) is dropped: no words, no
// opal.data_checks. With the slice's length known only per call, the same
// check stays.
// CHECK-LABEL: func.func @static_slice_scatter
// CHECK-SAME: -> tensor<4x3xf32>
// CHECK-NOT: opal.data_checks
// CHECK-NOT: opal.data_check
// CHECK: prims.slice_scatter
// CHECK-LABEL: func.func @dynamic_slice_scatter
// CHECK-SAME: -> (tensor<?x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
// CHECK-SAME: opal.data_checks = "aten::slice_scatter,4,expected
func.func @static_slice_scatter(%x: tensor<4x3xf32>, %y: tensor<1x3xf32>) -> !opal.tensor {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r = aten.slice_scatter %x, %y, %c0, %c0, %c1, %c1 : (tensor<4x3xf32>, tensor<1x3xf32>, i64, i64, i64, i64) -> !opal.tensor
  return %r : !opal.tensor
}
func.func @dynamic_slice_scatter(%x: tensor<?x3xf32>, %y: tensor<1x3xf32>) -> !opal.tensor {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r = aten.slice_scatter %x, %y, %c0, %c0, %c1, %c1 : (tensor<?x3xf32>, tensor<1x3xf32>, i64, i64, i64, i64) -> !opal.tensor
  return %r : !opal.tensor
}
