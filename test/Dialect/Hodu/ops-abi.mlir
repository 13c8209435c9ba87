// Round trip of hodu.entry_point, the artifact ABI in the IR.
// RUN: hodu-opt %s | hodu-opt | FileCheck %s

// CHECK-LABEL: hodu.entry_point @main
// CHECK-SAME: inputs = [{name = "x", type = tensor<1x4xui8>}]
// CHECK-SAME: model_name = "net"
// CHECK-SAME: outputs = [{name = "y", type = tensor<f32>}]
// CHECK-SAME: prefix = "net"
func.func @main(%x: tensor<1x4xui8>) -> tensor<f32> {
  %c = hodu.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}
hodu.entry_point @main {prefix = "net", model_name = "net",
    inputs = [{name = "x", type = tensor<1x4xui8>}],
    outputs = [{name = "y", type = tensor<f32>}]}
