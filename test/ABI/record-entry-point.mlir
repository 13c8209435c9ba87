// hodu-record-entry-point: the only public function becomes @main, its
// hodu.name attributes move into hodu.entry_point (unnamed tensors get
// input_<i>/output_<i>), and dtypes are kept as the hodu dialect has them.
// RUN: hodu-opt %s --split-input-file --hodu-record-entry-point='prefix=net' --verify-diagnostics | FileCheck %s

// CHECK: module attributes {hodu.model_name = "my model"}
// CHECK: func.func @main(%arg0: tensor<2xui8>, %arg1: tensor<f32>) -> tensor<2xui8>
// CHECK-NOT: hodu.name
// CHECK: hodu.entry_point @main {inputs = [{name = "x", type = tensor<2xui8>}, {name = "input_1", type = tensor<f32>}], model_name = "my model", outputs = [{name = "output_0", type = tensor<2xui8>}], prefix = "net"}
module attributes {hodu.model_name = "my model"} {
  func.func @forward(%x: tensor<2xui8> {hodu.name = "x"}, %s: tensor<f32>) -> tensor<2xui8> {
    return %x : tensor<2xui8>
  }
  func.func private @helper()
}

// -----

// An entry point already recorded (IR fed back) is left alone.
// CHECK: hodu.entry_point @main {inputs = [{name = "x", type = tensor<2xf32>}], model_name = "m", outputs = [{name = "y", type = tensor<2xf32>}], prefix = "m"}
// CHECK-NOT: hodu.entry_point
module {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  hodu.entry_point @main {prefix = "m", model_name = "m",
      inputs = [{name = "x", type = tensor<2xf32>}],
      outputs = [{name = "y", type = tensor<2xf32>}]}
}

// -----

module {
  // expected-error @+1 {{entry point x has type 'tensor<?xf32>'; the CPU backend needs tensors with static shapes (pin dynamic dims with --input-shape)}}
  func.func @main(%x: tensor<?xf32> {hodu.name = "x"}) {
    return
  }
}

// -----

// expected-error @+1 {{expected one public function (named @main) as the model entry point}}
module {
  func.func @a() {
    return
  }
  func.func @b() {
    return
  }
}
