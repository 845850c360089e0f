// The opal dialect's own ops and types round-trip.
// RUN: opal-opt %s | opal-opt | FileCheck %s

// CHECK-LABEL: func.func @values
// CHECK: opal.none
// CHECK: opal.str "he said \22hi\22"
// CHECK: opal.device "meta"
// CHECK: opal.list %arg0, %arg0 : f64, f64 -> !opal.list<f64>
// CHECK: opal.list -> !opal.list<tensor<2xf32>>
func.func @values(%f: f64) {
  %n = opal.none
  %s = opal.str "he said \"hi\""
  %d = opal.device "meta"
  %l = opal.list %f, %f : f64, f64 -> !opal.list<f64>
  %e = opal.list -> !opal.list<tensor<2xf32>>
  return
}

// CHECK: opal.library "mylib" {
// CHECK-NEXT: opal.def "softplus(Tensor x) -> Tensor"
opal.library "mylib" {
  opal.def "softplus(Tensor x) -> Tensor"
}
