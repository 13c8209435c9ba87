//===- HoduElementwiseOps.td - elementwise op families ---------*- tablegen -*-===//
//
// Families: Binary, BinaryLogical, Cmp, CmpScalar, Unary, UnaryLogical,
// UnaryScalar, Cast, plus `hodu.select`.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_ELEMENTWISE_OPS_TD
#define HODU_ELEMENTWISE_OPS_TD

include "Hodu/HoduBase.td"

//===----------------------------------------------------------------------===//
// Binary family (and BinaryLogical, Cmp): numpy-style broadcasting
//===----------------------------------------------------------------------===//

// `resultKind` picks the result element type: "same" keeps the operand
// element type, "bool" gives i1.
class Hodu_BroadcastBinaryOp<string mnemonic, string family, string what,
                             string resultKind, Type operandT = Hodu_Tensor,
                             list<Trait> traits = []>
    : Hodu_InferredOp<mnemonic, traits> {
  let summary = family # ": " # what;
  let description = "Elementwise `" # what # "` of two tensors with numpy-style "
    # "broadcasting: the shapes are aligned at the trailing dimension and each "
    # "pair of dimensions must be equal or one of them 1. Both operands have the "
    # "same element type. Family **" # family # "**.";
  let arguments = (ins operandT:$lhs, operandT:$rhs);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
        std::optional<::mlir::Location> loc, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::hodu::detail::inferBroadcastBinary(loc, adaptor.getLhs().getType(),
          adaptor.getRhs().getType(), }] # !if(!eq(resultKind, "bool"), "true", "false") # [{, types);
    }
  }];
}

class Hodu_BinaryOp<string mnemonic, string what, Type t = Hodu_NumericTensor,
                    list<Trait> traits = []>
    : Hodu_BroadcastBinaryOp<mnemonic, "Binary", what, "same", t, traits> {
  let hasFolder = 1;
}

def Hodu_AddOp : Hodu_BinaryOp<"add", "addition", Hodu_NumericTensor, [Commutative]>;
def Hodu_SubOp : Hodu_BinaryOp<"sub", "subtraction">;
def Hodu_MulOp : Hodu_BinaryOp<"mul", "multiplication", Hodu_NumericTensor, [Commutative]>;
def Hodu_DivOp : Hodu_BinaryOp<"div", "division (integers truncate toward zero)">;
def Hodu_RemOp : Hodu_BinaryOp<"rem", "remainder (sign follows the dividend, like C fmod)">;
def Hodu_PowOp : Hodu_BinaryOp<"pow", "power">;
def Hodu_MaximumOp : Hodu_BinaryOp<"maximum", "maximum (NaN propagates)", Hodu_NumericTensor, [Commutative]>;
def Hodu_MinimumOp : Hodu_BinaryOp<"minimum", "minimum (NaN propagates)", Hodu_NumericTensor, [Commutative]>;

class Hodu_LogicalBinaryOp<string mnemonic, string what>
    : Hodu_BroadcastBinaryOp<mnemonic, "BinaryLogical", what, "bool", Hodu_Tensor,
                             [Commutative]>;
def Hodu_LogicalAndOp : Hodu_LogicalBinaryOp<"logical_and", "logical and (nonzero is true), giving i1">;
def Hodu_LogicalOrOp : Hodu_LogicalBinaryOp<"logical_or", "logical or (nonzero is true), giving i1">;
def Hodu_LogicalXorOp : Hodu_LogicalBinaryOp<"logical_xor", "logical xor (nonzero is true), giving i1">;

class Hodu_CmpOp<string mnemonic, string what>
    : Hodu_BroadcastBinaryOp<mnemonic, "Cmp", what, "bool">;
def Hodu_EqOp : Hodu_CmpOp<"eq", "comparison `==`, giving i1">;
def Hodu_NeOp : Hodu_CmpOp<"ne", "comparison `!=`, giving i1">;
def Hodu_LtOp : Hodu_CmpOp<"lt", "comparison `<`, giving i1">;
def Hodu_LeOp : Hodu_CmpOp<"le", "comparison `<=`, giving i1">;
def Hodu_GtOp : Hodu_CmpOp<"gt", "comparison `>`, giving i1">;
def Hodu_GeOp : Hodu_CmpOp<"ge", "comparison `>=`, giving i1">;

