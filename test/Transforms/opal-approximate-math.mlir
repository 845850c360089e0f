// RUN: opal-opt %s --opal-approximate-math --split-input-file | FileCheck %s
// RUN: opal-opt %s --opal-approximate-math=ops=tanh --split-input-file | FileCheck %s --check-prefix=ONLY-TANH
// RUN: opal-opt %s --opal-approximate-math=scalef=true --split-input-file | FileCheck %s --check-prefix=SCALEF
// RUN: not opal-opt %s --opal-approximate-math=scalef=maybe 2>&1 | FileCheck %s --check-prefix=BAD

// f32 exp becomes arithmetic (no libm call left), fma the LLVM intrinsic.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT: math.exp
// CHECK: llvm.intr.fma
// CHECK-NOT: math.exp
// ONLY-TANH-LABEL: func.func @exp_f32
// ONLY-TANH: math.exp
// Without scalef, 2^n is built from the bits of a clamped n; with it (the
// CPU pipeline on AVX-512), llvm.intr.ldexp scales, and n is not clamped:
// one floor, then the conversion to i32 that ldexp takes.
// CHECK: arith.shli
// SCALEF-LABEL: func.func @exp_f32
// SCALEF: %[[LO:.*]] = arith.cmpf uge
// SCALEF: %[[X:.*]] = arith.select %[[LO]]
// SCALEF: arith.cmpf ule, %[[X]]
// SCALEF: %[[N:.*]] = math.floor
// SCALEF-NOT: arith.select
// SCALEF: %[[P:.*]] = arith.addf
// SCALEF: %[[E:.*]] = arith.fptosi %[[N]] : f32 to i32
// SCALEF: %[[R:.*]] = llvm.intr.ldexp(%[[P]], %[[E]]) : (f32, i32) -> f32
// SCALEF-NOT: arith.shli
// SCALEF: return %[[R]]
// BAD: scalef
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

// -----

// tanh(softplus(x)) (a softplus with threshold 20): no log1p and no tanh
// left; tanh(log1p(y)) = n / (n + 2) with n = y (y + 2), or 1 - 2 / (n + 2)
// above n = 1, one division; the side past the threshold is 1.
// CHECK-LABEL: func.func @tanh_of_softplus
// ONLY-TANH-LABEL: func.func @tanh_of_softplus
// ONLY-TANH-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// ONLY-TANH-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// ONLY-TANH: %[[BIG:.*]] = arith.cmpf ogt, %[[X:.*]], %{{.*}} : f32
// ONLY-TANH: %[[E:.*]] = math.exp %[[X]]
// ONLY-TANH: %[[E2:.*]] = arith.addf %[[E]], %[[TWO]]
// ONLY-TANH: %[[N:.*]] = arith.mulf %[[E]], %[[E2]]
// ONLY-TANH: %[[D:.*]] = arith.addf %[[N]], %[[TWO]]
// ONLY-TANH: %[[INV:.*]] = arith.divf %[[ONE]], %[[D]]
// ONLY-TANH: %[[SMALL:.*]] = arith.mulf %[[N]], %[[INV]]
// ONLY-TANH: %[[TWICE:.*]] = arith.mulf %[[INV]], %[[TWO]]
// ONLY-TANH: %[[LARGE:.*]] = arith.subf %[[ONE]], %[[TWICE]]
// ONLY-TANH: %[[ABOVE:.*]] = arith.cmpf ogt, %[[N]], %[[ONE]]
// ONLY-TANH: %[[R:.*]] = arith.select %[[ABOVE]], %[[LARGE]], %[[SMALL]]
// ONLY-TANH: %[[T:.*]] = arith.select %[[BIG]], %[[ONE]], %[[R]]
// ONLY-TANH-NOT: math.log1p
// ONLY-TANH-NOT: math.tanh
// ONLY-TANH: return %[[T]]
func.func @tanh_of_softplus(%x: f32) -> f32 {
  %c20 = arith.constant 2.000000e+01 : f32
  %big = arith.cmpf ogt, %x, %c20 : f32
  %e = math.exp %x : f32
  %l = math.log1p %e : f32
  %sp = arith.select %big, %x, %l : f32
  %t = math.tanh %sp : f32
  return %t : f32
}

// -----

// Below a threshold of 9 the tanh of the other side stays (tanh(5) < 1; its
// approximation, fused multiply-adds);
// a bare log1p under a tanh becomes the rational alone; f64 is untouched.
// ONLY-TANH-LABEL: func.func @tanh_of_low_threshold
// ONLY-TANH: %[[BIG:.*]] = arith.cmpf ogt, %[[X:.*]], %{{.*}} : vector<4xf32>
// ONLY-TANH: llvm.intr.fma
// ONLY-TANH-NOT: math.log1p
// ONLY-TANH: arith.divf
// ONLY-TANH: %[[T:.*]] = arith.select %[[BIG]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// ONLY-TANH-NEXT: return %[[T]]
// ONLY-TANH-LABEL: func.func @tanh_of_log1p
// ONLY-TANH-NOT: math.tanh
// ONLY-TANH-NOT: math.log1p
// ONLY-TANH: arith.divf
// ONLY-TANH: return
// ONLY-TANH-LABEL: func.func @tanh_of_log1p_f64
// ONLY-TANH: math.log1p
// ONLY-TANH: math.tanh
func.func @tanh_of_low_threshold(%x: vector<4xf32>, %y: vector<4xf32>) -> vector<4xf32> {
  %c5 = arith.constant dense<5.000000e+00> : vector<4xf32>
  %big = arith.cmpf ogt, %x, %c5 : vector<4xf32>
  %l = math.log1p %y : vector<4xf32>
  %sp = arith.select %big, %x, %l : vector<4xi1>, vector<4xf32>
  %t = math.tanh %sp : vector<4xf32>
  return %t : vector<4xf32>
}
func.func @tanh_of_log1p(%y: f32) -> f32 {
  %l = math.log1p %y : f32
  %t = math.tanh %l : f32
  return %t : f32
}
func.func @tanh_of_log1p_f64(%y: f64) -> f64 {
  %l = math.log1p %y : f64
  %t = math.tanh %l : f64
  return %t : f64
}

// -----

// Powers by constant exponents: products, a square root, a division (as
// PyTorch's CPU kernel computes them), not libm's powf; a power by a
// variable stays powf.
// CHECK-LABEL: func.func @constant_powers
// CHECK-NOT: math.powf
// CHECK: %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]]
// CHECK: arith.mulf %[[X]], %[[SQ]]
// CHECK: math.sqrt
// CHECK: return
// CHECK-LABEL: func.func @variable_power
// CHECK: math.powf
func.func @constant_powers(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>) {
  %c3 = arith.constant dense<3.0> : vector<8xf32>
  %half = arith.constant dense<0.5> : vector<8xf32>
  %cube = math.powf %x, %c3 : vector<8xf32>
  %root = math.powf %x, %half : vector<8xf32>
  return %cube, %root : vector<8xf32>, vector<8xf32>
}
func.func @variable_power(%x: f32, %e: f32) -> f32 {
  %p = math.powf %x, %e : f32
  return %p : f32
}
