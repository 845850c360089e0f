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
