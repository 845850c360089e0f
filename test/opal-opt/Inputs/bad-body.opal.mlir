// An op library whose second decomposition does not verify (its yield
// gives an i64 where the schema returns a Tensor); no test calls it.
opal.library "badbody" {
  opal.def "fine(Tensor x) -> Tensor"
  opal.decomposition "fine" {
  ^bb0(%x: !opal.tensor):
    %r = prims.exp %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }

  opal.def "broken(Tensor x, int n) -> Tensor"
  opal.decomposition "broken" {
  ^bb0(%x: !opal.tensor, %n: i64):
    opal.yield %n : i64
  }
}
