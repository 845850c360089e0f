//===- OpalOps.td - Ops of the opal dialect ----------------*- tablegen -*-===//

#ifndef OPAL_DIALECT_OPALOPS_TD
#define OPAL_DIALECT_OPALOPS_TD

include "opal/Dialect/OpalTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def Opal_NoneOp : Opal_Op<"none", [Pure]> {
  let summary = "the None value";
  let results = (outs Opal_NoneType:$result);
  let assemblyFormat = "attr-dict";
}

def Opal_StrOp : Opal_Op<"str", [Pure]> {
  let summary = "a string constant";
  let arguments = (ins StrAttr:$value);
  let results = (outs Opal_StrType:$result);
  let assemblyFormat = "$value attr-dict";
}

def Opal_DeviceOp : Opal_Op<"device", [Pure]> {
  let summary = "a device constant: \"cpu\", \"cuda:0\", \"meta\"";
  let arguments = (ins StrAttr:$name);
  let results = (outs Opal_DeviceType:$result);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
}

def Opal_ListOp : Opal_Op<"list", [Pure]> {
  let summary = "builds a list from its elements";
  let arguments = (ins Variadic<AnyType>:$elements);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "($elements^ `:` type($elements))? attr-dict `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Opal_LibraryOp : Opal_Op<"library", [NoTerminator, SingleBlock]> {
  let summary = "an op library: the schemas and decompositions of a namespace";
  let description = [{
    ```mlir
    opal.library "mylib" {
      opal.def "softplus(Tensor x, float beta=1.0) -> Tensor"
    }
    ```
  }];
  let arguments = (ins StrAttr:$ns);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$ns attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Opal_DefOp : Opal_Op<"def", [HasParent<"LibraryOp">]> {
  let summary = "defines an operator by its schema";
  let arguments = (ins StrAttr:$schema);
  let assemblyFormat = "$schema attr-dict";
  let hasVerifier = 1;
}

def Opal_DecompositionOp : Opal_Op<"decomposition", [HasParent<"LibraryOp">]> {
  let summary = "the body an operator decomposes into";
  let description = [{
    ```mlir
    opal.decomposition "softplus" {
    ^bb0(%x: !opal.tensor, %beta: f64, %threshold: f64):
      ...
      opal.yield %result : !opal.tensor
    }
    ```
    The block takes the op's arguments (tensors as `!opal.tensor` or a
    concrete tensor type) and yields its returns. `opal-decompose` replaces
    each use of the op with a copy of the body, inferring the tensor types.
  }];
  let arguments = (ins StrAttr:$op);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$op attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Opal_PrecompileOp : Opal_Op<"precompile", [HasParent<"LibraryOp">]> {
  let summary = "a specialization of an op that opal-aot compiles ahead of time";
  let description = [{
    ```mlir
    opal.precompile "softplus" "(float32[?], float)"
    opal.precompile "rms" "(float64[?,?], 1)"
    ```
    Names an op of the library (`op`, `op.overload` or `ns::op`) and one
    specialization, written as the JIT prints it: per schema argument a
    tensor `dtype[dims]` (each dim `?` or `1`), `float` or `int` for a
    runtime number, or a constant in schema-default syntax (`1`, `[0, 1]`,
    `True`, `None`, `'tanh'`); trailing arguments with defaults may be left
    out. `opal-aot` compiles one kernel per `opal.precompile` into the shared
    library it builds; the JIT ignores the op.
  }];
  let arguments = (ins StrAttr:$op, StrAttr:$specialization);
  let assemblyFormat = "$op $specialization attr-dict";
}

def Opal_YieldOp : Opal_Op<"yield", [Pure, Terminator,
                                     ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the results of a decomposition body or of a static_if branch";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Type-directed ops of decomposition bodies
//===----------------------------------------------------------------------===//
// They say what to do with types that are known only per use; opal-decompose
// replaces them with prims when it instantiates a body.

def Opal_PromoteOp : Opal_Op<"promote", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "converts tensors and scalars to PyTorch's promoted dtype";
  let description = [{
    ```mlir
    %a, %b = opal.promote %self, %other : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %f = opal.promote %x {to_float} : !opal.tensor -> !opal.tensor
    ```
    The result dtype follows PyTorch's `result_type`: tensors with
    dimensions decide it, then 0-d tensors, then scalars (i1 bool, i64 int,
    f64 float), and a lower group wins only with a higher category (bool <
    integer < floating); an int scalar defaults to int64, a float scalar to
    float32. With `to_float`, an integer or bool result becomes float32 (as
    ops like `exp` and true `div` do). Each tensor is converted with
    `prims.convert_element_type` where its dtype differs; each scalar
    becomes a 0-d tensor (`prims.full`) of the result dtype.
  }];
  let arguments = (ins Variadic<AnyType>:$values, UnitAttr:$to_float);
  let results = (outs Variadic<AnyTensorOrGeneric>:$results);
  let assemblyFormat = "$values attr-dict `:` type($values) `->` type($results)";
  let hasVerifier = 1;
}

def Opal_BroadcastTensorsOp
    : Opal_Op<"broadcast_tensors", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "broadcasts tensors to their common shape";
  let description = [{
    ```mlir
    %a, %b = opal.broadcast_tensors %x, %y : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    ```
    PyTorch's broadcasting: shapes align at the right, size 1 stretches,
    missing leading dimensions are added. Each tensor whose shape differs
    from the common one becomes a `prims.broadcast_in_dim`; a dynamic size
    that would need stretching is reported.
  }];
  let arguments = (ins Variadic<AnyTensorOrGeneric>:$values);
  let results = (outs Variadic<AnyTensorOrGeneric>:$results);
  let assemblyFormat = "$values attr-dict `:` type($values) `->` type($results)";
  let hasVerifier = 1;
}

