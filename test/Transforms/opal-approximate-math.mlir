// RUN: opal-opt %s --opal-approximate-math --split-input-file | FileCheck %s
// RUN: opal-opt %s --opal-approximate-math=ops=tanh --split-input-file | FileCheck %s --check-prefix=ONLY-TANH

// f32 exp becomes arithmetic (no libm call left), fma the LLVM intrinsic.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT: math.exp
// CHECK: llvm.intr.fma
// CHECK-NOT: math.exp
// ONLY-TANH-LABEL: func.func @exp_f32
// ONLY-TANH: math.exp
func.func @exp_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// Vectors of f32 too.
// CHECK-LABEL: func.func @log1p_vector
// CHECK-NOT: math.log1p
// CHECK: return
func.func @log1p_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.log1p %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// f64 keeps libm; so do ops not listed (sin).
// CHECK-LABEL: func.func @untouched
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f32
// ONLY-TANH-LABEL: func.func @untouched
// ONLY-TANH-NOT: math.tanh
func.func @untouched(%x: f64, %y: f32) -> (f64, f32, f32) {
  %0 = math.exp %x : f64
  %1 = math.sin %y : f32
  %2 = math.tanh %y : f32
  return %0, %1, %2 : f64, f32, f32
}

// -----

// f32 erf: one rational in x^2 (6 + 4 fused multiply-adds, one division),
// no interval selection; a clamp on the input and on the result.
// CHECK-LABEL: func.func @erf_vector
// CHECK-NOT: math.erf
// CHECK: %[[LO:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: %[[X:.*]] = arith.minimumf %[[LO]], %{{.*}} : vector<16xf32>
// CHECK: %[[T:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-COUNT-6: llvm.intr.fma({{.*}}, %[[T]], {{.*}})
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %{{.*}}
// CHECK-COUNT-4: llvm.intr.fma({{.*}}, %[[T]], {{.*}})
// CHECK: arith.divf %[[P]], %{{.*}} : vector<16xf32>
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpf
// CHECK: return
// ONLY-TANH-LABEL: func.func @erf_vector
// ONLY-TANH: math.erf
func.func @erf_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}