//===----------------------------------------------------------------------===//
// CmpScalar and UnaryScalar: a tensor and a typed scalar attribute
//===----------------------------------------------------------------------===//

class Hodu_ScalarOp<string mnemonic, string family, string what, string resultKind,
                    Type t>
    : Hodu_InferredOp<mnemonic> {
  let summary = family # ": " # what;
  let description = "Elementwise `" # what # "` of a tensor and the scalar "
    # "attribute `scalar`, whose type must be the tensor's element type. "
    # "Family **" # family # "**.";
  let arguments = (ins t:$input, TypedAttrInterface:$scalar);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
        std::optional<::mlir::Location> loc, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::hodu::detail::inferElementwise(adaptor.getInput().getType(),
          }] # !if(!eq(resultKind, "bool"), "true", "false") # [{, types);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      return ::hodu::detail::verifyScalarAttr(getOperation(), getInput().getType(),
                                              getScalar());
    }
  }];
}

class Hodu_CmpScalarOp<string mnemonic, string what>
    : Hodu_ScalarOp<mnemonic, "CmpScalar", what, "bool", Hodu_Tensor>;
def Hodu_EqScalarOp : Hodu_CmpScalarOp<"eq_scalar", "comparison `x == scalar`, giving i1">;
def Hodu_NeScalarOp : Hodu_CmpScalarOp<"ne_scalar", "comparison `x != scalar`, giving i1">;
def Hodu_LtScalarOp : Hodu_CmpScalarOp<"lt_scalar", "comparison `x < scalar`, giving i1">;
def Hodu_LeScalarOp : Hodu_CmpScalarOp<"le_scalar", "comparison `x <= scalar`, giving i1">;
def Hodu_GtScalarOp : Hodu_CmpScalarOp<"gt_scalar", "comparison `x > scalar`, giving i1">;
def Hodu_GeScalarOp : Hodu_CmpScalarOp<"ge_scalar", "comparison `x >= scalar`, giving i1">;

class Hodu_UnaryScalarOp<string mnemonic, string what, Type t = Hodu_NumericTensor>
    : Hodu_ScalarOp<mnemonic, "UnaryScalar", what, "same", t>;
def Hodu_AddScalarOp : Hodu_UnaryScalarOp<"add_scalar", "x + scalar">;
def Hodu_SubScalarOp : Hodu_UnaryScalarOp<"sub_scalar", "x - scalar">;
def Hodu_MulScalarOp : Hodu_UnaryScalarOp<"mul_scalar", "x * scalar">;
def Hodu_DivScalarOp : Hodu_UnaryScalarOp<"div_scalar", "x / scalar">;
def Hodu_RemScalarOp : Hodu_UnaryScalarOp<"rem_scalar", "fmod(x, scalar)">;
def Hodu_PowScalarOp : Hodu_UnaryScalarOp<"pow_scalar", "pow(x, scalar)">;
def Hodu_MaximumScalarOp : Hodu_UnaryScalarOp<"maximum_scalar", "max(x, scalar)">;
def Hodu_MinimumScalarOp : Hodu_UnaryScalarOp<"minimum_scalar", "min(x, scalar)">;
def Hodu_LeakyReluOp : Hodu_UnaryScalarOp<"leaky_relu", "leaky relu: x < 0 ? scalar * x : x", Hodu_FloatTensor>;
def Hodu_EluOp : Hodu_UnaryScalarOp<"elu", "elu: x < 0 ? scalar * (exp(x) - 1) : x", Hodu_FloatTensor>;
def Hodu_PreluOp : Hodu_UnaryScalarOp<"prelu", "prelu with one slope: x < 0 ? scalar * x : x", Hodu_FloatTensor>;

//===----------------------------------------------------------------------===//
// Unary and UnaryLogical
//===----------------------------------------------------------------------===//

