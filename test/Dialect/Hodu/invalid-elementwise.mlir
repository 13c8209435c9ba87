// Verifier and type-inference errors of the elementwise families.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

// Binary operands must share an element type.
func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{expects operands of one element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// Shapes that do not broadcast are named.
func.func @binary_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes [2, 3] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.mul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A declared result type that differs from the inferred one.
func.func @binary_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'hodu.sub' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Comparisons give i1, not the operand type.
func.func @cmp_result_not_bool(%a: tensor<3xi32>) {
  // expected-error @+2 {{'hodu.lt' op inferred type(s) 'tensor<3xi1>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.lt %a, %a : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// Binary arithmetic is not defined on bool (ODS type constraint).
func.func @binary_on_bool(%a: tensor<3xi1>) {
  // expected-error @+1 {{'hodu.add' op operand #0 must be ranked tensor of Hodu numeric dtype values, but got 'tensor<3xi1>'}}
  %0 = hodu.add %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

// Only ranked tensors of Hodu dtypes are accepted (index is not one).
func.func @binary_on_index(%a: tensor<3xindex>) {
  // expected-error @+1 {{'hodu.maximum' op operand #0 must be ranked tensor of Hodu numeric dtype values, but got 'tensor<3xindex>'}}
  %0 = hodu.maximum %a, %a : (tensor<3xindex>, tensor<3xindex>) -> tensor<3xindex>
  return
}

// -----

// Float-only Unary ops reject integers (ODS type constraint).
func.func @exp_on_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'hodu.exp' op operand #0 must be ranked tensor of Hodu floating-point dtype values, but got 'tensor<4xi32>'}}
  %0 = hodu.exp %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// neg is not defined on unsigned integers.
func.func @neg_on_unsigned(%a: tensor<4xui8>) {
  // expected-error @+1 {{'hodu.neg' op operand #0 must be ranked tensor of}}
  %0 = hodu.neg %a : (tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

// Unranked tensors are rejected.
func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'hodu.sqrt' op operand #0 must be ranked tensor of Hodu floating-point dtype values, but got 'tensor<*xf32>'}}
  %0 = hodu.sqrt %a : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Involutions and idempotent ops keep the operand's type exactly.
func.func @abs_changes_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'hodu.abs' op requires the same type for all operands and results}}
  %0 = hodu.abs %a : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// Inferred unary ops keep the shape.
func.func @sigmoid_changes_shape(%a: tensor<4xf32>) {
  // expected-error @+2 {{'hodu.sigmoid' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.sigmoid %a : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// UnaryLogical results are i1.
func.func @isnan_not_bool(%a: tensor<4xf32>) {
  // expected-error @+2 {{'hodu.isnan' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.isnan %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The scalar's type must be the element type.
func.func @scalar_type_mismatch(%a: tensor<4xf32>) {
  // expected-error @+1 {{'hodu.add_scalar' op expects the scalar's type to be the element type 'f32', got 'f64'}}
  %0 = hodu.add_scalar %a, 1.0 : f64 : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The scalar's signedness matters too (ui8 is not i8).
func.func @scalar_signedness(%a: tensor<4xui8>) {
  // expected-error @+1 {{'hodu.eq_scalar' op expects the scalar's type to be the element type 'ui8', got 'i8'}}
  %0 = hodu.eq_scalar %a, 1 : i8 : (tensor<4xui8>) -> tensor<4xi1>
  return
}

// -----

// The scalar must be a plain integer or float, not an elements attribute.
func.func @scalar_not_scalar(%a: tensor<4xf32>) {
  // expected-error @+1 {{'hodu.mul_scalar' op expects an integer or float scalar attribute, got dense<2.000000e+00> : tensor<f32>}}
  %0 = hodu.mul_scalar %a, dense<2.0> : tensor<f32> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// leaky_relu is float-only.
func.func @leaky_relu_on_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'hodu.leaky_relu' op operand #0 must be ranked tensor of Hodu floating-point dtype values}}
  %0 = hodu.leaky_relu %a, 1 : i32 : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// Cast keeps the shape.
func.func @cast_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.cast' op expects the result shape to equal the input shape [2, 3], got [3, 2]}}
  %0 = hodu.cast %a : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return
}

// -----

// Cast targets must be Hodu dtypes.
func.func @cast_to_index(%a: tensor<2xf32>) {
  // expected-error @+1 {{'hodu.cast' op result #0 must be ranked tensor of Hodu dtype values, but got 'tensor<2xindex>'}}
  %0 = hodu.cast %a : (tensor<2xf32>) -> tensor<2xindex>
  return
}

// -----

// Select's values share an element type.
func.func @select_element_types(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+2 {{expects true and false values of one element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

// Select's three shapes broadcast together.
func.func @select_shapes(%c: tensor<2xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operand shapes [2], [3] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.select %c, %a, %b : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// The condition is bool.
func.func @select_cond_not_bool(%c: tensor<3xi8>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'hodu.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xi8>'}}
  %0 = hodu.select %c, %a, %a : (tensor<3xi8>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Constants must have a Hodu dtype, and the value's type is the result type.
func.func @constant_index() {
  // expected-error @+1 {{'hodu.constant' op result #0 must be ranked tensor of Hodu dtype values, but got 'tensor<2xindex>'}}
  %0 = hodu.constant dense<[1, 2]> : tensor<2xindex>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{'hodu.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "hodu.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf16>
  return
}
