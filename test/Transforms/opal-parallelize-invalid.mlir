// RUN: opal-opt %s --split-input-file --opal-parallelize --verify-diagnostics

// opal.parallel_work says how many elements one iteration of a loop marked
// opal.parallel moves: anything but a positive integer is refused, naming
// the attribute and the value.
func.func @negative(%b: memref<?x?xf32>, %packed: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = memref.dim %b, %c0 : memref<?x?xf32>
  // expected-error @+1 {{opal-parallelize: opal.parallel_work must be a positive integer (the elements one iteration moves), got -3 : i64}}
  scf.for %kk = %c0 to %k step %c1 {
    %v = memref.load %b[%kk, %c0] : memref<?x?xf32>
    memref.store %v, %packed[%kk] : memref<512xf32>
  } {opal.parallel, opal.parallel_work = -3 : i64}
  return
}

// -----

func.func @zero(%b: memref<?x?xf32>, %packed: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = memref.dim %b, %c0 : memref<?x?xf32>
  // expected-error @+1 {{opal-parallelize: opal.parallel_work must be a positive integer (the elements one iteration moves), got 0 : i64}}
  scf.for %kk = %c0 to %k step %c1 {
    %v = memref.load %b[%kk, %c0] : memref<?x?xf32>
    memref.store %v, %packed[%kk] : memref<512xf32>
  } {opal.parallel, opal.parallel_work = 0 : i64}
  return
}

// -----

func.func @not_an_integer(%b: memref<?x?xf32>, %packed: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = memref.dim %b, %c0 : memref<?x?xf32>
  // expected-error @+1 {{opal-parallelize: opal.parallel_work must be a positive integer (the elements one iteration moves), got "many"}}
  scf.for %kk = %c0 to %k step %c1 {
    %v = memref.load %b[%kk, %c0] : memref<?x?xf32>
    memref.store %v, %packed[%kk] : memref<512xf32>
  } {opal.parallel, opal.parallel_work = "many"}
  return
}
