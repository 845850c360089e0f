opal.library "genlib" {
  "opal.def"() {schema = "f(Tensor x) -> Tensor"} : () -> ()
}
