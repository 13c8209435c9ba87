//===- PrepareKernels.cpp - shared GPU kernels made ready for SPIR-V ------===//
//
// See hodu-spirv-prepare-kernels in include/hodu/Target/SPIRV/Passes.td.
//
// The NVVM and ROCDL conversions read workgroup memory from module-level
// globals and take the block size at launch; SPIR-V for Vulkan wants
// workgroup allocations in the Workgroup storage class and the workgroup
// size in the shader. Upstream's GPU-to-SPIR-V conversion does not derive
// either from what gpu-kernel-outlining leaves (known_block_size is not
// read), hence this pass.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/SPIRV/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

#include <limits>

namespace hodu::spirv {
#define GEN_PASS_DEF_SPIRVPREPAREKERNELS
#include "hodu/Target/SPIRV/Passes.h.inc"
} // namespace hodu::spirv

using namespace mlir;

namespace {

/// SPIR-V 1.3 (Vulkan 1.1) with what the models' element types need; the
/// limits are what Vulkan devices with compute commonly have (the runtime
/// checks a kernel's workgroup size against the device's own).
std::string targetEnv(bool float64) {
  return std::string("#spirv.target_env<#spirv.vce<v1.3, [Shader, Int64, "
                     "Int16, Int8, Float16, ") +
         (float64 ? "Float64, " : "") +
         "StorageBuffer8BitAccess, StorageBuffer16BitAccess], "
         "[SPV_KHR_storage_buffer_storage_class, SPV_KHR_8bit_storage, "
         "SPV_KHR_16bit_storage]>, api=Vulkan, "
         "#spirv.resource_limits<max_compute_shared_memory_size = 32768, "
         "max_compute_workgroup_invocations = 1024, "
         "max_compute_workgroup_size = [1024, 1024, 64]>>";
}

/// GLSL.std.450's transcendental instructions take 16- and 32-bit floats
/// only: on f64 these math ops are computed in f32 (about 7 significant
/// digits), the only way SPIR-V for Vulkan has to compute them at all.
struct NarrowF64Math : RewritePattern {
  NarrowF64Math(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    static const llvm::StringSet<> kNoF64 = {
        "math.exp",   "math.exp2",  "math.expm1", "math.log",   "math.log2",
        "math.log10", "math.log1p", "math.powf",  "math.sin",   "math.cos",
        "math.tan",   "math.asin",  "math.acos",  "math.atan",  "math.atan2",
        "math.sinh",  "math.cosh",  "math.tanh",  "math.asinh", "math.acosh",
        "math.atanh", "math.erf",   "math.erfc",  "math.cbrt"};
    if (!kNoF64.contains(op->getName().getStringRef()) ||
        op->getNumResults() != 1 || !isF64(op->getResult(0).getType()) ||
        !llvm::all_of(op->getOperandTypes(), isF64))
      return failure();
    Location loc = op->getLoc();
    auto narrow = [&](Type t) -> Type {
      Type f32 = rewriter.getF32Type();
      if (auto v = dyn_cast<VectorType>(t))
        return v.clone(f32);
      return f32;
    };
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(
          arith::TruncFOp::create(rewriter, loc, narrow(v.getType()), v));
    Type resultType = op->getResult(0).getType();
    OperationState state(loc, op->getName(), operands, {narrow(resultType)},
                         op->getAttrs());
    Operation *narrowed = rewriter.create(state);
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, resultType,
                                               narrowed->getResult(0));
    return success();
  }

  static bool isF64(Type t) { return getElementTypeOrSelf(t).isF64(); }
};

/// GLSL's Pow is undefined for a negative base; ONNX's (C's) pow is not:
/// an integral exponent gives |x|^y with the sign of x when y is odd, any
/// other exponent NaN.
struct SignedPow : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("hodu.signed_pow"))
      return failure();
    Location loc = op.getLoc();
    Value x = op.getLhs(), y = op.getRhs();
    Type type = x.getType();
    auto constant = [&](double v) -> Value {
      Type elem = getElementTypeOrSelf(type);
      TypedAttr attr = rewriter.getFloatAttr(elem, v);
      if (auto vec = dyn_cast<VectorType>(type))
        attr = SplatElementsAttr::get(vec, attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    Value zero = constant(0.0), two = constant(2.0);
    Value magnitude = math::PowFOp::create(
        rewriter, loc, math::AbsFOp::create(rewriter, loc, x), y);
    magnitude.getDefiningOp()->setAttr("hodu.signed_pow",
                                       rewriter.getUnitAttr());
    Value negative = arith::CmpFOp::create(rewriter, loc,
                                           arith::CmpFPredicate::OLT, x, zero);
    Value integral = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OEQ,
        math::FloorOp::create(rewriter, loc, y), y);
    Value half = arith::DivFOp::create(rewriter, loc, y, two);
    Value odd = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::ONE,
        math::FloorOp::create(rewriter, loc, half), half);
    Value signedValue = arith::SelectOp::create(
        rewriter, loc, odd, arith::NegFOp::create(rewriter, loc, magnitude),
        magnitude);
    Value nan = constant(std::numeric_limits<double>::quiet_NaN());
    Value ofNegative =
        arith::SelectOp::create(rewriter, loc, integral, signedValue, nan);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, ofNegative,
                                                 magnitude);
    return success();
  }
};

