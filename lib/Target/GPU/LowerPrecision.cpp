//===- LowerPrecision.cpp - f32 contractions on f16 / bf16 operands -------===//
//
// See hodu-gpu-lower-precision in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace hodu::gpu {
#define GEN_PASS_DEF_GPULOWERPRECISION
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;

namespace {
bool isF32Tensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF32() && t.hasStaticShape();
}

/// Whether `op` is a float contraction or convolution this pass narrows:
/// two f32 inputs that the body multiplies, added into an f32 output over
/// at least one reduction loop.
bool isF32Product(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      !llvm::all_of(op->getOperands(), isF32Tensor))
    return false;
  if (isa<linalg::GenericOp>(op))
    return hodu::gpu::hasMultiplyAddBody(op);
  return linalg::isaContractionOpInterface(op) ||
         linalg::isaConvolutionOpInterface(op);
}

/// The f32 values of `attr` (dense or a dense resource), if it holds any.
std::optional<SmallVector<float>> f32Values(Attribute attr) {
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    if (dense.isSplat())
      return SmallVector<float>{dense.getSplatValue<float>()};
    return llvm::to_vector(dense.getValues<float>());
  }
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr))
    if (std::optional<ArrayRef<float>> values = resource.tryGetAsArrayRef())
      return SmallVector<float>(*values);
  return std::nullopt;
}

/// `x` rounded to `narrow` (to nearest even, as arith.truncf rounds).
APFloat rounded(APFloat x, FloatType narrow) {
  bool lost;
  x.convert(narrow.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return x;
}

/// The constant behind `v` (through reshapes), or null if there is none.
Value constantRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return matchPattern(v, m_Constant()) ? v : Value();
}

/// Whether `v` is computed by the elementwise epilogue of a contraction:
/// single-use elementwise linalg ops up to an op with a reduction loop and
/// two inputs.
bool computedByEpilogue(Value v) {
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value current = work.pop_back_val();
    auto op = current.getDefiningOp<linalg::LinalgOp>();
    if (!op)
      continue;
    if (op.getNumReductionLoops() > 0) {
      if (op.getNumDpsInputs() == 2 && hodu::gpu::hasMultiplyAddBody(op))
        return true;
      continue;
    }
    if (current != v && !op->hasOneUse())
      continue;
    for (Value in : op.getDpsInputs())
      work.push_back(in);
  }
  return false;
}

/// Whether rounding computed operand `v` costs no kernel of its own: `v`
/// (through single-use pads and reshapes) is the only use of an elementwise
/// op that is not a contraction's epilogue, which
/// hodu-gpu-fuse-elementwise fuses into the rounding.
bool roundsForFree(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::PadOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
            def) ||
        !def->hasOneUse())
      break;
    v = def->getOperand(0);
  }
  auto producer = v.getDefiningOp<linalg::LinalgOp>();
  return producer && producer.getNumReductionLoops() == 0 &&
         producer->hasOneUse() && !computedByEpilogue(v);
}

struct Narrower {
  Narrower(RewriterBase &rewriter, FloatType narrow)
      : rewriter(rewriter), narrow(narrow) {}

  RewriterBase &rewriter;
  FloatType narrow;
  DenseMap<Value, Value> done;
  /// Each constant's values rounded, computed once: null where it holds no
  /// f32 data; failure where a value passes the narrow type's range.
  DenseMap<Value, FailureOr<DenseElementsAttr>> roundedConstants;

  /// Constant `c` rounded to the narrow type (to nearest even, as
  /// arith.truncf does at run time; see roundedConstants).
  FailureOr<DenseElementsAttr> roundedConstant(Value c) {
    if (auto it = roundedConstants.find(c); it != roundedConstants.end())
      return it->second;
    FailureOr<DenseElementsAttr> result = DenseElementsAttr();
    Attribute attr;
    matchPattern(c, m_Constant(&attr));
    if (std::optional<SmallVector<float>> values = f32Values(attr)) {
      SmallVector<APFloat> narrowed;
      narrowed.reserve(values->size());
      for (float f : *values) {
        narrowed.push_back(rounded(APFloat(f), narrow));
        if (std::isfinite(f) && !narrowed.back().isFinite()) {
          result = failure();
          break;
        }
      }
      if (succeeded(result))
        result = DenseElementsAttr::get(
            cast<RankedTensorType>(c.getType()).clone(narrow), narrowed);
    }
    roundedConstants.try_emplace(c, result);
    return result;
  }

  /// Whether `v` is a constant (through reshapes) of f32 data.
  bool isConstant(Value v) {
    Value c = constantRoot(v);
    if (!c)
      return false;
    FailureOr<DenseElementsAttr> r = roundedConstant(c);
    return failed(r) || *r;
  }

  /// Whether narrowing `v` keeps it finite: false for a constant with a
  /// value past the narrow type's range.
  bool fits(Value v) {
    Value c = constantRoot(v);
    return !c || succeeded(roundedConstant(c));
  }

