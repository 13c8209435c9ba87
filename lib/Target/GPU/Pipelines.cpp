//===- Pipelines.cpp - the phases GPU targets share -----------------------===//
#include "hodu/Target/GPU/Pipelines.h"

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/abi.h"
#include "hodu/bundle.h"

#include "llvm/Support/CommandLine.h"

/// Tests and benchmarks compare attention as one kernel with the separate
/// kernels.
static llvm::cl::opt<bool> noFuseAttention(
    "hodu-gpu-no-fuse-attention", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("GPU targets: attention as separate kernels instead of "
                   "hodu-gpu-fuse-attention's one kernel (for tests)"));

/// The staged device run times the split of a constant mask's runs of
/// rows (a kernel each) against one kernel of every key.
static llvm::cl::opt<bool> noSkipDeadKeys(
    "hodu-gpu-no-skip-dead-keys", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("GPU targets: one attention kernel over every key even "
                   "where a constant mask kills some (for benchmarks)"));

/// Tests and benchmarks compare the implicit GEMM with the im2col kernel.
static llvm::cl::opt<bool> noImplicitGemm(
    "hodu-gpu-no-implicit-gemm", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("GPU targets: convolutions on the FMA units gather "
                   "their input into an im2col tensor, a kernel of its own, "
                   "instead of in each K step (for tests)"));

/// A test hook: lavapipe runs the MFMA kernel with each MFMA computed by
/// the wavefront's threads (MatrixCores.cpp), which checks its tiles,
/// stages and fragment layouts where no AMD GPU is.
static llvm::cl::opt<bool> emulateMfma(
    "hodu-gpu-emulate-mfma", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("GPU targets: contractions as the ROCm target's MFMA "
                   "kernel, each MFMA emulated by the threads (f16, f32; "
                   "for tests)"));

/// A test hook: lavapipe runs the CUDA target's sm_90a wgmma kernel with
/// each wgmma computed by the warpgroup's threads from its descriptors
/// (TensorCoreKernel.cpp), which checks the swizzled layout, the
/// descriptors and the accumulator layout where no Hopper GPU is.
static llvm::cl::opt<bool> emulateWgmma(
    "hodu-gpu-emulate-wgmma", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("GPU targets: contractions as the CUDA target's sm_90a "
                   "wgmma kernel, each wgmma emulated by the threads (f16, "
                   "bf16, f32 as TF32 in f32; for tests)"));

/// Attention chains become one loop each first (-O2), kept in f32.
/// --precision=f16|bf16 then narrows the contractions' operands, so that
/// the elementwise fusion that follows writes narrowed activations from
/// their producers' kernels. Kernels that multiply in f32 (all but tensor
/// cores) round a computed operand only where its producer's kernel can.
std::string hodu::gpu::linalgExtension(unsigned optLevel,
                                       llvm::StringRef precision,
                                       bool tensorCores,
                                       int64_t workgroupMemory,
                                       int64_t minBlocks) {
  std::string attention =
      optLevel >= 2 && !noFuseAttention
          ? "func.func(hodu-gpu-fuse-attention{workgroup-memory=" +
                std::to_string(workgroupMemory) +
                " min-blocks=" + std::to_string(minBlocks) +
                (noSkipDeadKeys ? " skip-dead-keys=false" : "") + "}),"
          : "";
  std::string narrow =
      precision.empty() || precision == "f32"
          ? ""
          : "func.func(hodu-gpu-lower-precision{precision=" + precision.str() +
                (tensorCores ? "" : " only-free") + "}),";
  std::string extension = attention + narrow;
  return optLevel >= 1
             ? extension +
                   "func.func(hodu-gpu-fuse-elementwise),canonicalize,cse"
         : extension.empty() ? ""
                             : extension + "canonicalize,cse";
}

