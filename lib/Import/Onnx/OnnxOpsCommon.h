//===- OnnxOpsCommon.h - helpers of the ONNX op conversions -----*- C++ -*-===//
//
// Shared by the per-family conversion files (Onnx<Family>Ops.cpp): building
// ops with checked type inference, axis normalization, the generic
// conversions, and each file's registration into the converter table.
// Private to lib/Import/Onnx.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_IMPORT_ONNX_ONNXOPSCOMMON_H
#define HODU_LIB_IMPORT_ONNX_ONNXOPSCOMMON_H

#include "OnnxImporterImpl.h"

#include "llvm/ADT/STLExtras.h"

/// Evaluates `expr` (a FailureOr), returns failure from the enclosing
/// function if it failed, and binds the value to `var` otherwise.
#define TRY(var, expr)                                                         \
  auto var##OrErr = (expr);                                                    \
  if (mlir::failed(var##OrErr))                                                \
    return mlir::failure();                                                    \
  auto var = std::move(*var##OrErr);

namespace hodu::onnx_import {

using Converter = mlir::LogicalResult (*)(NodeContext &);
using ConverterTable = llvm::StringMap<Converter>;

// Each family file adds its conversions, keyed by ONNX op type.
void registerElementwiseOps(ConverterTable &table);
void registerIndexingOps(ConverterTable &table);
void registerLinalgOps(ConverterTable &table);
void registerAttentionOps(ConverterTable &table);
void registerMiscOps(ConverterTable &table);
void registerConvOps(ConverterTable &table);
void registerNormalizationOps(ConverterTable &table);
void registerRecurrentOps(ConverterTable &table);
void registerReductionOps(ConverterTable &table);
void registerSamplingOps(ConverterTable &table);
void registerSequenceOps(ConverterTable &table);
void registerShapeOps(ConverterTable &table);
void registerSliceOps(ConverterTable &table);
void registerResizeOps(ConverterTable &table);
void registerSignalOps(ConverterTable &table);
void registerRandomOps(ConverterTable &table);
/// The optimizers of domain ai.onnx.preview.training, keyed by
/// trainingOpKey() (ops of other domains than the default one are keyed
/// "domain:OpType", so that a default-domain node never finds them).
void registerTrainingOps(ConverterTable &table);
std::string trainingOpKey(llvm::StringRef opType);

/// Creates an op whose result types are inferred, reporting inference
/// failures as import errors.
template <typename OpT, typename... Args>
mlir::FailureOr<mlir::Operation *> makeOp(NodeContext &n, Args &&...args) {
  mlir::OperationState state(n.loc, OpT::getOperationName());
  OpT::build(n.b, state, mlir::TypeRange(), std::forward<Args>(args)...);
  llvm::SmallVector<mlir::Type> types;
  mlir::MLIRContext *ctx = n.b.getContext();
  if (mlir::failed(OpT::inferReturnTypes(
          ctx, std::nullopt, state.operands,
          state.attributes.getDictionary(ctx), state.getRawProperties(),
          state.regions, types))) {
    auto diag = n.error("cannot build '" + OpT::getOperationName().str() +
                        "' from these operands");
    for (auto [i, v] : llvm::enumerate(state.operands))
      diag.attachNote() << "operand #" << i << ": " << v.getType();
    diag.report();
    // Re-run with a location so the reason is reported too.
    (void)OpT::inferReturnTypes(ctx, n.loc, state.operands,
                                state.attributes.getDictionary(ctx),
                                state.getRawProperties(), state.regions, types);
    return mlir::failure();
  }
  state.types.clear();
  state.addTypes(types);
  return n.b.create(state);
}

template <typename OpT, typename... Args>
mlir::FailureOr<mlir::Value> make(NodeContext &n, Args &&...args) {
  TRY(op, makeOp<OpT>(n, std::forward<Args>(args)...));
  return op->getResult(0);
}

mlir::RankedTensorType tensorType(mlir::Value v);
/// A 1-D bool constant of `values`.
mlir::ElementsAttr boolTensor(NodeContext &n, llvm::ArrayRef<bool> values);
int64_t product(llvm::ArrayRef<int64_t> s);
/// Normalizes a possibly negative axis into [0, rank).
mlir::FailureOr<int64_t> normAxis(NodeContext &n, int64_t axis, int64_t rank,
                                  llvm::StringRef what = "axis");
/// Normalizes, checks for repeats and sorts.
mlir::FailureOr<llvm::SmallVector<int64_t>>
normAxes(NodeContext &n, llvm::ArrayRef<int64_t> axes, int64_t rank);
bool isFloatTensor(mlir::Value v);
/// The requantization of QLinearConv and QLinearMatMul: round(acc *
/// multiplier) (half to even) + zero point, saturated to the range of
/// `quantType` (an integer type; y's type is the zero point's, or
/// `quantType` without one) and cast to it.
mlir::FailureOr<mlir::Value> requantize(NodeContext &n, mlir::Value acc,
                                        mlir::Value multiplier,
                                        std::optional<mlir::Value> zeroPoint,
                                        mlir::Type quantType);
/// Integer convolutions and matmuls (ConvInteger, QLinearConv,
/// MatMulInteger, QLinearMatMul) sum products (x - x_zp) * (w - w_zp). They
/// compute in f32, with its packed vector kernels, when every partial sum is
/// an integer f32 holds exactly (magnitude <= 2^24), whatever the order of
/// the additions. `integerOperandBound` is the largest |v - zp| of input
/// `input` of integer type `elt` with zero points input `zeroInput` (absent:
/// 0; not known at import time: any). `integerDotBound` bounds every partial
/// sum: when input `wInput` is known at import time, `xBound` times the
/// largest sum over one output's terms of |w - w_zp| (element i of w adds to
/// output outputOf(i) < outputs, centered by zero point zeroOf(i)); else
/// `xBound` times the bound of w times `terms`, the terms per output.
double integerOperandBound(NodeContext &n, mlir::Type elt, size_t zeroInput);
/// The sums over each output's terms of |w - w_zp| that `integerDotBound`
/// takes the largest of, when `wInput` and its zero points are integers
/// known at import time; nullopt otherwise.
std::optional<std::vector<double>>
integerTermSums(NodeContext &n, size_t wInput, size_t zeroInput,
                int64_t outputs, llvm::function_ref<int64_t(int64_t)> outputOf,
                llvm::function_ref<int64_t(int64_t)> zeroOf);
double integerDotBound(NodeContext &n, double xBound, size_t wInput,
                       size_t zeroInput, int64_t terms, int64_t outputs,
                       llvm::function_ref<int64_t(int64_t)> outputOf,
                       llvm::function_ref<int64_t(int64_t)> zeroOf);
/// Whether integer sums bounded by `bound` are exact in f32.
inline bool exactInF32(double bound) { return bound <= double(1 << 24); }
/// The fewest parts, 2 to min(`size`, 16), of a sum over `size` terms (a
/// convolution's channels, a matmul's K) whose sums `boundOf(parts)` are
/// each exact in f32; 0 if none.
int64_t fewestExactParts(int64_t size,
                         llvm::function_ref<double(int64_t)> boundOf);
/// The sum in int32 of `part(lo, hi)` (an f32 integer product over terms
/// [lo, hi) of `size`) over `parts` equal parts of the terms.
mlir::FailureOr<mlir::Value> sumOfParts(
    NodeContext &n, int64_t size, int64_t parts,
    llvm::function_ref<mlir::FailureOr<mlir::Value>(int64_t, int64_t)> part);
/// Elements [lo, hi) of dim `dim` of `v` (a hodu.slice).
mlir::FailureOr<mlir::Value> sliceDim(NodeContext &n, mlir::Value v,
                                      int64_t dim, int64_t lo, int64_t hi);
/// Float `y` (whole numbers) clamped to the range of integer type `qe` (at
/// most 32 bits) and cast to it: QuantizeLinear's saturation.
mlir::FailureOr<mlir::Value> saturateToInteger(NodeContext &n, mlir::Value y,
                                               mlir::Type qe);
/// The float type float work on elements of type `elt` is done in: f64 for
/// f64, f32 for everything else (narrow floats, integers).
mlir::Type floatComputeType(NodeContext &n, mlir::Type elt);
/// `v` broadcast to `shape` (numpy rules); `v` itself when it has it.
mlir::Value broadcastTo(NodeContext &n, mlir::Value v,
                        llvm::ArrayRef<int64_t> shape);
/// The constant `offset + scale * i` for i in [0, size), of element type
/// `elt`, laid along `dim` of a rank-`rank` tensor whose other dims are 1
/// (so that it broadcasts against the other dims).
mlir::Value iota(NodeContext &n, mlir::Type elt, int64_t size, int64_t rank,
                 int64_t dim, double scale = 1, double offset = 0);
/// Indices counting from the end made non-negative at run time:
/// `idx < 0 ? idx + size : idx`, in the indices' own type.
mlir::FailureOr<mlir::Value> wrapNegative(NodeContext &n, mlir::Value idx,
                                          int64_t size);
/// The positions of a constant's nonzero elements, in row-major order.
llvm::SmallVector<int64_t> nonzeroPositions(const ConstantView &c);
/// A one-element integer input known at import time; an error naming
/// `what` when it is not known or not one value.
mlir::FailureOr<int64_t> constScalar(NodeContext &n, size_t input,
                                     llvm::StringRef what);
/// A one-element integer input: its value when known at import time, else
/// dim `dim` of the shape the model declares for output `out` (an error
/// without one), with a run-time check that the input holds that value.
mlir::FailureOr<int64_t> scalarOrDeclared(NodeContext &n, size_t input,
                                          llvm::StringRef what, size_t out,
                                          int64_t dim);
/// The run-time check that input #`in` (1-D integers), known only at run
/// time, holds `want[j]` or `alt[j]` at each entry j (any value where
/// `anyEntry[j]`); an error unless it has one entry per `want`.
mlir::LogicalResult checkEntries(NodeContext &n, size_t in,
                                 llvm::ArrayRef<int64_t> want,
                                 llvm::ArrayRef<int64_t> alt,
                                 const llvm::Twine &what,
                                 llvm::ArrayRef<bool> anyEntry = {});
/// A one-element input (a run-time scalar operand such as Trilu's k) as a
/// 0-d tensor of element type `elt`; an error naming `what` otherwise.
mlir::FailureOr<mlir::Value> scalarInput(NodeContext &n, size_t input,
                                         mlir::Type elt, llvm::StringRef what);
/// Element `i` of dim `dim` of `v`, with that dim dropped (a slice and a
/// squeeze; a reshape when the dim is 1).
mlir::FailureOr<mlir::Value> takeAt(NodeContext &n, mlir::Value v, int64_t dim,
                                    int64_t i);

/// Before opset 7, binary ops broadcast only with `broadcast = 1`, and then
/// B's dims align with A's from `axis` on (by default at the end): B
/// reshaped so that numpy broadcasting does the same.
mlir::FailureOr<mlir::Value> legacyBroadcast(NodeContext &n, mlir::Value a,
                                             mlir::Value b);

template <typename OpT> mlir::LogicalResult unary(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(r, make<OpT>(n, x));
  n.setOutput(0, r);
  return mlir::success();
}

/// Inputs of a binary op; ONNX Pow lets the exponent's type differ.
template <typename OpT> mlir::LogicalResult binary(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  if (n.opset < 7) {
    TRY(legacy, legacyBroadcast(n, a, b));
    b = legacy;
  }
  TRY(r, make<OpT>(n, a, b));
  n.setOutput(0, r);
  return mlir::success();
}

template <typename OpT> mlir::LogicalResult variadic(NodeContext &n) {
  if (n.numInputs() == 0)
    return n.error("needs at least one input");
  TRY(acc, n.in(0));
  for (size_t i = 1; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    TRY(r, make<OpT>(n, acc, x));
    acc = r;
  }
  n.setOutput(0, acc);
  return mlir::success();
}

} // namespace hodu::onnx_import

#endif // HODU_LIB_IMPORT_ONNX_ONNXOPSCOMMON_H
