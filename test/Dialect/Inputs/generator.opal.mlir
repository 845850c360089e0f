opal.library "genlib" {
  opal.def "sample(Tensor x, Generator gen) -> Tensor"
}
