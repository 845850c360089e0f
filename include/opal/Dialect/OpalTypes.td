//===- OpalTypes.td - Types of schema values ---------------*- tablegen -*-===//

#ifndef OPAL_DIALECT_OPALTYPES_TD
#define OPAL_DIALECT_OPALTYPES_TD

include "opal/Dialect/OpalDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Opal_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Opal_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Opal_NoneType : Opal_Type<"None", "none"> {
  let summary = "the value of an absent optional argument (Python's None)";
}

def Opal_StrType : Opal_Type<"Str", "str"> {
  let summary = "a string (`str` in a schema)";
}

def Opal_DeviceType : Opal_Type<"Device", "device"> {
  let summary = "a device (`Device` in a schema)";
}

def Opal_GenericTensorType : Opal_Type<"GenericTensor", "tensor"> {
  let summary = "a tensor whose shape and dtype are decided where it is used";
  let description = [{
    The tensor type of decomposition bodies: a body is written once and
    instantiated for each use, and the types of its values are inferred then
    from the operands of that use.
  }];
}

/// A builtin tensor or `!opal.tensor` (in decomposition bodies).
def AnyTensorOrGeneric : AnyTypeOf<[AnyTensor, Opal_GenericTensorType],
                                   "a tensor or !opal.tensor">;

def Opal_ListType : Opal_Type<"List", "list"> {
  let summary = "a list of values of one type (`int[]`, `Tensor[]`, ...)";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

#endif // OPAL_DIALECT_OPALTYPES_TD
