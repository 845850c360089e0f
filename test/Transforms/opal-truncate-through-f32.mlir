// RUN: opal-opt %s --opal-truncate-through-f32 | FileCheck %s

// f64 to bf16 or f16 rounds to f32 first (PyTorch's conversions); other
// truncations stay as they are.
// CHECK-LABEL: func.func @narrow
// CHECK: %[[A:.*]] = arith.truncf %arg0 : f64 to f32
// CHECK: arith.truncf %[[A]] : f32 to bf16
// CHECK: %[[B:.*]] = arith.truncf %arg1 : vector<4xf64> to vector<4xf32>
// CHECK: arith.truncf %[[B]] : vector<4xf32> to vector<4xf16>
// CHECK: arith.truncf %arg2 : f32 to bf16
// CHECK-NOT: arith.truncf
func.func @narrow(%a: f64, %b: vector<4xf64>, %c: f32) -> (bf16, vector<4xf16>, bf16) {
  %x = arith.truncf %a : f64 to bf16
  %y = arith.truncf %b : vector<4xf64> to vector<4xf16>
  %z = arith.truncf %c : f32 to bf16
  return %x, %y, %z : bf16, vector<4xf16>, bf16
}
