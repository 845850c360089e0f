// The op library under test: one composite op and its decomposition.
opal.library "mylib" {
  opal.def "softplus2(Tensor x) -> Tensor"
  opal.decomposition "softplus2" {
  ^bb0(%x: !opal.tensor):
    %e = prims.exp %x : (!opal.tensor) -> !opal.tensor
    %r = prims.log1p %e : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
