// RUN: hodu-opt %s --convert-hodu-to-linalg | mlir-opt %lower-to-llvm | %run-main | FileCheck %s

// Numeric checks of conv lowerings against a direct reference: grouped conv with
// stride 2 and asymmetric pads, dilated conv (named linalg op), conv_transpose
// with stride, pads and output_padding.

func.func private @printMemrefF32(memref<*xf32>)
func.func @main() {
  %x = hodu.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]],
                             [[1.0, 0.0, -1.0, 2.0], [0.5, 1.5, 2.5, -3.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 0.0, 1.0, 0.0]]]]> : tensor<1x2x4x4xf32>
  %w = hodu.constant dense<[[[[1.0, 0.0, -1.0], [2.0, 1.0, 0.0], [0.0, 1.0, 1.0]]], [[[0.5, 0.5, 0.5], [1.0, -1.0, 1.0], [0.0, 0.0, 2.0]]]]> : tensor<2x1x3x3xf32>
  // groups = 2, stride 2, asymmetric pads (1,0 | 1,1)
  %y = hodu.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32>
  %m = bufferization.to_buffer %y : tensor<1x2x2x2xf32> to memref<1x2x2x2xf32>
  %u = memref.cast %m : memref<1x2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  // groups = 1 (named op), pad 1, stride 1, dilation 2
  %w2 = hodu.constant dense<1.0> : tensor<1x2x2x2xf32>
  %y2 = hodu.conv %x, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x4x4xf32>
  %m2 = bufferization.to_buffer %y2 : tensor<1x1x4x4xf32> to memref<1x1x4x4xf32>
  %u2 = memref.cast %m2 : memref<1x1x4x4xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  // conv_transpose stride 2, pads 1, output_padding 1, groups 1: [1,2,4,4] x [2,1,3,3] -> [1,1,8,8]
  %w3 = hodu.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]]> : tensor<2x1x3x3xf32>
  %y3 = hodu.conv_transpose %x, %w3 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x8x8xf32>
  %m3 = bufferization.to_buffer %y3 : tensor<1x1x8x8xf32> to memref<1x1x8x8xf32>
  %u3 = memref.cast %m3 : memref<1x1x8x8xf32> to memref<*xf32>
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  return
}

// CHECK: Unranked Memref {{.*}} sizes = [1, 2, 2, 2]
// CHECK-NEXT: {{\[\[}}{{\[\[}}17, 18],
// CHECK-NEXT: [55, 57]],
// CHECK-NEXT: {{\[\[}}5, -3],
// CHECK-NEXT: [6.25, -0.25]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 4, 4]
// CHECK-NEXT: {{\[\[}}{{\[\[}}7.5, 15, 12.5, 9.5],
// CHECK-NEXT: [14, 28, 34, 15],
// CHECK-NEXT: [21.5, 43, 42.5, 25.5],
// CHECK-NEXT: [12, 24, 26, 13]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 8, 8]
// CHECK-NEXT: {{\[\[}}{{\[\[}}6, 14, 10, 24, 14, 34, 22, 24],
// CHECK-NEXT: [18, 46.5, 28, 66.5, 38, 80, 48, 62],
// CHECK-NEXT: [25.5, 54, 31.5, 64, 37.5, 74, 37, 48],
// CHECK-NEXT: [58, 126.5, 68, 147.5, 78, 168.5, 88, 105],
// CHECK-NEXT: [47, 94, 52, 104, 57, 114, 62, 72],
// CHECK-NEXT: [98, 206, 108, 227, 118, 246, 128, 158],
// CHECK-NEXT: [64, 134, 70, 144, 76, 154, 80, 96],
// CHECK-NEXT: [104, 214, 112, 231, 120, 248, 128, 144]]]]
