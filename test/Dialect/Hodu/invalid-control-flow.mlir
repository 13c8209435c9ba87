// The verifiers of hodu.if and hodu.loop.
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

// -----

func.func @loop_wrong_carried(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the body yields 'tensor<3xf32>' for the carried types 'tensor<2xf32>'}}
  %r = hodu.loop %m, %c, %x : tensor<i64>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %v: tensor<2xf32>):
    hodu.yield %cin, %y : tensor<i1>, tensor<3xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @loop_no_condition(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the body's first yielded value must be a one-element boolean tensor, not 'tensor<2xf32>'}}
  %r = hodu.loop %m, %c, %x : tensor<i64>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %v: tensor<2xf32>):
    hodu.yield %v, %v : tensor<2xf32>, tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @loop_wrong_args(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the body must take (tensor<i64>, tensor<i1>, the carried types)}}
  %r = hodu.loop %m, %c, %x : tensor<i64>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %cin: tensor<i1>, %v: tensor<2xf32>):
    hodu.yield %cin, %v : tensor<i1>, tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @assert_not_scalar(%c: tensor<2xi1>) {
  // expected-error @+1 {{'hodu.assert' op operand #0 must be 0D tensor of 1-bit signless integer values or 1-bit signless integer, but got 'tensor<2xi1>'}}
  hodu.assert %c : tensor<2xi1> {message = "m"}
  return
}
