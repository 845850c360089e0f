// Options that are not booleans are refused by name, each in its own
// process, and nothing runs.
// RUN: not opal-opt %s --pass-pipeline="builtin.module(func.func(opal-fuse-rows{any-row-dims=maybe}))" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not opal-opt %s --pass-pipeline="builtin.module(func.func(opal-fuse-rows{merge-dense-loops=2}))" 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: not opal-opt %s --pass-pipeline="builtin.module(func.func(opal-recompute-elementwise{single-use=yes-ish}))" 2>&1 | FileCheck %s --check-prefix=ONCE

// ROWS: for the --any-row-dims option: 'maybe' is invalid value for boolean argument!
// ROWS: failed to add `opal-fuse-rows` with options `any-row-dims=maybe`
// LOOPS: for the --merge-dense-loops option: '2' is invalid value for boolean argument!
// ONCE: for the --single-use option: 'yes-ish' is invalid value for boolean argument!
func.func @f() {
  return
}
