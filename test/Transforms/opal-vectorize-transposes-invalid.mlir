// RUN: opal-opt %s --pass-pipeline="builtin.module(func.func(opal-vectorize-transposes{lanes=6}))" -verify-diagnostics

// Tiles are transposed by rounds that halve the block: a power of 2.
// expected-error@+1 {{opal-vectorize-transposes: lanes must be a power of 2 of at least 2, got 6}}
func.func @six(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.transpose ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) permutation = [1, 0]
  return
}
