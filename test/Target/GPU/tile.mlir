// The kernels hodu-gpu-tile makes, one strategy per case.
// RUN: hodu-opt %s --split-input-file --hodu-gpu-tile --canonicalize --cse | FileCheck %s
// RUN: hodu-opt %s --split-input-file --hodu-gpu-tile=implicit-gemm=false --canonicalize --cse | FileCheck %s --check-prefix=IM2COL

// A matmul with its zero fill and a bias+ReLU epilogue: one kernel, the
// epilogue updating the matmul's tile in place. No candidate tile leaves 64
// blocks of a 64x64 output, so the one with the most: 16x16 blocks, one
// output per thread, K steps of 16 through workgroup memory.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: scf.forall ({{.*}}) in (4, 4) shared_outs
// The fill, per thread.
// CHECK: scf.forall ({{.*}}) in (16, 16) shared_outs
// CHECK: vector.transfer_write
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// The K loop: the A and B tiles into workgroup memory, then each thread's
// register tile (vectorised: hodu-gpu-lower-vectors keeps it in registers).
// CHECK: scf.for {{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<16x16xf32>
// CHECK: bufferization.materialize_in_destination
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<16x16xf32>
// CHECK: scf.forall ({{.*}}) in (16, 16) shared_outs
// CHECK: vector.multi_reduction <add>
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: scf.yield
// The epilogue, per thread, after the K loop.
// CHECK: scf.forall ({{.*}}) in (16, 16) shared_outs
// CHECK: arith.addf {{.*}} : vector<1x1xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x1xf32>
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK-NOT: linalg.matmul
func.func @matmul_bias_relu(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %bias: tensor<64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%bias, %mm : tensor<64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %c, %x : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
// -----

// CHECK-LABEL: func.func @batched
// CHECK: scf.forall ({{.*}}) in (4, 4, 4) shared_outs
// CHECK: scf.for
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x32x16xf32>
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x16x32xf32>
// 2x2 outputs per thread.
// CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x2x2x16xf32> to vector<1x2x2xf32>
// CHECK: {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
// A batched matmul (attention's Q K^T over 4 heads): the heads are a block
// dim of their own (z), each block a 32x32 tile of one head.
func.func @batched(%q: tensor<4x128x64xf32>, %k: tensor<4x64x128xf32>) -> tensor<4x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%init : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  return %s : tensor<4x128x128xf32>
}

// -----

// CHECK-LABEL: func.func @conv
// K = 3*3*3 collapsed, the filter as an 8x27 matrix.
// CHECK: tensor.collapse_shape {{.*}} into tensor<8x27xf32>
// CHECK: scf.for {{.*}} to %c27 step %c9
// The implicit GEMM: each K step gathers its 9x16 tile of the im2col
// operand from the input, 3x16 threads 3 taps each (a block temporary:
// workgroup memory after bufferisation); the filter's tile is promoted.
// CHECK: scf.forall ({{.*}}) in (3, 16) shared_outs({{.*}}) -> (tensor<9x1x1x16xf32>)
// CHECK: linalg.generic
// CHECK: tensor.extract %arg0
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<8x9xf32>
// CHECK: vector.multi_reduction <add>
// CHECK-NOT: linalg.conv
// With implicit-gemm=false, the im2col: 16x16 threads copy one (c, kh, kw)
// tap of the image each, into a tensor the contraction reads.
// IM2COL-LABEL: func.func @conv
// IM2COL: scf.forall ({{.*}}) in (3, 3, 3, 1, 1) shared_outs({{.*}}) -> (tensor<3x3x3x1x16x16xf32>)
// IM2COL: scf.forall ({{.*}}) in (16, 16)
// IM2COL: linalg.generic
// IM2COL: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// IM2COL: tensor.collapse_shape {{.*}} into tensor<27x1x16x16xf32>
// IM2COL: tensor.collapse_shape {{.*}} into tensor<8x27xf32>
// IM2COL: scf.for {{.*}} to %c27 step %c9
// IM2COL: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<9x1x1x16xf32>
// IM2COL: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<8x9xf32>
// IM2COL: vector.multi_reduction <add>
// A padded 3x3 convolution (NCHW, as the ONNX importer writes it): the
// input's taps are gathered into the operand [C*KH*KW..., N, OH, OW] of a
// contraction over K = C*3*3 = 27, tiled like a matmul.
func.func @conv(%x: tensor<1x3x18x18xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %c : tensor<1x8x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @rowsum
// CHECK: scf.forall ({{.*}}) in (2) shared_outs
// CHECK: linalg.fill
// CHECK: linalg.reduce {{.*}} {hodu.gpu.workgroup_reduce = array<i64: 0, 4, 64>}
// CHECK: {mapping = [#gpu.block<x>]}
// Row sums of 8 rows of 100: a workgroup per 4 rows, 64 threads per row
// (marked; hodu-gpu-map-to-launches builds the tree after bufferisation),
// the fill fused into the block.
func.func @rowsum(%a: tensor<8x100xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<8x100xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @maxpool
// CHECK: scf.forall
// CHECK: scf.forall ({{.*}}) in (4, 4, 4) shared_outs
// CHECK: linalg.fill {{.*}} tensor<1x1x1x1xf32>
// CHECK: linalg.generic {{.*}} ins({{.*}} : tensor<1x1x2x2xf32>, tensor<2x2xf32>) outs({{.*}} : tensor<1x1x1x1xf32>)
// CHECK: {mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>]}
// A max pool's 2x2 windows: short rows, a thread per output element that
// loops over its window after initialising its element (the fill fused
// into the thread loop).
func.func @maxpool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}
