// RUN: opal-opt %s --opal-derive-backward=op=demo::rounded --split-input-file --verify-diagnostics
// RUN: not opal-opt %s --opal-derive-backward=op=demo::nothere --split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// An op no library defines is named, not a crash.
// UNKNOWN: error: opal-derive-backward: no op demo::nothere is defined

// An op without a derivative formula on the path of a gradient.
opal.library "demo" {
  opal.def "demo::rounded(Tensor x) -> Tensor"
  // expected-error @+1 {{cannot derive the backward of demo::rounded: aten::floor_divide has no derivative formula}}
  opal.decomposition "rounded" {
  ^bb0(%x: !opal.tensor):
    %f = aten.floor_divide %x, %x : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %y = aten.mul.Tensor %x, %f : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %y : !opal.tensor
  }
}

// -----

// A body that branches on types.
opal.library "demo" {
  opal.def "demo::rounded(Tensor x) -> Tensor"
  // expected-error @+1 {{the decomposition of demo::rounded branches (opal.static_if); derived gradients need a straight body}}
  opal.decomposition "rounded" {
  ^bb0(%x: !opal.tensor):
    %v = opal.has_rank %x, 1 : !opal.tensor -> i1
    %y = opal.static_if %v -> !opal.tensor {
      opal.yield %x : !opal.tensor
    } else {
      opal.yield %x : !opal.tensor
    }
    opal.yield %y : !opal.tensor
  }
}

// -----

// An argument of an op that has no derivative for it.
opal.library "demo" {
  opal.def "demo::rounded(Tensor x) -> Tensor"
  // expected-error @+1 {{cannot derive the backward of demo::rounded: aten::where.self has no derivative for its argument `condition`}}
  opal.decomposition "rounded" {
  ^bb0(%x: !opal.tensor):
    %y = aten.where.self %x, %x, %x : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %y : !opal.tensor
  }
}
