// RUN: hodu-opt %s --convert-hodu-to-linalg --split-input-file --verify-diagnostics

// Data-dependent result shapes are rejected with a diagnostic at the op.
func.func @nonzero(%x: tensor<3x4xf32>) -> tensor<?x2xi64> {
  // expected-error @+1 {{hodu.nonzero: data-dependent output shapes are not supported by the CPU backend yet}}
  %0 = hodu.nonzero %x : (tensor<3x4xf32>) -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}

// -----

func.func @unique(%x: tensor<6xi32>) -> tensor<?xi32> {
  // expected-error @+1 {{hodu.unique: data-dependent output shapes are not supported by the CPU backend yet}}
  %u, %inv, %cnt = hodu.unique %x : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi64>, tensor<?xi64>)
  return %u : tensor<?xi32>
}
