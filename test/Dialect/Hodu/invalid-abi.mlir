// Verifier errors of hodu.entry_point.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{'hodu.entry_point' op names 'nowhere', which is not a function of this module}}
hodu.entry_point @nowhere {prefix = "m", model_name = "m", inputs = [], outputs = []}

// -----

func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
// expected-error @+1 {{'hodu.entry_point' op input 'x' has type 'tensor<?xf32>'; entry points need tensors with static shapes}}
hodu.entry_point @main {prefix = "m", model_name = "m",
    inputs = [{name = "x", type = tensor<?xf32>}], outputs = []}

// -----

func.func @main(%x: tensor<4xindex>) {
  return
}
// expected-error @+1 {{'hodu.entry_point' op input 'x' has element type 'index', which the artifact ABI cannot describe}}
hodu.entry_point @main {prefix = "m", model_name = "m",
    inputs = [{name = "x", type = tensor<4xindex>}], outputs = []}

// -----

func.func @main() {
  return
}
// expected-error @+1 {{'hodu.entry_point' op output #0 must be {name = "...", type = ...}}}
hodu.entry_point @main {prefix = "m", model_name = "m", inputs = [],
    outputs = [{name = "y"}]}

// -----

func.func @main() {
  return
}
// expected-error @+1 {{'hodu.entry_point' op needs a non-empty symbol prefix}}
hodu.entry_point @main {prefix = "", model_name = "m", inputs = [], outputs = []}

// -----

func.func @main(%lr: tensor<1xf32>, %x: tensor<4xf32>) {
  return
}
// expected-error @+1 {{'hodu.entry_point' op input 'x' follows a meta slot; meta slots are the last inputs}}
hodu.entry_point @main {prefix = "m", model_name = "m",
    inputs = [{name = "lr", type = tensor<1xf32>, meta}, {name = "x", type = tensor<4xf32>}], outputs = []}

// -----

func.func @main(%lr: tensor<1xf32>) {
  return
}
// expected-error @+1 {{'hodu.entry_point' op meta slot 'lr' has an initial value of type 'tensor<2xf32>', not 'tensor<1xf32>'}}
hodu.entry_point @main {prefix = "m", model_name = "m",
    inputs = [{name = "lr", type = tensor<1xf32>, meta, init = dense<1.0> : tensor<2xf32>}], outputs = []}

// -----

func.func @main(%lr: tensor<1xf32>) {
  return
}
// An initial value belongs to a meta slot only.
// expected-error @+1 {{'hodu.entry_point' op input #0 must be {name = "...", type = ...} (inputs may add meta or state and init, a meta slot symbol_value, outputs state, and any tensor dims)}}
hodu.entry_point @main {prefix = "m", model_name = "m",
    inputs = [{name = "lr", type = tensor<1xf32>, init = dense<1.0> : tensor<1xf32>}], outputs = []}
