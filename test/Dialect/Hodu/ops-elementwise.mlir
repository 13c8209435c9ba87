// Round trip of the elementwise families: Binary, BinaryLogical, Cmp,
// CmpScalar, UnaryScalar, Unary, UnaryLogical, Cast and hodu.select.
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s
// The generic form must round-trip too (properties, default-valued attrs).
// RUN: hodu-opt %s --split-input-file --mlir-print-op-generic | hodu-opt --split-input-file | FileCheck %s

// Every Binary op on f32 operands of one shape.
// CHECK-LABEL: func.func @binary_f32
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xf32>, %[[B:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R0:.*]] = hodu.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R1:.*]] = hodu.sub %[[R0]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R2:.*]] = hodu.mul %[[R1]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R3:.*]] = hodu.div %[[R2]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R4:.*]] = hodu.rem %[[R3]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R5:.*]] = hodu.pow %[[R4]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R6:.*]] = hodu.maximum %[[R5]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R7:.*]] = hodu.minimum %[[R6]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R7]]
func.func @binary_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = hodu.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = hodu.sub %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = hodu.mul %1, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = hodu.div %2, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = hodu.rem %3, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = hodu.pow %4, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = hodu.maximum %5, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = hodu.minimum %6, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %7 : tensor<2x3xf32>
}

// -----

