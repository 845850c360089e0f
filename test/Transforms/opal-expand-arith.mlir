// RUN: opal-opt %s --opal-expand-arith | FileCheck %s

// Ceil and floor divisions become arithmetic LLVM has; min and max stay
// (convert-arith-to-llvm makes them LLVM's intrinsics, which the loop
// vectorizer turns into vector reductions).
// CHECK-LABEL: func.func @keep_max_expand_div(
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK: arith.maximumf
// CHECK: arith.minnumf
func.func @keep_max_expand_div(%a: index, %b: index, %x: f32, %y: f32) -> (index, index, f32, f32) {
  %c = arith.ceildivsi %a, %b : index
  %f = arith.floordivsi %a, %b : index
  %m = arith.maximumf %x, %y : f32
  %n = arith.minnumf %x, %y : f32
  return %c, %f, %m, %n : index, index, f32, f32
}

// bf16 conversions become integer arithmetic (no compiler-rt call).
// CHECK-LABEL: func.func @bf16(
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast
func.func @bf16(%x: f32) -> bf16 {
  %t = arith.truncf %x : f32 to bf16
  return %t : bf16
}
