// An op library compiled ahead of time: examples/aot/CMakeLists.txt builds
// it into libmyops.so with opal_add_op_library, or by hand:
//   opal-aot myops.opal.mlir -o libmyops.so
// Loading the library defines the ops; the specializations listed with
// opal.precompile run without compiling anything, every other one is
// JIT-compiled on its first call.
opal.library "myops" {
  opal.def "softplus(Tensor x, float beta=1.0) -> Tensor"
  opal.decomposition "softplus" {
  ^bb0(%x: !opal.tensor, %beta: f64):
    %xb = aten.mul.Scalar %x, %beta : (!opal.tensor, f64) -> !opal.tensor
    %e = aten.exp %xb : (!opal.tensor) -> !opal.tensor
    %l = aten.log1p %e : (!opal.tensor) -> !opal.tensor
    %r = aten.div.Scalar %l, %beta : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.precompile "softplus" "(float32[?], float)"
  opal.precompile "softplus" "(float32[?,?], float)"

  // x / sqrt(mean(x^2 over dim) + eps), as RMSNorm without its weight.
  opal.def "rms_norm(Tensor x, int dim=-1, float eps=1e-6) -> Tensor"
  opal.decomposition "rms_norm" {
  ^bb0(%x: !opal.tensor, %dim: i64, %eps: f64):
    %sq = aten.square %x : (!opal.tensor) -> !opal.tensor
    %dims = opal.list %dim : i64 -> !opal.list<i64>
    %true = arith.constant true
    %none = opal.none
    %m = aten.mean.dim %sq, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %one = arith.constant 1.0 : f64
    %me = aten.add.Scalar %m, %eps, %one : (!opal.tensor, f64, f64) -> !opal.tensor
    %r = aten.rsqrt %me : (!opal.tensor) -> !opal.tensor
    %y = aten.mul.Tensor %x, %r : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %y : !opal.tensor
  }
  opal.precompile "rms_norm" "(float32[?,?])"
  opal.precompile "rms_norm" "(float64[?,?], -1, float)"
}
