// The cuda target's phases: gpu (kernels tiled, mapped and outlined) and
// nvvm (one PTX object per --gpu-arch). The matmuls here take the FMA
// kernels (--gpu-math=fma); tensor-cores.test has the tensor-core ones.
// RUN: hoduc --device=cuda --gpu-math=fma --compile-to=gpu %S/Inputs/matmul_bias_relu.mlir | FileCheck %s --check-prefix=GPU
// RUN: hoduc --device=cuda --gpu-math=fma --compile-to=gpu %S/Inputs/matmul_bias_relu.mlir | hodu-opt --hodu-cuda-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: hoduc --device=cuda --gpu-math=fma --compile-to=nvvm %S/Inputs/matmul_bias_relu.mlir | FileCheck %s --check-prefix=NVVM
// RUN: hoduc --device=cuda --gpu-math=fma --compile-to=nvvm --gpu-arch=sm_80,sm_90 %S/Inputs/matmul_bias_relu.mlir | FileCheck %s --check-prefix=ARCHS
// RUN: hoduc --device=cuda --compile-to=gpu %S/Inputs/rowsum.mlir | FileCheck %s --check-prefix=ROWS
// RUN: hoduc --device=cuda --gpu-math=fma --compile-to=gpu %S/Inputs/batch_matmul.mlir | FileCheck %s --check-prefix=BMM
// RUN: hoduc --device=cuda --compile-to=gpu %S/Inputs/pad.mlir | FileCheck %s --check-prefix=PAD

// The host function launches one kernel: the matmul and its bias+ReLU
// epilogue; the result is an out-parameter.
// GPU: module attributes {gpu.container_module
// GPU: func.func @main(%{{.*}}: memref<64x32xf32>, %{{.*}}: memref<32x48xf32>, %{{.*}}: memref<48xf32>, %{{.*}}: memref<64x48xf32>)
// 64x48 in 12 blocks of 16x16 (no larger tile leaves enough blocks), one
// output per thread.
// GPU: gpu.launch_func @kernels::@main_kernel blocks in (%c3, %c4, %c1) threads in (%c16, %c16, %c1) args(
// GPU-NOT: gpu.launch_func
// One gpu.module for all kernels; the A and B tiles in workgroup memory.
// GPU: gpu.module @kernels {
// GPU: gpu.func @main_kernel(
// GPU-SAME: kernel attributes {known_block_size = array<i32: 16, 16, 1>, known_grid_size = array<i32: 3, 4, 1>}
// The fused fill, then per K step: copy A and B tiles in, barrier,
// multiply-add into the accumulator the K loop carries, barrier (before the
// next step's copies).
// GPU: gpu.barrier
// GPU: memref.get_global {{.*}} #gpu.address_space<workgroup>
// GPU: memref.get_global {{.*}} #gpu.address_space<workgroup>
// GPU: scf.for {{.*}} iter_args({{.*}}) -> (vector<1xf32>)
// GPU: gpu.barrier
// GPU-COUNT-16: vector.fma
// GPU: gpu.barrier
// GPU-NEXT: scf.yield
// The epilogue, by the same thread.
// GPU: arith.addf
// GPU: arith.maximumf
// GPU: memref.global "private" @{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// GPU: memref.global "private" @{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// GPU-NOT: gpu.func
// The entry point stays for the launch plan.
// GPU: hodu.entry_point @main

// NVVM: gpu.binary @kernels  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// NVVM-SAME: \0A.target sm_80\0A
// NVVM-SAME: .visible .entry main_kernel(
// NVVM-NOT: main_kernel_0
// NVVM: hodu.entry_point @main
// ARCHS: gpu.binary @kernels  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// ARCHS-SAME: \0A.target sm_80\0A
// ARCHS-SAME: #gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// ARCHS-SAME: \0A.target sm_90\0A

// A reduction: a block per 4 rows of 100, 64 threads per row, the
// partials combined by a tree in workgroup memory.
// ROWS: gpu.func @main_kernel(
// ROWS-SAME: known_block_size = array<i32: 64, 4, 1>, known_grid_size = array<i32: 2, 1, 1>
// ROWS: memref.get_global @{{.*}} : memref<4x64xf32, #gpu.address_space<workgroup>>
// ROWS: scf.for
// ROWS: arith.addf
// ROWS: gpu.barrier
// ROWS-COUNT-6: arith.addf
// ROWS: arith.addf

// A batched matmul: each block one 4x3 product of the batch (grid z).
// BMM: gpu.launch_func @kernels::@main_kernel blocks in (%c1, %c1, %c2) threads in (%c3, %c4, %c1)
// BMM: memref.get_global @{{.*}} : memref<1x4x8xf32, #gpu.address_space<workgroup>>
// BMM: memref.get_global @{{.*}} : memref<1x8x3xf32, #gpu.address_space<workgroup>>
// BMM: vector.fma

// Padding: the fill and the copy bufferisation leaves become kernels, a
// thread per element of the padded and of the copied tensor.
// PAD: gpu.launch_func @kernels::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c6, %c6, %c1)
// PAD: gpu.launch_func @kernels::@main_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c4, %c4, %c1)
// PAD-NOT: memref.copy
