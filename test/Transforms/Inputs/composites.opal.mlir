// Composites for the opal-decompose tests.
opal.library "comp" {
  opal.def "square(Tensor x) -> Tensor"
  opal.decomposition "square" {
  ^bb0(%x: !opal.tensor):
    %r = prims.mul %x, %x : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }

  // A composite of a composite, with a list and None made in the body.
  opal.def "sumsq(Tensor x, int dim) -> Tensor"
  opal.decomposition "sumsq" {
  ^bb0(%x: !opal.tensor, %dim: i64):
    %sq = comp.square %x : (!opal.tensor) -> !opal.tensor
    %dims = opal.list %dim : i64 -> !opal.list<i64>
    %none = opal.none
    %r = prims.sum %sq, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }

  opal.def "softplus_unit(Tensor x) -> Tensor"
  opal.decomposition "softplus_unit" {
  ^bb0(%x: !opal.tensor):
    %e = prims.exp %x : (!opal.tensor) -> !opal.tensor
    %r = prims.log1p %e : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }

  opal.def "gram(Tensor a) -> Tensor"
  opal.decomposition "gram" {
  ^bb0(%a: !opal.tensor):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %perm = opal.list %c1, %c0 : i64, i64 -> !opal.list<i64>
    %at = prims.transpose %a, %perm : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %g = prims.mm %a, %at : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %g : !opal.tensor
  }

  // Two ops that decompose into each other.
  opal.def "ping(Tensor x) -> Tensor"
  opal.def "pong(Tensor x) -> Tensor"
  opal.decomposition "ping" {
  ^bb0(%x: !opal.tensor):
    %r = comp.pong %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.decomposition "pong" {
  ^bb0(%x: !opal.tensor):
    %r = comp.ping %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }

  // An op with no decomposition (a backend implements it).
  opal.def "opaque(Tensor x) -> Tensor"
  opal.def "uses_opaque(Tensor x) -> Tensor"
  opal.decomposition "uses_opaque" {
  ^bb0(%x: !opal.tensor):
    %r = comp.opaque %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
