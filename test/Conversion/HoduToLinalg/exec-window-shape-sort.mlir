// RUN: hodu-opt %s --convert-hodu-to-linalg | mlir-opt %lower-to-llvm | %run-main | FileCheck %s

// Numeric checks: max/mean pooling with pads (count_include_pad both ways),
// resize linear half_pixel / nearest asymmetric floor / cubic align_corners,
// pad reflect and circular, slice with negative steps, topk (ties: lower
// index first), argmax/argmin (select_last_index), cumsum (exclusive, reverse).

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI64(memref<*xi64>)
func.func @main() {
  %x = hodu.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]]]> : tensor<1x1x4x4xf32>
  %p = hodu.reduce_window %x {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %pm = bufferization.to_buffer %p : tensor<1x1x2x2xf32> to memref<1x1x2x2xf32>
  %pu = memref.cast %pm : memref<1x1x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%pu) : (memref<*xf32>) -> ()
  %q = hodu.reduce_window %x {kind = #hodu<window_kind mean>, window_dims = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %qm = bufferization.to_buffer %q : tensor<1x1x2x2xf32> to memref<1x1x2x2xf32>
  %qu = memref.cast %qm : memref<1x1x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%qu) : (memref<*xf32>) -> ()
  %q2 = hodu.reduce_window %x {kind = #hodu<window_kind mean>, count_include_pad = true, window_dims = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %q2m = bufferization.to_buffer %q2 : tensor<1x1x2x2xf32> to memref<1x1x2x2xf32>
  %q2u = memref.cast %q2m : memref<1x1x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%q2u) : (memref<*xf32>) -> ()
  // resize
  %r0 = hodu.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %r1 = hodu.resize %r0 {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %r1m = bufferization.to_buffer %r1 : tensor<1x1x4x4xf32> to memref<1x1x4x4xf32>
  %r1u = memref.cast %r1m : memref<1x1x4x4xf32> to memref<*xf32>
  call @printMemrefF32(%r1u) : (memref<*xf32>) -> ()
  %r2 = hodu.resize %r0 {mode = #hodu<resize_mode nearest>, coord_transform = #hodu<coord_transform asymmetric>, nearest_mode = #hodu<nearest_mode floor>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x4xf32>
  %r2m = bufferization.to_buffer %r2 : tensor<1x1x3x4xf32> to memref<1x1x3x4xf32>
  %r2u = memref.cast %r2m : memref<1x1x3x4xf32> to memref<*xf32>
  call @printMemrefF32(%r2u) : (memref<*xf32>) -> ()
  %r3 = hodu.resize %x {mode = #hodu<resize_mode cubic>, coord_transform = #hodu<coord_transform align_corners>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  %r3m = bufferization.to_buffer %r3 : tensor<1x1x3x3xf32> to memref<1x1x3x3xf32>
  %r3u = memref.cast %r3m : memref<1x1x3x3xf32> to memref<*xf32>
  call @printMemrefF32(%r3u) : (memref<*xf32>) -> ()
  // pad reflect / slice negative step
  %v = hodu.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %pr = hodu.pad %v {mode = #hodu<pad_mode reflect>, pads = array<i64: 1, 2, 0, 1>} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  %prm = bufferization.to_buffer %pr : tensor<3x6xf32> to memref<3x6xf32>
  %pru = memref.cast %prm : memref<3x6xf32> to memref<*xf32>
  call @printMemrefF32(%pru) : (memref<*xf32>) -> ()
  %pc = hodu.pad %v {mode = #hodu<pad_mode circular>, pads = array<i64: 0, 2, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  %pcm = bufferization.to_buffer %pc : tensor<2x6xf32> to memref<2x6xf32>
  %pcu = memref.cast %pcm : memref<2x6xf32> to memref<*xf32>
  call @printMemrefF32(%pcu) : (memref<*xf32>) -> ()
  %sl = hodu.slice %v {starts = array<i64: 1, 2>, ends = array<i64: -1, -1>, steps = array<i64: -1, -2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %slm = bufferization.to_buffer %sl : tensor<2x2xf32> to memref<2x2xf32>
  %slu = memref.cast %slm : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%slu) : (memref<*xf32>) -> ()
  // Steps of INT64_MAX and INT64_MIN take one entry each (their count and
  // offsets do not overflow).
  %sh = hodu.slice %v {starts = array<i64: 1, 2>, ends = array<i64: 2, -1>, steps = array<i64: 9223372036854775807, -9223372036854775808>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %shm = bufferization.to_buffer %sh : tensor<1x1xf32> to memref<1x1xf32>
  %shu = memref.cast %shm : memref<1x1xf32> to memref<*xf32>
  call @printMemrefF32(%shu) : (memref<*xf32>) -> ()
  // topk / argmax / cumsum
  %t = hodu.constant dense<[[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]]> : tensor<2x5xf32>
  %tv, %ti = hodu.topk %t {k = 3 : i64, dim = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %tvm = bufferization.to_buffer %tv : tensor<2x3xf32> to memref<2x3xf32>
  %tvu = memref.cast %tvm : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%tvu) : (memref<*xf32>) -> ()
  %tim = bufferization.to_buffer %ti : tensor<2x3xi64> to memref<2x3xi64>
  %tiu = memref.cast %tim : memref<2x3xi64> to memref<*xi64>
  call @printMemrefI64(%tiu) : (memref<*xi64>) -> ()
  %sv, %si = hodu.topk %t {k = 2 : i64, dim = 0 : i64, largest = false} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  %t2v, %t2i = hodu.topk %t {k = 2 : i64, dim = 1 : i64, largest = false} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %t2im = bufferization.to_buffer %t2i : tensor<2x2xi64> to memref<2x2xi64>
  %t2iu = memref.cast %t2im : memref<2x2xi64> to memref<*xi64>
  call @printMemrefI64(%t2iu) : (memref<*xi64>) -> ()
  %am = hodu.argmax %t {dims = array<i64: 1>, keep_dim = true} : (tensor<2x5xf32>) -> tensor<2x1xi64>
  %amm = bufferization.to_buffer %am : tensor<2x1xi64> to memref<2x1xi64>
  %amu = memref.cast %amm : memref<2x1xi64> to memref<*xi64>
  call @printMemrefI64(%amu) : (memref<*xi64>) -> ()
  %an = hodu.argmin %t {dims = array<i64: 1>, select_last_index} : (tensor<2x5xf32>) -> tensor<2xi64>
  %anm = bufferization.to_buffer %an : tensor<2xi64> to memref<2xi64>
  %anu = memref.cast %anm : memref<2xi64> to memref<*xi64>
  call @printMemrefI64(%anu) : (memref<*xi64>) -> ()
  %cs = hodu.cumsum %t {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %csm = bufferization.to_buffer %cs : tensor<2x5xf32> to memref<2x5xf32>
  %csu = memref.cast %csm : memref<2x5xf32> to memref<*xf32>
  call @printMemrefF32(%csu) : (memref<*xf32>) -> ()
  %ce = hodu.cumsum %t {dim = 1 : i64, exclusive, reverse} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %cem = bufferization.to_buffer %ce : tensor<2x5xf32> to memref<2x5xf32>
  %ceu = memref.cast %cem : memref<2x5xf32> to memref<*xf32>
  call @printMemrefF32(%ceu) : (memref<*xf32>) -> ()
  return
}

// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 2, 2]
// CHECK-NEXT: {{\[\[}}{{\[\[}}6, 8],
// CHECK-NEXT: [14, 16]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 2, 2]
// CHECK-NEXT: {{\[\[}}{{\[\[}}3.5, 5],
// CHECK-NEXT: [9.5, 11]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 2, 2]
// CHECK-NEXT: {{\[\[}}{{\[\[}}1.55556, 3.33333],
// CHECK-NEXT: [6.33333, 11]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 4, 4]
// CHECK-NEXT: {{\[\[}}{{\[\[}}1, 1.25, 1.75, 2],
// CHECK-NEXT: [1.5, 1.75, 2.25, 2.5],
// CHECK-NEXT: [2.5, 2.75, 3.25, 3.5],
// CHECK-NEXT: [3, 3.25, 3.75, 4]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 3, 4]
// CHECK-NEXT: {{\[\[}}{{\[\[}}1, 1, 2, 2],
// CHECK-NEXT: [1, 1, 2, 2],
// CHECK-NEXT: [3, 3, 4, 4]]]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1, 3, 3]
// CHECK-NEXT: {{\[\[}}{{\[\[}}1, 2.5, 4],
// CHECK-NEXT: [7, 8.5, 10],
// CHECK-NEXT: [13, 14.5, 16]]]]
// CHECK: Unranked Memref {{.*}} sizes = [3, 6]
// CHECK-NEXT: {{\[\[}}6, 5, 4, 5, 6, 5],
// CHECK-NEXT: [3, 2, 1, 2, 3, 2],
// CHECK-NEXT: [6, 5, 4, 5, 6, 5]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 6]
// CHECK-NEXT: {{\[\[}}2, 3, 1, 2, 3, 1],
// CHECK-NEXT: [5, 6, 4, 5, 6, 4]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 2]
// CHECK-NEXT: {{\[\[}}6, 4],
// CHECK-NEXT: [3, 1]]
// CHECK: Unranked Memref {{.*}} sizes = [1, 1]
// CHECK-NEXT: {{\[\[}}6]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 3]
// CHECK-NEXT: {{\[\[}}5, 4, 3],
// CHECK-NEXT: [9, 6, 5]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 3]
// CHECK-NEXT: {{\[\[}}4, 2, 0],
// CHECK-NEXT: [0, 2, 3]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 2]
// CHECK-NEXT: {{\[\[}}1, 3],
// CHECK-NEXT: [1, 4]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 1]
// CHECK-NEXT: {{\[\[}}4],
// CHECK-NEXT: [0]]
// CHECK: Unranked Memref {{.*}} sizes = [2]
// CHECK-NEXT: [3, 1]
// CHECK: Unranked Memref {{.*}} sizes = [2, 5]
// CHECK-NEXT: {{\[\[}}3, 4, 8, 9, 14],
// CHECK-NEXT: [9, 11, 17, 22, 25]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 5]
// CHECK-NEXT: {{\[\[}}11, 10, 6, 5, 0],
// CHECK-NEXT: [16, 14, 8, 3, 0]]
