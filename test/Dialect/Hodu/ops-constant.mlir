// Round trip of hodu.constant: dense data of every Hodu dtype and
// resource-backed (dense_resource) weights.
// RUN: hodu-opt %s | hodu-opt | FileCheck %s
// The generic form keeps the resource blob too.
// RUN: hodu-opt %s --mlir-print-op-generic | hodu-opt | FileCheck %s

// One dense constant per dtype, splat and non-splat, 0-d to 2-d.
// CHECK-LABEL: func.func @dense_every_dtype
// CHECK-NEXT: hodu.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: hodu.constant dense<1.000000e+00> : tensor<2x2xf8E4M3FN>
// CHECK-NEXT: hodu.constant dense<[5.000000e-01, -2.000000e+00]> : tensor<2xf8E5M2>
// CHECK-NEXT: hodu.constant dense<3.140630e+00> : tensor<bf16>
// CHECK-NEXT: hodu.constant dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf16>
// CHECK-NEXT: hodu.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: hodu.constant dense<0x7FF8000000000000> : tensor<3xf64>
// CHECK-NEXT: hodu.constant dense<255> : tensor<4xui8>
// CHECK-NEXT: hodu.constant dense<[1, 65535]> : tensor<2xui16>
// CHECK-NEXT: hodu.constant dense<4294967295> : tensor<ui32>
// CHECK-NEXT: hodu.constant dense<18446744073709551615> : tensor<1xui64>
// CHECK-NEXT: hodu.constant dense<-128> : tensor<2xi8>
// CHECK-NEXT: hodu.constant dense<[-1, 2, 3]> : tensor<3xi16>
// CHECK-NEXT: hodu.constant dense<7> : tensor<i32>
// CHECK-NEXT: hodu.constant dense<-9223372036854775808> : tensor<1x1xi64>
// CHECK-NEXT: hodu.constant dense<> : tensor<0xf32>
func.func @dense_every_dtype() {
  %0 = hodu.constant dense<[true, false]> : tensor<2xi1>
  %1 = hodu.constant dense<1.0> : tensor<2x2xf8E4M3FN>
  %2 = hodu.constant dense<[0.5, -2.0]> : tensor<2xf8E5M2>
  %3 = hodu.constant dense<3.14159> : tensor<bf16>
  %4 = hodu.constant dense<[1.0, 2.5]> : tensor<2xf16>
  %5 = hodu.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %6 = hodu.constant dense<0x7FF8000000000000> : tensor<3xf64>
  %7 = hodu.constant dense<255> : tensor<4xui8>
  %8 = hodu.constant dense<[1, 65535]> : tensor<2xui16>
  %9 = hodu.constant dense<4294967295> : tensor<ui32>
  %10 = hodu.constant dense<18446744073709551615> : tensor<1xui64>
  %11 = hodu.constant dense<-128> : tensor<2xi8>
  %12 = hodu.constant dense<[-1, 2, 3]> : tensor<3xi16>
  %13 = hodu.constant dense<7> : tensor<i32>
  %14 = hodu.constant dense<-9223372036854775808> : tensor<1x1xi64>
  %15 = hodu.constant dense<> : tensor<0xf32>
  return
}

// Weights backed by resource blobs (the first 4 bytes of a blob are its
// alignment); the blob bytes survive the round trip unchanged.
// CHECK-LABEL: func.func @dense_resource
// CHECK-NEXT: %[[W:.*]] = hodu.constant dense_resource<conv1_w> : tensor<2x2xf32>
// CHECK-NEXT: %[[B:.*]] = hodu.constant dense_resource<ids> : tensor<3xi64>
// CHECK-NEXT: return %[[W]], %[[B]]
func.func @dense_resource() -> (tensor<2x2xf32>, tensor<3xi64>) {
  %w = hodu.constant dense_resource<conv1_w> : tensor<2x2xf32>
  %b = hodu.constant dense_resource<ids> : tensor<3xi64>
  return %w, %b : tensor<2x2xf32>, tensor<3xi64>
}

// CHECK: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-DAG: conv1_w: "0x040000000000803F0000004000004040000080C0"
// CHECK-DAG: ids: "0x08000000010000000000000002000000000000000300000000000000"
{-#
  dialect_resources: {
    builtin: {
      conv1_w: "0x040000000000803F0000004000004040000080C0",
      ids: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
