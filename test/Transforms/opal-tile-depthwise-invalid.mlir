// RUN: opal-opt %s --pass-pipeline="builtin.module(func.func(opal-tile-depthwise{tile-rows=0}))" -verify-diagnostics

// A tile has at least one row.
// expected-error@+1 {{opal-tile-depthwise: tile-rows, tile-vectors and vector-bytes must be positive}}
func.func @no_rows(%x: memref<?xf32>) {
  return
}
