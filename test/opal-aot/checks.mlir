// An op's own checks travel with its precompiled kernels: the stub's
// description has them as `expect` checks, with the op's message.
// RUN: opal-aot %s --cpu=x86-64-v3 --archive=%t.a --stub=%t.c && FileCheck %s < %t.c
// RUN: cc -std=c11 -Wall -Wextra -Werror -c %t.c -o %t.o
// A specialization the check refuses is not compiled: opal-aot says why.
// RUN: sed 's/(float32\[?\], float32\[?,?\])/(float32[?], float32[?])/' %s > %t.refused.mlir
// RUN: not opal-aot %t.refused.mlir --archive=%t.r.a --stub=%t.r.c 2>&1 | FileCheck %s --check-prefix=REFUSED

opal.library "aotcheck" {
  opal.def "rows_scale(Tensor scale, Tensor x) -> Tensor"
  opal.decomposition "rows_scale" {
  ^bb0(%scale: !opal.tensor, %x: !opal.tensor):
    %xs = opal.shape_of %x : !opal.tensor -> !opal.list<i64>
    %n = opal.list_len %xs : !opal.list<i64> -> i64
    %two = arith.constant 2 : i64
    %matrix = arith.cmpi eq, %n, %two : i64
    opal.check %matrix, "rows_scale: x must be a matrix, got shape [{0}]" (%xs : !opal.list<i64>)
    %rows = opal.dim_size %x, 0 : !opal.tensor -> i64
    %count = opal.dim_size %scale, 0 : !opal.tensor -> i64
    %same = arith.cmpi eq, %rows, %count : i64
    opal.check %same, "rows_scale: {0} scales for {1} rows" (%count, %rows : i64, i64)
    %r = aten.mul.Tensor %x, %x : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.precompile "rows_scale" "(float32[?], float32[?,?])"
}

// CHECK: {{^ +}}"checks: expect,aotcheck::rows_scale,eq,a1.0,a0.0,rows_scale:%20%7B0%7D%20scales%20for%20%7B1%7D%20rows,a0.0/a1.0\n"

// REFUSED: aotcheck::rows_scale: rows_scale: x must be a matrix, got shape [?]
