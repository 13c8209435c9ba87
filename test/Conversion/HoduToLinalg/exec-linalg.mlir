// RUN: hodu-opt %s --convert-hodu-to-linalg | mlir-opt %lower-to-llvm | %run-main | FileCheck %s

// Numeric checks: broadcast batched and 1-D matmul, integer matmul, einsum,
// det/inv/trace (pivoting), scatter_add with duplicate and negative indices,
// casts float->int (toward zero)->bool->float and float->ui8, var, logsumexp.

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)
func.func @main() {
  %a = hodu.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]> : tensor<2x2x3xf32>
  %b = hodu.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %c = hodu.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x2xf32>
  %cm = bufferization.to_buffer %c : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %cu = memref.cast %cm : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%cu) : (memref<*xf32>) -> ()
  %v = hodu.constant dense<[1.0, -1.0, 2.0]> : tensor<3xf32>
  %d = hodu.matmul %v, %b : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  %dm = bufferization.to_buffer %d : tensor<2xf32> to memref<2xf32>
  %du = memref.cast %dm : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%du) : (memref<*xf32>) -> ()
  %ia = hodu.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %ib = hodu.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %ic = hodu.matmul %ia, %ib : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %icm = bufferization.to_buffer %ic : tensor<2x2xi32> to memref<2x2xi32>
  %icu = memref.cast %icm : memref<2x2xi32> to memref<*xi32>
  call @printMemrefI32(%icu) : (memref<*xi32>) -> ()
  %e = hodu.einsum %a, %b {equation = "bij,jk->bki"} : (tensor<2x2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x2xf32>
  %em = bufferization.to_buffer %e : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %eu = memref.cast %em : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%eu) : (memref<*xf32>) -> ()
  %sq = hodu.constant dense<[[[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [4.0, -3.0, 8.0]]]> : tensor<2x3x3xf32>
  %det = hodu.det %sq : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %detm = bufferization.to_buffer %det : tensor<2xf32> to memref<2xf32>
  %detu = memref.cast %detm : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%detu) : (memref<*xf32>) -> ()
  %inv = hodu.inv %sq : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %invm = bufferization.to_buffer %inv : tensor<2x3x3xf32> to memref<2x3x3xf32>
  %invu = memref.cast %invm : memref<2x3x3xf32> to memref<*xf32>
  call @printMemrefF32(%invu) : (memref<*xf32>) -> ()
  %tr = hodu.trace %sq : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %trm = bufferization.to_buffer %tr : tensor<2xf32> to memref<2xf32>
  %tru = memref.cast %trm : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%tru) : (memref<*xf32>) -> ()
  // scatter_add with a duplicate index and a negative one
  %dst = hodu.constant dense<0.0> : tensor<2x4xf32>
  %idx = hodu.constant dense<[[1, 1, -1], [0, 2, 0]]> : tensor<2x3xi64>
  %src = hodu.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %sa = hodu.scatter_add %dst, %idx, %src {dim = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>
  %sam = bufferization.to_buffer %sa : tensor<2x4xf32> to memref<2x4xf32>
  %sau = memref.cast %sam : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%sau) : (memref<*xf32>) -> ()
  // cast float -> int -> bool -> float
  %f = hodu.constant dense<[-2.7, -0.5, 0.0, 0.4, 3.9, 255.9]> : tensor<6xf32>
  %fi = hodu.cast %f : (tensor<6xf32>) -> tensor<6xi32>
  %fim = bufferization.to_buffer %fi : tensor<6xi32> to memref<6xi32>
  %fiu = memref.cast %fim : memref<6xi32> to memref<*xi32>
  call @printMemrefI32(%fiu) : (memref<*xi32>) -> ()
  %fb = hodu.cast %fi : (tensor<6xi32>) -> tensor<6xi1>
  %fbf = hodu.cast %fb : (tensor<6xi1>) -> tensor<6xf32>
  %fbm = bufferization.to_buffer %fbf : tensor<6xf32> to memref<6xf32>
  %fbu = memref.cast %fbm : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%fbu) : (memref<*xf32>) -> ()
  %fa = hodu.abs %f : (tensor<6xf32>) -> tensor<6xf32>
  %fu = hodu.cast %fa : (tensor<6xf32>) -> tensor<6xui8>
  %fuf = hodu.cast %fu : (tensor<6xui8>) -> tensor<6xf32>
  %fufm = bufferization.to_buffer %fuf : tensor<6xf32> to memref<6xf32>
  %fufu = memref.cast %fufm : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%fufu) : (memref<*xf32>) -> ()
  // reductions
  %rv = hodu.reduce_var %sq {dims = array<i64: 1, 2>} : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %rvm = bufferization.to_buffer %rv : tensor<2xf32> to memref<2xf32>
  %rvu = memref.cast %rvm : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%rvu) : (memref<*xf32>) -> ()
  %lse = hodu.reduce_logsumexp %src {dims = array<i64: 0>, keep_dim = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %lsem = bufferization.to_buffer %lse : tensor<1x3xf32> to memref<1x3xf32>
  %lseu = memref.cast %lsem : memref<1x3xf32> to memref<*xf32>
  call @printMemrefF32(%lseu) : (memref<*xf32>) -> ()
  return
}

