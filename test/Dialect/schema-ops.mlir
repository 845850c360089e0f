// Schemas from an op-library file become ops with a custom form that
// round-trips.
// RUN: opal-opt --op-library=%S/Inputs/mylib.opal.mlir %s | FileCheck %s
// RUN: opal-opt --op-library=%S/Inputs/mylib.opal.mlir %s | opal-opt --op-library=%S/Inputs/mylib.opal.mlir | FileCheck %s

// CHECK-LABEL: func.func @softplus
// CHECK: %[[R:.*]] = mylib.softplus %arg0, %arg1, %arg2 : (tensor<?xf32>, f64, f64) -> tensor<?xf32>
// CHECK: return %[[R]]
func.func @softplus(%x: tensor<?xf32>, %beta: f64, %t: f64) -> tensor<?xf32> {
  %r = mylib.softplus %x, %beta, %t : (tensor<?xf32>, f64, f64) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Scalar takes an int or a float; the overload is part of the op name.
// CHECK-LABEL: func.func @scale_out
// CHECK: mylib.scale.out %arg0, %arg1, %arg2 : (tensor<4xf32>, i64, tensor<4xf32>) -> tensor<4xf32>
// CHECK: mylib.scale.out %arg0, %arg3, %arg2 : (tensor<4xf32>, f64, tensor<4xf32>) -> tensor<4xf32>
func.func @scale_out(%x: tensor<4xf32>, %i: i64, %out: tensor<4xf32>, %f: f64) {
  %a = mylib.scale.out %x, %i, %out : (tensor<4xf32>, i64, tensor<4xf32>) -> tensor<4xf32>
  %b = mylib.scale.out %x, %f, %out : (tensor<4xf32>, f64, tensor<4xf32>) -> tensor<4xf32>
  return
}

// Lists, optionals (None), two results.
// CHECK-LABEL: func.func @pick
// CHECK: %[[DIMS:.*]] = opal.list %{{.*}}, %{{.*}} : i64, i64 -> !opal.list<i64>
// CHECK: %[[NONE:.*]] = opal.none
// CHECK: mylib.pick %arg0, %[[DIMS]], %{{.*}}, %[[NONE]] : (tensor<2x3xf64>, !opal.list<i64>, i1, !opal.none) -> (tensor<2xf64>, tensor<2xi64>)
func.func @pick(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %false = arith.constant false
  %dims = opal.list %c0, %c1 : i64, i64 -> !opal.list<i64>
  %none = opal.none
  %v, %i = mylib.pick %x, %dims, %false, %none : (tensor<2x3xf64>, !opal.list<i64>, i1, !opal.none) -> (tensor<2xf64>, tensor<2xi64>)
  return %v : tensor<2xf64>
}

// Strings, devices and lists of optional tensors; an optional dtype as i64.
// CHECK-LABEL: func.func @named
// CHECK: %[[S:.*]] = opal.str "mean"
// CHECK: %[[D:.*]] = opal.device "cuda:1"
// CHECK: mylib.named %arg0, %[[S]], %[[D]], %{{.*}} : (tensor<*xf32>, !opal.str, !opal.device, !opal.list<tensor<*xf32>>) -> tensor<*xf32>
func.func @named(%x: tensor<*xf32>) -> tensor<*xf32> {
  %s = opal.str "mean"
  %d = opal.device "cuda:1"
  %l = opal.list %x : tensor<*xf32> -> !opal.list<tensor<*xf32>>
  %r = mylib.named %x, %s, %d, %l : (tensor<*xf32>, !opal.str, !opal.device, !opal.list<tensor<*xf32>>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}
