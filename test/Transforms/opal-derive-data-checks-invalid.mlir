// RUN: opal-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(opal-derive-data-checks))" --verify-diagnostics

// Violations must be bools.
func.func @not_bool(%bad: tensor<?xi64>) {
  // expected-error @+1 {{'opal.data_check' needs a ranked bool (i1) tensor}}
  opal.data_check %bad, "never" : tensor<?xi64>
  return
}

// -----

// `first` must have the violations' shape...
func.func @first_of_another_shape(%bad: tensor<3xi1>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'opal.data_check' needs `first` an integer tensor of the violations' shape}}
  opal.data_check %bad first %i : tensor<4xi64>, "index {0}" : tensor<3xi1>
  return
}

// -----

// ... and integer elements.
func.func @first_of_floats(%bad: tensor<3xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'opal.data_check' needs `first` an integer tensor of the violations' shape}}
  opal.data_check %bad first %x : tensor<3xf32>, "value {0}" : tensor<3xi1>
  return
}
