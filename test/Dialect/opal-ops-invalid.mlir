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

// -----

// opal.check's message names its values by position.
opal.library "mylib" {
  opal.def "f(Tensor x, int[] s) -> Tensor"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor, %s: !opal.list<i64>):
    %t = arith.constant true
    // expected-error @+1 {{'opal.check' op message has a placeholder {1} but 1 value}}
    opal.check %t, "got {0} and {1}" (%s : !opal.list<i64>)
    opal.yield %x : !opal.tensor
  }
}

// -----

opal.library "mylib" {
  opal.def "f(Tensor x) -> Tensor"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor):
    %t = arith.constant true
    // expected-error @+1 {{'opal.check' op message has a '{' at 4 that does not start a placeholder {N} or {N:dtype} (write '{{' for a brace)}}
    opal.check %t, "bad {x}"
    opal.yield %x : !opal.tensor
  }
}

// -----

opal.library "mylib" {
  opal.def "f(Tensor x, float y) -> Tensor"
  opal.decomposition "f" {
  ^bb0(%x: !opal.tensor, %y: f64):
    %t = arith.constant true
    // expected-error @+1 {{'opal.check' op value #0 has type 'f64'; expected i64 or !opal.list<i64>}}
    opal.check %t, "got {0}" (%y : f64)
    opal.yield %x : !opal.tensor
  }
}

// -----

func.func @assert_groups(%ok: i1, %a: i64) {
  // expected-error @+1 {{'opal.assert' op groups hold 2 values, but the op has 1}}
  opal.assert %ok, "got {0}" groups [2] (%a : i64)
  return
}

// -----

// A decomposition cannot write into an argument, as (a!) promises.
opal.library "mylib" {
  opal.def "inc_(Tensor(a!) x) -> Tensor(a!)"
  // expected-error @+1 {{'opal.decomposition' op decomposes mylib::inc_, which writes into its argument 'x' (an alias annotation with '!' in its schema): a decomposition computes new tensors and cannot write into its arguments; register a kernel for the op instead}}
  opal.decomposition "inc_" {
  ^bb0(%x: !opal.tensor):
    opal.yield %x : !opal.tensor
  }
}