// Ops with SameOperandsAndResultType (needed by Involution/Idempotent) get
// their inferReturnTypes from that trait.
class Hodu_UnaryOpBase<string mnemonic, string family, string what, string resultKind,
                       Type t, list<Trait> traits = []>
    : Hodu_Op<mnemonic, !listconcat(traits, [Pure],
        !if(!empty(!filter(tr, traits, !eq(tr, SameOperandsAndResultType))),
            [InferTypeOpAdaptor], []))> {
  defvar sameType = !not(!empty(!filter(tr, traits,
                                        !eq(tr, SameOperandsAndResultType))));
  let summary = family # ": " # what;
  let description = "Elementwise `" # what # "`. The result has the operand's shape"
    # !if(!eq(resultKind, "bool"), " and element type i1", " and element type")
    # ". Family **" # family # "**.";
  let arguments = (ins t:$input);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = !if(sameType, "", [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
        std::optional<::mlir::Location> loc, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::hodu::detail::inferElementwise(adaptor.getInput().getType(),
          }] # !if(!eq(resultKind, "bool"), "true", "false") # [{, types);
    }
  }]);
}

class Hodu_UnaryOp<string mnemonic, string what, Type t = Hodu_FloatTensor,
                   list<Trait> traits = []>
    : Hodu_UnaryOpBase<mnemonic, "Unary", what, "same", t, traits>;

// Valid on every numeric dtype.
def Hodu_NegOp : Hodu_UnaryOp<"neg", "-x", Hodu_SignedNumericTensor, [Involution, SameOperandsAndResultType]>;
def Hodu_AbsOp : Hodu_UnaryOp<"abs", "|x|", Hodu_NumericTensor, [Idempotent, SameOperandsAndResultType]>;
def Hodu_SignOp : Hodu_UnaryOp<"sign", "sign(x) in {-1, 0, 1}", Hodu_NumericTensor>;
def Hodu_SquareOp : Hodu_UnaryOp<"square", "x * x", Hodu_NumericTensor>;
def Hodu_ReluOp : Hodu_UnaryOp<"relu", "max(x, 0)", Hodu_NumericTensor, [Idempotent, SameOperandsAndResultType]>;
// Floating point only.
def Hodu_SoftsignOp : Hodu_UnaryOp<"softsign", "x / (1 + |x|)">;
def Hodu_SqrtOp : Hodu_UnaryOp<"sqrt", "square root">;
def Hodu_RecipOp : Hodu_UnaryOp<"recip", "1 / x">; // not an exact involution (1e-40 -> inf -> 0)
def Hodu_SigmoidOp : Hodu_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Hodu_HardSigmoidOp : Hodu_UnaryOp<"hardsigmoid", "clamp(x / 6 + 0.5, 0, 1)">;
def Hodu_GeluOp : Hodu_UnaryOp<"gelu", "x * Phi(x) (exact, erf form)">;
def Hodu_SoftplusOp : Hodu_UnaryOp<"softplus", "log(1 + exp(x))">;
def Hodu_SiluOp : Hodu_UnaryOp<"silu", "x * sigmoid(x)">;
def Hodu_HardSiluOp : Hodu_UnaryOp<"hardsilu", "x * hardsigmoid(x)">;
def Hodu_MishOp : Hodu_UnaryOp<"mish", "x * tanh(softplus(x))">;
def Hodu_SeluOp : Hodu_UnaryOp<"selu", "scaled elu with the SELU constants">;
def Hodu_CeluOp : Hodu_UnaryOp<"celu", "max(0, x) + min(0, exp(x) - 1) (alpha 1)">;
def Hodu_SinOp : Hodu_UnaryOp<"sin", "sine">;
def Hodu_CosOp : Hodu_UnaryOp<"cos", "cosine">;
def Hodu_TanOp : Hodu_UnaryOp<"tan", "tangent">;
def Hodu_AsinOp : Hodu_UnaryOp<"asin", "arcsine">;
def Hodu_AcosOp : Hodu_UnaryOp<"acos", "arccosine">;
def Hodu_AtanOp : Hodu_UnaryOp<"atan", "arctangent">;
def Hodu_SinhOp : Hodu_UnaryOp<"sinh", "hyperbolic sine">;
def Hodu_CoshOp : Hodu_UnaryOp<"cosh", "hyperbolic cosine">;
def Hodu_TanhOp : Hodu_UnaryOp<"tanh", "hyperbolic tangent">;
def Hodu_AsinhOp : Hodu_UnaryOp<"asinh", "inverse hyperbolic sine">;
def Hodu_AcoshOp : Hodu_UnaryOp<"acosh", "inverse hyperbolic cosine">;
def Hodu_AtanhOp : Hodu_UnaryOp<"atanh", "inverse hyperbolic tangent">;
def Hodu_ExpOp : Hodu_UnaryOp<"exp", "e^x">;
def Hodu_Exp2Op : Hodu_UnaryOp<"exp2", "2^x">;
def Hodu_Exp10Op : Hodu_UnaryOp<"exp10", "10^x">;
def Hodu_LnOp : Hodu_UnaryOp<"ln", "natural logarithm">;
def Hodu_Log2Op : Hodu_UnaryOp<"log2", "base-2 logarithm">;
def Hodu_Log10Op : Hodu_UnaryOp<"log10", "base-10 logarithm">;
def Hodu_CeilOp : Hodu_UnaryOp<"ceil", "round toward +inf", Hodu_FloatTensor, [Idempotent, SameOperandsAndResultType]>;
def Hodu_FloorOp : Hodu_UnaryOp<"floor", "round toward -inf", Hodu_FloatTensor, [Idempotent, SameOperandsAndResultType]>;
def Hodu_RoundOp : Hodu_UnaryOp<"round", "round half to even", Hodu_FloatTensor, [Idempotent, SameOperandsAndResultType]>;
def Hodu_ErfOp : Hodu_UnaryOp<"erf", "Gauss error function">;

