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

// -----

// hodu.transfer: a value made available on another device.
// CHECK-LABEL: func.func @transfer
// CHECK: %[[T:.*]] = hodu.transfer %{{.*}} to "vulkan" : tensor<4xf32>
// CHECK: hodu.transfer %[[T]] to "cpu" : tensor<4xf32>
func.func @transfer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = hodu.transfer %x to "vulkan" : tensor<4xf32>
  %1 = hodu.transfer %0 to "cpu" : tensor<4xf32>
  return %1 : tensor<4xf32>
}
