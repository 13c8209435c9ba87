//===- Passes.td - target-independent hodu passes -------------*- tablegen -*-===//
//
// The passes on the hodu dialect that every target runs. Conversions declare
// theirs in include/hodu/Conversion/Passes.td, targets in
// include/hodu/Target/<target>/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_PASSES_TD
#define HODU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def DecomposeConvTranspose
    : Pass<"hodu-decompose-conv-transpose", "mlir::ModuleOp"> {
  let summary = "Strided transposed convolutions as one convolution per output phase";
  let description = [{
    A `hodu.conv_transpose` with a stride above 1 (in any spatial dim),
    dilation 1 and static shapes becomes, for every output phase
    `a = (y + pad_begin) mod stride` (per dim), an ordinary stride-1
    `hodu.conv` of the input with the phase's filter taps
    `w[:, :, a + stride*t]` (flipped and transposed to the conv layout
    `[O, C/groups, T...]` by `slice`, `reshape` and `transpose`, which
    `hodu-fold-constants` folds for constant weights), padded or cropped so
    that its outputs line up; the phase outputs are interleaved by a
    `concat` per spatial dim and a `reshape`, and a `slice` drops what the
    pads cut. Lowered directly, a transposed convolution convolves the
    input with `stride - 1` zeros inserted between its elements, so 3/4 of
    the multiply-adds of a 2-D stride-2 one multiply a zero; here none do.
    Phases with the same taps and pads (all of them when the kernel is a
    multiple of the stride) share one convolution, their filters
    concatenated, whose output channels are then split per phase; grouped
    transposed convolutions keep their groups and one convolution per
    phase. Phases that no filter tap reaches (stride above the kernel) are
    zero constants. Runs in the hodu phase at -O1 and up, before constant
    folding.

    Before (a 2x2, stride-2 upsampling):
    ```mlir
    %y = hodu.conv_transpose %x, %w {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>,
           pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
         : (tensor<1x8x4x4xf32>, tensor<8x8x2x2xf32>) -> tensor<1x8x8x8xf32>
    ```
    After (abridged; the four phases share one 1x1 convolution):
    ```mlir
    %w00 = hodu.slice %w {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 8, 8, -1, -1>,
                          steps = array<i64: 1, 1, -2, -2>} : ... -> tensor<8x8x1x1xf32>
    %t00 = hodu.transpose ... -> tensor<8x8x1x1xf32>
    ... the same for the phases 01, 10 and 11
    %f = hodu.concat %t00, %t01, %t10, %t11 {dim = 0 : i64} : ... -> tensor<32x8x1x1xf32>
    %p = hodu.conv %x, %f {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, ...}
         : (tensor<1x8x4x4xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x4x4xf32>
    ... each phase's 8 channels sliced and reshaped to 1x8x4x1x4x1, concat
    along dims 5 then 3,
    %z = hodu.reshape %zz : (tensor<1x8x4x2x4x2xf32>) -> tensor<1x8x8x8xf32>
    ```
  }];
  let dependentDialects = ["::hodu::HoduDialect"];
}