  /// `v` (f32) as a tensor of the narrow type: a constant converted now
  /// (also behind reshapes), else an elementwise truncf placed after `v`'s
  /// definition, shared by every contraction that reads `v`.
  Value operator()(Value v) {
    if (Value known = done.lookup(v))
      return known;
    OpBuilder::InsertionGuard guard(rewriter);
    if (Operation *def = v.getDefiningOp())
      rewriter.setInsertionPointAfter(def);
    else
      rewriter.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    auto type = cast<RankedTensorType>(v.getType());
    auto narrowType = type.clone(narrow);
    Location loc = v.getLoc();
    Value result;
    if (matchPattern(v, m_Constant())) {
      FailureOr<DenseElementsAttr> dense = roundedConstant(v);
      if (succeeded(dense) && *dense)
        result = arith::ConstantOp::create(rewriter, loc, *dense);
    } else if (auto expand = v.getDefiningOp<tensor::ExpandShapeOp>()) {
      // Reshapes and pads move after the rounding, so that it sits next
      // to the producer, whose kernel does it.
      result = tensor::ExpandShapeOp::create(rewriter, loc, narrowType,
                                             (*this)(expand.getSrc()),
                                             expand.getReassociationIndices());
    } else if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
      result = tensor::CollapseShapeOp::create(
          rewriter, loc, narrowType, (*this)(collapse.getSrc()),
          collapse.getReassociationIndices());
    } else if (auto pad = v.getDefiningOp<tensor::PadOp>()) {
      // A convolution's padded input: the source is rounded (where its
      // producer's kernel can do it) and padded narrow.
      Value padValue = pad.getConstantPaddingValue();
      FloatAttr value;
      if (padValue && matchPattern(padValue, m_Constant(&value)) &&
          pad.getSourceType().hasStaticShape()) {
        Value narrowPad = arith::ConstantOp::create(
            rewriter, loc,
            rewriter.getFloatAttr(narrow, rounded(value.getValue(), narrow)));
        result = tensor::PadOp::create(
            rewriter, loc, narrowType, (*this)(pad.getSource()),
            pad.getMixedLowPad(), pad.getMixedHighPad(), narrowPad,
            pad.getNofold());
      }
    }
    if (!result) {
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, type.getShape(), narrow);
      AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
      SmallVector<utils::IteratorType> parallel(type.getRank(),
                                                utils::IteratorType::parallel);
      result = linalg::GenericOp::create(
                   rewriter, loc, narrowType, v, empty,
                   ArrayRef<AffineMap>{id, id}, parallel,
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value t = arith::TruncFOp::create(b, l, narrow, args[0]);
                     linalg::YieldOp::create(b, l, t);
                   })
                   .getResult(0);
    }
    done[v] = result;
    return result;
  }
};

struct GpuLowerPrecision
    : hodu::gpu::impl::GpuLowerPrecisionBase<GpuLowerPrecision> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    FloatType narrow;
    if (precision == "f16")
      narrow = Float16Type::get(ctx);
    else if (precision == "bf16")
      narrow = BFloat16Type::get(ctx);
    else if (precision == "f32")
      return;
    else {
      getOperation().emitError("hodu-gpu-lower-precision: precision '")
          << precision << "' is not f16, bf16 or f32";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      // Attention's fused loop (hodu-gpu-fuse-attention) stays f32.
      if (isF32Product(op) && !op->getParentOfType<scf::ForallOp>())
        products.push_back(op);
    });
    IRRewriter rewriter(ctx);
    Narrower narrowed(rewriter, narrow);
    for (linalg::LinalgOp op : products) {
      if (!llvm::all_of(op.getDpsInputs(),
                        [&](Value in) { return narrowed.fits(in); }))
        continue;
      // Which operands are narrowed: constants always; computed ones with
      // only-free where their producer's kernel can round them.
      SmallVector<bool> narrowInput =
          llvm::map_to_vector(op.getDpsInputs(), [&](Value in) {
            return !onlyFree || narrowed.isConstant(in) || roundsForFree(in);
          });
      if (llvm::none_of(narrowInput, [](bool b) { return b; }))
        continue;
      rewriter.setInsertionPoint(op);
      linalg::LinalgOp current = op;
      if (!isa<linalg::GenericOp>(op)) {
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic))
          continue;
        current = *generic;
      }
      auto generic = cast<linalg::GenericOp>(current.getOperation());
      if (!hodu::gpu::hasMultiplyAddBody(generic))
        continue;
      SmallVector<Value> inputs;
      for (auto [in, narrowIt] :
           llvm::zip_equal(generic.getDpsInputs(), narrowInput))
        inputs.push_back(narrowIt ? narrowed(in) : in);
      Block &body = generic.getRegion().front();
      rewriter.setInsertionPoint(generic);
      auto widened = linalg::GenericOp::create(
          rewriter, generic.getLoc(), generic.getResultTypes(), inputs,
          generic.getDpsInits(), generic.getIndexingMapsArray(),
          generic.getIteratorTypesArray(),
          [&](OpBuilder &b, Location l, ValueRange args) {
            IRMapping map;
            for (unsigned i = 0; i < 2; ++i)
              map.map(
                  body.getArgument(i),
                  args[i].getType().isF32()
                      ? args[i]
                      : arith::ExtFOp::create(b, l, b.getF32Type(), args[i]));
            map.map(body.getArgument(2), args[2]);
            for (Operation &inner : body.without_terminator())
              b.clone(inner, map);
            SmallVector<Value> yielded;
            for (Value y : body.getTerminator()->getOperands())
              yielded.push_back(map.lookupOrDefault(y));
            linalg::YieldOp::create(b, l, yielded);
          });
      widened->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
      rewriter.replaceOp(generic, widened->getResults());
    }
  }
};
} // namespace
