// RUN: hodu-opt %s --hodu-cpu-flatten-globals | FileCheck %s
// RUN: hodu-opt %s --hodu-cpu-flatten-globals --finalize-memref-to-llvm | FileCheck %s --check-prefix=LLVM

// hodu-cpu-flatten-globals: constant globals of rank 2 and more become flat
// arrays of the same data (a dense attribute or a resource blob), read back
// in their shape by an expand_shape at each get_global; in the LLVM dialect
// each is one array of scalars, not nested arrays. Rank-1 and uninitialised
// globals are left alone.

// CHECK: memref.global "private" constant @w : memref<6xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> {alignment = 64 : i64}
// CHECK: memref.global "private" constant @r : memref<4xf32> = dense_resource<blob>
// CHECK: memref.global "private" constant @v : memref<3xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK: memref.global "private" @u : memref<2x2xf32> = uninitialized
// LLVM: llvm.mlir.global private constant @w(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<6 x f32>
// LLVM: llvm.mlir.global private constant @r(dense_resource<blob> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
memref.global "private" constant @w : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> {alignment = 64 : i64}
memref.global "private" constant @r : memref<2x2xf32> = dense_resource<blob>
memref.global "private" constant @v : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
memref.global "private" @u : memref<2x2xf32> = uninitialized

// CHECK-LABEL: func.func @f
// CHECK: %[[W:.*]] = memref.get_global @w : memref<6xf32>
// CHECK: %[[WS:.*]] = memref.expand_shape %[[W]] {{\[\[}}0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
// CHECK: memref.load %[[WS]]
// CHECK: %[[R:.*]] = memref.get_global @r : memref<4xf32>
// CHECK: memref.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
// CHECK: memref.get_global @v : memref<3xf32>
// CHECK: memref.get_global @u : memref<2x2xf32>
func.func @f(%i: index, %j: index) -> f32 {
  %0 = memref.get_global @w : memref<2x3xf32>
  %1 = memref.load %0[%i, %j] : memref<2x3xf32>
  %r = memref.get_global @r : memref<2x2xf32>
  %r1 = memref.load %r[%i, %i] : memref<2x2xf32>
  %2 = memref.get_global @v : memref<3xf32>
  %3 = memref.load %2[%j] : memref<3xf32>
  %4 = memref.get_global @u : memref<2x2xf32>
  %5 = memref.load %4[%i, %i] : memref<2x2xf32>
  %6 = arith.addf %1, %3 : f32
  %7 = arith.addf %6, %5 : f32
  %8 = arith.addf %7, %r1 : f32
  return %8 : f32
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
