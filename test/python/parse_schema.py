# opal._C.parse_schema from Python: fields and errors.
# RUN: %python %s | FileCheck %s

import opal

s = opal.parse_schema(
    "mylib::softplus.out(Tensor x, float beta=1.0, *, Tensor(a!) out) -> Tensor(a!)")
# CHECK: mylib::softplus.out(Tensor x, float beta=1., *, Tensor(a!) out) -> Tensor(a!)
print(s)
# CHECK-NEXT: mylib::softplus out mylib
print(s.name, s.overload_name, s.namespace)
for a in s.arguments:
    print(a.name, a.type, a.default_value, a.kwarg_only, a.alias_info)
# CHECK-NEXT: x Tensor None False None
# CHECK-NEXT: beta float 1.0 False None
# CHECK-NEXT: out Tensor None True (a!)

try:
    opal.parse_schema("mylib::softplus(Tensor x, float beta=1.0, float threshold) -> Tensor")
except RuntimeError as e:
    print(e)
# CHECK-NEXT: non-default argument 'threshold' follows an argument with a default; give it a default or make it keyword-only (after '*') (column 49)
# CHECK-NEXT: {{^}}  mylib::softplus(Tensor x, float beta=1.0, float threshold) -> Tensor
# CHECK-NEXT: {{^}}                                                  ^~~~~~~~~