// Binary ops on every other numeric dtype, one op each.
// CHECK-LABEL: func.func @binary_dtypes
// CHECK: hodu.add %{{.*}}, %{{.*}} : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
// CHECK: hodu.mul %{{.*}}, %{{.*}} : (tensor<4xf8E5M2>, tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
// CHECK: hodu.maximum %{{.*}}, %{{.*}} : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
// CHECK: hodu.div %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
// CHECK: hodu.pow %{{.*}}, %{{.*}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK: hodu.sub %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// CHECK: hodu.mul %{{.*}}, %{{.*}} : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
// CHECK: hodu.div %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: hodu.rem %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: hodu.pow %{{.*}}, %{{.*}} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
// CHECK: hodu.maximum %{{.*}}, %{{.*}} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
// CHECK: hodu.minimum %{{.*}}, %{{.*}} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
// CHECK: hodu.add %{{.*}}, %{{.*}} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
func.func @binary_dtypes(%f8a: tensor<4xf8E4M3FN>, %f8b: tensor<4xf8E5M2>, %bf: tensor<4xbf16>,
                         %h: tensor<4xf16>, %d: tensor<4xf64>, %i8: tensor<4xi8>,
                         %i16: tensor<4xi16>, %i32: tensor<4xi32>, %i64: tensor<4xi64>,
                         %u8: tensor<4xui8>, %u16: tensor<4xui16>, %u32: tensor<4xui32>,
                         %u64: tensor<4xui64>) {
  %0 = hodu.add %f8a, %f8a : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  %1 = hodu.mul %f8b, %f8b : (tensor<4xf8E5M2>, tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
  %2 = hodu.maximum %bf, %bf : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %3 = hodu.div %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %4 = hodu.pow %d, %d : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %5 = hodu.sub %i8, %i8 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %6 = hodu.mul %i16, %i16 : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  %7 = hodu.div %i32, %i32 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %8 = hodu.rem %i64, %i64 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %9 = hodu.pow %u8, %u8 : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %10 = hodu.maximum %u16, %u16 : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %11 = hodu.minimum %u32, %u32 : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %12 = hodu.add %u64, %u64 : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  return
}

// -----

// Numpy broadcasting: [2,1,3] with [4,1] gives [2,4,3]; 0-d with a vector;
// dynamic dims broadcast against 1 and against a static size.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x1x3xf16>, %[[B:[a-z0-9]+]]: tensor<4x1xf16>, %[[S:[a-z0-9]+]]: tensor<f16>, %[[D:[a-z0-9]+]]: tensor<?x3xf16>)
// CHECK-NEXT: %[[R0:.*]] = hodu.add %[[A]], %[[B]] : (tensor<2x1x3xf16>, tensor<4x1xf16>) -> tensor<2x4x3xf16>
// CHECK-NEXT: %[[R1:.*]] = hodu.mul %[[S]], %[[B]] : (tensor<f16>, tensor<4x1xf16>) -> tensor<4x1xf16>
// CHECK-NEXT: %[[R2:.*]] = hodu.sub %[[D]], %[[A]] : (tensor<?x3xf16>, tensor<2x1x3xf16>) -> tensor<2x?x3xf16>
// CHECK-NEXT: %[[R3:.*]] = hodu.maximum %[[D]], %[[B]] : (tensor<?x3xf16>, tensor<4x1xf16>) -> tensor<4x3xf16>
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
func.func @binary_broadcast(%a: tensor<2x1x3xf16>, %b: tensor<4x1xf16>, %s: tensor<f16>, %d: tensor<?x3xf16>)
    -> (tensor<2x4x3xf16>, tensor<4x1xf16>, tensor<2x?x3xf16>, tensor<4x3xf16>) {
  %0 = hodu.add %a, %b : (tensor<2x1x3xf16>, tensor<4x1xf16>) -> tensor<2x4x3xf16>
  %1 = hodu.mul %s, %b : (tensor<f16>, tensor<4x1xf16>) -> tensor<4x1xf16>
  %2 = hodu.sub %d, %a : (tensor<?x3xf16>, tensor<2x1x3xf16>) -> tensor<2x?x3xf16>
  %3 = hodu.maximum %d, %b : (tensor<?x3xf16>, tensor<4x1xf16>) -> tensor<4x3xf16>
  return %0, %1, %2, %3 : tensor<2x4x3xf16>, tensor<4x1xf16>, tensor<2x?x3xf16>, tensor<4x3xf16>
}

// -----

// BinaryLogical on bool and on numeric operands; the result is always i1.
// CHECK-LABEL: func.func @binary_logical
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<3xi1>, %[[Q:[a-z0-9]+]]: tensor<2x3xi1>, %[[X:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[R0:.*]] = hodu.logical_and %[[P]], %[[Q]] : (tensor<3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %[[R1:.*]] = hodu.logical_or %[[R0]], %[[Q]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %[[R2:.*]] = hodu.logical_xor %[[X]], %[[X]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK-NEXT: return %[[R1]], %[[R2]]
func.func @binary_logical(%p: tensor<3xi1>, %q: tensor<2x3xi1>, %x: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<3xi1>) {
  %0 = hodu.logical_and %p, %q : (tensor<3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %1 = hodu.logical_or %0, %q : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %2 = hodu.logical_xor %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %1, %2 : tensor<2x3xi1>, tensor<3xi1>
}

// -----

// Cmp ops broadcast and give i1, on integer, float and bool operands.
// CHECK-LABEL: func.func @cmp
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xi32>, %[[B:[a-z0-9]+]]: tensor<3xi32>, %[[F:[a-z0-9]+]]: tensor<3xbf16>, %[[P:[a-z0-9]+]]: tensor<3xi1>)
// CHECK-NEXT: hodu.eq %[[A]], %[[B]] : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
// CHECK-NEXT: hodu.ne %[[B]], %[[A]] : (tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK-NEXT: hodu.lt %[[A]], %[[A]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK-NEXT: hodu.le %[[F]], %[[F]] : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xi1>
// CHECK-NEXT: hodu.gt %[[F]], %[[F]] : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xi1>
// CHECK-NEXT: hodu.ge %[[B]], %[[B]] : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK-NEXT: hodu.eq %[[P]], %[[P]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
func.func @cmp(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %f: tensor<3xbf16>, %p: tensor<3xi1>) {
  %0 = hodu.eq %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %1 = hodu.ne %b, %a : (tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %2 = hodu.lt %a, %a : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %3 = hodu.le %f, %f : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xi1>
  %4 = hodu.gt %f, %f : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xi1>
  %5 = hodu.ge %b, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %6 = hodu.eq %p, %p : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

// CmpScalar: the scalar attribute carries the element type (ui, i, f, i1).
// CHECK-LABEL: func.func @cmp_scalar
// CHECK-SAME: (%[[U:[a-z0-9]+]]: tensor<4xui16>, %[[I:[a-z0-9]+]]: tensor<4xi8>, %[[F:[a-z0-9]+]]: tensor<4xf64>, %[[P:[a-z0-9]+]]: tensor<4xi1>)
// CHECK-NEXT: hodu.eq_scalar %[[U]], 7 : ui16 : (tensor<4xui16>) -> tensor<4xi1>
// CHECK-NEXT: hodu.ne_scalar %[[P]], true : (tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT: hodu.lt_scalar %[[I]], -3 : i8 : (tensor<4xi8>) -> tensor<4xi1>
// CHECK-NEXT: hodu.le_scalar %[[F]], 2.500000e+00 : f64 : (tensor<4xf64>) -> tensor<4xi1>
// CHECK-NEXT: hodu.gt_scalar %[[F]], -1.000000e+00 : f64 : (tensor<4xf64>) -> tensor<4xi1>
// CHECK-NEXT: hodu.ge_scalar %[[U]], 0 : ui16 : (tensor<4xui16>) -> tensor<4xi1>
func.func @cmp_scalar(%u: tensor<4xui16>, %i: tensor<4xi8>, %f: tensor<4xf64>, %p: tensor<4xi1>) {
  %0 = hodu.eq_scalar %u, 7 : ui16 : (tensor<4xui16>) -> tensor<4xi1>
  %1 = hodu.ne_scalar %p, true : (tensor<4xi1>) -> tensor<4xi1>
  %2 = hodu.lt_scalar %i, -3 : i8 : (tensor<4xi8>) -> tensor<4xi1>
  %3 = hodu.le_scalar %f, 2.5 : f64 : (tensor<4xf64>) -> tensor<4xi1>
  %4 = hodu.gt_scalar %f, -1.0 : f64 : (tensor<4xf64>) -> tensor<4xi1>
  %5 = hodu.ge_scalar %u, 0 : ui16 : (tensor<4xui16>) -> tensor<4xi1>
  return
}

// -----

// UnaryScalar: arithmetic with a scalar keeps the tensor's type; the
// activation ops with a slope take a float scalar.
// CHECK-LABEL: func.func @unary_scalar
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x2xf32>, %[[I:[a-z0-9]+]]: tensor<3xi64>, %[[U:[a-z0-9]+]]: tensor<3xui32>, %[[H:[a-z0-9]+]]: tensor<3xbf16>)
// CHECK-NEXT: hodu.add_scalar %[[X]], 1.000000e+00 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: hodu.sub_scalar %[[I]], 5 : i64 : (tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT: hodu.mul_scalar %[[U]], 2 : ui32 : (tensor<3xui32>) -> tensor<3xui32>
// CHECK-NEXT: hodu.div_scalar %[[X]], 4.000000e+00 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: hodu.rem_scalar %[[I]], 3 : i64 : (tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT: hodu.pow_scalar %[[X]], 2.000000e+00 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: hodu.maximum_scalar %[[U]], 1 : ui32 : (tensor<3xui32>) -> tensor<3xui32>
// CHECK-NEXT: hodu.minimum_scalar %[[H]], 6.000000e+00 : bf16 : (tensor<3xbf16>) -> tensor<3xbf16>
// CHECK-NEXT: hodu.leaky_relu %[[X]], 0.00999999977 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: hodu.elu %[[H]], 1.000000e+00 : bf16 : (tensor<3xbf16>) -> tensor<3xbf16>
// CHECK-NEXT: hodu.prelu %[[X]], 2.500000e-01 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @unary_scalar(%x: tensor<2x2xf32>, %i: tensor<3xi64>, %u: tensor<3xui32>, %h: tensor<3xbf16>) {
  %0 = hodu.add_scalar %x, 1.0 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = hodu.sub_scalar %i, 5 : i64 : (tensor<3xi64>) -> tensor<3xi64>
  %2 = hodu.mul_scalar %u, 2 : ui32 : (tensor<3xui32>) -> tensor<3xui32>
  %3 = hodu.div_scalar %x, 4.0 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = hodu.rem_scalar %i, 3 : i64 : (tensor<3xi64>) -> tensor<3xi64>
  %5 = hodu.pow_scalar %x, 2.0 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %6 = hodu.maximum_scalar %u, 1 : ui32 : (tensor<3xui32>) -> tensor<3xui32>
  %7 = hodu.minimum_scalar %h, 6.0 : bf16 : (tensor<3xbf16>) -> tensor<3xbf16>
  %8 = hodu.leaky_relu %x, 0.01 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %9 = hodu.elu %h, 1.0 : bf16 : (tensor<3xbf16>) -> tensor<3xbf16>
  %10 = hodu.prelu %x, 0.25 : f32 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Unary ops valid on every numeric dtype (neg excludes unsigned ints).
// CHECK-LABEL: func.func @unary_numeric
// CHECK-SAME: (%[[I:[a-z0-9]+]]: tensor<5xi8>, %[[U:[a-z0-9]+]]: tensor<5xui64>, %[[F:[a-z0-9]+]]: tensor<5xf8E5M2>, %[[H:[a-z0-9]+]]: tensor<5xf16>)
// CHECK-NEXT: hodu.neg %[[I]] : (tensor<5xi8>) -> tensor<5xi8>
// CHECK-NEXT: hodu.abs %[[U]] : (tensor<5xui64>) -> tensor<5xui64>
// CHECK-NEXT: hodu.sign %[[I]] : (tensor<5xi8>) -> tensor<5xi8>
// CHECK-NEXT: hodu.square %[[U]] : (tensor<5xui64>) -> tensor<5xui64>
// CHECK-NEXT: hodu.relu %[[F]] : (tensor<5xf8E5M2>) -> tensor<5xf8E5M2>
// CHECK-NEXT: hodu.neg %[[H]] : (tensor<5xf16>) -> tensor<5xf16>
func.func @unary_numeric(%i: tensor<5xi8>, %u: tensor<5xui64>, %f: tensor<5xf8E5M2>, %h: tensor<5xf16>) {
  %0 = hodu.neg %i : (tensor<5xi8>) -> tensor<5xi8>
  %1 = hodu.abs %u : (tensor<5xui64>) -> tensor<5xui64>
  %2 = hodu.sign %i : (tensor<5xi8>) -> tensor<5xi8>
  %3 = hodu.square %u : (tensor<5xui64>) -> tensor<5xui64>
  %4 = hodu.relu %f : (tensor<5xf8E5M2>) -> tensor<5xf8E5M2>
  %5 = hodu.neg %h : (tensor<5xf16>) -> tensor<5xf16>
  return
}

// -----

// Every float-only Unary op on f32, chained so each result is used.
// CHECK-LABEL: func.func @unary_float_f32
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[U0:.*]] = hodu.softsign %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U1:.*]] = hodu.sqrt %[[U0]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U2:.*]] = hodu.recip %[[U1]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U3:.*]] = hodu.sigmoid %[[U2]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U4:.*]] = hodu.hardsigmoid %[[U3]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U5:.*]] = hodu.gelu %[[U4]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U6:.*]] = hodu.softplus %[[U5]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U7:.*]] = hodu.silu %[[U6]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U8:.*]] = hodu.hardsilu %[[U7]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U9:.*]] = hodu.mish %[[U8]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U10:.*]] = hodu.selu %[[U9]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U11:.*]] = hodu.celu %[[U10]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U12:.*]] = hodu.sin %[[U11]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U13:.*]] = hodu.cos %[[U12]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U14:.*]] = hodu.tan %[[U13]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U15:.*]] = hodu.asin %[[U14]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U16:.*]] = hodu.acos %[[U15]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U17:.*]] = hodu.atan %[[U16]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U18:.*]] = hodu.sinh %[[U17]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U19:.*]] = hodu.cosh %[[U18]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U20:.*]] = hodu.tanh %[[U19]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U21:.*]] = hodu.asinh %[[U20]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U22:.*]] = hodu.acosh %[[U21]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U23:.*]] = hodu.atanh %[[U22]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U24:.*]] = hodu.exp %[[U23]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U25:.*]] = hodu.exp2 %[[U24]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U26:.*]] = hodu.exp10 %[[U25]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U27:.*]] = hodu.ln %[[U26]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U28:.*]] = hodu.log2 %[[U27]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U29:.*]] = hodu.log10 %[[U28]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U30:.*]] = hodu.ceil %[[U29]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U31:.*]] = hodu.floor %[[U30]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U32:.*]] = hodu.round %[[U31]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[U33:.*]] = hodu.erf %[[U32]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[U33]]
func.func @unary_float_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %u0 = hodu.softsign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u1 = hodu.sqrt %u0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u2 = hodu.recip %u1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u3 = hodu.sigmoid %u2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u4 = hodu.hardsigmoid %u3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u5 = hodu.gelu %u4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u6 = hodu.softplus %u5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u7 = hodu.silu %u6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u8 = hodu.hardsilu %u7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u9 = hodu.mish %u8 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u10 = hodu.selu %u9 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u11 = hodu.celu %u10 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u12 = hodu.sin %u11 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u13 = hodu.cos %u12 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u14 = hodu.tan %u13 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u15 = hodu.asin %u14 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u16 = hodu.acos %u15 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u17 = hodu.atan %u16 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u18 = hodu.sinh %u17 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u19 = hodu.cosh %u18 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u20 = hodu.tanh %u19 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u21 = hodu.asinh %u20 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u22 = hodu.acosh %u21 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u23 = hodu.atanh %u22 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u24 = hodu.exp %u23 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u25 = hodu.exp2 %u24 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u26 = hodu.exp10 %u25 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u27 = hodu.ln %u26 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u28 = hodu.log2 %u27 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u29 = hodu.log10 %u28 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u30 = hodu.ceil %u29 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u31 = hodu.floor %u30 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u32 = hodu.round %u31 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u33 = hodu.erf %u32 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %u33 : tensor<2x3xf32>
}

