// hodu-cpu-parallel-copies: a large copy of the function body into or out
// of a strided buffer, or a large fill, becomes an scf.forall of equal
// parts along its outermost dim that splits evenly over 2, 4, 8 and 16
// threads; small copies, contiguous memref.copy (a memcpy) and copies
// inside loops stay.
// RUN: hodu-opt %s --pass-pipeline='builtin.module(hodu-cpu-expand-strided-copies,func.func(hodu-cpu-parallel-copies))' | FileCheck %s
// RUN: hodu-opt %s --pass-pipeline='builtin.module(hodu-cpu-expand-strided-copies,func.func(hodu-cpu-parallel-copies{min-bytes=1000000000}))' | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @phases
// The interleaving copy of a stride-2 phase: 24 channels in 8 parts of 3.
// CHECK: scf.forall (%[[I:.*]]) in (8) {
// CHECK:   %[[O:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK-DAG:   %[[S:.*]] = memref.subview %arg0[%[[O]], 0, 0] [3, 128, 128] [1, 1, 1]
// CHECK-DAG:   %[[D:.*]] = memref.subview %arg1[%[[O]], 0, 0] [3, 128, 128] [1, 1, 1]
// CHECK:   linalg.copy ins(%[[S]] : {{.*}}) outs(%[[D]] : {{.*}})
// A unit dim first (skipped), then 7 rows: a row each.
// CHECK: scf.forall (%{{.*}}) in (7) {
// CHECK:   memref.subview %{{.*}}[0, %{{.*}}, 0] [1, 1, 4096] [1, 1, 1]
// A strided memref.copy (a linalg.copy after hodu-cpu-expand-strided-copies,
// which the CPU pipeline runs first) becomes a parallel linalg.copy as well.
// CHECK: scf.forall (%{{.*}}) in (16) {
// CHECK:   linalg.copy
// CHECK-NOT: memref.copy
// A padded buffer's fill: 96 channels in 16 parts of 6.
// CHECK: scf.forall (%[[J:.*]]) in (16) {
// CHECK:   memref.subview %{{.*}}[0, %{{.*}}, 0, 0] [1, 6, 66, 66] [1, 1, 1, 1]
// CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x6x66x66xf32, strided<[418176, 4356, 66, 1], offset: ?>>)
// Small, contiguous and in-loop copies stay.
// CHECK: linalg.copy ins(%{{.*}} : memref<4x8xf32>)
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<64x1024xf32> to memref<64x1024xf32>
// CHECK: scf.for
// CHECK-NEXT: linalg.copy
// NONE-LABEL: func.func @phases
// NONE-NOT: scf.forall
func.func @phases(%a: memref<24x128x128xf32>,
                  %b: memref<24x128x128xf32, strided<[65536, 512, 2]>>,
                  %c: memref<1x7x4096xf32, strided<[65536, 8192, 1]>>,
                  %d: memref<1x7x4096xf32>,
                  %e: memref<64x1024xf32, strided<[2048, 1]>>,
                  %f: memref<64x1024xf32>, %g: memref<64x1024xf32>,
                  %s: memref<4x8xf32>, %t: memref<4x8xf32, strided<[16, 2]>>,
                  %n: index, %p: memref<1x96x66x66xf32>) {
  linalg.copy ins(%a : memref<24x128x128xf32>) outs(%b : memref<24x128x128xf32, strided<[65536, 512, 2]>>)
  linalg.copy ins(%c : memref<1x7x4096xf32, strided<[65536, 8192, 1]>>) outs(%d : memref<1x7x4096xf32>)
  memref.copy %f, %e : memref<64x1024xf32> to memref<64x1024xf32, strided<[2048, 1]>>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<1x96x66x66xf32>)
  linalg.copy ins(%s : memref<4x8xf32>) outs(%t : memref<4x8xf32, strided<[16, 2]>>)
  memref.copy %f, %g : memref<64x1024xf32> to memref<64x1024xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    linalg.copy ins(%a : memref<24x128x128xf32>) outs(%b : memref<24x128x128xf32, strided<[65536, 512, 2]>>)
  }
  return
}
