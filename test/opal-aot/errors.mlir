// opal-aot's diagnostics name the entry's file, line and column.
// RUN: not opal-aot %s -o %t.so 2>&1 | FileCheck %s
// RUN: not test -e %t.so

opal.library "aoterr" {
  opal.def "twice(Tensor x, int dim) -> Tensor"
  opal.decomposition "twice" {
  ^bb0(%x: !opal.tensor, %dim: i64):
    %r = aten.add.Tensor %x, %x, %dim : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.precompile "twice" "(float32[?], int)"
}

// CHECK: opal-aot: {{.*}}errors.mlir:12:28: error: aoterr::twice: specialization (float32[?], int): argument 'dim': 'int' stands for a runtime number, but int arguments are compiled in: give the value

// An unknown GPU arch is refused before anything compiles.
// RUN: not opal-aot %s -o %t.so --cuda=sm_90,volta 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: opal-aot: unknown CUDA arch 'volta': use sm_<capability> (sm_90: a cubin) or compute_<capability> (compute_90: PTX)
