// A tensor-core contraction (marked by hodu-gpu-tile) whose X is a view of a
// larger buffer with rows that are not 16-byte aligned (a row of 68 f16):
// hodu-gpu-map-to-launches copies X's chunks element by element, Y's with
// cp.async, and everything else stays the tensor-core kernel.
// RUN: hodu-opt %s --hodu-gpu-map-to-launches | FileCheck %s
// CHECK: gpu.launch
// CHECK-NOT: nvgpu.device_async_copy %subview
// CHECK: memref.load %subview{{.*}} : memref<32x64xf16, strided<[68, 1], offset: ?>>
// CHECK: memref.store {{.*}} : memref<3x32x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], 8, %{{.*}} {bypassL1} : memref<64x32xf16> to memref<3x32x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: nvgpu.mma.sync
#map = affine_map<(d0) -> (d0 * 32)>
module {
  func.func @main(%big: memref<64x68xf16>, %b: memref<64x32xf16>, %c: memref<64x32xf32>) {
    %a = memref.subview %big[0, 4] [64, 64] [1, 1] : memref<64x68xf16> to memref<64x64xf16, strided<[68, 1], offset: 4>>
    scf.forall (%i) in (2) {
      %o = affine.apply #map(%i)
      %ai = memref.subview %a[%o, 0] [32, 64] [1, 1] : memref<64x64xf16, strided<[68, 1], offset: 4>> to memref<32x64xf16, strided<[68, 1], offset: ?>>
      %ci = memref.subview %c[%o, 0] [32, 32] [1, 1] : memref<64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%ai, %b : memref<32x64xf16, strided<[68, 1], offset: ?>>, memref<64x32xf16>) outs(%ci : memref<32x32xf32, strided<[32, 1], offset: ?>>)
          attrs = {hodu.gpu.mma = {kind = "f16", bm = 32 : i64, bn = 32 : i64, i = 0 : i64, j = 1 : i64, k = 2 : i64, x = 0 : i64, kn = true, zero = true}} {
      ^bb0(%x: f16, %y: f16, %acc: f32):
        %xa = arith.extf %x : f16 to f32
        %xb = arith.extf %y : f16 to f32
        %p = arith.mulf %xa, %xb : f32
        %s = arith.addf %acc, %p : f32
        linalg.yield %s : f32
      }
    } {mapping = [#gpu.block<x>]}
    return
  }
}
