// RUN: opal-opt %s --pass-pipeline='builtin.module(func.func(opal-unshare-destinations))' | FileCheck %s

// Two sums of one shape that CSE left with one zero-filled destination get
// one each, made right before each use.
// CHECK-LABEL: func.func @two_sums
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<2xf64>
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[E0]] : tensor<2xf64>)
// CHECK: linalg.reduce ins(%arg0 : tensor<3x2xf64>) outs(%[[F0]] : tensor<2xf64>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<2xf64>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[E1]] : tensor<2xf64>)
// CHECK: linalg.reduce ins(%arg1 : tensor<3x2xf64>) outs(%[[F1]] : tensor<2xf64>)
func.func @two_sums(%x: tensor<3x2xf64>, %y: tensor<3x2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<2xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<2xf64>) -> tensor<2xf64>
  %a = linalg.reduce ins(%x : tensor<3x2xf64>) outs(%init : tensor<2xf64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %b = linalg.reduce ins(%y : tensor<3x2xf64>) outs(%init : tensor<2xf64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %a, %b : tensor<2xf64>, tensor<2xf64>
}

// A destination used once is left alone.
// CHECK-LABEL: func.func @one_use
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
func.func @one_use(%x: tensor<3x2xf64>) -> tensor<2xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<2xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<2xf64>) -> tensor<2xf64>
  %a = linalg.reduce ins(%x : tensor<3x2xf64>) outs(%init : tensor<2xf64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %a : tensor<2xf64>
}

// Rows computed in part of a larger buffer (a stride-1 convolution's sums):
// the slice taken out of the destination and the insert_slice back at the
// same place are one use, so bufferization writes the rows in place. A
// second insert_slice elsewhere is a use of its own and gets a copy.
// CHECK-LABEL: func.func @slice_and_insert_back
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[E]][0, 0] [6, 4] [1, 1]
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : tensor<6x4xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[F]] into %[[E]][0, 0] [6, 4] [1, 1]
// CHECK: %[[C:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[C]][2, 0] [6, 4] [1, 1]
func.func @slice_and_insert_back(%x: tensor<6x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4xf32>
  %rows = tensor.extract_slice %empty[0, 0] [6, 4] [1, 1] : tensor<8x4xf32> to tensor<6x4xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%rows : tensor<6x4xf32>) -> tensor<6x4xf32>
  %back = tensor.insert_slice %filled into %empty[0, 0] [6, 4] [1, 1] : tensor<6x4xf32> into tensor<8x4xf32>
  %other = tensor.insert_slice %x into %empty[2, 0] [6, 4] [1, 1] : tensor<6x4xf32> into tensor<8x4xf32>
  return %back, %other : tensor<8x4xf32>, tensor<8x4xf32>
}
