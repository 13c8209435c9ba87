//===- Passes.td - shared GPU code-generation passes -------*- tablegen -*-===//
//
// The passes every GPU target (cuda today; rocm and vulkan next) runs from
// linalg on tensors to outlined kernels: tiling to blocks and threads with
// workgroup-memory tiles for matmuls, the mapping of the tiled loops to
// `gpu.launch`, and one `gpu.module` for all kernels. The target then lowers
// that module (NVVM, ROCDL, SPIR-V) and serialises it.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_GPU_PASSES_TD
#define HODU_TARGET_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GpuFuseElementwise
    : Pass<"hodu-gpu-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise ops into their consumers, except into contractions";
  let description = [{
    Upstream `linalg-fuse-elementwise-ops` with one rule more for GPUs: an
    elementwise producer is not fused into a contraction (a product of two
    operands over a reduction loop, such as a matmul or attention's second
    product). Fused there, it would be recomputed for every multiply of the
    K loop (GELU's erf once per output column) and would keep the
    contraction from being tiled through workgroup memory; left alone it is
    a kernel of its own, or the epilogue of the contraction before it.
    Elementwise chains, and prologues of reductions (softmax's `exp(x - m)`
    into its sum, a bias and ReLU into a max pool), are fused as upstream
    fuses them: producers with one use, reshapes propagated. The chains
    are fused once before any reshape moves: an expand_shape after a bias
    and an activation (before a grouped convolution) would otherwise be
    moved up to the bias, which cannot take it when the bias is a
    `[C][1][1]` constant read at `(c, 0, 0)`, and leave the activation a
    kernel of its own.

    ```mlir
    %g = linalg.generic {... parallel ...} ins(%h, %b) { erf(...) }
    %o = linalg.generic {... reduction ...} ins(%g, %w) { %out + %g * %w }
    // stays two ops; upstream would fuse %g into %o's body
    ```
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def GpuFuseAttention
    : Pass<"hodu-gpu-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Attention as one kernel: a block per batch x heads and block of query rows (GPU)";
  let description = [{
    The chains `hodu-cpu-fuse-attention` finds (docs/dialect/HoduCPUPasses.md:
    `S = Q K^T`, scale, mask, softmax, `P V`; shared code in
    lib/Target/AttentionTiles.cpp) become one `scf.forall` over the second
    product's batch (batch x heads) and blocks of query rows, with the whole
    chain fused into each iteration. hodu-gpu-tile makes that loop one
    kernel: a workgroup per iteration, each op of the chain a loop of its
    threads (an element per thread, the reductions over keys serial in
    the thread), the intermediates -- a block of rows of the scores, of
    the probabilities, the rows' maxima and sums -- in workgroup memory,
    barriers between. Nothing of size queries x keys is written to device
    memory.

    Rows per block: the largest divisor of the query count up to 64 whose
    intermediates (counted as four blocks of rows x keys, f32) fit
    `workgroup-memory`; a loop whose intermediates do not fit after all is
    undone. Past that (2,048 keys with 32 KiB), rows are chosen for four
    blocks of rows x `key-block` keys and the loop takes the key-block form
    (hodu::blockKeys, flash attention's online softmax): an `scf.for` over
    blocks of keys carrying each row's running max, running sum and output,
    each step computing only its keys' scores; the rows are the output over
    the sum after the loop. A chain whose softmax is not the plain max,
    subtract, exp, sum, divide keeps the separate kernels.

    Where a constant mask (causal, a window's far edge, constant padding)
    kills the trailing keys of blocks of rows (`skip-dead-keys`, on by
    default; proved as in hodu-cpu-fuse-attention), the loop is split into
    at most 8 loops over consecutive blocks, each computing only the keys
    its rows see, rounded up to `key-quantum`: a kernel each, which
    together compute a little over half a causal chain's products. Each
    kernel keeps at least `min-blocks` blocks (neighbouring runs join until
    it does), as hodu-gpu-tile's contractions do: a GPU of many cores runs
    one kernel of many blocks faster than several kernels of few.
  }];
  let options = [
    Option<"workgroupMemory", "workgroup-memory", "int64_t", "32768",
           "Bytes of workgroup memory a block may use">,
    Option<"skipDeadKeys", "skip-dead-keys", "bool", "true",
           "Split the loop where a constant mask kills trailing keys">,
    Option<"keyQuantum", "key-quantum", "int64_t", "32",
           "The keys a split loop computes are a multiple of this">,
    Option<"minBlocks", "min-blocks", "int64_t", "64",
           "Fewest blocks a split loop's kernel keeps, to fill the GPU">,
    Option<"keyBlock", "key-block", "int64_t", "256",
           "Most keys per step of the key-block (online softmax) form">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
  ];
}

def GpuLowerPrecision
    : Pass<"hodu-gpu-lower-precision", "mlir::func::FuncOp"> {
  let summary = "Run f32 contractions on f16 or bf16 operands with f32 sums (hoduc --precision)";
  let description = [{
    `hoduc --precision=f16|bf16` on a GPU target. Every contraction and
    convolution of f32 operands into an f32 result (matmuls, batched
    matmuls, attention's two products, Gemm, convolutions of any rank,
    grouped or depthwise: a linalg op with two inputs whose body is
    `out + a * b` over a reduction loop) takes its operands rounded to the
    narrow type (round to nearest even) and keeps its f32 result: each
    product is widened back and summed in f32. Constant operands (weights,
    also behind reshapes) are converted at compile time, so the bundle
    stores them narrow; a computed operand is rounded by an elementwise op,
    which hodu-gpu-fuse-elementwise then fuses into its producer, so the
    activation is written narrow. Everything else -- softmax, the
    normalisations, reductions, elementwise ops -- stays f32.

    On CUDA (sm_80 and later) the narrowed contractions are the f16 / bf16
    `mma.sync` kernels, which need both operands narrow. Elsewhere they are
    the FMA kernels, which read narrow tiles (half the bytes) and multiply
    in f32; there `only-free` rounds a computed operand only where that
    costs no kernel: where it is the only use of an elementwise op (through
    pads and reshapes) that is not a contraction's epilogue, so that the
    op's kernel writes it narrow. Elsewhere -- a contraction's or its
    epilogue's result (the epilogue would leave the contraction's kernel),
    a pooling's, a model input -- rounding would be a kernel of its own,
    and the contraction multiplies that f32 operand by a narrow one.

    A constant operand with a value past the narrow type's range (f16:
    65504) keeps its contraction in f32. Computed values past that range
    are not known at compile time: f16 turns them into infinities, which is
    why models that compute large magnitudes (a power spectrum) need f32 or
    bf16.

    ```mlir
    %c = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x3xf32>) ...
    // becomes, with precision=f16:
    %a16 = linalg.generic {parallel} ins(%a) { arith.truncf ... to f16 }
    %c = linalg.generic {...} ins(%a16, %w16 : tensor<4x8xf16>, tensor<8x3xf16>)
           outs(%init : tensor<4x3xf32>) { %out + extf(%x) * extf(%y) }
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"f16\"",
           "The operand type of f32 contractions: f16 or bf16">,
    Option<"onlyFree", "only-free", "bool", "false",
           "Round a computed operand only where an elementwise producer's "
           "kernel can do it (kernels that multiply in f32)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def GpuTile : Pass<"hodu-gpu-tile", "mlir::ModuleOp"> {
  let summary = "Group linalg ops into kernels and tile them into blocks and threads (GPU)";
  let description = [{
    Runs on linalg on tensors, after hodu-gpu-fuse-elementwise. The
    top-level linalg ops of each function are grouped into kernels, from the
    last up, and each kernel gets one of three strategies; the sizes are
    picked in C++ from the static shapes and the tiling is done by upstream
    transform ops (`tile_using_forall`, `tile_using_for`,
    `fuse_into_containing_op`, `promote_tensor`, `vectorize`), one script
    per kernel. Every kernel is an `scf.forall` mapped to blocks around
    `scf.forall`s mapped to threads.

    - **Contractions** (any `linalg::inferContractionDims` batch/M/N/K op:
      matmuls, batched matmuls, attention's products, the Gemm after a
      flatten): named ops are generalised and consecutive K loops collapsed.
      A convolution (a multiply-add whose input is indexed by sums of loops:
      NCHW, grouped, depthwise, 1-D to 3-D, strided, dilated) first becomes
      a contraction over an im2col tensor, which an elementwise kernel
      gathers, reading a constant pad of the input through (no padded
      tensor); a stride-1 1x1 one, whose window loops are dropped first, is
      a contraction on its input itself. With `implicit-gemm` (the FMA
      kernels, no `tensor-cores`) the gather reads the input in its body, is
      collapsed with the K loops and is fused into the contraction's K
      loop: each step gathers its tile of the operand straight into
      workgroup memory (no im2col tensor, no gather kernel). A block computes a BM x BN tile of the innermost M and N
      dims (batch and outer dims one per block): 128x128 with 8x8 per thread
      when the output is large, down to 16x16 with one element per thread,
      taking the largest candidate that divides M and N and leaves at least
      `min-blocks` blocks. A K loop steps by a divisor of K of at most
      `tile-k` whose A and B tiles fit `workgroup-memory`; each step copies
      them into workgroup memory and 16x16 threads compute their TM x TN
      register tile from it, vectorised so that hodu-gpu-lower-vectors keeps
      the accumulator in registers across K. The fill that zeroes the
      output and an elementwise epilogue (bias, activation, residual add,
      scale) that reads only the contraction's tile are fused: the epilogue
      is rewritten to update the contraction's result in place, tiled like
      it and computed by the same threads after the K loop.
    - **Matrix units** (`tensor-cores`: NVIDIA's tensor cores, AMD's
      matrix cores): a contraction whose operands they can read is marked
      with its plan instead and becomes the MMA kernel after bufferisation
      (hodu-gpu-map-to-launches). One with an f32 output that fills fewer
      than `min-blocks` blocks even with 32x32 tiles is first split over K
      (split-K: upstream's `linalg::splitReduction`, 2 to 16 slices of at
      least 256 of K each): the slices are a batch of the MMA kernel, and
      one kernel sums them and applies the epilogue. With more than 8 rows
      of tiles the
      blocks take the tiles in groups of 8 rows (L2 reuse).
    - **Workgroup reductions** (one output, a sum, product, min, max or
      bitwise combiner, rows of at least `min-workgroup-reduction`
      elements, or no rows at all): a block per row, or per few rows when
      rows are short, `reduce-threads` threads (a power of two) per row; the
      op is marked and hodu-gpu-map-to-launches builds the strided partials
      and the tree after bufferisation.
    - **Everything else** (elementwise chains, broadcasts, transposes,
      gathers, the im2col, pooling windows, short rows): a thread per
      output element, blocks of at most `block-threads` along the innermost
      parallel loop (and a second one when it is short), the other parallel
      loops over the grid; reduction loops run in the thread, its output
      element initialised by the fused fill first. An elementwise op that
      reads such a reduction element for element (a pooling window, the sum
      of split-K's slices) computes it in its own threads first: one
      kernel. A consumer that reads a reduction through a collapse_shape
      (the bias after a depthwise convolution's grouped form) is first
      given the reduction's shape, so that it can be its epilogue or its
      consumer.

    Should a strategy's script fail on a shape it did not foresee, the
    function is restored and the kernel's ops get a thread per element
    (`report-fallbacks` says why). Ops without parallel loops that no
    workgroup reduces are left to hodu-gpu-map-to-launches; dynamic shapes
    are an error naming the op.

    ```mlir
    %c = linalg.matmul ins(%a, %b) outs(%zero)
    %r = linalg.generic ins(%c, %bias) outs(%e) { relu(%c + %bias) }
    // becomes (sketch)
    scf.forall (%i, %j) in (M/BM, N/BN) shared_outs(%o = %c0) {
      linalg.fill (per thread)
      scf.for %k = 0 to K step BK {
        %as = promoted A tile (workgroup)   %bs = promoted B tile (workgroup)
        scf.forall (%ti, %tj) in (BM/TM, BN/TN) { vector.contract ... }
      }
      scf.forall (%ti, %tj) in (BM/TM, BN/TN) { relu(%o + %bias) in place }
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    ```
  }];
  let options = [
    Option<"blockThreads", "block-threads", "int64_t", "256",
           "Most threads of a block">,
    Option<"minBlocks", "min-blocks", "int64_t", "64",
           "Blocks a contraction's tiles should leave to fill the GPU">,
    Option<"workgroupMemory", "workgroup-memory", "int64_t", "32768",
           "Bytes of workgroup memory a block may use">,
    Option<"tileK", "tile-k", "int64_t", "16",
           "Most K of a contraction's workgroup-memory tiles">,
    Option<"reduceThreads", "reduce-threads", "int64_t", "256",
           "Most threads reducing one row (a power of two)">,
    Option<"minWorkgroupReduction", "min-workgroup-reduction", "int64_t",
           "32", "Shortest row reduced by a workgroup rather than a thread">,
    Option<"reportFallbacks", "report-fallbacks", "bool", "false",
           "Remark on kernels whose strategy failed and why">,
    Option<"target", "target", "std::string", "\"gpu\"", "The target, named in errors">,
    Option<"implicitGemm", "implicit-gemm", "bool", "true",
           "Convolutions on the FMA units (no tensor-cores) as implicit "
           "GEMMs: each K step gathers its tile of the input (no im2col "
           "tensor and kernel)">,
    Option<"tensorCores", "tensor-cores", "std::string", "\"\"",
           "Contractions on matrix units: empty for none; NVIDIA tensor "
           "cores (sm_80+): how f32 contractions compute there, 3xtf32 or "
           "tf32; AMD matrix cores (CDNA): mfma, +bf16 where bf16 MFMA is "
           "there, +xf32 for f32 as xf32">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::bufferization::BufferizationDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::transform::TransformDialect",
    "mlir::vector::VectorDialect",
  ];
}

def GpuMapToLaunches : Pass<"hodu-gpu-map-to-launches", "mlir::ModuleOp"> {
  let summary = "Turn the block and thread loops of hodu-gpu-tile into gpu.launch ops";
  let description = [{
    Runs after bufferisation.

    - **Nothing on the host**: linalg ops and `memref.copy`s outside any
      block loop (the fills and copies of `tensor.pad`, `insert_slice` and
      concatenation, scalar arithmetic) become kernels of their own, a
      thread per element (one thread for ops without parallel loops).
    - **Workgroup reductions**: each op hodu-gpu-tile marked becomes thread
      loops in its block: every thread strides over its row (lane, lane +
      T, ...) into a partial in workgroup memory, then log2(T) levels each
      combine pairs of partials with half the threads of the level before,
      a barrier after each, and one thread per row writes the result
      (folding the fill that initialised it).
    - **Workgroup memory**: buffers in workgroup memory become
      `memref.global`s, and the copies into them are spread over all the
      block's threads, four consecutive elements per thread where the rows
      allow (`vector-width`), so that hodu-gpu-lower-vectors can load them
      as vectors.
    - **Launches**: block loops with more than three mapped dims have the
      outer ones folded into z; every block loop becomes a `gpu.launch`
      (upstream `transform.gpu.map_forall_to_blocks` and
      `map_nested_forall_to_threads`, which put a `gpu.barrier` after each
      thread loop). The grid comes from the block loop's trip counts, the
      block size from the largest thread loop inside it.
  }];
  let options = [
    Option<"blockThreads", "block-threads", "int64_t", "256",
           "Most threads of the kernels made here">,
    Option<"vectorWidth", "vector-width", "int64_t", "4",
           "Consecutive elements per thread of a copy into workgroup memory">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::gpu::GPUDialect", "mlir::linalg::LinalgDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::transform::TransformDialect", "mlir::vector::VectorDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::NVVM::NVVMDialect",
    "mlir::ROCDL::ROCDLDialect", "mlir::LLVM::LLVMDialect",
  ];
}

def GpuLowerVectors : Pass<"hodu-gpu-lower-vectors", "mlir::ModuleOp"> {
  let summary = "Keep register tiles in registers and lower vectors to what every GPU target takes";
  let description = [{
    Runs on the `gpu.launch` bodies of hodu-gpu-map-to-launches.

    - **Register accumulators**: view ops are folded into the vector
      transfers, and a transfer read of a thread's output tile before a K
      loop with the matching write after it is hoisted
      (`linalg::hoistRedundantVectorTransfers`): the tile becomes the
      loop's `iter_args`, in registers, instead of being read and written
      in global memory every K step.
    - **Vectors of at most `vector-width` elements**: contractions become
      outer products of `vector.fma`, transfers are unrolled to 1-D
      vectors of at most `vector-width` elements (SPIR-V takes 2, 3 and 4),
      and the rest (broadcasts, transposes, reductions, shape casts) is
      lowered to 1-D ops. No subgroup size is assumed.
    - **Memory accesses**: with `vector-memory` the 1-D transfers become
      `vector.load`/`vector.store` (NVVM and ROCDL load 16 bytes at once);
      without it (Vulkan's logical addressing cannot load a vector from an
      array of scalars) they become scalar loads and stores, and vectors
      stay in registers only.

    ```mlir
    scf.for %k ... {
      %c = vector.transfer_read %C[%i, %j] : memref<..>, vector<4x4xf32>
      %r = vector.contract ... %c
      vector.transfer_write %r, %C[%i, %j]
    }
    // becomes
    %c0 = vector.load ... (4 rows of vector<4xf32>)
    %r = scf.for %k ... iter_args(%acc = %c0) { vector.fma ... }
    vector.store %r ...
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "4",
           "Most elements of a vector">,
    Option<"vectorMemory", "vector-memory", "bool", "false",
           "Load and store whole vectors (not for SPIR-V's logical addressing)">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect",
  ];
}

def GpuMergeKernelModules
    : Pass<"hodu-gpu-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "Move the outlined kernels into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel, each kernel
    named after its function. A model's artifact is one PTX (or HSACO, or
    SPIR-V) module, so the kernels move into a single `gpu.module @name`,
    each renamed after the module it came from (unique), and the
    `gpu.launch_func` ops follow. Other symbols (workgroup globals) keep
    their names when they do not collide and are renamed otherwise.
  }];
  let options = [
    Option<"moduleName", "name", "std::string", "\"kernels\"",
           "Name of the merged gpu.module">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def GpuBindBuffers : Pass<"hodu-gpu-bind-buffers", "mlir::ModuleOp"> {
  let summary = "Make every kernel argument a whole buffer, and intermediates plannable";
  let description = [{
    Runs on the host functions after `hodu-gpu-map-to-launches`, before
    outlining. A launch plan passes each kernel argument as a buffer and a
    byte offset (a Vulkan descriptor, a CUDA pointer), so what a kernel
    receives must be a buffer itself, not a view with its own layout:

    - chains of views of a buffer that a `gpu.launch` uses (`subview`,
      `expand_shape`, `collapse_shape`, `cast`, `reinterpret_cast`,
      `transpose`), with the constants and index computations they need,
      are cloned into the launch, so that the kernel's argument is the
      buffer the chain starts from (a function argument, a global, an
      allocation or a `memref.view` into an arena);
    - every statically shaped top-level `memref.alloc` of the host function
      that nothing frees gets a `memref.dealloc` before the return (the
      host function is straight-line code, so its intermediates die there
      at the latest), so that `hodu-plan-memory` can place it in the
      device arena by its real live range.

    Before:
    ```mlir
    %e = memref.expand_shape %a [[0, 1]] output_shape [1, 4]
        : memref<4xf32> into memref<1x4xf32>
    gpu.launch blocks(...) threads(...) { ... memref.load %e[%i, %j] ... }
    ```
    After:
    ```mlir
    gpu.launch blocks(...) threads(...) {
      %e = memref.expand_shape %a [[0, 1]] output_shape [1, 4]
          : memref<4xf32> into memref<1x4xf32>
      ... memref.load %e[%i, %j] ...
    }
    memref.dealloc %a : memref<4xf32>
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect"];
}

#endif // HODU_TARGET_GPU_PASSES_TD
