// The register tiles follow the target's registers (vector-bits,
// vector-registers): AVX-512 (512 bits, 32 registers, the default) gets
// 8x32 tiles of two 16-wide vectors per row, NEON (128/32) 8x8 tiles of two
// 4-wide vectors, AVX2 (256/16) 4x16 tiles, so the accumulators, two B
// vectors and one A broadcast fit the register file.
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false pack-b=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=AVX512
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false pack-b=false vector-bits=512 vector-registers=32" --canonicalize --split-input-file | FileCheck %s --check-prefix=AVX512
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false pack-b=false vector-bits=128 vector-registers=32" --canonicalize --split-input-file | FileCheck %s --check-prefix=NEON
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false pack-b=false vector-bits=256 vector-registers=16" --canonicalize --split-input-file | FileCheck %s --check-prefix=AVX2
// Explicit sizes win over the derived ones.
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false pack-b=false vector-bits=128 register-m=4 register-n=16" --canonicalize --split-input-file | FileCheck %s --check-prefix=AVX2
// Packed (the default): the panels are as wide as the register tile.
// RUN: hodu-opt %s --hodu-cpu-vectorize=parallel=false --canonicalize --split-input-file | FileCheck %s --check-prefix=PACK512
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false vector-bits=128 vector-registers=32" --canonicalize --split-input-file | FileCheck %s --check-prefix=PACKNEON

// A matmul: the register tile is the k loop's accumulator.
// AVX512-LABEL: func.func @matmul
// AVX512: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// NEON-LABEL: func.func @matmul
// NEON: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<8x8xf32>)
// AVX2-LABEL: func.func @matmul
// AVX2: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// PACK512-LABEL: func.func @matmul
// PACK512: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x64x32xf32>)
// PACK512: linalg.generic {{.*}} outs(%{{.*}} : tensor<16x64x8xf32>)
// PACK512: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// PACKNEON-LABEL: func.func @matmul
// PACKNEON: linalg.generic {{.*}} outs(%{{.*}} : tensor<32x64x8xf32>)
// PACKNEON: linalg.generic {{.*}} outs(%{{.*}} : tensor<16x64x8xf32>)
// PACKNEON: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<8x8xf32>)
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

// A packed convolution: output rows of 14 columns are computed 16 wide in
// 16-column panels on AVX-512 (32 would waste more than an eighth), in
// 8-column panels on NEON.
// PACK512-LABEL: func.func @conv
// PACK512: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<8x16xf32>)
// PACKNEON-LABEL: func.func @conv
// PACKNEON: scf.for {{.*}} step %c1 iter_args(%{{.*}}) -> (vector<8x8xf32>)
func.func @conv(%x: tensor<1x4x16x16xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  return %0 : tensor<1x8x14x14xf32>
}