def FoldConstants : Pass<"hodu-fold-constants", "mlir::ModuleOp"> {
  let summary = "Evaluate hodu ops on constants and fold affine tails into weights";
  let description = [{
    Evaluates at compile time every hodu op whose operands are all
    `hodu.constant` and replaces it by a `hodu.constant`: the elementwise
    Unary, UnaryScalar, Binary (numpy broadcasting), Cmp, CmpScalar,
    BinaryLogical and UnaryLogical ops, `select`, `cast` (every dtype,
    narrow floats rounded to nearest even), `reshape`, `flatten`, `squeeze`,
    `unsqueeze`, `broadcast`, `transpose`, `slice`, `flip`, `concat`,
    `split`, `index_select`, `gather`, `index_put` and
    `reduce_sum`/`mean`/`max`/`min`/`prod` (hodu::evaluate, the evaluator the
    ONNX importer also uses). Floats are computed in double and rounded to
    the dtype; integers wrap like the compiled code. Integer division by
    zero (and `INT_MIN / -1`), negative integer powers, indices outside
    their dim and out-of-range float-to-int casts are left to run time.

    Inputs may be `dense` or `dense_resource` (imported weights): their bytes
    are read in place, and a result larger than `resource-bytes` is written
    once, straight into a new resource blob. Results with more than
    `size-limit` elements are not folded, except splats (all inputs splat),
    which cost one element whatever their shape; nor is an op that would
    visit more than `work-limit` elements (a reduction visits its input,
    so a `reduce_sum` of a 10^12-element splat stays for run time).

    Then a per-channel affine tail of a `hodu.conv` or of a `hodu.matmul`
    with 2-D constant weights (a bias, an inference BatchNormalization as the
    ONNX importer emits it, a Gemm alpha) is folded into the weights: each
    op of the tail is an `add`, `sub`, `mul` or `div` with a constant that
    varies only along the channel (conv: dim 1; matmul: the last dim) or a
    scalar op, and every intermediate has exactly one user. Such a chain
    on any other value (a BatchNormalization with no conv before it)
    collapses into at most one per-channel `mul` and one `add`; a lone
    `div` by a constant becomes a `mul` by its reciprocal when that is a
    normal number of the element type (GELU's `x / sqrt(2)`: a division
    costs several multiplies; the result may differ from the quotient by
    one rounding, as a collapsed chain's may).

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
    Option<"workLimit", "work-limit", "int64_t", "1 << 26",
           "Most elements one evaluation may visit">,
    Option<"resourceBytes", "resource-bytes", "int64_t", "65536",
           "Results larger than this many bytes become dense_resource blobs">,
  ];
  let dependentDialects = ["::hodu::HoduDialect"];
}

def CheckIndices : Pass<"hodu-check-indices", "mlir::ModuleOp"> {
  let summary = "Check gather and scatter indices at run time";
  let description = [{
    The lowering keeps every index of `index_select`, `gather`, `scatter*`
    and `index_put` within its dim (negative ones count from the end, the
    rest are clamped), so a bad index reads and writes nothing outside a
    buffer but gives a plausible wrong answer. With `mode=error` (hoduc's
    default, `--index-checks=error`), each such op whose indices are not a
    constant gets a check that they lie in [-n, n), n the size of the
    indexed dim, and a `hodu.assert` that fails the run naming the node,
    the indices and the range. The assert carries `hodu.index_check` and
    sits at the end of its block, at a node of its own (`NAME/index-check`):
    with `--fallback=cpu` on a GPU target only the assert runs on the CPU.
    Index ops located at a node of another op type, which the ONNX
    importer builds for other nodes (NMS, GridSample, GatherND's row
    numbers), are not checked: their indices are in range by construction
    or clamped on purpose (ops of no node, of a .hdss node, which is the op
    itself, and of ONNX Gather, GatherElements and ScatterElements are); GatherND and ScatterND
    check each component of their index tuples in the importer, with
    asserts tagged the same way. Checked ops get `hodu.indices_checked`.
    `mode=clamp` removes the tagged asserts and adds none, and so does a
    module with symbolic dims (`hodu.symbols`): it runs chunk by chunk,
    proved per position, which a check over all indices is not.

    ```mlir
    %r = hodu.index_select %x, %i {dim = 1 : i64} : (tensor<3x5xf32>, tensor<4xi64>) -> tensor<3x4xf32>
    // becomes
    %lo = hodu.ge_scalar %i, -5 : i64 : (tensor<4xi64>) -> tensor<4xi1>
    %hi = hodu.lt_scalar %i, 5 : i64 : (tensor<4xi64>) -> tensor<4xi1>
    %in = hodu.logical_and %lo, %hi : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %ok = hodu.reduce_all %in {dims = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
    %r = hodu.index_select %x, %i {dim = 1 : i64, hodu.indices_checked} : ...
    ...
    hodu.assert %ok : tensor<i1> {hodu.index_check, message = "... an index in
        the indices is outside [-5, 4] (axis 1 of the data has 5 elements)"}
    return ...
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"error\"",
           "'error': check indices at run time; 'clamp': no checks">,
  ];
  let dependentDialects = ["::hodu::HoduDialect"];
}

def PadSymbols : Pass<"hodu-pad-symbols", "mlir::ModuleOp"> {
  let summary = "Mask what padding a mixed symbol would change";
  let description = [{
    A symbol that ops mix -- a sequence length that attention contracts and
    softmax reduces, a decoder's past, a time axis a convolution slides over
    -- is compiled once at its bound B and run on inputs padded to B
    (docs/architecture.md, "Symbolic dims"). The module's `hodu.symbols`
    names it with `padded` and `chunk` = B; the entry's arguments carry
    `hodu.dims`, and every op result where the symbol reaches a dim carries
    `hodu.extents`, one array of per-dim strings per result: `""` for a
    static dim, else the dim's real extent `scale*NAME+offset` (`"seq"`,
    `"seq+1"`, `"2*seq-1"`), the dim being that expression at B. hoduc's
    driver writes them from imports at three probe sizes; the real
    positions of such a dim are a prefix, the padding a suffix.

    A module may have several padded symbols (an image's height and width):
    each dim follows one of them, and each has its own value. The pass
    appends one argument `%n: tensor<i64> {hodu.symbol_value}` per padded
    symbol, in the order of `hodu.symbols` (the entry point passes the run's
    values) and, for every op that reads across
    a padded dim, makes the operand's padding the op's neutral value with
    `select(index < scale*n+offset, x, neutral)`. A value is masked once,
    right after it is defined, for all its users (the padding never reaches
    a real position, so every user may see the mask); a value whose padding
    is already neutral for the op is left alone. What a mask makes known
    carries through elementwise ops -- -inf minus (or plus) a value
    broadcast along the dim stays -inf, its exp is 0, 0 times (or over) such
    a value stays 0 -- so a softmax costs one select and its chain stays
    fusable; the broadcast values are taken to be finite, as they are at
    real positions. The neutral values:
    - reductions over it: 0 for sums, norms and log-sums, -inf (the type's
      lowest) for max, argmax and log-sum-exp, +inf for min and argmin, 1
      for products, false/true for any/all; a mean becomes the masked mean
      times (padded count / real count);
    - matmul, dot and einsum that contract it: 0 in both operands;
    - convolutions (and transposed ones) and windows along it: 0 (the
      convolution's own zero padding), -inf/+inf for max/min windows; a
      convolution whose window has no end padding along a spatial dim reads
      no padding there (its last real output reads at most `in + pe - 1`)
      and is not masked along it;
    - a resize along it by a whole factor k (the output's extent k times
      the input's), with a coordinate transform that depends on k alone
      (asymmetric, half_pixel, pytorch_half_pixel, tf_half_pixel_for_nn):
      the input's padding holds its last real row (`index_select` of
      `min(i, extent - 1)`), which is what the op reads past the edge when
      it clamps; a nearest, floor, asymmetric resize reads no padding and
      is left alone;
    - cumsum in reverse: 0; TopK: the lowest (largest) or highest value;
    - a constant pad along it: the padded values moved to after the real
      positions (a select after the op);
    - a concat along it: rebuilt by index_select at run-time offsets, so
      that the real parts of its operands are consecutive.
    Everything else along such a dim computes per position and needs no
    mask. A reshape that merges a padded dim with the dims before it makes
    it interleaved ([heads, B] -> [heads * B]: position p is real when
    p mod B is below the extent); masks over it compare the indices modulo
    B, elementwise ops and reductions keep it, and a reshape that splits
    whole periods off makes it a prefix again. A mask's compares carry `hodu.mask` (a number of their own), so
    that CSE does not share one condition tensor between masks: with the
    select as its one user, the condition is computed in the select's
    fusion group, in the vectorised loop. Ops it cannot make exact -- a
    split, flip, scatter or non-unit-step slice along it, a resize by a
    fraction or with align_corners, a region of interest or
    exclude_outside, a variance over it, a mean window with excluded pads,
    an If or Loop that reads it, a reshape that merges two padded dims, an
    op other than an elementwise one, a reduction or a reshape that reads
    it interleaved -- are the error "symbolic dim
    'seq' cannot vary: WHY; pin it (hoduc --dim=seq=<size>)" at that op.
    It removes the `hodu.extents` attributes.

    Values the model computes from a padded symbol's size are computed from
    its value (docs/architecture.md, "A padded symbol's size as data"): a
    constant with `hodu.symbol_slopes` (a dictionary from symbol names to
    i64 slopes shaped like it: the driver found each element to be its value
    at the bound plus slope times the symbol's distance from it, as a
    decoder's position Shape(past)[2] is) becomes
    `c + slope * (n - B)`; a slice with `hodu.start_slopes` (slopes of its
    starts, one per dim) reads each dim whose start moves by an
    `index_select` of `start + i` at the run's values, clamped into the dim,
    which must be static in the slice's input and result (a causal mask's
    row past of a table). Both attributes are removed.

    ```mlir
    %m = hodu.reduce_max %s {dims = array<i64: 1>, keep_dim = true}
         {hodu.extents = [["", ""]]} : (tensor<4x16xf32>) -> tensor<4x1xf32>
    // with %s {hodu.extents = [["", "seq"]]} becomes
    %keep = hodu.lt %iota, %n : (tensor<1x16xi64>, tensor<i64>) -> tensor<1x16xi1>
    %x = hodu.select %keep, %s, %lowest : ... -> tensor<4x16xf32>
    %m = hodu.reduce_max %x {dims = array<i64: 1>, keep_dim = true} : ...
    ```
  }];
}

def ChunkSymbols : Pass<"hodu-chunk-symbols", "mlir::ModuleOp"> {
  let summary = "Prove that no op mixes a symbolic dim, and mark the results";
  let description = [{
    For each public function whose arguments carry `hodu.dims` (one string
    per dim: a symbol's name, or `""` for a static dim), follows the one
    symbol through every op and checks that no op mixes positions along it:
    a reduction over it, a matmul or einsum that contracts it, a slice, pad,
    flip, window, cumsum, TopK, split or concat along it, a gather that picks
    along it, a broadcast or reshape that spreads it, an If whose condition
    depends on it, a Loop that reads it. Such a model computes each position
    of the symbol (each sample of a batch) from that position's inputs alone,
    so the code compiled at one size of it runs any size chunk by chunk. The
    results that have the symbol get `hodu.dims` (`"batch"`, or
    `"4*batch"` where the symbol is the outer factor of a dim four times
    larger). An op it cannot prove is the error "symbolic dim 'batch' cannot
    vary: WHY; pin it (hoduc --dim=batch=<size>)" at that op.

    The symbol may be any dim of an argument or result; where dims larger
    than 1 come before it, a chunk is a strided slice, which the entry point
    copies through its workspace. The driver runs it on the model imported with the symbol at a prime size
    (a "probe") that no other dim has, so reshapes and broadcasts can be told
    apart by their sizes; at size 1 they cannot.

    ```mlir
    func.func @main(%x: tensor<7x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<7xf32> {
      %s = hodu.reduce_sum %x {dims = array<i64: 1>} : (tensor<7x4xf32>) -> tensor<7xf32>
      return %s : tensor<7xf32>      // gets {hodu.dims = ["batch"]}
    }
    ```

    With `symbol`, only that symbol is followed and the others' names in
    `hodu.dims` are ignored: the driver asks, for a model with two
    symbols, which of them no op mixes.
  }];
  let options = [
    Option<"symbol", "symbol", "std::string", "\"\"",
           "Follow only this symbol (default: the one the arguments name)">,
  ];
}

def SplitEmptyTensors : Pass<"hodu-split-empty-tensors", "mlir::func::FuncOp"> {
  let summary = "Give each chain of uses of a tensor.empty a tensor.empty of its own";
  let description = [{
    CSE merges the `tensor.empty` ops of one type into one, so a large model
    ends with a single `tensor.empty() : tensor<f32>` that is the `outs` of
    every rank-0 computation (IS-Net's 238 quantisation scales). One-shot
    bufferization then puts every value written into it in one alias set and
    checks each read of the set against each write, quadratic in the set
    (16 of IS-Net's 20 s of bufferization), and the one buffer it allocates
    lives from the top of the function to the last use.

    Sharing an empty helps in one case, in-place reuse along a chain: a bias
    add that reads a matmul's result, where the matmul wrote into the fill
    of the same empty, may overwrite the matmul's buffer. So the uses are
    taken in program order and split into chains. A use joins the current
    chain when it reads, as an operand or from inside its regions (a tile
    loop's body), a value written into the chain's buffer: a result of a use
    in the chain, or a value tied to one (a destination-style op's init, a
    loop's init, a reshape's or slice's source). A chain holds at most 16
    uses. Each chain gets a clone of the empty right before its first use
    (before that use's ancestor in the empty's block, so never inside a
    loop the original was outside of), and the original is erased.

    Run right before `eliminate-empty-tensors`, with no CSE in between.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def DistinctResults : Pass<"hodu-distinct-results", "mlir::func::FuncOp"> {
  let summary = "Give each result of a bufferized function a buffer of its own";
  let description = [{
    A model may return one value under several output names (two outputs of
    identical computations, merged by CSE, or one value listed twice). After
    bufferization the function then returns the same `memref` more than
    once, which `buffer-results-to-out-params` cannot turn into separate
    out-parameters. This pass copies each repeat of a returned buffer into a
    new `memref.alloc` (`memref.copy`), so that every result is a buffer of
    its own; a buffer returned once is left alone. Run after bufferization,
    before `buffer-results-to-out-params`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
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
    `vector` transfers and loads/stores, `linalg` ops, and the kernel
    operands of `gpu.launch_func`), at any nesting depth. A branch of an
    `scf.if` that yields the buffer (or a view) makes the if's result one
    more name for it, whose uses count the same way (the CPU's int8 kernels
    choose AMX tiles or VNNI at run time, both writing one buffer). A
    buffer that is returned, passed to a call, stored, yielded by anything
    else or used by anything else is left alone, and so are dynamically
    shaped buffers and allocs inside loops.

    A buffer lives from its alloc to the last op that reads or writes it
    or a view of it; a use inside a loop or other region counts at the
    position of the enclosing op in the body. Its deallocs do not count:
    the pass erases them, and `buffer-deallocation-pipeline` puts them all
    at the end of the function, which would leave nothing to share. Offsets
    are assigned greedily, largest buffer first, at the lowest multiple of
    the alignment that overlaps no placed buffer live at the same time.
    Nothing changes when fewer than `min-buffers` (default two) qualify.

    With `before-deallocation`, the pass runs after bufferization and
    before `buffer-deallocation-pipeline` (the CPU pipeline at -O1 and up):
    no buffer has a dealloc yet, every other condition above is the same,
    and the arena gets no dealloc of its own, since the deallocation pass
    frees it like any other alloc. The deallocation pass then sees one
    buffer where it saw hundreds: ownership-based deallocation puts every
    buffer owned in a block into one `bufferization.dealloc` at its end,
    and its simplification compares the buffers of such an op pair by pair
    (IS-Net's 1,315 buffers took 1.2 s there).

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
    Option<"minBuffers", "min-buffers", "int64_t", "2",
           "Plan only when at least this many buffers qualify (GPU targets "
           "want every intermediate in the arena: 1)">,
    Option<"beforeDeallocation", "before-deallocation", "bool", "false",
           "Run before buffer deallocation: buffers have no deallocs yet, "
           "and the arena gets none (the deallocation pass frees it)">,
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


def Autodiff : Pass<"hodu-autodiff", "mlir::ModuleOp"> {
  let summary = "Reverse-mode gradients of a scalar loss over the hodu dialect";
  let description = [{
    Rewrites `function` so that it returns its result number `loss` (a
    one-element floating-point tensor) followed by the gradient of that loss
    with respect to each argument listed in `wrt` (default: every
    floating-point argument), each of its argument's type. The gradients are
    hodu ops appended after the forward computation (reverse mode: one
    sweep over the ops in reverse order, sums where a value has several
    uses), so every later pass and every target compiles them as any model.

    Rules exist for:
    - elementwise arithmetic with numpy broadcasting (the gradient is summed
      over broadcast dims), `pow`, the scalar forms, clips
      (`maximum_scalar`/`minimum_scalar`), `maximum`/`minimum`, `select`,
      float-to-float `cast`;
    - `neg`, `abs`, `square`, `sqrt`, `recip`, `exp`, `ln`, `erf`, `sin`,
      `cos`, `tanh`, `sigmoid`, `relu`, `leaky_relu`, `elu`, `gelu`,
      `silu`, `softplus`, `hardsigmoid`;
    - `matmul` (1-D operands, batch dims broadcast);
    - `reduce_sum`, `reduce_mean`, `reduce_max`/`reduce_min` (shared by the
      elements equal to the extreme), `reduce_norm`, `reduce_logsumexp`,
      `reduce_var`, `reduce_std`;
    - `reshape`, `flatten`, `squeeze`, `unsqueeze`, `broadcast`,
      `transpose`, `slice` (any steps, negative ones too), `concat`;
    - `index_select` and `gather` (a `scatter_add` of the gradient);
    - `conv` with any strides, pads, dilations and groups
      (`conv_transpose` and `conv_grad_weight`);
    - pooling by `reduce_window` max, mean or sum over `[N, C, spatial...]`
      (a transposed convolution: every tap equal to a window's maximum
      gets the gradient).

    A value the loss depends on through an op without a rule is an error
    naming the op and its location (the ONNX node); integer and boolean
    values carry no gradient.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"main\"",
           "the function to differentiate">,
    Option<"loss", "loss", "unsigned", "0", "which result is the loss">,
    ListOption<"wrt", "wrt", "unsigned",
               "the arguments to differentiate (default: every "
               "floating-point argument)">,
  ];
}


def TrainStep : Pass<"hodu-train-step", "mlir::ModuleOp"> {
  let summary = "A train step: loss, gradients and an optimizer update";
  let description = [{
    Turns `function` (a model whose trainable weights are the arguments
    listed in `params`) into one training step, as pure dataflow:

      (inputs..., params..., target, optimizer state..., lr)
        -> (loss, new params..., new optimizer state...)

    The arguments keep their order; `target` (the prediction's type; not
    for `loss=output`), the optimizer's state and `lr` (a 0-d tensor of the
    parameters' element type, so the host can change it between steps) are
    appended. The prediction is result `output`. Losses: `mse` (mean of
    squared differences), `l1` (mean of absolute differences),
    `bce-with-logits` (mean of max(p, 0) - p t + log(1 + exp(-|p|))),
    `cross-entropy` (logits `[N, C]` against class probabilities `[N, C]`:
    mean over N of -sum(t log_softmax(p))), or `output` (the result is the
    loss). Optimizers, with `weight-decay` as L2 in the gradient (SGD,
    momentum, Adam) or decoupled (AdamW):
    - `sgd`: p -= lr g;
    - `momentum`: v = mu v + g, p -= lr v (state: one v per parameter);
    - `adam` / `adamw`: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
      step += 1, p -= lr (m / (1 - b1^step)) / (sqrt(v / (1 - b2^step)) +
      eps) (state: m and v per parameter, then `step`, a 0-d counter). The
      bias corrections are computed from `step` in the step itself, so n
      replays of a captured step equal n eager steps.
    Gradients come from the same rules as `hodu-autodiff`.

    With `stateful` (what `hoduc --train` runs), the step is marked for the
    artifact ABI (docs/training.md): the parameters -- by default the
    arguments carrying `hodu.param`, their initial value, which the ONNX
    importer gives the initializers it lifts -- the optimizer's state and
    `step` are state tensors (`hodu.state` on the argument and on the
    result of its name), and `lr`, plus two more appended arguments,
    `weight_decay` (used instead of the option) and `loss_scale` (the
    gradients are those of loss * loss_scale, divided by it; the loss
    reported is unscaled), are meta slots (`hodu.meta_slot`) starting at
    the options' values. An argument with `hodu.param` that does not train
    becomes a constant of its value.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"main\"",
           "the model function">,
    Option<"output", "output", "unsigned", "0", "which result is the prediction">,
    ListOption<"params", "params", "unsigned", "the trainable arguments">,
    Option<"loss", "loss", "std::string", "\"mse\"",
           "mse, l1, bce-with-logits, cross-entropy or output">,
    Option<"optimizer", "optimizer", "std::string", "\"sgd\"",
           "sgd, momentum, adam or adamw">,
    Option<"momentum", "momentum", "double", "0.9", "momentum's mu">,
    Option<"beta1", "beta1", "double", "0.9", "Adam's beta1">,
    Option<"beta2", "beta2", "double", "0.999", "Adam's beta2">,
    Option<"epsilon", "epsilon", "double", "1e-8", "Adam's epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "L2 (sgd, momentum, adam) or decoupled (adamw) weight decay">,
    Option<"stateful", "stateful", "bool", "false",
           "mark the state tensors and meta slots for the ABI (hoduc --train)">,
    Option<"lr", "lr", "double", "0.01",
           "stateful: the initial value of the lr meta slot">,
    Option<"lossScale", "loss-scale", "double", "1.0",
           "stateful: the initial value of the loss_scale meta slot">,
  ];
}

#endif // HODU_PASSES_TD
