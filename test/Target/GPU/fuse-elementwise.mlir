// hodu-gpu-fuse-elementwise fuses elementwise producers into their
// consumers, but not into contractions.
// RUN: hodu-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hodu-gpu-fuse-elementwise))" | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
// GELU-like prologue of a matmul stays a kernel of its own: two generics.
// CHECK-LABEL: func.func @not_into_contraction
// CHECK: math.erf
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT: math.erf
func.func @not_into_contraction(%h: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%h : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.erf %x : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %oe = tensor.empty() : tensor<8x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%oe : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%g, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%init : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %mm : tensor<8x4xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
// exp(x) into the row sum that reads it: one reduction.
// CHECK-LABEL: func.func @into_reduction
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @into_reduction(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %re = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%re : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
       ins(%ex : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A bias ([C][1][1], read at (c, 0, 0)) and a ReLU with an expand_shape
// after them, as before a grouped convolution: the ReLU joins the bias
// before the reshape moves, so one generic of the 4-D shape remains, and
// the expand_shape follows it (moved up to the bias, which cannot take it,
// it would have left the ReLU a 5-D generic of its own).
// CHECK-LABEL: func.func @chain_before_reshape
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<1x16x8x8xf32>, tensor<16x1x1xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape
// CHECK-NOT: linalg.generic
func.func @chain_before_reshape(%x: tensor<1x16x8x8xf32>, %b: tensor<16x1x1xf32>) -> tensor<1x16x1x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
       ins(%x, %b : tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
       ins(%biased : tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %x5 = tensor.expand_shape %r [[0], [1, 2], [3], [4]] output_shape [1, 16, 1, 8, 8] : tensor<1x16x8x8xf32> into tensor<1x16x1x8x8xf32>
  return %x5 : tensor<1x16x1x8x8xf32>
}
