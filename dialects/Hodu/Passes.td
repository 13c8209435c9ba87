//===- Passes.td - Hodu passes ---------------------------------*- tablegen -*-===//

#ifndef HODU_PASSES_TD
#define HODU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertHoduToLinalg : Pass<"convert-hodu-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower the hodu dialect to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every hodu op into upstream dialects on tensors, ready for
    one-shot bufferization: elementwise ops, reductions, matmul, einsum and
    convolutions become `linalg.generic` (or named linalg ops), data movement
    becomes `tensor` ops or gathers inside `linalg.generic`, and sequential
    ops (scatter, topk, det, inv) become `scf.for` loops over tensors.
    Unsigned dtypes become signless integers everywhere, function signatures
    included; their unsigned meaning picks the arith op (`divui`, `cmpi ult`,
    `uitofp`, ...). Narrow floats (f8, bf16, f16) are computed in f32.

    Before:
    ```mlir
    func.func @main(%a: tensor<2x3xui8>, %b: tensor<3xui8>) -> tensor<2x3xui8> {
      %0 = hodu.div %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
      return %0 : tensor<2x3xui8>
    }
    ```
    After:
    ```mlir
    #map = affine_map<(d0, d1) -> (d0, d1)>
    #map1 = affine_map<(d0, d1) -> (d1)>
    func.func @main(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2x3xi8> {
      %e = tensor.empty() : tensor<2x3xi8>
      %0 = linalg.generic {indexing_maps = [#map, #map1, #map],
                           iterator_types = ["parallel", "parallel"]}
          ins(%a, %b : tensor<2x3xi8>, tensor<3xi8>) outs(%e : tensor<2x3xi8>) {
      ^bb0(%x: i8, %y: i8, %out: i8):
        %q = arith.divui %x, %y : i8
        linalg.yield %q : i8
      } -> tensor<2x3xi8>
      return %0 : tensor<2x3xi8>
    }
    ```

    Ops with data-dependent result shapes (`hodu.nonzero`, `hodu.unique`)
    and dynamically shaped tensors are not supported: the pass fails with a
    diagnostic at the op.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect"
  ];
}

