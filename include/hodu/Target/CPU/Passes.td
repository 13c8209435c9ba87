//===- Passes.td - CPU code-generation passes --------------*- tablegen -*-===//
//
// The passes of the CPU target: tiling for caches and registers,
// vectorisation, parallel loops and vector-read rewrites. Tile sizes that
// depend on the machine derive from `vector-bits` and `vector-registers`,
// which the CPU target reads from LLVM for the chosen triple and CPU. The
// passes of particular kernels (attention, padding, copies, AMX, ...) are
// in KernelPasses.td, included at the end.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_CPU_PASSES_TD
#define HODU_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CpuVectorize : Pass<"hodu-cpu-vectorize", "mlir::ModuleOp"> {
  let summary = "Tile matmuls and convolutions for caches and registers and vectorise them (CPU)";
  let description = [{
    For every `linalg.matmul` and `linalg.batch_matmul` on static float
    tensors: tiles for the caches (at most `cache-m` x `cache-n` x `cache-k`),
    then into register tiles (at most `register-m` rows x `register-n`
    columns, one k step), vectorises the register tile and keeps its
    accumulator in registers across the k loop (the transfers are hoisted
    out of it).

    The register tile comes from the target's registers unless `register-m`
    and `register-n` are given: `vector-registers` vectors of `vector-bits`
    bits, L = vector-bits / 32 floats each. A row of the tile is two vectors
    (2L columns), so each broadcast of A feeds two independent FMAs, and the
    rows are the most, a power of two, for which the accumulators (2 per
    row), the two B vectors of a k step and one A broadcast fit the register
    file: 8 rows for 32 registers (16 + 2 + 1, leaving room for the loads
    in flight), 4 for 16. AVX-512 (512/32) gets 8x32 tiles, AVX2 (256/16)
    4x16, NEON (128/32) 8x8. The packed panel widths (nr, mr) and the
    convolution row panels are the tile's width and height, halved as the
    shapes need; panels are never narrower than 4 columns. Contractions become outer products, i.e. broadcast + FMA on
    the widest vectors the target has. Tile sizes are chosen per op to divide
    its dimensions, so no partial tiles arise; an op whose sizes admit no
    vector tile is left for the scalar path. A batch-1 `linalg.conv_2d_nchw_fchw`
    is first rewritten as an im2col copy and a `linalg.matmul`, so
    convolutions take the same path. With `parallel` (the default) the cache
    tiles of the batch, or else of whichever of M and N has more of them,
    form an `scf.forall`, which hoduc lowers to OpenMP.

    With `pack-b` (the default), a 2-D `linalg.matmul` C[M,N] += A[M,K] B[K,N]
    whose N splits into at least two register-wide panels is packed first,
    GotoBLAS style: B into [N/nr, K, nr] column panels and A into
    [M/mr, K, mr] row panels, so the register kernel reads two contiguous
    streams (unpacked, the rows it reads are N and K floats apart, which
    makes them share L1 sets and pages). The matmul becomes a loop over the
    panels (parallel), k blocks of at most `pack-cache-k` and mr-row blocks,
    each one register kernel. A constant operand (a weight) is packed at
    compile time into a new `dense_resource` constant (copied once); any
    other operand by a copy at run time, which is done only when B is a
    constant or M is at least `pack-min-m`. The register tile is nr columns
    (up to two vectors) by mr rows, mr the largest divisor of M up to what
    the registers hold (14 with 32 vector registers, 6 with 16), so a
    10-token sequence runs 10-row tiles instead of 2-row ones; a constant B
    whose N is not whole vectors gets zero columns when that wastes at most
    an eighth (120 -> 128).

    A convolution with a constant filter whose output plane is narrower than
    a vector and whose filters fill at least two vectors (an STFT's few
    frames, a 1x1 conv on a 1x1 plane) becomes out^T = col^T x W^T, the
    filters along the vector (W^T transposed at compile time).

    Convolutions are packed too (with `pack-b`): each nr-wide column panel
    is written by the im2col taps at the start of its own iteration of the
    (parallel) panel loop, one vector per channel and tap, so the copies run
    on every thread, each panel is still in cache when the register kernels
    read it, and no column buffer for the whole convolution is written; the
    filter is the packed A operand. Output rows are computed OW rounded up to the
    panel width (the widest of the register tile's width halved down to half
    a vector, at least 4, that wastes at most an eighth: 32, 16 or 8 for
    AVX-512),
    the input is widened with zeros when the extra columns need it, and the
    extra output columns are dropped; at stride 1, when that computes more
    columns than the flattened plane would, the output is computed over the
    flattened input plane (row pitch W) in panels that run across rows,
    each tap's window a contiguous run of it, and the W - OW columns past
    each row's end are dropped; a convolution whose output does not
    start as a fill, or whose filter count gives no 4- or 8-row tile, keeps
    the unpacked im2col path.

    Before that, a batch-1 f32 3x3 stride-1 convolution with a constant
    filter and a filled output is computed by Winograd F(2x2,3x3) or
    F(4x4,3x3) when the cost model prefers it (`winograd`: `auto`, the
    default, considers both, `f2` only F(2x2,3x3), `off` neither; a filter
    of whole numbers, an integer convolution computed in f32, never: the
    transforms would round its exact sums): every
    m x m block of outputs (a tile) from an alpha x alpha input window,
    alpha = m + 2, with alpha^2 multiply-adds per filter and channel instead
    of 9 m^2 (16 instead of 36, or 36 instead of 144). The filters'
    transforms are computed at compile time and packed as the A panels of
    alpha^2 matmuls (one per transform position), which run in the packed
    register kernels; the input tiles' transforms (each row read as vectors
    of m * nr columns, split into the columns m apart; Bt applied to rows
    then columns as additions, subtractions and fused multiply-adds) are
    written as their B panels, and the output transform interleaves each
    tile's m columns back into contiguous rows. F(2x2,3x3) only adds and
    halves, so it rounds like the direct sum; F(4x4,3x3)'s filter
    transform has factors of 1/6 and 1/24 and its transforms scale values
    by up to 25, so its results differ from the direct sum by about 1e-5 of
    the outputs' magnitude. Tiles go in blocks of whole tile rows
    (at least 64 tiles, so that the filters' panels are read once per
    block; over threads, down to 32 tiles where such blocks make chunks
    that share out more evenly at 2 threads, then at 4), rows padded
    to whole panels; the blocks run in chunks (at most 8) over threads,
    each chunk with its own scratch. The cost model counts
    lane operations: the matmuls' multiply-adds plus the transforms' loads,
    shuffles, additions and stores (weighted twice), each with its tile rows
    padded to whole panels, against the packed path's 9 multiply-adds per
    output and channel plus its im2col copy (over padded rows or the
    flattened plane, whichever it would take); few channels, narrow rows or
    small planes keep the packed path, and F(4x4,3x3) pads narrow rows more
    than F(2x2,3x3).

    Grouped and depthwise convolutions (the grouped sum of products
    HoduToLinalg builds) with at most 8 channels per group and 64 filter
    taps become direct
    kernels (`direct-conv`, the default): per output plane (spread over
    threads when the plane count and work are large enough), blocks of up
    to 4 output rows by one vector of columns, accumulated in registers with
    fused multiply-adds; each input vector is loaded once per block and used
    by every output row that reads it, a strided read is one contiguous load
    and a shuffle, and the vector width (the target's down to 4 lanes) is the
    one that covers a row in the fewest vectors. Column blocks whose reads or
    writes would cross the row end are peeled and masked. Ungrouped
    convolutions with 1 to 3 filters (too few for a register tile of the
    packed matmul) and rows of 4 or more columns take the same kernel as one
    group; with fewer than 8 planes, a plane's rows are split into parts
    over threads. The strategy of
    every convolution is reported as an analysis remark (name
    `conv-strategy`, category `hodu-cpu-vectorize`; MLIR's remark engine,
    off unless a client enables it), which `hoduc --print-stats` prints.

    The pass computes the sizes and drives the transform dialect's
    interpreter with a script it builds with the transform ops' C++
    builders, so each step is an upstream transform
    (`transform.structured.tile_using_for`, `vectorize`,
    `transform.loop.hoist_loop_invariant_subsets`, vector lowering patterns).

    Before:
    ```mlir
    %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    ```
    After (abridged):
    ```mlir
    scf.for %i = %c0 to %c64 step %c8 ... {
      scf.for %j = %c0 to %c64 step %c32 ... {
        %acc = vector.transfer_read ... : tensor<8x32xf32>, vector<8x32xf32>
        %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%v = %acc) -> (vector<8x32xf32>) {
          ... vector.broadcast, arith.mulf, arith.addf on vector<8x32xf32> ...
        }
        vector.transfer_write %r, ...
      }
    }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "512",
           "Bits of one vector register of the target">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "32",
           "Vector registers of the target">,
    Option<"registerM", "register-m", "int64_t", "0",
           "Most rows of a register tile (0: from the target's registers)">,
    Option<"registerN", "register-n", "int64_t", "0",
           "Most columns of a register tile (0: from the target's registers)">,
    Option<"cacheM", "cache-m", "int64_t", "64", "Most rows of a cache tile">,
    Option<"cacheN", "cache-n", "int64_t", "256", "Most columns of a cache tile">,
    Option<"cacheK", "cache-k", "int64_t", "256", "Most k of a cache tile">,
    Option<"parallel", "parallel", "bool", "true",
           "Spread the cache tiles of one dimension over threads (scf.forall)">,
    Option<"packB", "pack-b", "bool", "true",
           "Pack the B operand of 2-D matmuls into contiguous column panels">,
    Option<"packCacheK", "pack-cache-k", "int64_t", "1024",
           "Most k of one packed register kernel (between accumulator loads and stores)">,
    Option<"packMinK", "pack-min-k", "int64_t", "16",
           "Smallest K whose matmuls get a packed B">,
    Option<"packMinM", "pack-min-m", "int64_t", "16",
           "Smallest M for which a B that is not a constant is packed at run time">,
    Option<"directConv", "direct-conv", "bool", "true",
           "Direct vector kernels for grouped and depthwise convolutions">,
    Option<"int8Dot", "int8-dot", "bool", "false",
           "Convolutions and matmuls of 8-bit integers (a uint8 input less its zero point, a constant filter or B of whole numbers) in int32 with AVX-512 VNNI dot products; the target must have avx512vnni and avx512bw">,
    Option<"int16Dot", "int16-dot", "bool", "false",
           "Without int8-dot: the same convolutions and matmuls in int32, exactly, with int16 pair products (vpmaddwd) of vector-bits wide vectors; the target must have avx2 (avx512bw at 512 bits)">,
    Option<"amx", "amx", "bool", "false",
           "With int8-dot: int8 matmuls of at least 4 rows and int8 convolutions on AMX tiles (tdpbusd, tdpbsud) where the OS grants them at run time (Linux), the VNNI kernels otherwise; the target must have amx-int8 and amx-tile">,
    Option<"winograd", "winograd", "std::string", "\"auto\"",
           "Winograd 3x3 convolutions where the cost model prefers them: auto (F(2x2,3x3) and F(4x4,3x3)), f2 (F(2x2,3x3) only) or off">,
    Option<"bf16Dot", "bf16-dot", "bool", "false",
           "f32 matmuls, batch matmuls and convolutions by constant filters in bf16: both operands rounded to bf16 (nearest even; a constant B or filter packed at compile time, any other B on every run), their pair products summed in f32 with AVX512-BF16 vdpbf16ps (hoduc --precision=bf16); the target must have avx512bf16 at 512 bits">,
  ];
  let dependentDialects = [
    "mlir::x86vector::X86VectorDialect",
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
    "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect",
    "mlir::affine::AffineDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect"
  ];
}

def CpuParallelize : Pass<"hodu-cpu-parallelize", "mlir::ModuleOp"> {
  let summary = "Spread large linalg.generic ops over threads (CPU)";
  let description = [{
    Tiles one parallel dimension of every `linalg.generic` (and
    `linalg.copy`) on static tensors whose work is at least `min-work` into
    the pieces of an `scf.forall`, which hoduc lowers to OpenMP: at most
    `chunks` of them, as many as divide evenly at 2, 4, 8 and 16 threads
    (include/hodu/Target/CPU/WorkSplit.h), a number that divides the
    dimension where one does. The dimension is the one whose pieces spread
    most evenly over 2 to 16 threads, the outermost of equals; the
    innermost only where no other can be split (`chooseSplitLoop`): a
    `[3, 12, 64]` op is cut along its 12, not its 3. Where the thread loop
    producing an input of 1 MiB or more split it along one dim, the op is
    cut along the loop that indexes that dim instead, if it shares out as
    evenly: each thread then reads what it wrote. A `linalg.fill` that
    only initialises the op's output (a pooling's -inf, a sum's zeros) is
    moved into the loop: each thread fills the part it accumulates into.
    The work is the number of points of the op's iteration space (a pooling
    window's taps and a reduction's inputs count, not only its results)
    times the ops of its body (at least one): a fused bias + LeakyReLU +
    clamp over 24x74x32 (five ops on 56832 elements) is spread over threads,
    a plain copy of as many elements is not. Runs
    after elementwise fusion, so fused kernels (bias + activation, pooling,
    im2col copies, normalisations) run on all cores; matmuls and
    convolutions are parallelised by `hodu-cpu-vectorize` already.

    Reductions worth a team get two rewrites first (Reductions.cpp):
    - reductions of one block that read a common input the same way over
      the same loops (a DynamicQuantizeLinear's min and max) become one op
      with a result each, so the input is read once;
    - a reduction with no parallel dimension of 2 or more (a whole tensor's
      min, max or sum) gets one of its reduced dimensions (the one that
      splits best, never the innermost) made parallel in a first op that
      writes a partial result per index, which this pass then spreads over
      threads, and a small second op that combines the partials with the
      same associative op.

    Before:
    ```mlir
    %r = linalg.generic {iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<256x4096xf32>) outs(%e : tensor<256x4096xf32>) { ... }
    ```
    After:
    ```mlir
    %r = scf.forall (%i) in (16) shared_outs(%o = %e) -> (tensor<256x4096xf32>) {
      ... linalg.generic on tensor<16x4096xf32> slices ...
    }
    ```
  }];
  let options =
      [Option<"minWork", "min-work", "int64_t", "65536",
              "Least work (iteration points x body ops) worth a parallel loop">,
       Option<"chunks", "chunks", "int64_t", "16",
              "Most pieces the parallel dimension is cut into">,
  ];
  let dependentDialects = [
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"
  ];
}

def CpuVectorizeGenerics : Pass<"hodu-cpu-vectorize-generics", "mlir::ModuleOp"> {
  let summary = "Vectorise elementwise and reduction linalg ops (CPU)";
  let description = [{
    For every linalg op on static tensors that is not a matmul or a
    convolution (those belong to `hodu-cpu-vectorize`) and whose indexing
    maps are projected permutations (elementwise ops with broadcasts and
    transposes, reductions such as softmax and layer-norm rows, fills,
    copies): tiles the iteration space so that one tile holds at most
    `vector-elements` elements, taken from the innermost dimensions first,
    and vectorises the tile with the upstream linalg vectoriser. Unless
    given, `vector-elements` is what vector-registers / 8 vectors of
    `vector-bits` hold in f32 (64 for AVX-512, 16 for AVX2 and NEON): the
    bodies keep several temporaries per element live (the polynomial
    approximations six or more), so a tile takes an eighth of the register
    file. Reductions
    become `vector.multi_reduction`, lowered to vector adds plus one
    horizontal step per row (hoduc lets LLVM reassociate float reductions).
    Ops nested in the loops of already vectorised matmuls, ops with dynamic
    sizes and ops the vectoriser does not take (gathers through
    `tensor.extract`, window maps such as `d0 * 2 + d4`) are left for the
    scalar path. Runs after `hodu-cpu-parallelize`, so the tiles of an
    `scf.forall` are vectorised too.

    Window reductions (pooling, with any elementwise prologue fused into
    them) read `out * stride + window` and so are not projected
    permutations; those with at most `max-window` window positions are first
    unrolled into an all-parallel op with one strided-slice input per
    position, the body applied once per position to a running accumulator:
    `out[n,c,i,j] = max(x[n,c,2i,2j], x[n,c,2i,2j+1], ...)` with each operand
    a `tensor.extract_slice` of stride 2.

    An op whose innermost loop has one iteration (a fused producer writing
    a size-1 slot of a concat, a trailing unit dim) first has its unit dims
    dropped (`linalg::dropUnitDims`, `tensor.collapse_shape` around it):
    vectorised as it is, its last vector dim would be 1 and every vector op
    one scalar op per element, fully unrolled (a DFT summed into such a slot
    gave LLVM two 20,000-line kernels and the compile 28 s; 0.45 s since).

    An all-parallel op that transposes (an input whose own innermost index
    is another loop dim than the output's innermost: K^T in attention,
    NCHW <-> NHWC) is tiled `lanes` x `lanes` over those two dims instead
    (32-bit elements, both dims multiples of `lanes`): `lanes` contiguous
    rows read, one `vector.transpose` (lowered to shuffles, see
    `hodu-cpu-vector-to-llvm`), `lanes` contiguous rows written. Tiled along
    the output's innermost dim alone, each vector was gathered one element
    at a time (a 128 x 256 transpose: 32 us, 5 us in 16 x 16 tiles).

    With `approximate-math` (the default), `math.exp`, `expm1`, `tanh`,
    `log`, `log1p` and `log2` on f32 (scalars and vectors) are replaced by
    MLIR's polynomial approximations, which vectorise, instead of scalar
    libm calls; `math.erf` on f32 by one rational function on [-4, 4] (the
    approximation of Eigen and XLA: 11 FMAs and a division, where
    upstream's picks one of three intervals per lane with a select per
    coefficient), within 3e-7 of the exact value.

    Before:
    ```mlir
    %r = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<128x1024xf32>) outs(%e : tensor<128x1024xf32>) {
    ^bb0(%a: f32, %o: f32):
      %g = math.erf %a : f32
      linalg.yield %g : f32
    } -> tensor<128x1024xf32>
    ```
    After (abridged):
    ```mlir
    scf.for %i = %c0 to %c128 step %c1 ... {
      scf.for %j = %c0 to %c1024 step %c64 ... {
        %v = vector.transfer_read ... : tensor<1x64xf32>, vector<1x64xf32>
        ... polynomial on vector<1x64xf32> ...
        vector.transfer_write ...
      }
    }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "512",
           "Bits of one vector register of the target">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "32",
           "Vector registers of the target">,
    Option<"vectorElements", "vector-elements", "int64_t", "0",
           "Most elements of one vectorised tile (0: from the target's registers)">,
    Option<"minElements", "min-elements", "int64_t", "4",
           "Fewest elements of a tile worth vectorising">,
    Option<"maxWindow", "max-window", "int64_t", "16",
           "Most window positions of a window reduction that is unrolled">,
    Option<"approximateMath", "approximate-math", "bool", "true",
           "Replace f32 erf/exp/expm1/tanh/log/log1p/log2 by polynomials">,
    Option<"splitReductions", "split-reductions", "bool", "true",
           "Reduce a long innermost dim (at least 8 vector tiles) into a "
           "vector-wide partial result, "
           "lane by lane, and reduce that horizontally once per result "
           "element (not once per tile)">,
    Option<"gathers", "gathers", "bool", "true",
           "Vectorise ops that read a tensor at computed indices "
           "(tensor.extract of several indices: Resize, GridSample, ...) "
           "with vector gathers, or contiguous loads where the upstream "
           "vectoriser proves them contiguous">,
  ];
  let dependentDialects = [
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
    "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect"
  ];
}

