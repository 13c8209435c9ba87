//===- Common.h - shared helpers of the hodu-to-linalg lowering -*- C++ -*-===//
//
// Internal to lib/Conversion/HoduToLinalg: the helpers every pattern file
// uses (element kinds, constants, broadcasting linalg.generic, reshapes) and
// the per-family `populate...` entry points.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_CONVERSION_HODUTOLINALG_COMMON_H
#define HODU_LIB_CONVERSION_HODUTOLINALG_COMMON_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>
#include <optional>

namespace hodu::lowering {

/// How the bits of an element are read. Hodu's unsigned dtypes become
/// signless integers after the conversion, so the kind is taken from the
/// original (hodu-side) element type.
enum class Kind { Float, Signed, Unsigned, Bool };

Kind kindOf(mlir::Type hoduElementType);

/// The signless twin of a hodu type (ui8 -> i8, tensor<2xui8> -> tensor<2xi8>).
mlir::Type toSignless(mlir::Type t);

/// Float types that are computed in f32 (f8 variants, bf16, f16).
bool isNarrowFloat(mlir::Type t);
/// The element type values of `elt` are computed and accumulated in: f32 for
/// narrow floats, `elt` itself otherwise.
mlir::Type computeType(mlir::OpBuilder &b, mlir::Type elt);
/// extf to f32 for narrow floats; anything else unchanged.
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// Converts a computed value back to the storage type `t` (truncf/extf for
/// floats; a no-op otherwise).
mlir::Value narrow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   mlir::Type t);
/// `narrow` over a tensor computed in computeType(): an elementwise
/// linalg.generic to element type `elt`, or `v` itself when it already has it.
mlir::Value narrowTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type elt);

/// Scalar constants of a (signless) type.
mlir::Value constFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                       double v);
mlir::Value constInt(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                     int64_t v);
mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// `v` as a constant of type `t` (float or signless integer).
mlir::Value constNumber(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                        double v);
/// A typed hodu scalar attribute (IntegerAttr of iN/uiN, FloatAttr) as a
/// constant of `t` (the compute type).
mlir::Value constFromAttr(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::TypedAttr attr, mlir::Type t);

/// Identity elements for reductions.
mlir::Value lowestValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                        Kind kind);
mlir::Value highestValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                         Kind kind);

/// `v != 0` as i1 for any kind.
mlir::Value isNonZero(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Arithmetic helpers dispatching on the kind.
mlir::Value emitAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value y);
mlir::Value emitMul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value y);
mlir::Value emitMax(mlir::OpBuilder &b, mlir::Location loc, Kind k,
                    mlir::Value x, mlir::Value y);
mlir::Value emitMin(mlir::OpBuilder &b, mlir::Location loc, Kind k,
                    mlir::Value x, mlir::Value y);
/// Comparison `x <what> y` (what: eq ne lt le gt ge), ordered for floats
/// except `ne`, signed or unsigned for integers.
mlir::Value emitCompare(mlir::OpBuilder &b, mlir::Location loc, Kind k,
                        llvm::StringRef what, mlir::Value x, mlir::Value y);
/// Converts a scalar between (signless) types with hodu cast semantics.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value v, Kind from, mlir::Type to, Kind toKind);

/// An empty tensor of the given static shape.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::Type elt);
/// An empty tensor filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Value value);

/// The indexing map that reads an operand of shape `shape` inside a loop
/// nest over `resultShape` with numpy broadcasting (trailing alignment;
/// broadcast size-1 dims read index 0).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx,
                             llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<int64_t> resultShape);

using BodyFn = std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                         mlir::ValueRange)>;

/// A parallel linalg.generic over `resultType` reading `inputs` with
/// broadcasting maps; `body` maps the scalar inputs to the result scalar.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange inputs, const BodyFn &body);

using IndexedBodyFn = std::function<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange ivs,
    mlir::ValueRange args)>;

/// A parallel linalg.generic over `resultType` whose body gets the loop
/// indices (linalg.index) and the scalars of `inputs` (read with the maps in
/// `inputMaps`, or identity maps when empty); the body typically gathers
/// with tensor.extract from captured tensors.
mlir::Value buildIndexed(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType resultType,
                         mlir::ValueRange inputs,
                         llvm::ArrayRef<mlir::AffineMap> inputMaps,
                         const IndexedBodyFn &body);

/// A sum-of-products linalg.generic: out[outMap] += prod_i in_i[maps_i],
/// accumulated in `acc` from zero; `isReduction` gives the iterator kinds.
mlir::Value contraction(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange inputs,
                        llvm::ArrayRef<mlir::AffineMap> maps,
                        mlir::AffineMap outMap, llvm::ArrayRef<int64_t> outShape,
                        llvm::ArrayRef<bool> isReduction, mlir::Type acc);

