// Verifier and type-inference errors of the Matrix, Linalg and Einsum families.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

// Matmul operands share an element type.
func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xbf16>) {
  // expected-error @+2 {{expects operands of one element type, got 'f32' and 'bf16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

// 0-d operands have no matrix dims.
func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{expects operands of rank >= 1, got 0 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

// The contracted dims are lhs[-1] and rhs[-2].
func.func @matmul_contracted(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{contracted dimensions differ: lhs has 3, rhs has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Batch dims broadcast numpy-style.
func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error @+2 {{batch dimensions [2] and [5] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.matmul %a, %b : (tensor<2x2x3xf32>, tensor<5x3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

// A 1-D operand's added dim is dropped from the result.
func.func @matmul_vector_result(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'hodu.matmul' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<1x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Matmul is not defined on bool.
func.func @matmul_bool(%a: tensor<2x2xi1>) {
  // expected-error @+1 {{'hodu.matmul' op operand #0 must be ranked tensor of Hodu numeric dtype values}}
  %0 = hodu.matmul %a, %a : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return
}

// -----

// Dot takes vectors only.
func.func @dot_matrix(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{expects 1-D operands, got ranks 2 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.dot %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @dot_element_types(%a: tensor<3xi32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{expects operands of one element type, got 'i32' and 'i64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.dot %a, %b : (tensor<3xi32>, tensor<3xi64>) -> tensor<i32>
  return
}

// -----

func.func @dot_length(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{expects operands of equal length, got 3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.dot %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// det, inv and trace need square matrices in the last two dims.
func.func @det_vector(%a: tensor<3xf32>) {
  // expected-error @+2 {{expects a tensor of rank >= 2, got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.det %a : (tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @inv_not_square(%a: tensor<5x2x3xf32>) {
  // expected-error @+2 {{expects square matrices, got 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.inv %a : (tensor<5x2x3xf32>) -> tensor<5x2x3xf32>
  return
}

// -----

// Linalg ops are float-only.
func.func @trace_int(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{'hodu.trace' op operand #0 must be ranked tensor of Hodu floating-point dtype values}}
  %0 = hodu.trace %a : (tensor<3x3xi32>) -> tensor<i32>
  return
}

// -----

// The einsum equation needs an explicit output.
func.func @einsum_no_arrow(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op expects an explicit output ('->') in equation 'ij'}}
  %0 = hodu.einsum %a {equation = "ij"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_term_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op equation 'ij,jk->ik' has 2 input terms for 1 operands}}
  %0 = hodu.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{'hodu.einsum' op expects operands of one element type, operand #1 has 'f16', operand #0 has 'f32'}}
  %0 = hodu.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @einsum_term_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op term 'ijk' of operand #0 has 3 labels, but the operand has rank 2}}
  %0 = hodu.einsum %a {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Ellipsis is not supported.
func.func @einsum_ellipsis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op invalid label '.' in equation '..->'}}
  %0 = hodu.einsum %a {equation = "..->"} : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @einsum_label_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'hodu.einsum' op label 'j' has sizes 3 and 4 (operand #1, dim 0)}}
  %0 = hodu.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @einsum_output_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op output term 'ji' has 2 labels, but the result has rank 1}}
  %0 = hodu.einsum %a {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @einsum_output_label_unknown(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op output label 'k' appears in no input}}
  %0 = hodu.einsum %a {equation = "ij->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_output_label_repeated(%a: tensor<3x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op output label 'i' appears more than once}}
  %0 = hodu.einsum %a {equation = "ij->ii"} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @einsum_result_dim(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op result dim 0 should be 3 (label 'j'), got 2}}
  %0 = hodu.einsum %a {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_result_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.einsum' op expects the result element type 'f32', got 'f64'}}
  %0 = hodu.einsum %a {equation = "ij->ij"} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return
}