// CHECK: Unranked Memref {{.*}} sizes = [2, 2, 2]
// CHECK-NEXT: {{\[\[}}[22, 28],
// CHECK-NEXT: [49, 64]],
// CHECK-NEXT: {{\[\[}}1, 2],
// CHECK-NEXT: [3, 4]]]
// CHECK: Unranked Memref {{.*}} sizes = [2]
// CHECK-NEXT: [8, 10]
// CHECK: Unranked Memref {{.*}} sizes = [2, 2]
// CHECK-NEXT: {{\[\[}}19, 22],
// CHECK-NEXT: [43, 50]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 2, 2]
// CHECK-NEXT: {{\[\[}}[22, 49],
// CHECK-NEXT: [28, 64]],
// CHECK-NEXT: {{\[\[}}1, 3],
// CHECK-NEXT: [2, 4]]]
// CHECK: Unranked Memref {{.*}} sizes = [2]
// CHECK-NEXT: [18, -2]
// CHECK: Unranked Memref {{.*}} sizes = [2, 3, 3]
// CHECK-NEXT: {{\[\[}}[0.611111, -0.222222, 0.0555556],
// CHECK-NEXT: [-0.222222, 0.444444, -0.111111],
// CHECK-NEXT: [0.0555556, -0.111111, 0.277778]],
// CHECK-NEXT: {{\[\[}}-4.5, 7, -1.5],
// CHECK-NEXT: [-2, 4, -1],
// CHECK-NEXT: [1.5, -2, 0.5]]]
// CHECK: Unranked Memref {{.*}} sizes = [2]
// CHECK-NEXT: [9, 8]
// CHECK: Unranked Memref {{.*}} sizes = [2, 4]
// CHECK-NEXT: {{\[\[}}0, 3, 0, 3],
// CHECK-NEXT: [10, 0, 5, 0]]
// CHECK: Unranked Memref {{.*}} sizes = [6]
// CHECK-NEXT: [-2, 0, 0, 0, 3, 255]
// CHECK: Unranked Memref {{.*}} sizes = [6]
// CHECK-NEXT: [1, 0, 0, 0, 1, 1]
// CHECK: Unranked Memref {{.*}} sizes = [6]
// CHECK-NEXT: [2, 0, 0, 0, 3, 255]
// CHECK: Unranked Memref {{.*}} sizes = [2]
// CHECK-NEXT: [1.58025, 8.39506]
// CHECK: Unranked Memref {{.*}} sizes = [1, 3]
// CHECK-NEXT: {{\[\[}}4.04859, 5.04859, 6.04859]]