// -----

// Float-only Unary ops on the narrow and wide float dtypes.
// CHECK-LABEL: func.func @unary_float_dtypes
// CHECK: hodu.exp %{{.*}} : (tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN>
// CHECK: hodu.sqrt %{{.*}} : (tensor<2xbf16>) -> tensor<2xbf16>
// CHECK: hodu.tanh %{{.*}} : (tensor<2xf16>) -> tensor<2xf16>
// CHECK: hodu.ln %{{.*}} : (tensor<?xf64>) -> tensor<?xf64>
// CHECK: hodu.erf %{{.*}} : (tensor<f64>) -> tensor<f64>
func.func @unary_float_dtypes(%a: tensor<2xf8E4M3FN>, %b: tensor<2xbf16>, %c: tensor<2xf16>,
                              %d: tensor<?xf64>, %e: tensor<f64>) {
  %0 = hodu.exp %a : (tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN>
  %1 = hodu.sqrt %b : (tensor<2xbf16>) -> tensor<2xbf16>
  %2 = hodu.tanh %c : (tensor<2xf16>) -> tensor<2xf16>
  %3 = hodu.ln %d : (tensor<?xf64>) -> tensor<?xf64>
  %4 = hodu.erf %e : (tensor<f64>) -> tensor<f64>
  return
}

// -----

// UnaryLogical: logical_not on any dtype, the float tests on floats; all i1.
// CHECK-LABEL: func.func @unary_logical
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<3xi1>, %[[I:[a-z0-9]+]]: tensor<3xi16>, %[[F:[a-z0-9]+]]: tensor<3xf16>)
// CHECK-NEXT: hodu.logical_not %[[P]] : (tensor<3xi1>) -> tensor<3xi1>
// CHECK-NEXT: hodu.logical_not %[[I]] : (tensor<3xi16>) -> tensor<3xi1>
// CHECK-NEXT: hodu.isnan %[[F]] : (tensor<3xf16>) -> tensor<3xi1>
// CHECK-NEXT: hodu.isinf %[[F]] : (tensor<3xf16>) -> tensor<3xi1>
// CHECK-NEXT: hodu.isfinite %[[F]] : (tensor<3xf16>) -> tensor<3xi1>
func.func @unary_logical(%p: tensor<3xi1>, %i: tensor<3xi16>, %f: tensor<3xf16>) {
  %0 = hodu.logical_not %p : (tensor<3xi1>) -> tensor<3xi1>
  %1 = hodu.logical_not %i : (tensor<3xi16>) -> tensor<3xi1>
  %2 = hodu.isnan %f : (tensor<3xf16>) -> tensor<3xi1>
  %3 = hodu.isinf %f : (tensor<3xf16>) -> tensor<3xi1>
  %4 = hodu.isfinite %f : (tensor<3xf16>) -> tensor<3xi1>
  return
}

