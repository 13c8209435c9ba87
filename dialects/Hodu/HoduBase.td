//===- HoduBase.td - hodu dialect, dtypes and op base classes -*- tablegen -*-===//
//
// The hodu dialect models the Hodu IR: 26 op families over ranked tensors of
// the 15 Hodu dtypes, with value semantics (no layouts, no strides).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_BASE_TD
#define HODU_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Hodu_Dialect : Dialect {
  let name = "hodu";
  let cppNamespace = "::hodu";
  let summary = "The Hodu IR: tensor ops of the 26 Hodu op families";
  let description = [{
    The `hodu` dialect is the entry point of the Hodu compiler. Every model
    format (ONNX, Hodu snapshots `.hdss`, the C++ capture API, `.mlir`) is
    imported into it, and every target lowers out of it.

    Ops work on ranked tensors with value semantics. Upstream Hodu encodes
    multi-output ops through parameters and views through strided layouts;
    here multi-output ops have real multiple results and views are plain
    shape ops.

    Element types are the 15 Hodu dtypes, mapped onto MLIR builtin types:

    | Hodu dtype | MLIR type |
    |---|---|
    | bool | `i1` |
    | f8e4m3 | `f8E4M3FN` |
    | f8e5m2 | `f8E5M2` |
    | bf16, f16, f32, f64 | `bf16`, `f16`, `f32`, `f64` |
    | u8, u16, u32, u64 | `ui8`, `ui16`, `ui32`, `ui64` |
    | i8, i16, i32, i64 | `i8`, `i16`, `i32`, `i64` (signless, read as signed) |

    The op families, in upstream order: Binary, BinaryLogical, Cmp, CmpScalar,
    Unary, UnaryLogical, UnaryScalar, Matrix, Linalg, Reduce, Concat, Split,
    Indexing, Conv, Windowing, Resize, Padding, Scan, Sort, Einsum, Shape,
    ShapeScalars, ShapeMemory, Cast, Memory and Dummy. Two ops have no
    upstream family: `hodu.constant` (dense or resource-backed data) and
    `hodu.select` (ONNX `Where`).
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Element types and tensor constraints
//===----------------------------------------------------------------------===//

def Hodu_FloatElement : AnyTypeOf<[F8E4M3FN, F8E5M2, BF16, F16, F32, F64],
                                  "Hodu floating-point dtype">;
def Hodu_SignedElement : AnyTypeOf<[I8, I16, I32, I64], "Hodu signed integer dtype">;
def Hodu_UnsignedElement : AnyTypeOf<[UI8, UI16, UI32, UI64],
                                     "Hodu unsigned integer dtype">;
def Hodu_IntElement : AnyTypeOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64],
                                "Hodu integer dtype">;
def Hodu_NumericElement : AnyTypeOf<[F8E4M3FN, F8E5M2, BF16, F16, F32, F64,
                                     I8, I16, I32, I64, UI8, UI16, UI32, UI64],
                                    "Hodu numeric dtype">;
def Hodu_Element : AnyTypeOf<[I1, F8E4M3FN, F8E5M2, BF16, F16, F32, F64,
                              UI8, UI16, UI32, UI64, I8, I16, I32, I64],
                             "Hodu dtype">;

def Hodu_Tensor : RankedTensorOf<[Hodu_Element]>;
def Hodu_FloatTensor : RankedTensorOf<[Hodu_FloatElement]>;
def Hodu_NumericTensor : RankedTensorOf<[Hodu_NumericElement]>;
def Hodu_SignedNumericTensor : RankedTensorOf<[F8E4M3FN, F8E5M2, BF16, F16, F32, F64,
                                               I8, I16, I32, I64]>;
def Hodu_BoolTensor : RankedTensorOf<[I1]>;
def Hodu_IndexTensor : RankedTensorOf<[I32, I64]>;
def Hodu_I64Tensor : RankedTensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

class Hodu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Hodu_Dialect, mnemonic, traits>;

// Ops whose result types follow from their operands and attributes. The C++
// side implements `inferReturnTypes` per op (HoduOps.cpp); the verifier then
// checks the declared result types against the inferred ones.
class Hodu_InferredOp<string mnemonic, list<Trait> traits = []>
    : Hodu_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])>;

#endif // HODU_BASE_TD