class Hodu_UnaryLogicalOp<string mnemonic, string what, Type t>
    : Hodu_UnaryOpBase<mnemonic, "UnaryLogical", what, "bool", t>;
def Hodu_LogicalNotOp : Hodu_UnaryLogicalOp<"logical_not", "x == 0", Hodu_Tensor>;
def Hodu_IsNanOp : Hodu_UnaryLogicalOp<"isnan", "x is NaN", Hodu_FloatTensor>;
def Hodu_IsInfOp : Hodu_UnaryLogicalOp<"isinf", "x is +inf or -inf", Hodu_FloatTensor>;
def Hodu_IsFiniteOp : Hodu_UnaryLogicalOp<"isfinite", "x is neither NaN nor inf", Hodu_FloatTensor>;

//===----------------------------------------------------------------------===//
// Cast family, select
//===----------------------------------------------------------------------===//

def Hodu_CastOp : Hodu_Op<"cast", [Pure]> {
  let summary = "Cast: convert every element to another dtype";
  let description = [{
    Converts each element to the result's element type, keeping the shape
    (upstream `ToDType`). Float to integer truncates toward zero; anything to
    `i1` is `x != 0`; `i1` to a number gives 0 or 1. Casting to the same type
    folds away. Family **Cast**.

    ```mlir
    %1 = hodu.cast %0 : (tensor<2x3xf32>) -> tensor<2x3xi64>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Hodu_SelectOp : Hodu_InferredOp<"select"> {
  let summary = "Select elements from two tensors by a boolean condition";
  let description = [{
    `result[i] = cond[i] ? true_value[i] : false_value[i]`, with numpy-style
    broadcasting across all three operands (ONNX `Where`). Not an upstream
    Hodu family; importers need it.

    ```mlir
    %r = hodu.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Hodu_BoolTensor:$cond, Hodu_Tensor:$true_value,
                       Hodu_Tensor:$false_value);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $true_value `,` $false_value attr-dict `:` functional-type(operands, results)
  }];
}

#endif // HODU_ELEMENTWISE_OPS_TD