def Opal_ToDtypeOp : Opal_Op<"to_dtype", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "converts a tensor to an optional dtype argument";
  let description = [{
    ```mlir
    %y = opal.to_dtype %x, %dtype {integral_to_long} : !opal.tensor, !opal.none -> !opal.tensor
    ```
    With a dtype (a constant ScalarType code), the tensor is converted to it.
    With None it keeps its dtype, except that `integral_to_long` makes bool
    and integer tensors int64 (as `sum` does) and `to_float` makes them
    float32 (as `softmax` needs).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, AnyType:$dtype, UnitAttr:$integral_to_long,
                       UnitAttr:$to_float);
  let results = (outs AnyTensorOrGeneric:$result);
  let assemblyFormat = "$value `,` $dtype attr-dict `:` type($value) `,` type($dtype) `->` type($result)";
}

def Opal_NormalizeDimsOp : Opal_Op<"normalize_dims", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the dimensions an argument names, as non-negative constants";
  let description = [{
    ```mlir
    %d = opal.normalize_dims %x, %dim : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    ```
    `dims` is an int, a list of ints or None. Negative dimensions count from
    the end; None and the empty list mean every dimension (PyTorch's rule for
    reductions). A dimension out of range or named twice is an error. With
    `insert`, dims name positions of a result with one more dimension (as
    `unsqueeze` does). With `size_one`, only the dims of static size 1 are
    kept (those `squeeze` removes).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, AnyType:$dims, UnitAttr:$insert,
                       UnitAttr:$size_one);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "$value `,` $dims attr-dict `:` type($value) `,` type($dims) `->` qualified(type($result))";
}

def Opal_KeepDimsOp : Opal_Op<"keep_dims", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "puts reduced dimensions back as size 1 when keepdim is true";
  let description = [{
    ```mlir
    %k = opal.keep_dims %reduced, %dims, %keepdim : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    ```
    `dims` are the (normalized) dimensions that were reduced and `keepdim` a
    constant: when true the result has size-1 dimensions there (a
    `prims.broadcast_in_dim`), otherwise it is the reduced tensor.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$dims, I1:$keepdim);
  let results = (outs AnyTensorOrGeneric:$result);
  let assemblyFormat = "$value `,` $dims `,` $keepdim attr-dict `:` type($value) `,` qualified(type($dims)) `,` type($keepdim) `->` type($result)";
}

