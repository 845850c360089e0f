opal.library "badlib" {
  opal.def "ok(Tensor x) -> Tensor"
  opal.def "broken(Tensor x, int y=1, int z) -> Tensor"
}