/// The tiles are made on tensors, where promote_tensor puts the A and B
/// tiles of a contraction in workgroup memory; bufferisation follows
/// (results become out-parameters, as on the CPU). Canonicalisation removes
/// the self-copies the scf.forall outputs leave before the copies into
/// workgroup memory are spread over threads; register tiles are kept in
/// registers and vectors lowered to what every target takes. Loops are
/// materialised before outlining, and views and index computations sunk
/// into the launches so that kernel arguments are whole buffers; symbol-dce
/// drops the host's copies of the workgroup globals. Last, the host's
/// intermediates are placed in one device arena by liveness, at offsets a
/// Vulkan descriptor or a CUDA pointer can take (the launch plan's ARENA
/// buffer).
std::string hodu::gpu::kernelsPipeline(llvm::StringRef target,
                                       const KernelOptions &o) {
  std::string threads = std::to_string(o.maxThreads);
  std::string tensorCores = emulateMfma    ? " tensor-cores=mfma+emulate"
                            : emulateWgmma ? " tensor-cores=tf32+wgmma+emulate"
                            : o.tensorCores.empty()
                                ? ""
                                : " tensor-cores=" + o.tensorCores;
  return "hodu-gpu-tile{target=" + target.str() + " block-threads=" + threads +
         " workgroup-memory=" + std::to_string(o.workgroupMemory) +
         " min-blocks=" + std::to_string(o.minBlocks) + tensorCores +
         (noImplicitGemm ? " implicit-gemm=false" : "") +
         "},canonicalize,cse,func.func(hodu-split-empty-tensors),"
         "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-"
         "boundaries function-boundary-type-conversion=identity-layout-map},"
         "func.func(hodu-distinct-results),"
         "buffer-results-to-out-params{hoist-static-allocs "
         "modify-public-functions},canonicalize,cse,canonicalize,"
         "hodu-gpu-map-to-launches{block-threads=" +
         threads +
         "},canonicalize,cse,"
         "hodu-gpu-lower-vectors{vector-memory=" +
         (o.vectorMemory ? "true" : "false") +
         "},"
         "func.func(convert-linalg-to-loops),"
         "hodu-gpu-bind-buffers,gpu-launch-sink-index-computations,"
         "gpu-kernel-outlining,symbol-dce,hodu-gpu-merge-kernel-modules,"
         "func.func(hodu-plan-memory{alignment=" +
         std::to_string(HODU_BUNDLE_BUFFER_ALIGNMENT) + " min-buffers=1})";
}

std::vector<hodu::OpSupport> hodu::gpu::opSupport(GPUElementTypes types) {
  std::vector<int32_t> dtypes;
  for (int32_t d = 0; d < HODU_DTYPE_COUNT; ++d)
    if (d != HODU_DTYPE_F8E4M3 && d != HODU_DTYPE_F8E5M2 &&
        (types.bf16 || d != HODU_DTYPE_BF16) &&
        (types.f64 || d != HODU_DTYPE_F64))
      dtypes.push_back(d);
  std::vector<OpSupport> table = opSupportForAll(dtypes);
  // A run-time branch or loop is host control flow: with --fallback=cpu,
  // hodu.if and hodu.loop (their regions whole) run on the CPU between the
  // device's partitions. So is a run-time check of the model's data
  // (hodu.assert, whose failure the run reports): the partitioner places
  // its node on the CPU at once, where it used to fail the device's code
  // generation and cost a compile attempt.
  llvm::erase_if(table, [](const OpSupport &row) {
    return row.op == hodu::IfOp::getOperationName() ||
           row.op == hodu::LoopOp::getOperationName() ||
           row.op == hodu::YieldOp::getOperationName() ||
           row.op == hodu::AssertOp::getOperationName();
  });
  for (OpSupport &row : table) {
    row.condition = "on static shapes";
    row.check = [](mlir::Operation *op) {
      auto isStatic = [](mlir::Type t) {
        auto shaped = mlir::dyn_cast<mlir::ShapedType>(t);
        return !shaped || shaped.hasStaticShape();
      };
      return llvm::all_of(op->getOperandTypes(), isStatic) &&
             llvm::all_of(op->getResultTypes(), isStatic);
    };
  }
  return table;
}
