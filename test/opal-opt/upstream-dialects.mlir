// opal-opt parses the upstream dialects opal compiles through and runs the
// generic upstream passes.
// RUN: opal-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @softplus
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: math.log1p
func.func @softplus(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%d) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %e = math.exp %a : f32
      %l = math.log1p %e : f32
      linalg.yield %l : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Canonicalization folds x * 1.0.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT: return %arg0 : f32
func.func @fold(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %y = arith.mulf %x, %one : f32
  return %y : f32
}

// -----

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @k
gpu.module @kernels {
  gpu.func @k(%m: memref<?xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %m[%i] : memref<?xf32>
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %v, %zero : f32
    %s = scf.if %pos -> f32 { scf.yield %v : f32 } else { scf.yield %zero : f32 }
    memref.store %s, %m[%i] : memref<?xf32>
    gpu.return
  }
}