def CpuInlineDeallocHelpers
    : Pass<"hodu-cpu-inline-dealloc-helpers", "mlir::ModuleOp"> {
  let summary = "Inline the helper functions buffer deallocation creates (CPU)";
  let description = [{
    `bufferization-lower-deallocations` lowers a `bufferization.dealloc` of
    several buffers whose ownership is known only at run time (the results
    of an `scf.if`, at `-O0` where no arena plans the buffers) to a call of
    a private helper function, `@dealloc_helper`, over memrefs of dynamic
    size. The CPU target's bare-pointer calling convention cannot pass
    those, so this pass inlines every call of such a helper and erases the
    helper. Functions of other names are left alone.
  }];
}

def CpuHoistParallelAllocs
    : Pass<"hodu-cpu-hoist-parallel-allocs", "mlir::func::FuncOp"> {
  let summary = "One allocation per parallel loop for the scratch of its iterations (CPU)";
  let description = [{
    A `memref.alloc` of static shape in the body of an `scf.forall` (not
    inside a loop nested in it) is scratch of one iteration: bufferization
    puts the `tensor.empty` of a tile's temporaries there (the V and M
    blocks of a Winograd convolution). Left there, every iteration calls
    malloc and free, and a large block is mapped and unmapped each time
    (page faults on every run). Scratch of which one iteration takes at
    most `max-stack-bytes` (all its buffers together) goes on the stack of
    the thread running the iteration: a `memref.alloca` in a
    `memref.alloca_scope` around the loop's body, so that each iteration
    gives its stack back and the iterations one thread runs reuse one block
    while it is in its cache (an attention tile's scores from
    `hodu-cpu-fuse-attention`, rows x keys per iteration, would otherwise
    add up to the whole scores again). Larger scratch, with a static trip
    count of at most `max-iterations`, is allocated for all iterations once
    before the loop, as bytes, and each iteration gets its own part of it
    (a `memref.view` at iteration * size, 64-byte aligned), so that the
    allocation joins the run's planned workspace. Every part is then live
    while the loop runs (malloc held one per thread at a time), so scratch
    is hoisted only while all its parts take at most `max-bytes` (64 MiB).
    Larger scratch of a loop with more iterations than that (the blocks of
    a long sequence's attention tiles) gets slots instead: the loop becomes
    a parallel loop of at most `max-iterations` slots (fewer where their
    parts would pass `max-bytes`), each running a run of consecutive
    iterations in order (an `scf.for` over the linear index,
    `affine.delinearize_index`d into the old induction variables), and
    each slot gets a part, which its iterations reuse one after another.
    Without a static trip count, or where not even two slots fit, scratch
    goes on the stack buffer by buffer while the iteration's stack stays
    within `max-stack-bytes` (64 KiB) in all; what does not fit stays a
    malloc (a malloc and free per iteration: past glibc's trim threshold
    each one moved the heap's end, page faults every iteration). Allocations whose buffer may outlive the
    iteration (yielded, returned, freed or passed to a call, directly or
    through a view) stay where they are.

    Then the static scratch directly in the body of a sequential
    `scf.for` marked `hodu.cpu.batch_loop` (the loop over the batch of a
    convolution that hodu-cpu-vectorize split into batch-1 convolutions)
    moves before the loop: one iteration runs at a time, so one buffer
    serves them all, and it joins the planned workspace.

    Before:
    ```mlir
    scf.forall (%i) in (4) {
      %s = memref.alloc() : memref<16x64xf32>
      ...
    }
    scf.forall (%i) in (4) {
      %b = memref.alloc() : memref<128x256xf32>
      ...
    }
    ```
    After (4 KiB on the stack; 128 KiB, past max-stack-bytes, hoisted):
    ```mlir
    scf.forall (%i) in (4) {
      memref.alloca_scope {
        %s = memref.alloca() : memref<16x64xf32>
        ...
      }
    }
    %all = memref.alloc() {alignment = 64 : i64} : memref<524288xi8>
    scf.forall (%i) in (4) {
      %off = arith.muli %i, %c131072 : index
      %b = memref.view %all[%off][] : memref<524288xi8> to memref<128x256xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", "64",
           "Most iterations of a loop whose scratch is hoisted">,
    Option<"maxBytes", "max-bytes", "int64_t", "67108864",
           "Most bytes one hoisted allocation (every iteration's part) may take">,
    Option<"maxStackBytes", "max-stack-bytes", "int64_t", "65536",
           "Most bytes of scratch one iteration keeps on the stack, all its buffers together">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect"];
}

def CpuOutlineKernels : Pass<"hodu-cpu-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Every loop nest of a model a function of its own (CPU)";
  let description = [{
    After bufferization a model is one function: a kernel after another
    (loop nests, `omp.parallel` regions, linalg ops on buffers), between
    views of its arena. LLVM's loop passes and the OpenMP translation's
    outliner cost more than linearly in the size of the function around a
    loop or a parallel region: IS-Net (3,466 ops) spent minutes there.

    This pass moves every op with regions at the top level of a function
    (with no results), and every such op in the regions of the control flow
    there (an `scf.if` or `scf.index_switch` with results, as a model's If
    becomes; an `scf.while`, as a run-time Loop becomes; an
    `scf.execute_region`), and every run of region-free ops that writes
    memory and moves at least 16 elements (the vector code of a small op
    vectorised whole, with no loop: an n-D transfer becomes a load or store
    per row in LLVM), into a private function of its own, marked
    `hodu.kernel` and `no_inline`, and calls it in its place. The values
    the op reads from outside are recomputed in the kernel when they come
    from pure, region-free ops (constants, views of the arena or of a
    global, index arithmetic) in its block or one around it, recursively,
    or passed as arguments when
    their type crosses a call under the bare-pointer calling convention (a
    scalar, or a static identity-layout memref). Globals are passed, not
    named (a constant one with `llvm.noalias`, `llvm.readonly` and the
    global's `llvm.align`), so that kernels that differ only in which
    weights they read are equal: of equal kernels (same type, argument
    attributes and ops, compared in full after a hash) the first is kept
    and the others' calls go to it. An op that reads anything
    else, or frees a buffer from outside it (a kernel sees only a buffer's
    aligned pointer, not the one its allocation returned), stays where it
    is, and so does a memory op whose result is used after its run (it
    splits the run). A function with fewer than two kernels is left
    alone.

    Before:
    ```mlir
    func.func @main(%in: memref<64xf32>, %ws: memref<256xi8>) {
      %c0 = arith.constant 0 : index
      %v = memref.view %ws[%c0][] : memref<256xi8> to memref<64xf32>
      scf.for ... { ... %v ... }
      scf.for ... { ... %in ... %v ... }
    }
    ```
    After:
    ```mlir
    func.func @main(%in: memref<64xf32>, %ws: memref<256xi8>) {
      call @main_kernel0(%ws) : (memref<256xi8>) -> ()
      call @main_kernel1(%ws, %in) : (memref<256xi8>, memref<64xf32>) -> ()
    }
    func.func private @main_kernel0(%ws: memref<256xi8>)
        attributes {hodu.kernel, no_inline} {
      %c0 = arith.constant 0 : index
      %v = memref.view %ws[%c0][] : memref<256xi8> to memref<64xf32>
      scf.for ... { ... %v ... }
      return
    }
    ...
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def CpuFlushDenormals : Pass<"hodu-cpu-flush-denormals", "mlir::ModuleOp"> {
  let summary = "Subnormal f32/f64 constants (weights) as zero (CPU)";
  let description = [{
    Sets every subnormal value (smaller in magnitude than the smallest
    normal number, 1.2e-38 for f32) of an f32 or f64 tensor constant to a
    zero of the same sign. x86 cores take a microcode assist, tens to
    hundreds of cycles, for many operations on a subnormal operand, so a
    weight tensor with a few of them (pruned or trained-to-nothing weights;
    PP-OCRv4's recognizer has them in its squeeze-and-excitation
    convolutions) can make its convolution or matmul many times slower: in
    that model two 1x1 convolutions on a 1x1 plane were 15% of a run. A
    product with such a weight is below 1.2e-38 times the other operand, so
    dropping it changes a sum by less than the sum's own rounding unless
    every term is that small. Dense and resource constants are rewritten
    (a new resource blob, the original untouched); run-time values are not.
    hoduc runs it at -O1 and up; `--print-stats` reports how many values
    were flushed.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def CpuFlattenGlobals : Pass<"hodu-cpu-flatten-globals", "mlir::ModuleOp"> {
  let summary = "Constant memref globals as one-dimensional arrays (CPU)";
  let description = [{
    A multi-dimensional `memref.global` becomes an LLVM global of nested
    arrays, and its initial value one LLVM constant per innermost row: a
    convolution's weights of shape [F, C, 3, 3] are F*C*3 uniqued arrays of
    three floats. Translating IS-Net's weights that way took 40 s. This pass
    gives every statically shaped, identity-layout global of rank 2 or more
    that has an initial value (dense or a resource blob) the flat type
    `memref<N x T>`, with the same data, and reads it back in its shape with
    a `memref.expand_shape` at each `memref.get_global`, which costs nothing
    at run time.

    Before:
    ```mlir
    memref.global "private" constant @w : memref<8x4x3x3xf32> = dense<...>
    %0 = memref.get_global @w : memref<8x4x3x3xf32>
    ```
    After:
    ```mlir
    memref.global "private" constant @w : memref<288xf32> = dense<...>
    %1 = memref.get_global @w : memref<288xf32>
    %0 = memref.expand_shape %1 [[0, 1, 2, 3]] output_shape [8, 4, 3, 3]
        : memref<288xf32> into memref<8x4x3x3xf32>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def CpuEmptyArguments : Pass<"hodu-cpu-empty-arguments", "mlir::ModuleOp"> {
  let summary = "Function arguments without elements as flat memrefs (CPU)";
  let description = [{
    MLIR's bare-pointer calling convention, which the CPU entry point and
    its kernels use, refuses a memref of rank 2 or more with a zero dim
    (`memref<3x0x5xi64>`: its strides are not all static), so a model with
    an empty input or output (ONNX `test_tril_zero`, a Split with a part of
    size 0) failed to lower. Nothing can be read or written through such an
    argument, so this pass gives every zero-element memref argument of a
    function with a body the type `memref<0 x T>` (a bare pointer that is
    never dereferenced) and lets its uses read a stack allocation of the
    original type, also of zero bytes, instead. Calls to such a function
    pass a zero-element allocation of the new type.

    Before:
    ```mlir
    func.func @main(%x: memref<3x0x5xi64>, %y: memref<3x0x5xi64>) {
      memref.copy %x, %y : memref<3x0x5xi64> to memref<3x0x5xi64>
    ```
    After:
    ```mlir
    func.func @main(%x: memref<0xi64>, %y: memref<0xi64>) {
      %0 = memref.alloca() : memref<3x0x5xi64>
      %1 = memref.alloca() : memref<3x0x5xi64>
      memref.copy %0, %1 : memref<3x0x5xi64> to memref<3x0x5xi64>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

include "hodu/Target/CPU/KernelPasses.td"

#endif // HODU_TARGET_CPU_PASSES_TD
