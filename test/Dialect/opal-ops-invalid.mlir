// RUN: opal-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{'opal.device' op invalid device 'gpu': expected cpu, cuda, cuda:N or meta}}
%d = opal.device "gpu"

// -----

func.func @mixed(%a: i64, %b: f64) {
  // expected-error @+1 {{'opal.list' op element #1 has type 'f64', but the list holds 'i64'}}
  %l = opal.list %a, %b : i64, f64 -> !opal.list<i64>
  return
}

// -----

// expected-error @+1 {{'opal.library' op namespace 'my-lib' is not an identifier}}
opal.library "my-lib" {
}

// -----

opal.library "mylib" {
  // expected-error @+1 {{'opal.def' op invalid schema: unknown type 'Tensr'; did you mean 'Tensor'?}}
  opal.def "f(Tensr x) -> Tensor"
}

// -----

opal.library "mylib" {
  // expected-error @+1 {{'opal.def' op schema namespace 'other' does not match the library's namespace 'mylib'}}
  opal.def "other::f(Tensor x) -> Tensor"
}

// -----

// expected-error @+1 {{'opal.def' op expects parent op 'opal.library'}}
opal.def "f(Tensor x) -> Tensor"
