// RUN: opal-opt %s --pass-pipeline='builtin.module(func.func(opal-lower-unsigned))' --split-input-file | FileCheck %s

// Division depends on signedness: both operands are zero-extended to i32
// (their i8 bits sign-extended, then masked with 255), divided, and the
// quotient truncated back; the signature becomes i8.
// CHECK-LABEL: func.func @div(%arg0: tensor<?xi8>, %arg1: tensor<?xi8>) -> tensor<?xi8>
// CHECK-DAG: %[[A:.*]] = prims.convert_element_type %arg0, %{{.*}} : (tensor<?xi8>, i64) -> tensor<?xi32>
// CHECK-DAG: %[[B:.*]] = prims.convert_element_type %arg1, %{{.*}} : (tensor<?xi8>, i64) -> tensor<?xi32>
// CHECK-DAG: %[[C255:.*]] = arith.constant 255 : i64
// CHECK-DAG: prims.full %{{.*}}, %[[C255]], %{{.*}} -> tensor<i32>
// CHECK-DAG: %[[ZA:.*]] = prims.bitwise_and %[[A]], %{{.*}} : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
// CHECK-DAG: %[[ZB:.*]] = prims.bitwise_and %[[B]], %{{.*}} : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
// CHECK: %[[Q:.*]] = prims.div %[[ZA]], %[[ZB]] : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
// CHECK: %[[INT8:.*]] = arith.constant 1 : i64
// CHECK: %[[R:.*]] = prims.convert_element_type %[[Q]], %[[INT8]] : (tensor<?xi32>, i64) -> tensor<?xi8>
// CHECK: return %[[R]] : tensor<?xi8>
func.func @div(%a: tensor<?xui8>, %b: tensor<?xui8>) -> tensor<?xui8> {
  %r = prims.div %a, %b : (tensor<?xui8>, tensor<?xui8>) -> tensor<?xui8>
  return %r : tensor<?xui8>
}

// -----

// Addition modulo 2^8 and moves are the same bits: kept, retyped.
// CHECK-LABEL: func.func @add
// CHECK-NEXT: %[[S:.*]] = prims.add %arg0, %arg1 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// CHECK: %[[T:.*]] = prims.transpose %[[S]]
// CHECK-SAME: -> tensor<4xi8>
// CHECK-NEXT: return %[[T]] : tensor<4xi8>
func.func @add(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %s = prims.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %c0 = arith.constant 0 : i64
  %perm = opal.list %c0 : i64 -> !opal.list<i64>
  %t = prims.transpose %s, %perm : (tensor<4xui8>, !opal.list<i64>) -> tensor<4xui8>
  return %t : tensor<4xui8>
}

// -----

// Comparisons read values: widened; the bool result stays.
// CHECK-LABEL: func.func @lt
// CHECK: prims.lt %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK-NOT: prims.convert_element_type %{{.*}} -> tensor<2x3xi8>
// CHECK: return
func.func @lt(%a: tensor<2x3xui8>, %b: tensor<2x3xui8>) -> tensor<2x3xi1> {
  %r = prims.lt %a, %b : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// uint8 to float zero-extends first; a float to uint8 goes through int64
// (-1.0 is 255, as PyTorch's conversion gives).
// CHECK-LABEL: func.func @to_float
// CHECK: %[[W:.*]] = prims.bitwise_and %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: %[[F:.*]] = prims.convert_element_type %[[W]], %{{.*}} : (tensor<4xi32>, i64) -> tensor<4xf32>
// CHECK: return %[[F]]
func.func @to_float(%a: tensor<4xui8>) -> tensor<4xf32> {
  %c6 = arith.constant 6 : i64
  %r = prims.convert_element_type %a, %c6 : (tensor<4xui8>, i64) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @from_float
// CHECK: %[[L:.*]] = prims.convert_element_type %arg0, %{{.*}} : (tensor<4xf32>, i64) -> tensor<4xi64>
// CHECK: %[[B:.*]] = prims.convert_element_type %[[L]], %{{.*}} : (tensor<4xi64>, i64) -> tensor<4xi8>
// CHECK: return %[[B]]
func.func @from_float(%a: tensor<4xf32>) -> tensor<4xui8> {
  %c0 = arith.constant 0 : i64
  %r = prims.convert_element_type %a, %c0 : (tensor<4xf32>, i64) -> tensor<4xui8>
  return %r : tensor<4xui8>
}

// -----

// From int64 to uint8 is int8's truncation: kept, its dtype code int8's.
// CHECK-LABEL: func.func @from_long
// CHECK: %[[INT8:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[B:.*]] = prims.convert_element_type %arg0, %[[INT8]] : (tensor<4xi64>, i64) -> tensor<4xi8>
// CHECK-NEXT: return %[[B]]
func.func @from_long(%a: tensor<4xi64>) -> tensor<4xui8> {
  %c0 = arith.constant 0 : i64
  %r = prims.convert_element_type %a, %c0 : (tensor<4xi64>, i64) -> tensor<4xui8>
  return %r : tensor<4xui8>
}

// -----

// A maximum over uint8 values reduces the zero-extended values.
// CHECK-LABEL: func.func @amax
// CHECK: %[[M:.*]] = prims.amax %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5xi32>, !opal.none, !opal.none) -> tensor<i32>
// CHECK: %[[R:.*]] = prims.convert_element_type %[[M]], %{{.*}} : (tensor<i32>, i64) -> tensor<i8>
// CHECK: return %[[R]] : tensor<i8>
func.func @amax(%a: tensor<5xui8>) -> tensor<ui8> {
  %none = opal.none
  %r = prims.amax %a, %none, %none : (tensor<5xui8>, !opal.none, !opal.none) -> tensor<ui8>
  return %r : tensor<ui8>
}

// -----

// A fill of a uint8 tensor is made in i32 (a float fill such as 200.0 is
// then in range) and truncated.
// CHECK-LABEL: func.func @fill
// CHECK: %[[INT32:.*]] = arith.constant 3 : i64
// CHECK: %[[F:.*]] = prims.full %{{.*}}, %arg0, %[[INT32]], %{{.*}}, %{{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<2xi32>
// CHECK: %[[R:.*]] = prims.convert_element_type %[[F]], %{{.*}} : (tensor<2xi32>, i64) -> tensor<2xi8>
// CHECK: return %[[R]]
func.func @fill(%v: f64) -> tensor<2xui8> {
  %c2 = arith.constant 2 : i64
  %shape = opal.list %c2 : i64 -> !opal.list<i64>
  %u8 = arith.constant 0 : i64
  %cpu = opal.device "cpu"
  %false = arith.constant false
  %r = prims.full %shape, %v, %u8, %cpu, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<2xui8>
  return %r : tensor<2xui8>
}

// -----

// A function without uint8 is left as it is.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: prims.div %arg0, %arg0 : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
func.func @untouched(%a: tensor<3xi8>) -> tensor<3xi8> {
  %r = prims.div %a, %a : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %r : tensor<3xi8>
}
