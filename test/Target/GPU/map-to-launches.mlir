// hodu-gpu-map-to-launches after hodu-gpu-tile and bufferisation.
// RUN: hodu-opt %s --split-input-file --pass-pipeline="builtin.module(hodu-gpu-tile,canonicalize,cse,eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,cse,canonicalize,hodu-gpu-map-to-launches,canonicalize,cse)" | FileCheck %s

// Row sums: a block per 4 rows of 64 threads; each thread sums lane,
// lane + 64, ... of its row into workgroup memory, then a tree of six
// levels (32, 16, 8, 4, 2, 1 threads) with a barrier after each, and one
// thread per row writes the row, starting from the folded fill's zero.
// CHECK-LABEL: func.func @rowsum
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c64, {{.*}} = %c4, {{.*}} = %c1)
// CHECK: %[[P:.*]] = memref.get_global @{{.*}} : memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TX:.*]] = gpu.thread_id {{ *}}x
// CHECK: scf.for %{{.*}} = %[[TX]] to %c100 step %c64 iter_args
// CHECK: memref.store {{.*}}, %[[P]]
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c32
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c16
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c8
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c4
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c2
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[TX]], %c1
// CHECK: gpu.barrier
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[T:.*]] = memref.load %[[P]]
// CHECK: arith.addf %[[T]], %cst
// CHECK-NOT: linalg.
// CHECK: memref.global "private" @{{.*}} : memref<4x64xf32, #gpu.address_space<workgroup>>
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

// The max of all 1000 elements: one block of 256 threads and a tree of
// eight levels; the fill of the scalar output is a one-thread kernel before.
// CHECK-LABEL: func.func @full
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: linalg.fill
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: memref.get_global @{{.*}} : memref<1x256xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1000 step %c256
// CHECK: arith.cmpi ult, %{{.*}}, %c128
// CHECK: arith.cmpi ult, %{{.*}}, %c1 :
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: arith.maximumf
// CHECK: memref.store {{.*}}[] : memref<f32>
func.func @full(%a: tensor<1000xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<1000xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

// Zero padding: bufferisation leaves a fill of the padded buffer and a copy
// into its interior on the host; both become kernels, a thread per element.
// CHECK-LABEL: func.func @pad
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c6, {{.*}} = %c6, {{.*}} = %c1)
// CHECK: linalg.map outs({{.*}} : memref<1x1xf32
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c4, {{.*}} = %c4, {{.*}} = %c1)
// CHECK: linalg.copy ins({{.*}} : memref<1x1xf32, {{.*}}) outs({{.*}} : memref<1x1xf32
// CHECK-NOT: memref.copy
func.func @pad(%a: tensor<4x4xf32>) -> tensor<6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}
