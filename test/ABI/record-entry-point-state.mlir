// hodu-record-entry-point with state tensors (hodu.state): arguments are
// ordered (inputs, state, meta slots) and results (outputs, state in the
// order of its arguments), paired by hodu.name; `state` and `init` are
// recorded. Inconsistent attributes are errors at the function.
// RUN: hodu-opt %s --split-input-file --hodu-record-entry-point='prefix=net' --verify-diagnostics | FileCheck %s

// CHECK:      func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xf32>, %arg2: tensor<4xf32>, %arg3: tensor<f32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>)
// CHECK-NEXT:   %[[S:.*]] = hodu.add %arg0, %arg2
// CHECK-NEXT:   return %[[S]], %arg1, %[[S]] : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>
// CHECK:      hodu.entry_point @main {inputs = [{name = "x", type = tensor<4xf32>}, {init = dense<5.000000e-01> : tensor<2xf32>, name = "v", state, type = tensor<2xf32>}, {name = "w", state, type = tensor<4xf32>}, {init = dense<1.000000e-01> : tensor<f32>, meta, name = "lr", type = tensor<f32>}]
// CHECK-SAME: outputs = [{name = "y", type = tensor<4xf32>}, {name = "v", state, type = tensor<2xf32>}, {name = "w", state, type = tensor<4xf32>}]
func.func @main(%lr: tensor<f32> {hodu.name = "lr", hodu.meta_slot = dense<0.1> : tensor<f32>},
                %v: tensor<2xf32> {hodu.name = "v", hodu.state = dense<0.5> : tensor<2xf32>},
                %x: tensor<4xf32> {hodu.name = "x"},
                %w: tensor<4xf32> {hodu.name = "w", hodu.state})
    -> (tensor<4xf32> {hodu.name = "w", hodu.state},
        tensor<4xf32> {hodu.name = "y"},
        tensor<2xf32> {hodu.name = "v", hodu.state}) {
  %0 = hodu.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %0, %v : tensor<4xf32>, tensor<4xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{state tensor 'w' (argument #1) has no result marked hodu.state of its name: a state tensor is an input and the output of its new value}}
func.func @main(%x: tensor<4xf32> {hodu.name = "x"},
                %w: tensor<4xf32> {hodu.name = "w", hodu.state})
    -> (tensor<4xf32> {hodu.name = "w"}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{result #0 ('w') is marked hodu.state, but no argument of its name is}}
func.func @main(%x: tensor<4xf32> {hodu.name = "x"})
    -> (tensor<4xf32> {hodu.name = "w", hodu.state}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{state tensor 'w' is 'tensor<2xf32>' but its new value (result #0) is 'tensor<4xf32>'}}
func.func @main(%x: tensor<4xf32> {hodu.name = "x"},
                %w: tensor<2xf32> {hodu.name = "w", hodu.state})
    -> (tensor<4xf32> {hodu.name = "w", hodu.state}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #1 is marked both hodu.meta_slot and hodu.state: a meta slot is what the host writes, a state tensor what the run updates}}
func.func @main(%x: tensor<4xf32> {hodu.name = "x"},
                %w: tensor<4xf32> {hodu.name = "w", hodu.state, hodu.meta_slot})
    -> (tensor<4xf32> {hodu.name = "w", hodu.state}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #1: hodu.state must be a unit attribute or an initial value of the argument's type 'tensor<4xf32>', got dense<1.000000e+00> : tensor<2xf32>}}
func.func @main(%x: tensor<4xf32> {hodu.name = "x"},
                %w: tensor<4xf32> {hodu.name = "w", hodu.state = dense<1.0> : tensor<2xf32>})
    -> (tensor<4xf32> {hodu.name = "w", hodu.state}) {
  return %x : tensor<4xf32>
}

// -----

// The entry point's verifier: state inputs and outputs pair up.
module {
  func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  // expected-error @+1 {{'hodu.entry_point' op 1 state tensor inputs but 0 state tensor outputs: each state tensor is one of each}}
  hodu.entry_point @main {prefix = "m", model_name = "m",
      inputs = [{name = "x", type = tensor<2xf32>}, {name = "w", type = tensor<2xf32>, state}],
      outputs = [{name = "y", type = tensor<2xf32>}]}
}

// -----

module {
  func.func @main(%w: tensor<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  // expected-error @+1 {{'hodu.entry_point' op input 'x' follows a state tensor; state tensors are the last inputs before the meta slots}}
  hodu.entry_point @main {prefix = "m", model_name = "m",
      inputs = [{name = "w", type = tensor<2xf32>, state}, {name = "x", type = tensor<2xf32>}],
      outputs = [{name = "w", type = tensor<2xf32>, state}]}
}

// -----

module {
  func.func @main(%w: tensor<2xf32>) -> tensor<3xf32> {
    %0 = tensor.empty() : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  // expected-error @+1 {{'hodu.entry_point' op state tensor 'w' is 'tensor<2xf32>' but its new value 'w' is 'tensor<3xf32>'}}
  hodu.entry_point @main {prefix = "m", model_name = "m",
      inputs = [{name = "w", type = tensor<2xf32>, state}],
      outputs = [{name = "w", type = tensor<3xf32>, state}]}
}
