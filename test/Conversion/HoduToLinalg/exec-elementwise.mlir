// RUN: hodu-opt %s --convert-hodu-to-linalg | mlir-opt %lower-to-llvm | %run-main | FileCheck %s

// Numeric checks of elementwise lowerings: broadcasting add, ui8 arithmetic
// (unsigned div/compare/max/rem, wrap-around), signed rem and integer pow, sign,
// round half to even, fmod, hardsigmoid, selu, gelu, broadcasting select and bf16 exp.

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)
func.func @main() {
  %a = hodu.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = hodu.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
  %s = hodu.add %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %m = bufferization.to_buffer %s : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  // ui8: 200 / 3, 100 / 200 (unsigned division), 200 > 3 (unsigned compare),
  // 250 + 10 wraps, max(200, 3) unsigned.
  %x = hodu.constant dense<[200, 100, 250]> : tensor<3xui8>
  %y = hodu.constant dense<[3, 200, 10]> : tensor<3xui8>
  %d = hodu.div %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %g = hodu.gt %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  %w = hodu.add %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %mx = hodu.maximum %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %r = hodu.rem_scalar %x, 7 : ui8 : (tensor<3xui8>) -> tensor<3xui8>
  %gi = hodu.cast %g : (tensor<3xi1>) -> tensor<3xi32>
  %di = hodu.cast %d : (tensor<3xui8>) -> tensor<3xi32>
  %wi = hodu.cast %w : (tensor<3xui8>) -> tensor<3xi32>
  %mi = hodu.cast %mx : (tensor<3xui8>) -> tensor<3xi32>
  %ri = hodu.cast %r : (tensor<3xui8>) -> tensor<3xi32>
  %c = hodu.concat %di, %gi, %wi, %mi, %ri {dim = 0 : i64} : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<15xi32>
  %cm = bufferization.to_buffer %c : tensor<15xi32> to memref<15xi32>
  %cu = memref.cast %cm : memref<15xi32> to memref<*xi32>
  call @printMemrefI32(%cu) : (memref<*xi32>) -> ()
  // signed remainder and power on integers
  %p = hodu.constant dense<[-7, 7, -2, 3]> : tensor<4xi32>
  %q = hodu.constant dense<[3, -3, 3, 4]> : tensor<4xi32>
  %rem = hodu.rem %p, %q : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %pw = hodu.pow %p, %q : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %sg = hodu.sign %p : (tensor<4xi32>) -> tensor<4xi32>
  %pc = hodu.concat %rem, %pw, %sg {dim = 0 : i64} : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<12xi32>
  %pcm = bufferization.to_buffer %pc : tensor<12xi32> to memref<12xi32>
  %pcu = memref.cast %pcm : memref<12xi32> to memref<*xi32>
  call @printMemrefI32(%pcu) : (memref<*xi32>) -> ()
  // float unary: round half to even, fmod, hardsigmoid, selu, gelu, sign
  %f = hodu.constant dense<[-2.5, -0.5, 0.5, 1.5, 2.5, 3.0]> : tensor<6xf32>
  %rd = hodu.round %f : (tensor<6xf32>) -> tensor<6xf32>
  %fm = hodu.rem_scalar %f, 2.0 : f32 : (tensor<6xf32>) -> tensor<6xf32>
  %hs = hodu.hardsigmoid %f : (tensor<6xf32>) -> tensor<6xf32>
  %se = hodu.selu %f : (tensor<6xf32>) -> tensor<6xf32>
  %ge = hodu.gelu %f : (tensor<6xf32>) -> tensor<6xf32>
  %sl = hodu.select %g, %g, %g : (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %fc = hodu.concat %rd, %fm, %hs, %se, %ge {dim = 0 : i64} : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<30xf32>
  %fr = hodu.reshape %fc : (tensor<30xf32>) -> tensor<5x6xf32>
  %fcm = bufferization.to_buffer %fr : tensor<5x6xf32> to memref<5x6xf32>
  %fcu = memref.cast %fcm : memref<5x6xf32> to memref<*xf32>
  call @printMemrefF32(%fcu) : (memref<*xf32>) -> ()
  // select with broadcasting, bf16 arithmetic through f32
  %cond = hodu.constant dense<[true, false, true]> : tensor<3xi1>
  %t1 = hodu.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xbf16>
  %t2 = hodu.constant dense<-1.0> : tensor<1xbf16>
  %se2 = hodu.select %cond, %t1, %t2 : (tensor<3xi1>, tensor<2x3xbf16>, tensor<1xbf16>) -> tensor<2x3xbf16>
  %ex = hodu.exp %se2 : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %exf = hodu.cast %ex : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  %exm = bufferization.to_buffer %exf : tensor<2x3xf32> to memref<2x3xf32>
  %exu = memref.cast %exm : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%exu) : (memref<*xf32>) -> ()
  return
}

// CHECK: Unranked Memref {{.*}} sizes = [2, 3]
// CHECK-NEXT: {{\[\[}}11, 12, 13],
// CHECK-NEXT: [24, 25, 26]]
// CHECK: Unranked Memref {{.*}} sizes = [15]
// CHECK-NEXT: [66, 0, 25, 1, 0, 1, 203, 44, 4, 200, 200, 250, 4, 2, 5]
// CHECK: Unranked Memref {{.*}} sizes = [12]
// CHECK-NEXT: [-1, 1, -2, 3, -343, 0, -8, 81, -1, 1, -1, 1]
// CHECK: Unranked Memref {{.*}} sizes = [5, 6]
// CHECK-NEXT: {{\[\[}}-2, -0, 0, 2, 2, 3],
// CHECK-NEXT: [-0.5, -0.5, 0.5, 1.5, 0.5, 1],
// CHECK-NEXT: [0.0833333, 0.416667, 0.583333, 0.75, 0.916667, 1],
// CHECK-NEXT: [-1.61379, -0.691758, 0.525351, 1.57605, 2.62675, 3.1521],
// CHECK-NEXT: [-0.0155242, -0.154269, 0.345731, 1.39979, 2.48448, 2.99595]]
// CHECK: Unranked Memref {{.*}} sizes = [2, 3]
// CHECK-NEXT: {{\[\[}}2.71875, 0.367188, 20.125],
// CHECK-NEXT: [54.5, 0.367188, 404]]
