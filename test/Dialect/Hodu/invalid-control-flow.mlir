// The verifier of hodu.if.
// RUN: hodu-opt %s --split-input-file --verify-diagnostics

func.func @two_elements(%c: tensor<2xi1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{needs a condition of one element, not 'tensor<2xi1>'}}
  %r = hodu.if %c : tensor<2xi1> -> tensor<2xf32> {
    hodu.yield %x : tensor<2xf32>
  } else {
    hodu.yield %x : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @wrong_yield(%c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'else' region yields 'tensor<3xf32>' but the op gives 'tensor<2xf32>'}}
  %r = hodu.if %c : tensor<i1> -> tensor<2xf32> {
    hodu.yield %x : tensor<2xf32>
  } else {
    hodu.yield %y : tensor<3xf32>
  }
  return %r : tensor<2xf32>
}
