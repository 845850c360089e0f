// opal.sum_to inside a decomposition (opal-sum-to.mlir).
opal.library "st" {
  opal.def "st::fit(Tensor grad, Tensor like) -> Tensor"
  opal.decomposition "fit" {
  ^bb0(%grad: !opal.tensor, %like: !opal.tensor):
    %r = opal.sum_to %grad, %like : !opal.tensor, !opal.tensor -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
