// Options out of range are refused with the option's name, each run its own process.
// RUN: opal-opt %s --pass-pipeline="builtin.module(opal-tile-matmul{direct-rows=-1})" --verify-diagnostics
// RUN: not opal-opt %s --pass-pipeline="builtin.module(opal-tile-matmul{tile-m=0})" 2>&1 | FileCheck %s --check-prefix=TILES

// TILES: opal-tile-matmul: tile sizes and vector-bytes must be positive

// expected-error @below {{opal-tile-matmul: direct-rows must be 0 (always pack) or positive, got -1}}
module {
  func.func @mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    return
  }
}
