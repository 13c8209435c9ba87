//===- KernelPasses.td - CPU passes of particular kernels ---*- tablegen -*-===//
//
// The CPU target's passes that shape particular kernels and their memory:
// fused attention, padding in place, parallel copies and fills, strided
// reads, AMX tiles, panel prefetches, loop hints and the vector-to-LLVM
// rewrites. Included by Passes.td (one pass registry, one generated
// reference, in this order).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_CPU_KERNELPASSES_TD
#define HODU_TARGET_CPU_KERNELPASSES_TD

include "mlir/Pass/PassBase.td"

def CpuFuseAttention : Pass<"hodu-cpu-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Attention as one tiled kernel: the scores only as a block of rows (CPU)";
  let description = [{
    Scaled dot-product attention arrives as two products and a softmax
    between them: `S = Q K^T` (a batch matmul over batch x heads), a scale,
    a mask, the softmax's max, exponentials, sum and division, then
    `P V`. Lowered op by op, every step reads and writes the whole
    `[batch x heads, queries, keys]` scores: five passes over a tensor that
    grows with the square of the sequence.

    This pass finds each `linalg.matmul` or `linalg.batch_matmul` (static,
    float, default maps, its right operand computed, not a weight) whose
    left operand comes, through `linalg.generic` ops and reshapes, from
    other such products, where the ops between include a reduction (the
    softmax) and nothing outside them reads their results. It tiles that
    second product into an `scf.forall` over its batch and blocks of rows,
    and fuses the chain into the loop (upstream tile-and-fuse, with the
    `tensor.extract_slice` bubbling through reshapes that
    `transform.structured.fuse` applies): each iteration computes its rows
    of the scores, their softmax and their product with `V`, on scratch of
    rows x keys that `hodu-cpu-hoist-parallel-allocs` puts on the thread's
    stack or in the workspace. Copies of a chain op fused once per reader
    (the scores, read by the max and by the exponentials) are merged (CSE).

    Rows per tile: the largest divisor of the query count up to 32 whose
    block of scores takes at most `max-scores` elements (the scratch of a
    few such blocks stays in the L1/L2 caches and under the stack limit of
    parallel scratch); where that is fewer than 4 rows (long sequences),
    the smallest divisor from 4 to 32 whose block takes at most 4 x
    `max-scores` (each block still one stack buffer); longer still (past
    4,096 keys), the smallest divisor from 4 to 32 whatever its block: its
    scratch, rows x keys, takes a slot of the workspace
    (hodu-cpu-hoist-parallel-allocs), where the unfused scores would take
    queries x keys per head. A query count with no divisor from 4 to 32 (a
    prime) keeps the unfused lowering;
    so does a chain whose fused form would compute any op more than once
    per tile, or that mixes rows (a reduction across queries). The
    products in the tile are tiled into register tiles and vectorised by
    `hodu-cpu-vectorize` like any other, but on the iteration's thread (no
    nested parallel loop, and no packing of B per iteration; with
    `--precision=bf16`, a product from zero takes the bf16 kernel).

    Keys a constant mask kills (`skip-dead-keys`, on by default): where a
    constant mask -- a causal one, a sliding window, constant padding --
    sets the trailing keys of a block of rows to at most -1e30 (added, or
    selected by a constant condition), and the body's scalar code proves
    that such a key adds an exact 0 to the softmax's sum and to `P V` (it
    stays hugely negative through scales and subtractions, its
    exponential is 0, a max or sum over keys keeps its accumulator), the
    loop is split into at most 8 loops over consecutive blocks of rows,
    each computing only the keys its rows can see, rounded up to a
    multiple of `key-quantum` (coarser while there would be more loops);
    neighbouring loops join until each has `min-run-iterations` iterations
    (batch x blocks), so that a loop still fills a many-core host's
    threads. A causal chain then computes a little over half its products.
    The proof assumes only that the scores are finite and well below 1e29.

    Before (one head shown):
    ```mlir
    %s = linalg.batch_matmul ins(%q, %kt : tensor<4x128x64xf32>, tensor<4x64x128xf32>) ...
    %p = linalg.generic ... // softmax over the last dim, 4 ops
    %o = linalg.batch_matmul ins(%p, %v : tensor<4x128x128xf32>, tensor<4x128x64xf32>) ...
    ```
    After:
    ```mlir
    %o = scf.forall (%b, %i) = (0, 0) to (4, 128) step (1, 32) shared_outs(%out = %init) {
      %qs = tensor.extract_slice %q[%b, %i, 0] [1, 32, 64] [1, 1, 1]
      %ks = tensor.extract_slice %kt[%b, 0, 0] [1, 64, 128] [1, 1, 1]
      %s = linalg.batch_matmul ins(%qs, %ks ...) -> tensor<1x32x128xf32>
      %p = linalg.generic ... // tensor<1x32x128xf32>
      %o = linalg.batch_matmul ins(%p, %vs ...) -> tensor<1x32x64xf32>
      scf.forall.in_parallel { tensor.parallel_insert_slice %o into %out[%b, %i, 0] ... }
    }
    ```
  }];
  let options = [
    Option<"maxScores", "max-scores", "int64_t", "4096",
           "Most elements of a tile's block of scores (rows x keys)">,
    Option<"skipDeadKeys", "skip-dead-keys", "bool", "true",
           "Split the loop where a constant mask kills trailing keys">,
    Option<"keyQuantum", "key-quantum", "int64_t", "16",
           "The keys a split loop computes are a multiple of this">,
    Option<"minRunIterations", "min-run-iterations", "int64_t", "16",
           "Fewest iterations a split loop keeps, to fill the threads">
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

def CpuPadInPlace : Pass<"hodu-cpu-pad-in-place", "mlir::func::FuncOp"> {
  let summary = "Padded tensors written in place: the source's producer writes the interior, no copy (CPU)";
  let description = [{
    A `tensor.pad` by a constant bufferizes to a new buffer, filled whole
    and then given a copy of the source: for a convolution's padded input
    that is a memset and a copy of the whole activation, on one thread,
    before every convolution that pads (PP-OCRv4's detector at 512x512
    spent 3.5-4.4 ms a run on them, 16% of its time on one thread).

    This pass, before bufferization, rewrites each such pad (static low and
    high, a padding value that is no block argument, no `nofold`) as a
    `linalg.fill` of a `tensor.empty` of the padded shape and a
    `tensor.insert_slice` of the source into its interior.
    `eliminate-empty-tensors` then lets the op that produced the source (a
    tiled loop's `scf.forall`, a linalg op) write into the interior
    directly, so one-shot bufferization copies nothing; where the source has
    no such producer (a function argument, a constant) the interior is
    copied, as before. The fill stays whole: a `memset`, which
    `hodu-cpu-parallel-copies` spreads over threads when it is large
    (filling the border alone, a fill per padded side, was no faster and
    made much more code). A source that another op also reads keeps its
    pad (that reader may address the tensor as dense).

    Reshapes between the producer and the pad (the unit dims that
    depthwise convolutions' `[1, C, 1, H, W]` views add) are moved after
    the pad when each padded dim is the only one of size other than 1 in
    its reassociation group; otherwise the pad is left to the reshape's
    result.

    Before:
    ```mlir
    %r = scf.forall (%i) in (16) shared_outs(%o = %e) -> (tensor<16x256x256xf32>) ...
    %p = tensor.pad %r low[0, 1, 1] high[0, 1, 1] { tensor.yield %zero : f32 }
        : tensor<16x256x256xf32> to tensor<16x258x258xf32>
    ```
    After:
    ```mlir
    %big = tensor.empty() : tensor<16x258x258xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%big : tensor<16x258x258xf32>) -> tensor<16x258x258xf32>
    %r = scf.forall (%i) in (16) shared_outs(%o = %e) -> (tensor<16x256x256xf32>) ...
    %p = tensor.insert_slice %r into %filled[0, 1, 1] [16, 256, 256] [1, 1, 1]
    ```
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"
  ];
}

def CpuParallelCopies : Pass<"hodu-cpu-parallel-copies", "mlir::func::FuncOp"> {
  let summary = "Large copies and fills of buffers over threads (CPU)";
  let description = [{
    After bufferization, the copies that one-shot bufferization made for a
    `tensor.insert_slice` into a strided destination (the interleaving of a
    strided ConvTranspose's output phases, a padded tensor whose source has
    other readers, a concatenation into a view) are `linalg.copy` ops of
    the function body (strided `memref.copy` ops become `linalg.copy` in
    `hodu-cpu-expand-strided-copies`, which the CPU pipeline runs first),
    which lower to loops on the calling thread; so are
    the fills of padded buffers (`hodu-cpu-pad-in-place`). Each such copy or
    `linalg.fill` of at least `min-bytes` bytes with a static shape becomes an
    `scf.forall` whose iterations copy equal parts of it, cut along its
    outermost dim whose size has a piece count that spreads evenly over 2,
    4, 8 and 16 threads (hodu::cpu::choosePieces, whole rows of that dim
    per piece). The loop then takes the path of every parallel tile loop:
    `scf-forall-to-parallel` and OpenMP, on libhodurt's team. Copies inside
    loops, and `memref.copy` between contiguous buffers (a `memcpy`), are
    left alone.

    Before:
    ```mlir
    linalg.copy ins(%a : memref<24x128x128xf32>)
                outs(%b : memref<24x128x128xf32, strided<[65536, 512, 2]>>)
    ```
    After:
    ```mlir
    scf.forall (%i) in (8) {
      %o = affine.apply affine_map<(d0) -> (d0 * 3)>(%i)
      %s = memref.subview %a[%o, 0, 0] [3, 128, 128] [1, 1, 1] ...
      %d = memref.subview %b[%o, 0, 0] [3, 128, 128] [1, 1, 1] ...
      linalg.copy ins(%s : ...) outs(%d : ...)
    }
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", "65536",
           "Smallest copy or fill, in bytes, spread over threads">
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
    "mlir::affine::AffineDialect"
  ];
}

def CpuStridedReads : Pass<"hodu-cpu-strided-reads", "mlir::func::FuncOp"> {
  let summary = "Stride-2 vector reads as one contiguous load and a deinterleave (CPU)";
  let description = [{
    A 1-D `vector.transfer_read` of N elements along a memref dim whose
    stride is 2 (the stride-2 window slices of 2x2 pooling, the taps of a
    stride-2 convolution) would otherwise be lowered to N scalar loads
    inserted lane by lane. This pass reads the 2N-1 elements the lanes span
    as one contiguous masked load (the last lane is masked off, so nothing
    past the last element read is touched) and keeps the even lanes of a
    `vector.deinterleave`. A read of more dims (the vectoriser reads two
    output rows of a 2x2 pooling over a small plane as one
    `vector<2x28xf32>`, which LLVM otherwise lowers lane by lane) is one
    such load per row of its leading dims, inserted into the result: on the
    bench CNN's 56x56 -> 28x28 pooling, 433 -> 59 us. Reads whose vector
    dims are not the memref's innermost, or that may be out of bounds, are
    left alone.

    Before:
    ```mlir
    %v = vector.transfer_read %m[%i, %j], %pad {in_bounds = [true]}
        : memref<4x8xf32, strided<[32, 2], offset: ?>>, vector<8xf32>
    ```
    After (abridged):
    ```mlir
    %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %m
    %flat = memref.reinterpret_cast %base to offset: [%start], sizes: [15], strides: [1]
    %w = vector.maskedload %flat[%c0], %mask, %pass : ... into vector<16xf32>
    %v, %odd = vector.deinterleave %w : vector<16xf32> -> vector<8xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::vector::VectorDialect", "mlir::memref::MemRefDialect",
    "mlir::arith::ArithDialect", "mlir::affine::AffineDialect"
  ];
}

def CpuAmxTiles : Pass<"hodu-cpu-amx-tiles", "mlir::ModuleOp"> {
  let summary = "Int8 matmul and convolution panels on AMX tiles, after bufferization (CPU)";
  let description = [{
    `hodu-cpu-vectorize{int8-dot amx}` writes each group of column panels
    of an int8 matmul (`uitofp(x) - zx` by a constant B of whole numbers,
    at least 4 rows; groups of panels over threads) as one `linalg.generic`
    marked `hodu.amx_tiles`:
    ```mlir
    %acc = linalg.generic {indexing_maps = [
        (i, p, l, g, j) -> (i, 4 * g + j), (i, p, l, g, j) -> (p, g, l, j),
        (i, p, l, g, j) -> (i, p * 32 + l)], ...}
        ins(%x, %panels : tensor<64x1024xi8>, tensor<16x256x32x4xi8>)
        outs(%empty : tensor<64x512xi32>) {hodu.amx_tiles} {
      ^bb0(%a: i8, %w: i8, %c: i32):  // c + zext(a) * sext(w)
    }
    ```
    and each panel of 16 output columns of an int8 convolution as one with
    the roles turned: the filter rows [F, 4 K4] (signed) by the run-time
    panel [K4, 16, 4] (unsigned), `c + sext(a) * zext(w)`. Each sits
    inside an `scf.if` on `func.call @__hodu_amx_ready()` whose other
    branch is the VNNI kernel of the same sums. The tensor passes leave
    the marked op alone. After bufferization (and memory planning) this
    pass turns each into loops of AMX instructions on the buffers'
    addresses: the tile configuration (16 x 64-byte tiles) loaded where
    the thread's own differs (`sttilecfg` and a compare, then `ldtilecfg`),
    then per panel, per pair of 16-row tiles of A and per 16 words of K two
    `tileloadd` of A, one or two of the panel (a 32-column panel is two
    tiles, row stride 128 bytes), `tdpbusd` (A unsigned) or `tdpbsud` (A
    signed), as the body's extensions say, into up to four int32
    accumulator tiles, and `tilestored` into the output; the sums start at
    zero (the output is not read). The instructions are LLVM's
    register-numbered intrinsics (`llvm.x86.tileloadd64` with an immediate
    tile), so that LLVM inserts no `tilerelease`, after which the next
    tile instruction is slow.

    It also defines `@__hodu_amx_ready`, declared by hodu-cpu-vectorize:
    on its first call it asks Linux for the tile data registers
    (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, a `syscall` in
    inline assembly) and keeps the answer in a global; the VNNI branch
    runs where the answer is no (kernels before 5.16, CPUs without AMX).
  }];
  let options = [
    Option<"askOS", "ask-os", "bool", "true",
           "@__hodu_amx_ready asks the OS; false: it answers no without asking (the VNNI branch, for tests: hoduc --hodu-amx-fallback)">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def CpuPrefetchPanels : Pass<"hodu-cpu-prefetch-panels", "mlir::func::FuncOp"> {
  let summary = "Software prefetch of a packed matmul's next B block (CPU)";
  let description = [{
    A packed matmul (hodu-cpu-vectorize) runs, per column panel and k
    block, its register kernel once per row block over the same B block
    (`kc` x `nr`, 128 KB for 1024 x 32 floats). With few row blocks (an
    MLP layer of batch 64: 8) the first row block reads the block from
    memory at the kernel's pace, faster than one core's share of memory
    bandwidth, and the hardware prefetchers do not run a whole block
    ahead. This pass finds those kernels after bufferization (a k loop
    carrying the `mr` x `nr` accumulator that reads rows of a
    `[P, K, nr]` packed B through a block subview, inside a row-block
    loop of at most `max-row-blocks` iterations) and adds to the k loop a
    `memref.prefetch` (to L2) of the B block that follows in memory: row
    block `mb` at step `k` prefetches the part at
    `(mb * kc + k) * nr / row-blocks` of it, so that the row blocks of
    one B block fetch the next one between them, a cache line or two per
    step. The index past the last block is clamped to the last panel.
    With many row blocks a B block is reused enough that its first read
    does not matter, and nothing is added.

    Before (abridged):
    ```mlir
    scf.for %i0 = %c0 to %c64 step %c8 {
      %mb = arith.divui %i0, %c8 : index
      %acc = scf.for %k = %c0 to %c1024 step %c1 iter_args(%c = %init) -> (vector<8x32xf32>) {
        %brow = memref.subview %bblock[%k, 0] [1, 32] [1, 1] ...
        %b = vector.transfer_read %brow[%c0, %c0], %pad ... vector<32xf32>
        ...
    ```
    After: the k loop starts with
    ```mlir
        memref.prefetch %bp[%p2, %row, %col], read, locality<2>, data
          : memref<128x1024x32xf32>
    ```
  }];
  let options = [
    Option<"maxRowBlocks", "max-row-blocks", "int64_t", "8",
           "Most row blocks sharing one B block for it to be prefetched">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def CpuKernelLoopHints : Pass<"hodu-cpu-kernel-loop-hints", "mlir::func::FuncOp"> {
  let summary = "Keep LLVM from unrolling the k loops of one-vector register kernels (CPU)";
  let description = [{
    A register kernel's k loop (an `scf.for` carrying vector accumulators
    whose body multiplies and adds into them with `vector.fma`) is already
    the shape the vector registers hold: its accumulators, the B vectors
    and the broadcasts of A's column. LLVM's loop unroller doubles such a
    loop where the body is small; its scheduler then loads the
    broadcasts of both steps first, and a tile one vector wide (one B
    vector, a broadcast per row: 8 or 12 rows on AVX2's 16 registers) no
    longer fits: accumulators go to the stack, and a Winograd matmul of
    8x8 tiles measured no faster than 4x8. This pass marks those loops
    (every FMA of the body multiplies the same B vector)
    `llvm.loop.unroll.disable`, a `loop_annotation` that the lowering to
    `cf` and LLVM carries to the loop's latch branch. Tiles of two vectors
    per row (half as many broadcasts) fit unrolled and stay LLVM's, as do
    loops whose body holds another loop and loops without vector
    accumulators (copies, transforms, elementwise code). The width of a
    register is the option `vector-bits` (the CPU pipeline passes the
    target's): MLIR's vectors are the tile's rows, so a 16-lane f32 row on
    AVX2 is two registers.

    ```mlir
    %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%c = %init) -> (vector<8x8xf32>) {
      ... vector.fma ...
    } {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "512",
           "Bits of one vector register of the target">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def CpuVectorToLLVM : Pass<"hodu-cpu-vector-to-llvm"> {
  let summary = "The vector dialect to LLVM, one function at a time (CPU)";
  let description = [{
    What upstream `convert-vector-to-llvm` does with its default options
    (vector-to-vector lowerings, then the conversion to the LLVM dialect),
    built for a compiler that runs it on every kernel of a model:

    - It runs on any op, so the CPU pipeline nests it on each `llvm.func`
      and the kernels of a model convert in parallel (upstream's pass is
      run on the whole module).
    - Its greedy vector-to-vector phase does not simplify regions (merge
      blocks): a quarter of the pass's time on a 120-kernel detector, and
      LLVM's own CFG simplification does it later anyway.
    - Loads and stores (`vector.load`, `vector.store`, their masked forms,
      gathers, scatters, expanding loads and compressing stores) without
      an alignment get their element type's preferred alignment as an
      attribute before the conversion, computed once per element type.
      Upstream computes the same number per op, and builds an
      `llvm::LLVMContext` to do it, which was another tenth of the time.
    - Elements extracted from a `vector.transfer_read` are scalar loads
      (upstream's scalar-transfer patterns, which its pass does not add): a
      register kernel's column of A, each element broadcast, then becomes
      broadcasts from memory. As one read, a column of 6 floats was a
      4-element and a 2-element load whose lanes took registers of their
      own, and a 6x16 kernel on 16 registers spilled two accumulators.
    - The int8 dot products of `hodu-cpu-vectorize` (marked reductions)
      become `vpdpbusd`, or `vpmaddwd` and an add.
    - A 16 x 16 `vector.transpose` (the transpose tiles of
      `hodu-cpu-vectorize-generics` with AVX-512) becomes upstream's
      `shuffle_16x16` sequence: 64 unpacks and 128-bit lane shuffles for
      256 elements. Other shapes are lowered element by element as
      upstream's default does (LLVM forms shuffles from those).

    Apart from those, the LLVM IR it produces is the same as upstream's up
    to block order.
  }];
  let options = [
    Option<"reassociateFPReductions", "reassociate-fp-reductions", "bool",
           "false", "Allow LLVM to reassociate floating-point reductions">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // HODU_TARGET_CPU_KERNELPASSES_TD
