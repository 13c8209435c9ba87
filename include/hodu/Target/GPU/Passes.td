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

def GpuTile : Pass<"hodu-gpu-tile", "mlir::ModuleOp"> {
  let summary = "Tile every top-level linalg op into blocks and threads (GPU)";
  let description = [{
    Runs on linalg on tensors, after elementwise fusion. Every linalg op at
    the top level of a function becomes one kernel: an `scf.forall` mapped
    to GPU blocks around one (or, for a matmul, several) `scf.forall`
    mapped to threads. The tiling itself is done by upstream transform ops
    (`transform.structured.tile_using_forall`, `fuse_into_containing_op`,
    `promote_tensor`, `bufferize_to_allocation`); this pass picks the sizes
    from the static shapes and builds the script.

    - `linalg.matmul`: tiles of at most `tile-m` x `tile-n` per block,
      divisors of M and N so that the workgroup tiles have static shapes; a
      `linalg.fill` that only initialises it is fused into the block. The K
      loop steps by a divisor of K of at most `tile-k`; each step copies the
      A and B tiles into workgroup memory (`#gpu.address_space<workgroup>`)
      and the block's `threads-m` x `threads-n` threads each compute a
      sub-tile of C from them.
    - Any other op without reduction loops (elementwise, broadcast,
      transpose, fill): the innermost loop is split into blocks of at most
      `block-threads` threads, one element per thread; up to two loops
      around it become the grid's y and z; outer ones stay loops in each
      thread.
    - Ops with reduction loops (reductions, convolutions, pooling): the
      parallel loops are mapped as above and every thread reduces its own
      output element serially. Workgroup (tree) reductions are not done yet.

    Contractions other than a 2-D `linalg.matmul` (batched matmuls, matmuls
    that fusion turned into generics) are rejected with an error naming the
    op, as are reductions without a parallel loop and dynamic shapes: one
    thread per output element of a matmul would be far too slow.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "64", "Most rows of a matmul's block tile">,
    Option<"tileN", "tile-n", "int64_t", "64", "Most columns of a matmul's block tile">,
    Option<"tileK", "tile-k", "int64_t", "16", "Most k of a matmul's workgroup-memory tiles">,
    Option<"threadsM", "threads-m", "int64_t", "16", "Rows of threads of a matmul block">,
    Option<"threadsN", "threads-n", "int64_t", "16", "Columns of threads of a matmul block">,
    Option<"blockThreads", "block-threads", "int64_t", "256",
           "Most threads of a block for the other ops">,
    Option<"target", "target", "std::string", "\"gpu\"", "The target, named in errors">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::gpu::GPUDialect", "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::transform::TransformDialect",
  ];
}

def GpuMapToLaunches : Pass<"hodu-gpu-map-to-launches", "mlir::ModuleOp"> {
  let summary = "Turn the block and thread loops of hodu-gpu-tile into gpu.launch ops";
  let description = [{
    Runs after bufferization. Workgroup-memory buffers become
    `memref.global`s in workgroup memory, the copies into them are spread
    over the block's threads, and every `scf.forall` mapped to blocks
    becomes a `gpu.launch` (upstream `transform.gpu.map_forall_to_blocks`
    and `map_nested_forall_to_threads`, which put a `gpu.barrier` after each
    thread loop). The grid comes from the block loop's trip counts, the
    block size from the largest thread loop inside it.

    Copies and fills that bufferisation leaves outside the tiled ops (from
    `tensor.pad`, `tensor.insert_slice`, concatenation) would run on the
    host; they are reported as errors naming the op.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::transform::TransformDialect",
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
