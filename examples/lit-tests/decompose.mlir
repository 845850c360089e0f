// RUN: opal-opt --op-library=%S/Inputs/mylib.opal.mlir %s --opal-decompose | FileCheck %s

// mylib.softplus2 becomes the prims of its decomposition, typed from the call.
// CHECK-LABEL: func.func @call
// CHECK: %[[E:.*]] = prims.exp %arg0 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: prims.log1p %[[E]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: mylib.
func.func @call(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mylib.softplus2 %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