/// Sign extension to 64 bits as (zext(x) ^ m) - m with m = 2^(w-1):
/// Mesa's lavapipe (22.3) zero-extends an OpSConvert to a 64-bit integer
/// (SPIR-V types here are unsigned), so an i32 of -1 became 2^32 - 1. The
/// arithmetic gives the same bits under any reading of the conversion.
struct SignExtendTo64 : OpRewritePattern<arith::ExtSIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtSIOp op,
                                PatternRewriter &rewriter) const override {
    Type to = op.getType(), from = op.getIn().getType();
    if (!getElementTypeOrSelf(to).isInteger(64))
      return failure();
    unsigned width = getElementTypeOrSelf(from).getIntOrFloatBitWidth();
    Location loc = op.getLoc();
    TypedAttr bit = rewriter.getIntegerAttr(getElementTypeOrSelf(to),
                                            APInt(64, 1) << (width - 1));
    if (auto vec = dyn_cast<VectorType>(to))
      bit = SplatElementsAttr::get(vec, bit);
    Value m = arith::ConstantOp::create(rewriter, loc, bit);
    Value z = arith::ExtUIOp::create(rewriter, loc, to, op.getIn());
    Value flipped = arith::XOrIOp::create(rewriter, loc, z, m);
    rewriter.replaceOpWithNewOp<arith::SubIOp>(op, flipped, m);
    return success();
  }
};

bool inWorkgroupMemory(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  auto space = memref ? dyn_cast_or_null<gpu::AddressSpaceAttr>(
                            memref.getMemorySpace())
                      : nullptr;
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

struct SpirvPrepareKernels
    : hodu::spirv::impl::SpirvPrepareKernelsBase<SpirvPrepareKernels> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (!module->hasAttr(mlir::spirv::getTargetEnvAttrName())) {
      Attribute env = parseAttribute(targetEnv(float64), ctx);
      if (!env) {
        module.emitError("internal error: bad SPIR-V target environment");
        return signalPassFailure();
      }
      module->setAttr(mlir::spirv::getTargetEnvAttrName(), env);
    }
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      if (failed(prepare(kernels)))
        return signalPassFailure();
    }
  }

  LogicalResult prepare(gpu::GPUModuleOp kernels) {
    MLIRContext *ctx = &getContext();
    for (auto func : kernels.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      DenseI32ArrayAttr block = func.getKnownBlockSizeAttr();
      if (!block || block.size() != 3)
        return func.emitError("internal error: kernel without a known block "
                              "size (SPIR-V bakes it into the shader)");
      func->setAttr(mlir::spirv::getEntryPointABIAttrName(),
                    mlir::spirv::getEntryPointABIAttr(ctx, block.asArrayRef()));
      workgroupGlobalsToAllocs(func);
    }
    for (auto global :
         llvm::make_early_inc_range(kernels.getOps<memref::GlobalOp>()))
      if (inWorkgroupMemory(global.getType()) &&
          global.symbolKnownUseEmpty(kernels))
        global.erase();

    // #gpu.address_space<workgroup> -> #spirv.storage_class<Workgroup>,
    // <private> (a thread's temporaries) -> <Function>.
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](gpu::AddressSpaceAttr space) -> std::optional<Attribute> {
          if (space.getValue() == gpu::AddressSpace::Workgroup)
            return mlir::spirv::StorageClassAttr::get(
                ctx, mlir::spirv::StorageClass::Workgroup);
          if (space.getValue() == gpu::AddressSpace::Private)
            return mlir::spirv::StorageClassAttr::get(
                ctx, mlir::spirv::StorageClass::Function);
          return std::nullopt;
        });
    replacer.recursivelyReplaceElementsIn(kernels, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);

    // f64 maths in f32 first, so that the f32 expansions below apply.
    RewritePatternSet narrowing(ctx);
    narrowing.add<NarrowF64Math>(ctx);
    if (failed(applyPatternsGreedily(kernels, std::move(narrowing))))
      return failure();

    // Maths GLSL.std.450 has no instruction for.
    RewritePatternSet patterns(ctx);
    populatePolynomialApproximateErfPattern(patterns);
    populatePolynomialApproximateErfcPattern(patterns);
    math::populateExpansionPatterns(patterns, {"cbrt", "fpowi", "ipowi"});
    patterns.add<SignedPow, SignExtendTo64>(ctx);
    return applyPatternsGreedily(kernels, std::move(patterns));
  }

  /// One workgroup allocation per kernel and global, at the kernel's entry,
  /// for every `memref.get_global` of a workgroup global.
  void workgroupGlobalsToAllocs(gpu::GPUFuncOp func) {
    llvm::StringMap<Value> allocs;
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    func.walk([&](memref::GetGlobalOp get) {
      if (!inWorkgroupMemory(get.getType()))
        return;
      Value &alloc = allocs[get.getName()];
      if (!alloc)
        alloc = memref::AllocOp::create(b, get.getLoc(), get.getType());
      get.replaceAllUsesWith(alloc);
      get.erase();
    });
  }
};
} // namespace
