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

// -----

// Meta slots (hodu.meta_slot) move after the other inputs, in order, and
// are recorded with `meta` (and `init`, their initial value, when given).
// CHECK-LABEL: module attributes {hodu.model_name = "meta"}
// CHECK: func.func @main(%[[X:.*]]: tensor<4xf32>, %[[LR:.*]]: tensor<1xf32>, %[[STEP:.*]]: tensor<1xi64>) -> tensor<4xf32>
// CHECK-NOT: hodu.meta_slot
// CHECK: hodu.mul %[[X]], %[[LR]]
// CHECK: hodu.entry_point @main {inputs = [{name = "x", type = tensor<4xf32>}, {meta, name = "lr", type = tensor<1xf32>}, {init = dense<7> : tensor<1xi64>, meta, name = "step", type = tensor<1xi64>}]
module attributes {hodu.model_name = "meta"} {
  func.func @main(%lr: tensor<1xf32> {hodu.name = "lr", hodu.meta_slot},
                  %step: tensor<1xi64> {hodu.name = "step", hodu.meta_slot = dense<7> : tensor<1xi64>},
                  %x: tensor<4xf32> {hodu.name = "x"}) -> tensor<4xf32> {
    %y = "hodu.mul"(%x, %lr) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

// An initial value must have the slot's type.
module {
  // expected-error @+1 {{argument #0: hodu.meta_slot must be a unit attribute or an initial value of the argument's type 'tensor<1xf32>', got dense<1> : tensor<1xi32>}}
  func.func @main(%lr: tensor<1xf32> {hodu.meta_slot = dense<1> : tensor<1xi32>}) -> tensor<1xf32> {
    return %lr : tensor<1xf32>
  }
}
