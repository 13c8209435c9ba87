// A tensor-core contraction (marked by hodu-gpu-tile) whose fused epilogue
// reads a view made between the two (the residual of a transformer block's
// projection in ppocr-v4-rec, out = r + (a w + bias), computed in place on
// the contraction's tile): hodu-gpu-map-to-launches moves the view above the
// contraction, and the one kernel loads the residual and the bias on the
// registers. Before, the view did not dominate its use in the kernel ("operand
// #0 does not dominate this use").
// RUN: hodu-opt %s --hodu-gpu-map-to-launches | FileCheck %s
// CHECK: gpu.launch
// CHECK: %[[R:.*]] = memref.subview %arg1
// CHECK: nvgpu.mma.sync
// CHECK: scf.if
// CHECK: memref.load %[[R]]
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
#map = affine_map<(d0) -> (d0 * 32)>
#min = affine_map<(d0) -> (d0 * -32 + 120, 32)>
module {
  func.func @main(%a: memref<10x120xf32>, %res: memref<10x120xf32>, %bias: memref<120xf32>,
                  %w: memref<120x120xf32>, %out: memref<10x120xf32>) {
    scf.forall (%i, %j) in (1, 4) {
      %o = affine.apply #map(%j)
      %n = affine.min #min(%j)
      %bj = memref.subview %bias[%o] [%n] [1] : memref<120xf32> to memref<?xf32, strided<[1], offset: ?>>
      %wj = memref.subview %w[0, %o] [120, %n] [1, 1] : memref<120x120xf32> to memref<120x?xf32, strided<[120, 1], offset: ?>>
      %cj = memref.subview %out[0, %o] [10, %n] [1, 1] : memref<10x120xf32> to memref<10x?xf32, strided<[120, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %wj : memref<10x120xf32>, memref<120x?xf32, strided<[120, 1], offset: ?>>) outs(%cj : memref<10x?xf32, strided<[120, 1], offset: ?>>)
          attrs = {hodu.gpu.mma = {bm = 32 : i64, bn = 32 : i64, i = 0 : i64, j = 1 : i64, k = 2 : i64, kind = "3xtf32", kn = true, x = 0 : i64, zero = true}} {
      ^bb0(%x: f32, %y: f32, %acc: f32):
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        linalg.yield %s : f32
      }
      %rj = memref.subview %res[0, %o] [10, %n] [1, 1] : memref<10x120xf32> to memref<10x?xf32, strided<[120, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                      iterator_types = ["parallel", "parallel"]}
          ins(%rj, %bj : memref<10x?xf32, strided<[120, 1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>) outs(%cj : memref<10x?xf32, strided<[120, 1], offset: ?>>) {
      ^bb0(%r: f32, %b: f32, %acc: f32):
        %t = arith.addf %acc, %b : f32
        %u = arith.addf %r, %t : f32
        linalg.yield %u : f32
      }
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
}
