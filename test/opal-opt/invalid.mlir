// RUN: opal-opt %s --split-input-file --verify-diagnostics

func.func @mismatch(%x: f32, %y: f64) -> f32 {
  // expected-error @+1 {{'arith.addf' op requires the same type for all operands and results}}
  %0 = "arith.addf"(%x, %y) : (f32, f64) -> f32
  return %0 : f32
}

// -----

// opal's own dialects are not registered yet; unknown dialects are errors.
// expected-error @+2 {{Dialect `mylib' not found for custom op 'mylib.softplus'}}
// expected-note @+1 {{Available dialects: affine, arith, aten, aten_backward, bufferization, builtin, cf, func, gpu, linalg, llvm, math, memref, nvvm, omp, opal, pdl, pdl_interp, prims, scf, tensor, ub, vector}}
%0 = mylib.softplus