// -----

// Cast keeps the shape and changes the dtype in every direction.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[P:[a-z0-9]+]]: tensor<4xi1>, %[[U:[a-z0-9]+]]: tensor<4xui8>, %[[Q:[a-z0-9]+]]: tensor<4xf8E4M3FN>)
// CHECK-NEXT: hodu.cast %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi64>
// CHECK-NEXT: hodu.cast %[[P]] : (tensor<4xi1>) -> tensor<4xf32>
// CHECK-NEXT: hodu.cast %[[U]] : (tensor<4xui8>) -> tensor<4xbf16>
// CHECK-NEXT: hodu.cast %[[Q]] : (tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2>
// CHECK-NEXT: hodu.cast %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi1>
func.func @cast(%x: tensor<2x3xf32>, %p: tensor<4xi1>, %u: tensor<4xui8>, %q: tensor<4xf8E4M3FN>) {
  %0 = hodu.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %1 = hodu.cast %p : (tensor<4xi1>) -> tensor<4xf32>
  %2 = hodu.cast %u : (tensor<4xui8>) -> tensor<4xbf16>
  %3 = hodu.cast %q : (tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2>
  %4 = hodu.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}

// -----

// Select broadcasts all three operands.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:[a-z0-9]+]]: tensor<2x1xi1>, %[[A:[a-z0-9]+]]: tensor<3xi32>, %[[B:[a-z0-9]+]]: tensor<1xi32>)
// CHECK-NEXT: %[[R:.*]] = hodu.select %[[C]], %[[A]], %[[B]] : (tensor<2x1xi1>, tensor<3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
// CHECK-NEXT: return %[[R]]
func.func @select(%c: tensor<2x1xi1>, %a: tensor<3xi32>, %b: tensor<1xi32>) -> tensor<2x3xi32> {
  %0 = hodu.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