def Opal_CountOp : Opal_Op<"count", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the number of elements along some dimensions";
  let description = [{
    ```mlir
    %n = opal.count %x, %dims : !opal.tensor, !opal.list<i64> -> i64
    ```
    The product of the sizes of `dims` (a constant, or computed with
    `tensor.dim` for dynamic sizes); what `mean` divides by.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$dims);
  let results = (outs I64:$result);
  let assemblyFormat = "$value `,` $dims attr-dict `:` type($value) `,` qualified(type($dims)) `->` type($result)";
}

def Opal_TransposePermOp : Opal_Op<"transpose_perm", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the permutation that swaps two dimensions";
  let description = [{
    ```mlir
    %p = opal.transpose_perm %x, %dim0, %dim1 : !opal.tensor, i64, i64 -> !opal.list<i64>
    ```
    The identity permutation of the tensor's rank with `dim0` and `dim1`
    (negative ones count from the end) swapped; for `t`, a tensor of rank
    below 2 gets the identity.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, I64:$dim0, I64:$dim1);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "$value `,` $dim0 `,` $dim1 attr-dict `:` type($value) `->` qualified(type($result))";
}

def Opal_DimsExceptOp : Opal_Op<"dims_except", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "every dimension of a tensor but one";
  let description = [{
    ```mlir
    %d = opal.dims_except %x, 1 : !opal.tensor -> !opal.list<i64>
    ```
    The dims of the tensor's rank in order, without `dim` (the channels
    batch norm keeps); `dim` must be within the rank. With `start`, only
    the dims from it on (`opal.dims_except %x, 1 {start = 2}` is group
    norm's HxW dims).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, I64Attr:$dim,
                       DefaultValuedAttr<I64Attr, "0">:$start);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "$value `,` $dim attr-dict `:` type($value) `->` qualified(type($result))";
}

def Opal_IsNoneOp : Opal_Op<"is_none", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether an optional argument is None, known per use";
  let description = [{
    ```mlir
    %absent = opal.is_none %min : f64 -> i1
    ```
    Becomes a constant: true when the use passed `opal.none`.
  }];
  let arguments = (ins AnyType:$value);
  let results = (outs I1:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
}

def Opal_IsFloatingOp : Opal_Op<"is_floating", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether a dtype code is a floating-point (or complex) dtype, known per use";
  let description = [{
    ```mlir
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"elu_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    ```
    Becomes a constant: false for the integer dtypes and bool, true for the
    others (the dtypes PyTorch's float-only kernels accept). The code must
    be known per use (a dtype is).
  }];
  let arguments = (ins I64:$dtype);
  let results = (outs I1:$result);
  let assemblyFormat = "$dtype attr-dict `:` type($dtype) `->` type($result)";
}

def Opal_StrEqOp : Opal_Op<"str_eq", [Pure]> {
  let summary = "whether a string argument equals a constant, known per use";
  let description = [{
    ```mlir
    %tanh = opal.str_eq %approximate, "tanh" : !opal.str -> i1
    ```
    Becomes a constant; the use must pass an `opal.str` constant.
  }];
  let arguments = (ins Opal_StrType:$value, StrAttr:$expected);
  let results = (outs I1:$result);
  let assemblyFormat = "$value `,` $expected attr-dict `:` qualified(type($value)) `->` type($result)";
  let hasVerifier = 1;
}

def Opal_StaticIfOp : Opal_Op<"static_if", []> {
  let summary = "picks one of two branches by a condition known per use";
  let description = [{
    ```mlir
    %r = opal.static_if %absent -> !opal.tensor {
      opal.yield %x : !opal.tensor
    } else {
      %c = prims.maximum %x, %m : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %c : !opal.tensor
    }
    ```
    The condition must be constant once the body is instantiated for a use
    (an `arith.constant`, `opal.is_none` or `opal.str_eq`); only the branch
    it picks is instantiated, so the other may use what does not exist for
    that use (a None argument, say).
  }];
  let arguments = (ins I1:$condition);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = "$condition (`->` type($results)^)? $then_region `else` $else_region attr-dict";
  let hasVerifier = 1;
}

