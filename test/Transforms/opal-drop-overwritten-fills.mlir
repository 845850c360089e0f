// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-drop-overwritten-fills))" | FileCheck %s

// A stack of three [1, 4] rows: the zeros go, the first part is inserted
// into the empty tensor.
// CHECK-LABEL: func.func @stack
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[S0:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [1, 4] [1, 1]
// CHECK: %[[S1:.*]] = tensor.insert_slice %{{.*}} into %[[S0]][1, 0] [1, 4] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %[[S1]][2, 0] [1, 4] [1, 1]
func.func @stack(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>, %c: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  %1 = tensor.insert_slice %b into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  %2 = tensor.insert_slice %c into %1[2, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----

// A cat along the last dim, parts in any order, of other widths.
// CHECK-LABEL: func.func @cat_out_of_order
// CHECK-NOT: linalg.fill
func.func @cat_out_of_order(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %0 = tensor.insert_slice %b into %z[0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
  %1 = tensor.insert_slice %a into %0[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// A row left out: its zeros are read.
// CHECK-LABEL: func.func @gap
// CHECK: linalg.fill
func.func @gap(%a: tensor<1x4xf32>, %c: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  %1 = tensor.insert_slice %c into %0[2, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// Slices that overlap (their volumes add up to the tensor's, but a row is
// written twice and another not at all), a strided slice, and a chain read
// half way (the zeros are seen) keep their fills.
// CHECK-LABEL: func.func @overlap
// CHECK: linalg.fill
func.func @overlap(%a: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  %1 = tensor.insert_slice %a into %0[1, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @strided
// CHECK: linalg.fill
func.func @strided(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [2, 4] [2, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  %1 = tensor.insert_slice %b into %0[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @read_half_way
// CHECK: linalg.fill
func.func @read_half_way(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  %1 = tensor.insert_slice %b into %0[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Sizes known per call only: left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.fill
func.func @dynamic(%a: tensor<1x?xf32>, %n: index) -> tensor<1x?xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<1x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x?xf32>) -> tensor<1x?xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [1, %n] [1, 1] : tensor<1x?xf32> into tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

// One fill (CSE merged two) starting two stacks, one of which leaves a
// row: the full one starts from the empty tensor, the other keeps the fill.
// CHECK-LABEL: func.func @shared
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[S0:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0]
// CHECK: tensor.insert_slice %{{.*}} into %[[S0]][1, 0]
// CHECK: tensor.insert_slice %{{.*}} into %[[Z]][1, 0]
func.func @shared(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %0 = tensor.insert_slice %a into %z[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  %1 = tensor.insert_slice %b into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  %2 = tensor.insert_slice %b into %z[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  return %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>
}
