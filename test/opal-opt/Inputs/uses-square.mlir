func.func @g(%x: !opal.tensor) -> !opal.tensor {
  %r = comp.square %x : (!opal.tensor) -> !opal.tensor
  return %r : !opal.tensor
}
