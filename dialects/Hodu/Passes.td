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

#endif // HODU_PASSES_TD
