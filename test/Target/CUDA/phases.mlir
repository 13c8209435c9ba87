// The cuda target's phases: gpu (kernels tiled, mapped and outlined) and
// nvvm (one PTX object per --gpu-arch).
// RUN: hoduc --device=cuda --compile-to=gpu %S/Inputs/matmul_bias_relu.mlir | FileCheck %s --check-prefix=GPU
// RUN: hoduc --device=cuda --compile-to=gpu %S/Inputs/matmul_bias_relu.mlir | hodu-opt --hodu-cuda-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: hoduc --device=cuda --compile-to=nvvm %S/Inputs/matmul_bias_relu.mlir | FileCheck %s --check-prefix=NVVM
// RUN: hoduc --device=cuda --compile-to=nvvm --gpu-arch=sm_80,sm_90 %S/Inputs/matmul_bias_relu.mlir | FileCheck %s --check-prefix=ARCHS
// RUN: hoduc --device=cuda --compile-to=gpu %S/Inputs/rowsum.mlir | FileCheck %s --check-prefix=ROWS

// The host function launches the kernels; the result is an out-parameter.
// GPU: module attributes {gpu.container_module
// GPU: func.func @main(%{{.*}}: memref<64x32xf32>, %{{.*}}: memref<32x48xf32>, %{{.*}}: memref<48xf32>, %{{.*}}: memref<64x48xf32>)
// 64x48 in blocks of 64x48 (divisors of M and N), 16x16 threads.
// GPU: gpu.launch_func @kernels::@main_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(
// The epilogue: one block per row of 48 threads.
// GPU: gpu.launch_func @kernels::@main_kernel_0 blocks in
// One gpu.module for all kernels; the A and B tiles in workgroup memory.
// GPU: gpu.module @kernels {
// GPU: gpu.func @main_kernel(
// GPU-SAME: kernel attributes {known_block_size = array<i32: 16, 16, 1>, known_grid_size = array<i32: 1, 1, 1>}
// The fused fill, then per K step: copy A and B tiles in, barrier, multiply.
// GPU: gpu.barrier
// GPU: scf.for
// GPU: memref.get_global {{.*}} #gpu.address_space<workgroup>
// GPU: gpu.barrier
// GPU: memref.get_global {{.*}} #gpu.address_space<workgroup>
// GPU: gpu.barrier
// GPU: arith.mulf
// GPU: arith.addf
// GPU: gpu.barrier
// GPU: memref.global "private" @{{.*}} : memref<64x16xf32, #gpu.address_space<workgroup>>
// GPU: memref.global "private" @{{.*}} : memref<16x48xf32, #gpu.address_space<workgroup>>
// GPU: gpu.func @main_kernel_0(
// GPU-SAME: kernel attributes {known_block_size = array<i32: 48, 1, 1>, known_grid_size = array<i32: 1, 64, 1>}
// GPU: arith.maximumf
// The entry point stays for the launch plan.
// GPU: hodu.entry_point @main

// NVVM: gpu.binary @kernels  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// NVVM-SAME: \0A.target sm_80\0A
// NVVM-SAME: .visible .entry main_kernel(
// NVVM-SAME: .visible .entry main_kernel_0(
// NVVM: hodu.entry_point @main
// ARCHS: gpu.binary @kernels  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// ARCHS-SAME: \0A.target sm_80\0A
// ARCHS-SAME: #gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// ARCHS-SAME: \0A.target sm_90\0A

// A reduction: one thread per output row.
// ROWS: gpu.func @main_kernel(
// ROWS-SAME: known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// ROWS: scf.for
// ROWS: arith.addf