def CpuVectorize : Pass<"hodu-cpu-vectorize", "mlir::ModuleOp"> {
  let summary = "Tile matmuls and convolutions for caches and registers and vectorise them (CPU)";
  let description = [{
    For every `linalg.matmul` and `linalg.batch_matmul` on static float
    tensors: tiles for the caches (at most `cache-m` x `cache-n` x `cache-k`),
    then into register tiles (at most `register-m` rows x `register-n`
    columns, one k step), vectorises the register tile and keeps its
    accumulator in registers across the k loop (the transfers are hoisted
    out of it). Contractions become outer products, i.e. broadcast + FMA on
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
    other operand by a copy at run time, which is done only when M is at
    least `pack-min-m`.

    Convolutions are packed too (with `pack-b`): the im2col taps write their
    columns straight into nr-wide panels, one transposing copy per tap, so
    the column buffer is written once and never repacked, and the filter is
    the packed A operand. Output rows are computed OW rounded up to the
    panel width (the widest of 32, 16, 8 that wastes at most an eighth),
    the input is widened with zeros when the extra columns need it, and the
    extra output columns are dropped; a convolution whose output does not
    start as a fill, or whose filter count gives no 4- or 8-row tile, keeps
    the unpacked im2col path.

    The pass computes the sizes and drives the transform dialect's
    interpreter with a generated script, so each step is an upstream
    transform (`transform.structured.tile_using_for`, `vectorize`,
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
    Option<"registerM", "register-m", "int64_t", "8", "Most rows of a register tile">,
    Option<"registerN", "register-n", "int64_t", "32", "Most columns of a register tile">,
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
  ];
  let dependentDialects = [
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
    "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect"
  ];
}

def FormFusionGroups : Pass<"hodu-form-fusion-groups", "mlir::ModuleOp"> {
  let summary = "Group hodu ops into fusion groups (one kernel each)";
  let description = [{
    Partitions the hodu ops of each block into fusion groups, the
    target-independent unit that a GPU target turns into one kernel and the
    CPU path inlines. Every member gets the discardable attribute
    `hodu.fusion_group = <i64 id>` (ids number the groups in program order
    from 0) and the group's root, the one member whose result is used outside
    the group, also gets `hodu.fusion_root`. Ops that stay alone get no
    attribute. Existing fusion attributes are replaced.

    Members are elementwise ops (Binary, BinaryLogical, Cmp, CmpScalar,
    Unary, UnaryLogical, UnaryScalar, Cast, `hodu.select`), the shape ops
    that only move data (reshape, flatten, squeeze, unsqueeze, broadcast,
    transpose), reductions, and at most one anchor (`hodu.matmul`,
    `hodu.dot`, `hodu.conv`, `hodu.conv_transpose`, `hodu.einsum`):
    - an anchor takes its elementwise epilogue (bias add, activation,
      residual add) and elementwise side inputs of it, but nothing that
      feeds the anchor and no reduction;
    - elementwise chains (with broadcasts) merge;
    - reductions take their elementwise prologue and epilogue (softmax, layer
      norm, mean/variance); all reductions of a group reduce the same input
      shape over the same dims.
    Every member but the root has all its users in the group, so a group has
    one result, is convex (no path leaves it and comes back) and recomputes
    nothing. `hodu.constant`s are inputs, never members; other ops (gathers,
    scatters, concat, pooling, sorts, ...) stay alone.

    Before:
    ```mlir
    %0 = hodu.matmul %x, %w : (tensor<1x16xf32>, tensor<16x32xf32>) -> tensor<1x32xf32>
    %1 = hodu.add %0, %b : (tensor<1x32xf32>, tensor<32xf32>) -> tensor<1x32xf32>
    %2 = hodu.relu %1 : (tensor<1x32xf32>) -> tensor<1x32xf32>
    ```
    After:
    ```mlir
    %0 = hodu.matmul %x, %w {hodu.fusion_group = 0 : i64} : ...
    %1 = hodu.add %0, %b {hodu.fusion_group = 0 : i64} : ...
    %2 = hodu.relu %1 {hodu.fusion_group = 0 : i64, hodu.fusion_root} : ...
    ```

    With `print-stats` the pass emits a remark on the module,
    `fusion: N ops in M kernels (G groups)`, where N counts the ops that need
    a kernel of their own without fusion and M the groups plus the ungrouped
    such ops (see `hodu/Transforms/FusionGroups.h`).
  }];
  let options = [
    Option<"maxGroupSize", "max-group-size", "int64_t", "64",
           "Most ops in one group (shape ops included)">,
    Option<"printStats", "print-stats", "bool", "false",
           "Emit a remark with the kernel counts before and after">,
  ];
}

def FoldConstants : Pass<"hodu-fold-constants", "mlir::ModuleOp"> {
  let summary = "Evaluate hodu ops on constants and fold affine tails into weights";
  let description = [{
    Evaluates at compile time every hodu op whose operands are all
    `hodu.constant` and replaces it by a `hodu.constant`: the elementwise
    Unary, UnaryScalar, Binary (numpy broadcasting), Cmp, CmpScalar,
    BinaryLogical and UnaryLogical ops, `select`, `cast` (every dtype,
    narrow floats rounded to nearest even), `reshape`, `flatten`, `squeeze`,
    `unsqueeze`, `broadcast`, `transpose`, `slice`, `flip`, `concat` and
    `reduce_sum`/`mean`/`max`/`min`/`prod`. Floats are computed in double
    and rounded to the dtype; integers wrap like the compiled code. Integer
    division by zero (and `INT_MIN / -1`), negative integer powers and
    out-of-range float-to-int casts are left to run time.

    Inputs may be `dense` or `dense_resource` (imported weights): their bytes
    are read in place, and a result larger than `resource-bytes` is written
    once, straight into a new resource blob. Results with more than
    `size-limit` elements are not folded, except splats (all inputs splat),
    which cost one element whatever their shape.

    Then a per-channel affine tail of a `hodu.conv` or of a `hodu.matmul`
    with 2-D constant weights (a bias, an inference BatchNormalization as the
    ONNX importer emits it, a Gemm alpha) is folded into the weights: each
    op of the tail is an `add`, `sub`, `mul` or `div` with a constant that
    varies only along the channel (conv: dim 1; matmul: the last dim) or a
    scalar op, and every intermediate has exactly one user. Such a chain
    on any other value (a BatchNormalization with no conv before it)
    collapses into at most one per-channel `mul` and one `add`.

    Before:
    ```mlir
    %w = hodu.constant dense<...> : tensor<4x3x3x3xf32>
    %y = hodu.conv %x, %w {...} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %m = hodu.constant dense<[...]> : tensor<4x1x1xf32>
    %c = hodu.sub %y, %m : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
    %v = hodu.constant dense<[...]> : tensor<4xf32>
    %r = hodu.reshape %v : (tensor<4xf32>) -> tensor<4x1x1xf32>
    %e = hodu.add_scalar %r, 1.0e-05 : f32 : (tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
    %sd = hodu.sqrt %e : (tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
    %d = hodu.div %c, %sd : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
    ```
    After:
    ```mlir
    %w2 = hodu.constant dense<...> : tensor<4x3x3x3xf32>  // w / sd per channel
    %y = hodu.conv %x, %w2 {...} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %t = hodu.constant dense<[...]> : tensor<4x1x1xf32>   // -m / sd
    %d = hodu.add %y, %t : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let options = [
    Option<"sizeLimit", "size-limit", "int64_t", "1 << 22",
           "Most elements of a folded result">,
    Option<"resourceBytes", "resource-bytes", "int64_t", "65536",
           "Results larger than this many bytes become dense_resource blobs">,
  ];
  let dependentDialects = ["::hodu::HoduDialect"];
}

def CpuParallelize : Pass<"hodu-cpu-parallelize", "mlir::ModuleOp"> {
  let summary = "Spread large linalg.generic ops over threads (CPU)";
  let description = [{
    Tiles the outermost parallel dimension of every `linalg.generic` on
    static tensors with at least `min-elements` result elements into
    `chunks` pieces of an `scf.forall`, which hoduc lowers to OpenMP. Runs
    after elementwise fusion, so fused kernels (bias + activation, pooling,
    im2col copies, normalisations) run on all cores; matmuls and
    convolutions are parallelised by `hodu-cpu-vectorize` already.

    Before:
    ```mlir
    %r = linalg.generic {iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<256x4096xf32>) outs(%e : tensor<256x4096xf32>) { ... }
    ```
    After:
    ```mlir
    %r = scf.forall (%i) in (8) shared_outs(%o = %e) -> (tensor<256x4096xf32>) {
      ... linalg.generic on tensor<32x4096xf32> slices ...
    }
    ```
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", "65536",
           "Smallest result (in elements) worth a parallel loop">,
    Option<"chunks", "chunks", "int64_t", "8",
           "Pieces the outermost parallel dimension is cut into">,
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
    and vectorises the tile with the upstream linalg vectoriser. Reductions
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

    With `approximate-math` (the default), `math.erf`, `exp`, `expm1`,
    `tanh`, `log`, `log1p` and `log2` on f32 (scalars and vectors) are
    replaced by MLIR's polynomial approximations, which vectorise, instead
    of scalar libm calls.

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
    Option<"vectorElements", "vector-elements", "int64_t", "64",
           "Most elements of one vectorised tile">,
    Option<"minElements", "min-elements", "int64_t", "4",
           "Fewest elements of a tile worth vectorising">,
    Option<"maxWindow", "max-window", "int64_t", "16",
           "Most window positions of a window reduction that is unrolled">,
    Option<"approximateMath", "approximate-math", "bool", "true",
           "Replace f32 erf/exp/expm1/tanh/log/log1p/log2 by polynomials">,
  ];
  let dependentDialects = [
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
    "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect"
  ];
}

def PlanMemory : Pass<"hodu-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Place a function's intermediate buffers in one arena, reusing bytes by liveness";
  let description = [{
    Replaces the statically shaped `memref.alloc`s of a function's body by
    `memref.view`s into one arena, a single `memref.alloc` of bytes at the
    start of the body freed before the return. Buffers whose live ranges do
    not overlap share bytes, so the arena stays near the largest set of
    buffers live at once, and a call does one malloc/free instead of one per
    buffer.

    A buffer is planned when its `memref.alloc` sits in the body's (single)
    block, not in a loop or other region; its type has a static shape, the
    identity layout, no memory space and an element of known size (integers
    and floats of 1 to 64 bits, `index`); it is freed by `memref.dealloc` ops
    in that block and nowhere else; and every use, through views (`subview`,
    `reinterpret_cast`, `collapse_shape`, `expand_shape`, `cast`, `view`,
    `transpose`), only reads or writes it (`memref` load/store/copy/dim,
    `vector` transfers and loads/stores, `linalg` ops), at any nesting
    depth. A buffer that is returned, passed to a call, stored, yielded or
    used by anything else is left alone, and so are dynamically shaped
    buffers and allocs inside loops.

    A buffer lives from its alloc to the last op that reads or writes it
    or a view of it; a use inside a loop or other region counts at the
    position of the enclosing op in the body. Its deallocs do not count:
    the pass erases them, and `buffer-deallocation-pipeline` puts them all
    at the end of the function, which would leave nothing to share. Offsets
    are assigned greedily, largest buffer first, at the lowest multiple of
    the alignment that overlaps no placed buffer live at the same time.
    Nothing changes when fewer than two buffers qualify.

    The function gets the discardable attribute `hodu.memory_plan =
    {arena_bytes, buffer_bytes, buffers, live_bytes}`, where `live_bytes`
    is the most bytes live at once (no arena can be smaller); `hoduc
    --print-stats` reports it. The pass statistics count the same.

    Before:
    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
    linalg.copy ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
    %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
    linalg.fill ins(%cst : f32) outs(%b : memref<64xf32>)
    memref.dealloc %a : memref<256xf32>
    memref.dealloc %b : memref<64xf32>
    return
    ```
    After:
    ```mlir
    %arena = memref.alloc() {alignment = 64 : i64} : memref<1024xi8>
    %c0 = arith.constant 0 : index
    %a = memref.view %arena[%c0][] : memref<1024xi8> to memref<256xf32>
    linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
    linalg.copy ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
    %c0_0 = arith.constant 0 : index
    %b = memref.view %arena[%c0_0][] : memref<1024xi8> to memref<64xf32>
    linalg.fill ins(%cst : f32) outs(%b : memref<64xf32>)
    memref.dealloc %arena : memref<1024xi8>
    return
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "Byte alignment of the arena and of every buffer in it (a power of two)">,
  ];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Buffers placed in an arena">,
    Statistic<"bufferBytes", "buffer-bytes", "Bytes of the buffers placed">,
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the arenas">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"
  ];
}

#endif // HODU_PASSES_TD

def CpuStridedReads : Pass<"hodu-cpu-strided-reads", "mlir::func::FuncOp"> {
  let summary = "Stride-2 vector reads as one contiguous load and a deinterleave (CPU)";
  let description = [{
    A 1-D `vector.transfer_read` of N elements along a memref dim whose
    stride is 2 (the stride-2 window slices of 2x2 pooling, the taps of a
    stride-2 convolution) would otherwise be lowered to N scalar loads
    inserted lane by lane. This pass reads the 2N-1 elements the lanes span
    as one contiguous masked load (the last lane is masked off, so nothing
    past the last element read is touched) and keeps the even lanes of a
    `vector.deinterleave`. Reads whose vector dim is not the memref's
    innermost, or that may be out of bounds, are left alone.

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