def Opal_CheckOp : Opal_Op<"check", [ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "refuses a use or a call for which a condition is false";
  let description = [{
    ```mlir
    %none = opal.str_eq %approximate, "none" : !opal.str -> i1
    opal.check %none, "approximate argument must be either none or tanh."
    %fits = opal.list_eq %shape, %normalized_shape : !opal.list<i64>, !opal.list<i64> -> i1
    opal.check %fits, "expected {0} but got {1}" (%normalized_shape, %shape : !opal.list<i64>, !opal.list<i64>)
    ```
    Where the condition is constant once the body is instantiated for a use
    (as for `opal.static_if`), a false one refuses the use: it does not
    decompose and the call raises `message`. Otherwise the condition depends
    on sizes only known per call: the op becomes an `opal.assert`, checked
    before every call (opal-derive-shape-checks). `{i}` in the message is
    replaced by the i-th value (an int, or a list's items separated by
    ", "). Instantiating a body drops the op.
  }];
  let arguments = (ins I1:$condition, StrAttr:$message, Variadic<AnyType>:$values);
  let assemblyFormat = [{
    $condition `,` $message (`(` $values^ `:` qualified(type($values)) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Opal_AssertOp : Opal_Op<"assert"> {
  let summary = "a condition on a call's sizes, checked before the kernel runs";
  let description = [{
    ```mlir
    opal.assert %ok, "expected {0} but got {1}" groups [1, 1] (%c2, %d0 : i64, i64)
    ```
    What an `opal.check` whose condition is only known per call becomes.
    The condition must be computed from the sizes of the function's
    arguments with `arith` (`cmpi`, `andi`) so that
    opal-derive-shape-checks can turn it into checks on the call's
    arguments; it erases the op. The values fill the message's `{i}`,
    grouped by `groups` (the number of values of each placeholder).
  }];
  let arguments = (ins I1:$condition, StrAttr:$message,
                       Variadic<AnyTypeOf<[I64, Index]>>:$values, DenseI32ArrayAttr:$groups);
  let assemblyFormat = [{
    $condition `,` $message `groups` $groups (`(` $values^ `:` type($values) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Opal_DataCheckOp : Opal_Op<"data_check", [AttrSizedOperandSegments]> {
  let summary = "raises after a call where any element of a bool tensor is true";
  let description = [{
    ```mlir
    opal.data_check %negative, "Integers to negative integer powers are not allowed." : !opal.tensor
    ```
    A condition on a call's data (not its sizes): `violations` is a bool
    tensor computed in the body, true where an element breaks the op's
    contract. opal-derive-data-checks turns the op into a reduction whose
    result the JIT reads after the call, raising `message` (RuntimeError)
    if any element was true, with `{i}` replaced by the i-th of `values`
    (i64s computed in the body, e.g. sizes). The body must compute a safe result anyway:
    the kernel runs to its end before the check raises.

    With `first %t : type`, a tensor of the violations' shape, `{0}` is
    `%t`'s element at the first violation (in row-major order; an integer
    value, e.g. the offending index) and `values` follow from `{1}`:
    ```mlir
    opal.data_check %bad first %index : !opal.tensor, "index {0} is out of range {1}" (%n) : !opal.tensor
    ```
  }];
  let arguments = (ins AnyTensorOrGeneric:$violations, Optional<AnyTensorOrGeneric>:$first,
                       StrAttr:$message, Variadic<I64>:$values);
  let assemblyFormat = [{
    $violations (`first` $first^ `:` type($first))? `,` $message (`(` $values^ `)`)? attr-dict
    `:` type($violations)
  }];
}

def Opal_RandomStreamOp : Opal_Op<"random_stream"> {
  let summary = "the seed and offset of one random op of a kernel";
  let description = [{
    ```mlir
    %seed, %offset = opal.random_stream
    %r = prims.philox_uniform %size, %seed, %offset, %code, %dev : (...) -> !opal.tensor
    ```
    The generator's state as the kernel will see it at a call: the JIT
    (opal-bind-random-streams) numbers the kernel's random streams 0..N-1 in
    order, adds the seed and the first offset as two i64 arguments of the
    kernel, and replaces stream k by (seed, offset + k); each call reserves N
    offsets of its device's generator (Runtime/Generator.h). The op has side
    effects, so two random ops never share a stream.
  }];
  let results = (outs I64:$seed, I64:$offset);
  let assemblyFormat = "attr-dict";
}

def Opal_ListEqOp : Opal_Op<"list_eq", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether two int lists are equal";
  let description = [{
    ```mlir
    %same = opal.list_eq %a, %b : !opal.list<i64>, !opal.list<i64> -> i1
    ```
    False when the lengths differ (known per use); otherwise the elements
    compared one by one, a constant where they are constants.
  }];
  let arguments = (ins Opal_ListType:$lhs, Opal_ListType:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` type($result)";
}

def Opal_EndsWithOp : Opal_Op<"ends_with", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether an int list ends with another";
  let description = [{
    ```mlir
    %fits = opal.ends_with %shape, %normalized_shape : !opal.list<i64>, !opal.list<i64> -> i1
    ```
    False when the suffix is longer than the list.
  }];
  let arguments = (ins Opal_ListType:$list, Opal_ListType:$suffix);
  let results = (outs I1:$result);
  let assemblyFormat = "$list `,` $suffix attr-dict `:` qualified(type($list)) `,` qualified(type($suffix)) `->` type($result)";
}

def Opal_ListLenOp : Opal_Op<"list_len", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the length of a list, known per use";
  let arguments = (ins Opal_ListType:$list);
  let results = (outs I64:$result);
  let assemblyFormat = "$list attr-dict `:` qualified(type($list)) `->` type($result)";
}

def Opal_FirstNegativeOp : Opal_Op<"first_negative", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the first negative element of an int list (0 if none), known per use";
  let description = [{
    ```mlir
    %bad = opal.first_negative %size : !opal.list<i64> -> i64
    ```
    For the checks of factories ("Trying to create tensor with negative
    dimension -1: [-1]"); the list's elements must be constants.
  }];
  let arguments = (ins Opal_ListType:$list);
  let results = (outs I64:$result);
  let assemblyFormat = "$list attr-dict `:` qualified(type($list)) `->` type($result)";
}

def Opal_SizesWithinOp : Opal_Op<"sizes_within", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether one tensor's sizes are at most another's, except along one dim";
  let description = [{
    ```mlir
    %fits = opal.sizes_within %index, %self, %dim : !opal.tensor, !opal.tensor, i64 -> i1
    ```
    For gather's check: the tensors have one rank (a constant) and every
    dim but `dim` (normalized) of the first is at most the second's, a
    comparison of sizes known per call (an `opal.check` of it becomes an
    `opal.assert`).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, AnyTensorOrGeneric:$bound, I64:$dim);
  let results = (outs I1:$result);
  let assemblyFormat = "$value `,` $bound `,` $dim attr-dict `:` type($value) `,` type($bound) `,` type($dim) `->` type($result)";
}

def Opal_CheckReductionDimsOp : Opal_Op<"check_reduction_dims", [ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "refuses reducing an empty tensor over no dims or over an empty dim";
  let description = [{
    ```mlir
    opal.check_reduction_dims %self, %dim, "amax()" : !opal.tensor, !opal.list<i64>
    ```
    PyTorch's precondition of reductions without an identity (amax, amin):
    each named dim must have a non-zero size ("amax(): Expected reduction
    dim 1 to have non-zero size."), and an empty tensor must name its dims.
    Becomes one `opal.assert` per size that is only known per call.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$dims, StrAttr:$function);
  let assemblyFormat = "$value `,` $dims `,` $function attr-dict `:` type($value) `,` qualified(type($dims))";
}

def Opal_CheckPaddingOp : Opal_Op<"check_padding", [ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "refuses negative padding that crops a dim below size 0";
  let description = [{
    ```mlir
    opal.check_padding %self, %pad : !opal.tensor, !opal.list<i64>
    ```
    `pad` is aten.constant_pad_nd's (before and after the last dim, then
    the one before, ...). Negative entries crop, each from the size left by
    the other (a positive entry does not make room for a negative one, as
    in PyTorch 1.13): each dim's size must be at least the negative
    entries' total ("The input size 2, plus negative padding 1 and -3
    resulted in a negative output size, which is invalid. Check dimension 0
    of your input."), and where any entry is positive every padded dim must
    keep an element. Becomes one `opal.assert` per size only known per call.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$pad);
  let assemblyFormat = "$value `,` $pad attr-dict `:` type($value) `,` qualified(type($pad))";
}

def Opal_CheckRepeatsOp : Opal_Op<"check_repeats", [ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "refuses repeat counts that give a dim a negative size";
  let description = [{
    ```mlir
    opal.check_repeats %self, %repeats : !opal.tensor, !opal.list<i64>
    ```
    aten.repeat's check: `repeats` has at least the tensor's rank, and each
    repeated size (the tensor's sizes right-aligned, 1 for the leading new
    dims) times its count is not negative, as PyTorch 1.13 computes it (a
    negative count of a size-0 dim gives 0). Becomes one `opal.assert` per
    size only known per call.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$repeats);
  let assemblyFormat = "$value `,` $repeats attr-dict `:` type($value) `,` qualified(type($repeats))";
}

def Opal_CheckEdgePaddingOp : Opal_Op<"check_edge_padding", [ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "refuses edge padding a tensor cannot take";
  let description = [{
    ```mlir
    opal.check_edge_padding %self, %pad, "reflect" {planes = 2, min_output = 0} : !opal.tensor, !opal.list<i64>
    ```
    The checks of aten's reflection_pad and replication_pad ops over the
    last `planes` dims (`pad` in constant_pad_nd's order): every dim but a
    batch dim has elements (with `leading_may_be_empty`, every dim but the
    first, as PyTorch 1.13's reflection_pad1d and 2d check), a reflected dim
    is larger than its pads, and each padded dim keeps at least
    `min_output` elements. Becomes one `opal.assert` per size only known per
    call.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$pad, StrAttr:$mode,
                       I64Attr:$planes, I64Attr:$min_output, UnitAttr:$leading_may_be_empty);
  let assemblyFormat = "$value `,` $pad `,` $mode attr-dict `:` type($value) `,` qualified(type($pad))";
}

def Opal_ConvParamsOp : Opal_Op<"conv_params", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "a convolution's int-list arguments, checked and one entry per spatial dim";
  let description = [{
    ```mlir
    %s, %p, %d, %op = opal.conv_params %weight, %stride, %padding, %dilation, %output_padding, %groups, %transposed : !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64, i1 -> !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>
    ```
    aten.convolution's checks of its arguments that need no sizes, in
    PyTorch 1.13's order: the weight has at least three dims ("weight
    should have at least three dimensions"; opal also refuses more than
    three spatial dims), groups is positive, each list has one entry or
    one per spatial dim (a single entry is repeated), no padding or
    output_padding is negative and no stride or dilation is below one;
    transposed, each output_padding is below its stride or its dilation.
    The lists must be constants for the use; the results are the lists
    with one entry per spatial dim.
  }];
  let arguments = (ins AnyTensorOrGeneric:$weight, Opal_ListType:$stride, Opal_ListType:$padding,
                       Opal_ListType:$dilation, Opal_ListType:$output_padding, I64:$groups,
                       I1:$transposed);
  let results = (outs Opal_ListType:$stride_per_dim, Opal_ListType:$padding_per_dim,
                      Opal_ListType:$dilation_per_dim, Opal_ListType:$output_padding_per_dim);
  let assemblyFormat = [{
    $weight `,` $stride `,` $padding `,` $dilation `,` $output_padding `,` $groups `,` $transposed
    attr-dict `:` type($weight) `,` qualified(type($stride)) `,` qualified(type($padding)) `,`
    qualified(type($dilation)) `,` qualified(type($output_padding)) `,` type($groups) `,`
    type($transposed) `->`
    qualified(type($stride_per_dim)) `,` qualified(type($padding_per_dim)) `,`
    qualified(type($dilation_per_dim)) `,` qualified(type($output_padding_per_dim))
  }];
}

def Opal_ShapeOfOp : Opal_Op<"shape_of", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the shape of a tensor as a shape list";
  let description = [{
    ```mlir
    %shape = opal.shape_of %x : !opal.tensor -> !opal.list<i64>
    ```
    Static sizes become constants, dynamic ones `tensor.dim` values.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` qualified(type($result))";
}

def Opal_DtypeOfOp : Opal_Op<"dtype_of", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "an optional dtype argument, or else the tensor's dtype";
  let description = [{
    ```mlir
    %code = opal.dtype_of %self, %dtype : !opal.tensor, !opal.none -> i64
    ```
    The ScalarType code (a constant) of `dtype` if the use passed one, else
    of the tensor's element type. For a Scalar argument (with None), the
    dtype of the number the use passed: int64 for an int, float64 for a
    float, bool for a bool.
  }];
  let arguments = (ins AnyType:$value, AnyType:$dtype);
  let results = (outs I64:$result);
  let assemblyFormat = "$value `,` $dtype attr-dict `:` type($value) `,` type($dtype) `->` type($result)";
}

def Opal_TrailingDimsOp : Opal_Op<"trailing_dims", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the last dimensions of a tensor, matched against a shape";
  let description = [{
    ```mlir
    %dims = opal.trailing_dims %x, %normalized_shape : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    ```
    The last `len(shape)` dimensions of the tensor, whose sizes must be the
    shape's (as `layer_norm` requires).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$shape);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "$value `,` $shape attr-dict `:` type($value) `,` qualified(type($shape)) `->` qualified(type($result))";
}

def Opal_BroadcastToOp : Opal_Op<"broadcast_to", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "broadcasts a tensor to a given shape (-1 keeps a size)";
  let description = [{
    ```mlir
    %e = opal.broadcast_to %x, %size : !opal.tensor, !opal.list<i64> -> !opal.tensor
    ```
    PyTorch's `expand`: sizes align at the right, new leading dimensions
    are added, `-1` keeps the tensor's size, and only size-1 dimensions
    stretch. Becomes a `prims.broadcast_in_dim`.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$size);
  let results = (outs AnyTensorOrGeneric:$result);
  let assemblyFormat = "$value `,` $size attr-dict `:` type($value) `,` qualified(type($size)) `->` type($result)";
}

def Opal_SumToOp : Opal_Op<"sum_to", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "a gradient summed to the shape, and converted to the dtype, of a tensor";
  let description = [{
    ```mlir
    %g = opal.sum_to %grad, %x : !opal.tensor, !opal.tensor -> !opal.tensor
    ```
    What a derived backward does with a gradient flowing into `x` from a
    use that broadcast it: sums the leading dims `x` lacks and the dims where
    `x` has static size 1 and the gradient does not (a `prims.sum`, the size-1
    dims put back), then converts it to `x`'s element type. The engine does
    the same between the nodes of a graph (PyTorch's sum_to and
    validate_outputs).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, AnyTensorOrGeneric:$like);
  let results = (outs AnyTensorOrGeneric:$result);
  let assemblyFormat = "$value `,` $like attr-dict `:` type($value) `,` type($like) `->` type($result)";
}

def Opal_InferShapeOp : Opal_Op<"infer_shape", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "a reshape target with its -1 resolved";
  let description = [{
    ```mlir
    %s = opal.infer_shape %x, %shape : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    ```
    The shape with one `-1` replaced by the size that keeps the number of
    elements; the tensor's shape must be static and the element counts must
    match.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, Opal_ListType:$shape);
  let results = (outs Opal_ListType:$result);
  let assemblyFormat = "$value `,` $shape attr-dict `:` type($value) `,` qualified(type($shape)) `->` qualified(type($result))";
}

def Opal_HasRankOp : Opal_Op<"has_rank", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether a tensor has a given rank, known per use";
  let description = [{
    ```mlir
    %vector = opal.has_rank %x, 1 : !opal.tensor -> i1
    ```
    Becomes a constant, for `opal.static_if` (as `matmul` needs).
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, I64Attr:$rank);
  let results = (outs I1:$result);
  let assemblyFormat = "$value `,` $rank attr-dict `:` type($value) `->` type($result)";
}

def Opal_HasStaticSizeOp
    : Opal_Op<"has_static_size", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "whether a dim of a tensor has a given size in the use's type";
  let description = [{
    ```mlir
    %empty = opal.has_static_size %input, 1, 0 : !opal.tensor -> i1
    ```
    Becomes a constant, for `opal.static_if`: true where the use's type
    has dim `dim` static with size `size`, false where the dim is dynamic,
    static with another size, or missing. Sizes other than 1 are static only where
    the specialization key holds them (a convolution's empty input
    channels), so the condition is exact there and false elsewhere.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, I64Attr:$dim, I64Attr:$size);
  let results = (outs I1:$result);
  let assemblyFormat = "$value `,` $dim `,` $size attr-dict `:` type($value) `->` type($result)";
}

def Opal_DimSizeOp : Opal_Op<"dim_size", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the size of one dimension of a tensor";
  let description = [{
    ```mlir
    %batch = opal.dim_size %x, 0 : !opal.tensor -> i64
    ```
    A constant when static, a `tensor.dim` otherwise; negative dims count
    from the end.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, I64Attr:$dim);
  let results = (outs I64:$result);
  let assemblyFormat = "$value `,` $dim attr-dict `:` type($value) `->` type($result)";
}

def Opal_SizeAtOp : Opal_Op<"size_at", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "the size of the dimension an int argument names";
  let description = [{
    ```mlir
    %n = opal.size_at %self, %dim : !opal.tensor, i64 -> i64
    ```
    Like `opal.dim_size`, for a dim that is an argument (a constant per
    use; negative counts from the end). A 0-d tensor has size 1 at dim 0
    and -1.
  }];
  let arguments = (ins AnyTensorOrGeneric:$value, I64:$dim);
  let results = (outs I64:$result);
  let assemblyFormat = "$value `,` $dim attr-dict `:` type($value) `,` type($dim) `->` type($result)";
}

def Opal_ListItemOp : Opal_Op<"list_item", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "one element of an int list, known per use";
  let description = [{
    ```mlir
    %ph = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    ```
    The list's elements must be known for the use (an int-list argument);
    the index must be within it.
  }];
  let arguments = (ins Opal_ListType:$list, I64Attr:$index);
  let results = (outs I64:$result);
  let assemblyFormat = "$list `,` $index attr-dict `:` qualified(type($list)) `->` type($result)";
}

def Opal_BatchMatmulOp : Opal_Op<"batch_matmul", [Pure, ParentOneOf<["DecompositionOp", "StaticIfOp"]>]> {
  let summary = "a matrix product with batch dimensions, broadcast as in PyTorch";
  let description = [{
    ```mlir
    %p = opal.batch_matmul %a, %b : !opal.tensor, !opal.tensor -> !opal.tensor
    ```
    For operands of rank 2 or more, at least one of rank 3 or more (the
    matrices are the last two dims, the rest are batch dims): a 3-d by 3-d
    product with equal batches becomes `prims.bmm`; a 2-d operand against a
    3-d one is broadcast over the batch first. Other ranks broadcast the
    batch dims (PyTorch's rule), flatten them to one with `prims.reshape`,
    multiply with `prims.bmm` and restore them; that needs static shapes.
  }];
  let arguments = (ins AnyTensorOrGeneric:$lhs, AnyTensorOrGeneric:$rhs);
  let results = (outs AnyTensorOrGeneric:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

#endif // OPAL_DIALECT_OPALOPS_TD
