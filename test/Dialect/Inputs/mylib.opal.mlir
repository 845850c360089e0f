// A small op library used by the dialect tests.
opal.library "mylib" {
  opal.def "softplus(Tensor x, float beta=1.0, float threshold=20.0) -> Tensor"
  opal.def "mylib::scale.out(Tensor x, Scalar factor, *, Tensor(a!) out) -> Tensor(a!)"
  opal.def "pick(Tensor x, int[2] dims, bool keepdim=False, ScalarType? dtype=None) -> (Tensor values, Tensor indices)"
  opal.def "named(Tensor x, str mode=\"sum\", Device device=\"cpu\", Tensor?[] maybe) -> Tensor"
}
