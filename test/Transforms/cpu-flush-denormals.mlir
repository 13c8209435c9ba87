// RUN: hodu-opt %s --hodu-cpu-flush-denormals | FileCheck %s

// Subnormal f32 and f64 values become zeros of their sign; normal values,
// the smallest normal number and zeros stay; integer constants are not
// touched. Resource constants get a new blob.
// CHECK-LABEL: func.func @weights
// CHECK: arith.constant dense<[0.000000e+00, 1.000000e+00, -0.000000e+00, 1.17549435E-38, 0.000000e+00]> : tensor<5xf32>
// CHECK: arith.constant dense<[0.000000e+00, -2.000000e+00]> : tensor<2xf64>
// CHECK: arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: arith.constant dense<[1, 0, 7]> : tensor<3xi32>
// CHECK: arith.constant dense_resource<hodu_flushed> : tensor<2xf32>
// CHECK: hodu_flushed: "0x{{[0-9A-F]+}}000000000000803F"
func.func @weights() -> (tensor<5xf32>, tensor<2xf64>, tensor<3xf32>, tensor<3xi32>, tensor<2xf32>) {
  %a = arith.constant dense<[1.0e-40, 1.0, -3.0e-41, 1.17549435e-38, 0.0]> : tensor<5xf32>
  %b = arith.constant dense<[4.0e-320, -2.0]> : tensor<2xf64>
  %c = arith.constant dense<1.0e-39> : tensor<3xf32>
  %d = arith.constant dense<[1, 0, 7]> : tensor<3xi32>
  %e = arith.constant dense_resource<blob> : tensor<2xf32>
  return %a, %b, %c, %d, %e : tensor<5xf32>, tensor<2xf64>, tensor<3xf32>, tensor<3xi32>, tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000010000000000803F"
    }
  }
#-}