/// Static reshape between equal element counts: one collapse/expand where
/// the shapes allow, else collapse to 1-D and expand.
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape);

/// tensor.pad of `v` by static `low`/`high` amounts with the scalar `pad`.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        llvm::ArrayRef<int64_t> low,
                        llvm::ArrayRef<int64_t> high, mlir::Value pad);

/// Index arithmetic on `index` values.
mlir::Value idxAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   mlir::Value y);
mlir::Value idxMul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   mlir::Value y);
/// Clamps an index value to [0, n-1].
mlir::Value idxClamp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     int64_t n);
/// An integer index element (i32/i64) as `index`, negative values wrapped
/// by adding `size`.
mlir::Value wrapIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      int64_t size);

/// The converted ranked tensor type of a value's hodu type.
mlir::RankedTensorType convertedType(const mlir::TypeConverter &tc,
                                     mlir::Type t);

/// Fails unless every tensor type of `op` is statically shaped.
llvm::LogicalResult requireStatic(mlir::Operation *op,
                                  mlir::ConversionPatternRewriter &rewriter);

/// The base of the patterns that lower one hodu op: `lower` runs once every
/// tensor type of the op is static, the lowering's precondition (the
/// pattern fails to match otherwise).
template <typename OpTy>
struct StaticPattern : mlir::OpConversionPattern<OpTy> {
  using mlir::OpConversionPattern<OpTy>::OpConversionPattern;

  /// Lowers `op`, whose types are all static.
  virtual llvm::LogicalResult
  lower(OpTy op, typename OpTy::Adaptor adaptor,
        mlir::ConversionPatternRewriter &rewriter) const = 0;

  /// The converted type of result `i` of `op`.
  mlir::RankedTensorType resultType(mlir::Operation *op, unsigned i = 0) const {
    return convertedType(*this->getTypeConverter(), op->getResultTypes()[i]);
  }

  llvm::LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    if (mlir::failed(requireStatic(op, rewriter)))
      return mlir::failure();
    return lower(op, adaptor, rewriter);
  }
};

/// The body of a reduction: new accumulator values from the input scalar,
/// the extra scalars, the accumulators and (with `withIndices`) the loop
/// indices in input dims order.
using ReduceBody = std::function<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange ins,
    mlir::ValueRange accs, mlir::ValueRange ivs)>;

/// Reduces `input` over `dims` into accumulators initialised with `inits`.
/// `extra` are tensors of the reduced shape read at the output position
/// (e.g. a mean); `extraDims`, when given, are the input dims they are
/// indexed by instead of every kept dim (Sums.cpp).
llvm::SmallVector<mlir::Value>
reduceOver(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
           llvm::ArrayRef<int64_t> dims, mlir::ValueRange inits,
           mlir::ValueRange extra, const ReduceBody &body,
           bool withIndices = false,
           std::optional<llvm::ArrayRef<int64_t>> extraDims = std::nullopt);

/// The term a sum adds for one input element: f(x, extra scalars), x
/// widened to the accumulator type; null adds x itself.
using SumTerm = std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                          mlir::Value, mlir::ValueRange)>;

/// How a staged reduction combines: its identity and its operation (a sum
/// when `combine` is null).
struct Combiner {
  double identity = 0.0;
  std::function<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value,
                            mlir::Value)>
      combine;
};

/// Sums term(x) over the sorted `dims` of `input` into a tensor of the kept
/// dims, accumulating in `acc`, reductions longer than a block in stages
/// (Sums.cpp; `combiner` for other associative reductions). `extra` are
/// read at input dims `extraDims`.
mlir::Value blockedSum(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::SmallVector<int64_t> dims,
                       llvm::SmallVector<int64_t> extraDims,
                       mlir::ValueRange extra, mlir::Type acc,
                       const SumTerm &term, const Combiner &combiner = {});

// Per-family pattern sets.
void populateElementwisePatterns(mlir::TypeConverter &tc,
                                 mlir::RewritePatternSet &patterns);
void populateLinalgFamilyPatterns(mlir::TypeConverter &tc,
                                  mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::TypeConverter &tc,
                               mlir::RewritePatternSet &patterns);
void populateShapePatterns(mlir::TypeConverter &tc,
                           mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::TypeConverter &tc,
                              mlir::RewritePatternSet &patterns);
void populateConvPatterns(mlir::TypeConverter &tc,
                          mlir::RewritePatternSet &patterns);
void populateControlFlowPatterns(mlir::TypeConverter &tc,
                                 mlir::RewritePatternSet &patterns);

} // namespace hodu::lowering

#endif // HODU_LIB_CONVERSION_HODUTOLINALG_COMMON_H
