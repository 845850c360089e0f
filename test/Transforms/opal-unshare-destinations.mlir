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
