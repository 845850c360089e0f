# Every op of the built-in prims library parses, verifies and round-trips:
# the script writes one use of each op (built from its schema in the library
# file), opal-opt reads and prints it twice, and the script checks that every
# op came back.
# RUN: %python %s generate %S/../../lib/Library/prims.opal.mlir > %t.mlir
# RUN: opal-opt %t.mlir | opal-opt > %t.out
# RUN: %python %s check %S/../../lib/Library/prims.opal.mlir %t.out | FileCheck %s
# CHECK: all 91 prims round-trip

import re
import sys

import opal

TYPES = {
    "Tensor": ("%t", "tensor<2xf32>"),
    "SymInt[]": ("%l", "!opal.list<i64>"),
    "int[]": ("%l", "!opal.list<i64>"),
    "int[]?": ("%l", "!opal.list<i64>"),
    "SymInt": ("%i", "i64"),
    "int": ("%i", "i64"),
    "int?": ("%i", "i64"),
    "ScalarType": ("%i", "i64"),
    "ScalarType?": ("%none", "!opal.none"),
    "Scalar": ("%f", "f64"),
    "Device": ("%d", "!opal.device"),
    "bool": ("%b", "i1"),
    "str": ("%s", "!opal.str"),
    "SymInt[]?": ("%l", "!opal.list<i64>"),
    "float[]?": ("%none", "!opal.none"),
    "float?": ("%none", "!opal.none"),
}


def schemas(path):
    text = open(path).read()
    return [opal.parse_schema("prims::" + s) for s in re.findall(r'opal.def "([^"]+)"', text)]


def op_name(schema):
    return schema.name.replace("::", ".")


def generate(path):
    print("func.func @all(%t: tensor<2xf32>, %l: !opal.list<i64>, %i: i64, %f: f64,")
    print("               %d: !opal.device, %b: i1, %none: !opal.none, %s: !opal.str) {")
    for n, schema in enumerate(schemas(path)):
        values, types = [], []
        for argument in schema.arguments:
            value, mlir_type = TYPES[argument.type.replace("(a)", "")]
            values.append(value)
            types.append(mlir_type)
        results = ", ".join("tensor<2xf32>" for _ in schema.returns)
        count = f":{len(schema.returns)}" if len(schema.returns) > 1 else ""
        results = f"({results})" if count else results
        print(f"  %r{n}{count} = {op_name(schema)} {', '.join(values)} : "
              f"({', '.join(types)}) -> {results}")
    print("  return")
    print("}")


def check(path, output):
    printed = open(output).read()
    names = [op_name(s) for s in schemas(path)]
    missing = [n for n in names if f"= {n} " not in printed]
    if missing:
        sys.exit(f"missing after the round trip: {missing}")
    print(f"all {len(names)} prims round-trip")


if sys.argv[1] == "generate":
    generate(sys.argv[2])
else:
    check(sys.argv[2], sys.argv[3])
