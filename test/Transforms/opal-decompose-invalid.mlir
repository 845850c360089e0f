// RUN: opal-opt --op-library=%S/Inputs/composites.opal.mlir %s --opal-decompose --split-input-file --verify-diagnostics

func.func @cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{decomposition cycle: comp.ping -> comp.pong -> comp.ping}}
  %r = comp.ping %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{while decomposing comp.uses_opaque: cannot infer the result type of 'comp.opaque': it is neither a prim nor an op with a decomposition}}
  %r = comp.uses_opaque %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @mismatch(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @below {{the decomposition of comp.square produces 'tensor<4xf32>', but the op's result is 'tensor<5xf32>'}}
  %r = comp.square %x : (tensor<4xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

func.func @bad_mm(%x: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @below {{while decomposing comp.gram: 'prims.transpose' needs a ranked tensor and a constant permutation of its dimensions}}
  %r = comp.gram %x : (tensor<3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

opal.library "bad" {
  opal.def "f(Tensor x) -> Tensor"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor):
    %c = arith.constant true
    // expected-error @below {{'opal.static_if' op has 1 results, but a branch yields 0}}
    %r = opal.static_if %c -> !opal.tensor {
      opal.yield
    } else {
      opal.yield %x : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
