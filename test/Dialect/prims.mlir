// The built-in prims library is registered in every opal-opt run.
// RUN: opal-opt %s | FileCheck %s

// CHECK-LABEL: func.func @prims
// CHECK: prims.add %arg0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK: prims.convert_element_type %{{.*}}, %{{.*}} : (tensor<2xf32>, i64) -> tensor<2xf64>
func.func @prims(%x: tensor<2xf32>) -> tensor<2xf64> {
  %s = prims.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %double = arith.constant 7 : i64
  %d = prims.convert_element_type %s, %double : (tensor<2xf32>, i64) -> tensor<2xf64>
  return %d : tensor<2xf64>
}
