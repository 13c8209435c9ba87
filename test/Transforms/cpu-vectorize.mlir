// RUN: hodu-opt %s --hodu-cpu-vectorize --canonicalize --split-input-file | FileCheck %s
// RUN: hodu-opt %s --hodu-cpu-vectorize=parallel=false --canonicalize --split-input-file | FileCheck %s --check-prefix=SEQ

// A matmul gets cache tiles, 8x32 register tiles and a k loop that carries
// the accumulator as a vector (no memory round trip per k step). The two
// 64-row cache tiles are spread over threads (scf.forall), or, with
// parallel=false, visited by a plain loop.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: scf.for {{.*}} step %c8
// SEQ-LABEL: func.func @matmul
// SEQ-NOT: scf.forall
// SEQ: scf.for {{.*}} step %c64
// SEQ: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: scf.for {{.*}} step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: arith.mulf {{.*}} : vector<8x32{{.*}}xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

// Tile sizes divide the op's dims: 6 rows use a 2-row register tile, 20
// columns a 4-wide one.
// CHECK-LABEL: func.func @odd_sizes
// CHECK: vector<2x4xf32>
func.func @odd_sizes(%a: tensor<6x10xf32>, %b: tensor<10x20xf32>, %c: tensor<6x20xf32>) -> tensor<6x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<6x10xf32>, tensor<10x20xf32>) outs(%c : tensor<6x20xf32>) -> tensor<6x20xf32>
  return %0 : tensor<6x20xf32>
}

// -----

// Batched matmuls are tiled over the batch too; the batch is the parallel dim.
// CHECK-LABEL: func.func @batch
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<1x8x16xf32>)
// CHECK-NOT: linalg.batch_matmul
func.func @batch(%a: tensor<4x16x32xf32>, %b: tensor<4x32x16xf32>, %c: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x16x32xf32>, tensor<4x32x16xf32>) outs(%c : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %0 : tensor<4x16x16xf32>
}

// -----

// No vector width divides 7 columns, and integer matmuls are not handled:
// both stay for the scalar path, untouched and without the internal tag.
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x7xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xi32>, tensor<8x8xi32>)
// CHECK-NOT: hodu.vectorize_id
func.func @left_alone(%a: tensor<8x8xf32>, %b: tensor<8x7xf32>, %c: tensor<8x7xf32>,
                      %i: tensor<8x8xi32>, %j: tensor<8x8xi32>) -> (tensor<8x7xf32>, tensor<8x8xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x7xf32>) outs(%c : tensor<8x7xf32>) -> tensor<8x7xf32>
  %1 = linalg.matmul ins(%i, %j : tensor<8x8xi32>, tensor<8x8xi32>) outs(%j : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %0, %1 : tensor<8x7xf32>, tensor<8x8xi32>
}

// -----

// A batch-1 NCHW convolution becomes an im2col buffer filled by one strided
// slice copy per filter tap (9 for 3x3) and a vectorised matmul of the
// flattened filter with the columns.
// CHECK-LABEL: func.func @conv
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x10x10xf32> to tensor<4x8x8xf32>
// CHECK-COUNT-9: linalg.copy ins(%{{.*}} : tensor<4x8x8xf32>)
// CHECK: tensor.collapse_shape {{.*}} tensor<4x3x3x8x8xf32> into tensor<36x64xf32>
// CHECK: tensor.collapse_shape {{.*}} tensor<8x4x3x3xf32> into tensor<8x36xf32>
// CHECK: -> (vector<8x32xf32>)
// CHECK: tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// hodu-cpu-parallelize: a large elementwise generic is cut into 8 pieces of
// an scf.forall along its outermost parallel dim; a small one is left alone.
// RUN: hodu-opt %s --split-input-file --hodu-cpu-parallelize | FileCheck %s --check-prefix=PAR
// PAR-LABEL: func.func @big_relu
// PAR: scf.forall (%{{.*}}) in (8)
// PAR: linalg.generic {{.*}} ins(%{{.*}} : tensor<32x4096xf32>)
// PAR-LABEL: func.func @small_relu
// PAR-NOT: scf.forall
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @big_relu(%x: tensor<256x4096xf32>, %e: tensor<256x4096xf32>) -> tensor<256x4096xf32> {
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<256x4096xf32>) outs(%e : tensor<256x4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<256x4096xf32>
  return %r : tensor<256x4096xf32>
}
func.func @small_relu(%x: tensor<16x16xf32>, %e: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
