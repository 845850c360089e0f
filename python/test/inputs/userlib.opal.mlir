// A user op library for the JIT tests: a fused softplus with float
// arguments and a composite of a composite.
opal.library "userlib" {
  opal.def "softplus(Tensor x, float beta=1.0) -> Tensor"
  opal.decomposition "softplus" {
  ^bb0(%x: !opal.tensor, %beta: f64):
    %xb = aten.mul.Scalar %x, %beta : (!opal.tensor, f64) -> !opal.tensor
    %e = aten.exp %xb : (!opal.tensor) -> !opal.tensor
    %l = aten.log1p %e : (!opal.tensor) -> !opal.tensor
    %r = aten.div.Scalar %l, %beta : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "rms(Tensor x, int dim) -> Tensor"
  opal.decomposition "rms" {
  ^bb0(%x: !opal.tensor, %dim: i64):
    %sq = aten.square %x : (!opal.tensor) -> !opal.tensor
    %dims = opal.list %dim : i64 -> !opal.list<i64>
    %true = arith.constant true
    %none = opal.none
    %m = aten.mean.dim %sq, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %r = aten.sqrt %m : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
