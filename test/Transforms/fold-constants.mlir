// RUN: hodu-opt %s --hodu-fold-constants --split-input-file | FileCheck %s

// Unary float math on f32 constants: the op becomes a constant.
// CHECK-LABEL: func.func @unary_f32
// CHECK-NEXT: %[[C:.*]] = hodu.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: %[[N:.*]] = hodu.constant dense<[-1.000000e+00, -4.000000e+00, -9.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: %[[E:.*]] = hodu.constant dense<[0.000000e+00, 1.38629436, 2.19722462]> : tensor<3xf32>
// CHECK-NEXT: %[[R:.*]] = hodu.constant dense<[1.000000e+00, 2.500000e-01, 0.111111112]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]], %[[N]], %[[E]], %[[R]]
func.func @unary_f32() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %a = hodu.constant dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
  %0 = hodu.sqrt %a : (tensor<3xf32>) -> tensor<3xf32>
  %1 = hodu.neg %a : (tensor<3xf32>) -> tensor<3xf32>
  %2 = hodu.ln %a : (tensor<3xf32>) -> tensor<3xf32>
  %3 = hodu.recip %a : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Activations and rounding: relu, sigmoid, tanh, floor, ceil, round (half
// to even), sign, square, abs, erf, exp, sin, cos.
// CHECK-LABEL: func.func @activations
// CHECK-DAG: dense<[0.000000e+00, 0.000000e+00, 5.000000e-01, 2.500000e+00]>
// CHECK-DAG: dense<[0.182425529, 0.377540678, 0.622459352, 0.924141824]>
// CHECK-DAG: dense<[-0.905148268, -0.462117165, 0.462117165, 0.986614286]>
// CHECK-DAG: dense<[-2.000000e+00, -1.000000e+00, 0.000000e+00, 2.000000e+00]>
// CHECK-DAG: dense<[-1.000000e+00, -0.000000e+00, 1.000000e+00, 3.000000e+00]>
// CHECK-DAG: dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 2.000000e+00]>
// CHECK-DAG: dense<[-1.000000e+00, -1.000000e+00, 1.000000e+00, 1.000000e+00]>
// CHECK-DAG: dense<[2.250000e+00, 2.500000e-01, 2.500000e-01, 6.250000e+00]>
// CHECK-DAG: dense<[1.500000e+00, 5.000000e-01, 5.000000e-01, 2.500000e+00]>
// CHECK-DAG: dense<[-0.966105163, -0.520499885, 0.520499885, 9.995930e-01]>
// CHECK-DAG: dense<[0.223130167, 0.606530666, 1.64872122, 12.1824942]>
// CHECK-DAG: dense<[-0.997494995, -0.47942555, 0.47942555, 0.598472118]>
// CHECK-DAG: dense<[7.073720e-02, 0.87758255, 0.87758255, -0.801143586]>
// CHECK-NOT: hodu.relu
// CHECK-NOT: hodu.cos
func.func @activations() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = hodu.constant dense<[-1.5, -0.5, 0.5, 2.5]> : tensor<4xf32>
  %0 = hodu.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = hodu.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
  %2 = hodu.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %3 = hodu.floor %a : (tensor<4xf32>) -> tensor<4xf32>
  %4 = hodu.ceil %a : (tensor<4xf32>) -> tensor<4xf32>
  %5 = hodu.round %a : (tensor<4xf32>) -> tensor<4xf32>
  %6 = hodu.sign %a : (tensor<4xf32>) -> tensor<4xf32>
  %7 = hodu.square %a : (tensor<4xf32>) -> tensor<4xf32>
  %8 = hodu.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  %9 = hodu.erf %a : (tensor<4xf32>) -> tensor<4xf32>
  %10 = hodu.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %11 = hodu.sin %a : (tensor<4xf32>) -> tensor<4xf32>
  %12 = hodu.cos %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Binary ops broadcast numpy-style: [2,1] with [3] gives [2,3].
// CHECK-LABEL: func.func @broadcast_binary
// CHECK-DAG: dense<{{\[}}[1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[-9.000000e+00, -1.900000e+01, -2.900000e+01], [-8.000000e+00, -1.800000e+01, -2.800000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[1.000000e+01, 2.000000e+01, 3.000000e+01], [2.000000e+01, 4.000000e+01, 6.000000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[1.000000e-01, 5.000000e-02, 0.0333333351], [2.000000e-01, 1.000000e-01, 0.0666666701]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00], [1.024000e+03, 0x49800000, 1.07374182E+9]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[1.000000e+01, 2.000000e+01, 3.000000e+01], [1.000000e+01, 2.000000e+01, 3.000000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK-NOT: hodu.add
// CHECK-NOT: hodu.rem
func.func @broadcast_binary() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = hodu.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = hodu.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = hodu.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = hodu.sub %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = hodu.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = hodu.div %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = hodu.pow %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = hodu.maximum %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = hodu.minimum %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = hodu.rem %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Scalar ops use the scalar attribute as a broadcast operand.
// CHECK-LABEL: func.func @scalar_ops
// CHECK-DAG: dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: dense<[-2.000000e-02, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: _scalar
// CHECK-NOT: leaky_relu
func.func @scalar_ops() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = hodu.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %n = hodu.constant dense<[-2.0, 2.0]> : tensor<2xf32>
  %0 = hodu.add_scalar %a, 2.0 : f32 : (tensor<2xf32>) -> tensor<2xf32>
  %1 = hodu.mul_scalar %a, 2.0 : f32 : (tensor<2xf32>) -> tensor<2xf32>
  %2 = hodu.pow_scalar %a, 2.0 : f32 : (tensor<2xf32>) -> tensor<2xf32>
  %3 = hodu.leaky_relu %n, 0.01 : f32 : (tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Comparisons and logical ops give i1; select picks by an i1 constant.
// CHECK-LABEL: func.func @compare_select
// CHECK-DAG: %[[LT:.*]] = hodu.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[EQ:.*]] = hodu.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[OR:.*]] = hodu.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[NOT:.*]] = hodu.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[SEL:.*]] = hodu.constant dense<[1.000000e+00, 2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK: return %[[LT]], %[[EQ]], %[[OR]], %[[NOT]], %[[SEL]]
func.func @compare_select() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>) {
  %a = hodu.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = hodu.constant dense<2.0> : tensor<3xf32>
  %z = hodu.constant dense<0.0> : tensor<1xf32>
  %lt = hodu.lt %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %eq = hodu.eq %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %or = hodu.logical_or %lt, %eq : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %not = hodu.logical_not %or : (tensor<3xi1>) -> tensor<3xi1>
  %sel = hodu.select %or, %a, %z : (tensor<3xi1>, tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %lt, %eq, %or, %not, %sel : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>
}

// -----

// Casts between every dtype class: f32 -> f16 and bf16 (rounded to nearest
// even), f32 -> i32 (truncates toward zero), i32 -> ui8 (wraps), ui8 -> f32
// (unsigned), i32 -> f32 (signed), f32 -> i1 (x != 0), i1 -> i32 (0 or 1).
// CHECK-LABEL: func.func @casts
// CHECK-DAG: dense<[1.000000e+00, -2.500000e+00, 0.000000e+00, 1.000980e+00]> : tensor<4xf16>
// CHECK-DAG: dense<[1.000000e+00, -2.500000e+00, 0.000000e+00, 1.000000e+00]> : tensor<4xbf16>
// CHECK-DAG: dense<[1, 254, 0, 1]> : tensor<4xui8>
// CHECK-DAG: dense<[1.000000e+00, 2.540000e+02, 0.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-DAG: dense<[1.000000e+00, -2.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-DAG: dense<[1, 1, 0, 1]> : tensor<4xi32>
// CHECK-NOT: hodu.cast
func.func @casts() -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xui8>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %a = hodu.constant dense<[1.0, -2.5, 0.0, 1.001]> : tensor<4xf32>
  %h = hodu.cast %a : (tensor<4xf32>) -> tensor<4xf16>
  %b = hodu.cast %a : (tensor<4xf32>) -> tensor<4xbf16>
  %i = hodu.cast %a : (tensor<4xf32>) -> tensor<4xi32>
  %u = hodu.cast %i : (tensor<4xi32>) -> tensor<4xui8>
  %f = hodu.cast %u : (tensor<4xui8>) -> tensor<4xf32>
  %s = hodu.cast %i : (tensor<4xi32>) -> tensor<4xf32>
  %p = hodu.cast %a : (tensor<4xf32>) -> tensor<4xi1>
  %q = hodu.cast %p : (tensor<4xi1>) -> tensor<4xi32>
  return %h, %b, %u, %f, %s, %q : tensor<4xf16>, tensor<4xbf16>, tensor<4xui8>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Narrow floats compute like f32 and round once: f16 and bf16 add.
// CHECK-LABEL: func.func @narrow_floats
// CHECK-DAG: dense<[3.000000e+00, 1.000000e+00]> : tensor<2xf16>
// CHECK-DAG: dense<[2.560000e+02, 1.000000e+00]> : tensor<2xbf16>
func.func @narrow_floats() -> (tensor<2xf16>, tensor<2xbf16>) {
  %a = hodu.constant dense<[1.0, 0.5]> : tensor<2xf16>
  %b = hodu.constant dense<[2.0, 0.5]> : tensor<2xf16>
  %0 = hodu.add %a, %b : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  // 256 + 1 is not a bf16 (8 bits of mantissa): rounds to even, 256.
  %c = hodu.constant dense<[256.0, 0.5]> : tensor<2xbf16>
  %d = hodu.constant dense<[1.0, 0.5]> : tensor<2xbf16>
  %1 = hodu.add %c, %d : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return %0, %1 : tensor<2xf16>, tensor<2xbf16>
}

// -----

// Integer arithmetic: signed i32 division truncates toward zero, rem takes
// the dividend's sign, ui8 wraps and compares unsigned (10 > 250 is
// false, as is 128 > 128).
// CHECK-LABEL: func.func @integers
// CHECK-DAG: dense<[3, -3, -3]> : tensor<3xi32>
// CHECK-DAG: dense<[1, -1, 1]> : tensor<3xi32>
// CHECK-DAG: dense<[4, 0]> : tensor<2xui8>
// CHECK-DAG: dense<false> : tensor<2xi1>
// CHECK-DAG: dense<[125, 64]> : tensor<2xui8>
func.func @integers() -> (tensor<3xi32>, tensor<3xi32>, tensor<2xui8>, tensor<2xi1>, tensor<2xui8>) {
  %a = hodu.constant dense<[7, -7, 7]> : tensor<3xi32>
  %b = hodu.constant dense<[2, 2, -2]> : tensor<3xi32>
  %0 = hodu.div %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = hodu.rem %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %u = hodu.constant dense<[250, 128]> : tensor<2xui8>
  %v = hodu.constant dense<[10, 128]> : tensor<2xui8>
  %2 = hodu.add %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %3 = hodu.gt %v, %u : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  %4 = hodu.div_scalar %u, 2 : ui8 : (tensor<2xui8>) -> tensor<2xui8>
  %5 = hodu.sub %4, %4 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %6 = hodu.maximum %4, %5 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %0, %1, %2, %3, %6 : tensor<3xi32>, tensor<3xi32>, tensor<2xui8>, tensor<2xi1>, tensor<2xui8>
}

// -----

// Integer division by zero is left to run time.
// CHECK-LABEL: func.func @int_div_by_zero
// CHECK: hodu.div
// CHECK: hodu.rem
func.func @int_div_by_zero() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = hodu.constant dense<[7, 8]> : tensor<2xi32>
  %b = hodu.constant dense<[1, 0]> : tensor<2xi32>
  %0 = hodu.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = hodu.rem %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// Data movement: transpose, slice (strided), concat, broadcast, flatten,
// unsqueeze, squeeze and flip.
// CHECK-LABEL: func.func @movement
// CHECK-DAG: %[[T:.*]] = hodu.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[S:.*]] = hodu.constant dense<{{\[}}[1, 3], [4, 6]]> : tensor<2x2xi32>
// CHECK-DAG: %[[C:.*]] = hodu.constant dense<{{\[}}[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]]> : tensor<4x3xi32>
// CHECK-DAG: %[[B:.*]] = hodu.constant dense<{{\[}}[7, 8], [7, 8]]> : tensor<2x2xi32>
// CHECK-DAG: %[[R:.*]] = hodu.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
// CHECK-DAG: %[[U:.*]] = hodu.constant dense<{{\[}}[7, 8]]> : tensor<1x2xi32>
// CHECK-DAG: %[[Q:.*]] = hodu.constant dense<[1, 4]> : tensor<2xi32>
// CHECK-DAG: %[[F:.*]] = hodu.constant dense<{{\[}}[3, 2, 1], [6, 5, 4]]> : tensor<2x3xi32>
// CHECK: return %[[T]], %[[S]], %[[C]], %[[B]], %[[R]], %[[U]], %[[Q]], %[[F]]
func.func @movement() -> (tensor<3x2xi32>, tensor<2x2xi32>, tensor<4x3xi32>, tensor<2x2xi32>, tensor<6xi32>, tensor<1x2xi32>, tensor<2xi32>, tensor<2x3xi32>) {
  %a = hodu.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %v = hodu.constant dense<[7, 8]> : tensor<2xi32>
  %0 = hodu.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %1 = hodu.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>, steps = array<i64: 1, 2>} : (tensor<2x3xi32>) -> tensor<2x2xi32>
  %2 = hodu.concat %a, %a {dim = 0 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
  %3 = hodu.broadcast %v : (tensor<2xi32>) -> tensor<2x2xi32>
  %4 = hodu.flatten %a {start_dim = 0 : i64, end_dim = 1 : i64} : (tensor<2x3xi32>) -> tensor<6xi32>
  %5 = hodu.unsqueeze %v {dims = array<i64: 0>} : (tensor<2xi32>) -> tensor<1x2xi32>
  %6 = hodu.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  %7 = hodu.squeeze %6 {dims = array<i64: 1>} : (tensor<2x1xi32>) -> tensor<2xi32>
  %8 = hodu.flip %a {dims = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5, %7, %8 : tensor<3x2xi32>, tensor<2x2xi32>, tensor<4x3xi32>, tensor<2x2xi32>, tensor<6xi32>, tensor<1x2xi32>, tensor<2xi32>, tensor<2x3xi32>
}

// -----

// Reductions over constants: sum, mean, max, min.
// CHECK-LABEL: func.func @reductions
// CHECK-DAG: dense<[5.000000e+00, 7.000000e+00, 9.000000e+00]> : tensor<3xf32>
// CHECK-DAG: dense<{{\[}}[2.000000e+00], [5.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG: dense<6.000000e+00> : tensor<f32>
// CHECK-DAG: dense<[1, 4]> : tensor<2xi32>
// CHECK-NOT: hodu.reduce
func.func @reductions() -> (tensor<3xf32>, tensor<2x1xf32>, tensor<f32>, tensor<2xi32>) {
  %a = hodu.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %i = hodu.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = hodu.reduce_sum %a {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %1 = hodu.reduce_mean %a {dims = array<i64: 1>, keep_dim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %2 = hodu.reduce_max %a {dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  %3 = hodu.reduce_min %i {dims = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<2x1xf32>, tensor<f32>, tensor<2xi32>
}

// -----

// A dense_resource weight is read in place: its transpose folds.
// The blob holds 4-byte alignment, then f32 1, 2, 3, 4 (little-endian).
// CHECK-LABEL: func.func @resource
// CHECK-NEXT: %[[T:.*]] = hodu.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @resource() -> tensor<2x2xf32> {
  %w = hodu.constant dense_resource<w> : tensor<2x2xf32>
  %0 = hodu.transpose %w {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// An op with a non-constant operand stays.
// CHECK-LABEL: func.func @not_constant
// CHECK: %[[C:.*]] = hodu.constant
// CHECK: hodu.add %arg0, %[[C]]
func.func @not_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = hodu.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = hodu.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// maximum and minimum order -0 below +0 (IEEE 754-2019, like the compiled
// code and the dialect folders) and propagate NaN.
// CHECK-LABEL: func.func @max_min_signed_zero
// CHECK-DAG: hodu.constant dense<[0.000000e+00, 0.000000e+00, 0x7FC00000]> : tensor<3xf32>
// CHECK-DAG: hodu.constant dense<[-0.000000e+00, -0.000000e+00, 0x7FC00000]> : tensor<3xf32>
func.func @max_min_signed_zero() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = hodu.constant dense<[-0.0, 0.0, 0x7FC00000]> : tensor<3xf32>
  %b = hodu.constant dense<[0.0, -0.0, 1.0]> : tensor<3xf32>
  %0 = hodu.maximum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = hodu.minimum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// index_select (ONNX Gather): slices along `dim` picked by index, negative
// indices counting from the end; a 2-D index tensor nests the result.
// CHECK-LABEL: func.func @index_select
// CHECK-DAG: %[[ROWS:.*]] = hodu.constant dense<{{\[}}[5, 6, 7], [0, 1, 2]]> : tensor<2x3xi64>
// CHECK-DAG: %[[COLS:.*]] = hodu.constant dense<{{\[\[\[2, 0\]\], \[\[7, 5\]\]\]}}> : tensor<2x1x2xi64>
// CHECK-DAG: %[[DIM:.*]] = hodu.constant dense<3> : tensor<i64>
// CHECK: return %[[ROWS]], %[[COLS]], %[[DIM]]
func.func @index_select() -> (tensor<2x3xi64>, tensor<2x1x2xi64>, tensor<i64>) {
  %x = hodu.constant dense<[[0, 1, 2], [5, 6, 7]]> : tensor<2x3xi64>
  %shape = hodu.constant dense<[2, 3, 4]> : tensor<3xi64>
  %i = hodu.constant dense<[-1, 0]> : tensor<2xi64>
  %j = hodu.constant dense<[[2, 0]]> : tensor<1x2xi32>
  %k = hodu.constant dense<1> : tensor<i64>
  %0 = hodu.index_select %x, %i {dim = 0 : i64} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x3xi64>
  %1 = hodu.index_select %x, %j {dim = 1 : i64} : (tensor<2x3xi64>, tensor<1x2xi32>) -> tensor<2x1x2xi64>
  %2 = hodu.index_select %shape, %k {dim = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  return %0, %1, %2 : tensor<2x3xi64>, tensor<2x1x2xi64>, tensor<i64>
}

// -----

// gather (ONNX GatherElements) and index_put (ONNX ScatterND on rows, a
// repeated index keeping the last value).
// CHECK-LABEL: func.func @gather_index_put
// CHECK-DAG: %[[G:.*]] = hodu.constant dense<{{\[}}[1.000000e+00, 1.000000e+00], [4.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[P:.*]] = hodu.constant dense<[3, 9, 5]> : tensor<3xi64>
// CHECK: return %[[G]], %[[P]]
func.func @gather_index_put() -> (tensor<2x2xf32>, tensor<3xi64>) {
  %x = hodu.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %i = hodu.constant dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>
  %0 = hodu.gather %x, %i {dim = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %s = hodu.constant dense<[3, 4, 5]> : tensor<3xi64>
  %j = hodu.constant dense<[1, -2]> : tensor<2xi64>
  %v = hodu.constant dense<[8, 9]> : tensor<2xi64>
  %1 = hodu.index_put %s, %j, %v {dim = 0 : i64} : (tensor<3xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3xi64>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi64>
}

// -----

// An index outside the dim is left for run time (the lowering clamps it).
// CHECK-LABEL: func.func @index_out_of_range
// CHECK: hodu.index_select
// CHECK: hodu.gather
func.func @index_out_of_range() -> (tensor<1xi64>, tensor<1xi64>) {
  %x = hodu.constant dense<[1, 2, 3]> : tensor<3xi64>
  %i = hodu.constant dense<[3]> : tensor<1xi64>
  %j = hodu.constant dense<[-4]> : tensor<1xi64>
  %0 = hodu.index_select %x, %i {dim = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %1 = hodu.gather %x, %j {dim = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0, %1 : tensor<1xi64>, tensor<1xi64>
}

// -----

// split: one constant per piece; a splat input gives splat pieces.
// CHECK-LABEL: func.func @split
// CHECK-DAG: %[[A:.*]] = hodu.constant dense<{{\[}}[1], [4]]> : tensor<2x1xi64>
// CHECK-DAG: %[[B:.*]] = hodu.constant dense<{{\[}}[2, 3], [5, 6]]> : tensor<2x2xi64>
// CHECK-DAG: %[[C:.*]] = hodu.constant dense<7.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[D:.*]] = hodu.constant dense<7.000000e+00> : tensor<1xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @split() -> (tensor<2x1xi64>, tensor<2x2xi64>, tensor<3xf32>, tensor<1xf32>) {
  %x = hodu.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0:2 = hodu.split %x {dim = 1 : i64, sizes = array<i64: 1, 2>} : (tensor<2x3xi64>) -> (tensor<2x1xi64>, tensor<2x2xi64>)
  %s = hodu.constant dense<7.0> : tensor<4xf32>
  %1:2 = hodu.split %s {dim = 0 : i64, sizes = array<i64: 3, 1>} : (tensor<4xf32>) -> (tensor<3xf32>, tensor<1xf32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<2x1xi64>, tensor<2x2xi64>, tensor<3xf32>, tensor<1xf32>
}

// -----

// matmul: numpy semantics, a broadcast batch, a 1-D rhs (its dim dropped),
// integers in wrapping 64-bit arithmetic; splat operands still multiply
// out (a splat matmul is no splat of one product).
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: hodu.constant dense<{{\[}}{{\[}}[5.000000e+00, 2.000000e+00], [1.100000e+01, 6.000000e+00]], {{\[}}[-5.000000e+00, -2.000000e+00], [-1.100000e+01, -6.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK-DAG: hodu.constant dense<[5, 11]> : tensor<2xi32>
// CHECK-DAG: hodu.constant dense<6.000000e+00> : tensor<2x2xf32>
// CHECK-NOT: hodu.matmul
func.func @matmul() -> (tensor<2x2x2xf32>, tensor<2xi32>, tensor<2x2xf32>) {
  %a = hodu.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[-1.0, -2.0], [-3.0, -4.0]]]> : tensor<2x2x2xf32>
  %b = hodu.constant dense<[[1.0, 2.0], [2.0, 0.0]]> : tensor<2x2xf32>
  %0 = hodu.matmul %a, %b : (tensor<2x2x2xf32>, tensor<2x2xf32>) -> tensor<2x2x2xf32>
  %ai = hodu.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %v = hodu.constant dense<[1, 2]> : tensor<2xi32>
  %1 = hodu.matmul %ai, %v : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %s = hodu.constant dense<1.5> : tensor<2x4xf32>
  %t = hodu.constant dense<1.0> : tensor<4x2xf32>
  %2 = hodu.matmul %s, %t : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2x2xf32>, tensor<2xi32>, tensor<2x2xf32>
}

// -----

// conv: padding, stride 2, two groups (each output channel sees only its
// group's input channel; the taps are x[2i][2j], scaled by 1 and -2); reduce_window: max ignores padding, a mean
// without count_include_pad divides by the positions inside.
// CHECK-LABEL: func.func @conv_and_pool
// CHECK-DAG: hodu.constant dense<{{\[}}{{\[}}{{\[}}[0.000000e+00, 2.000000e+00], [8.000000e+00, 1.000000e+01]], {{\[}}[0.000000e+00, -4.000000e+00], [-1.600000e+01, -2.000000e+01]]]]> : tensor<1x2x2x2xf32>
// CHECK-DAG: hodu.constant dense<{{\[}}{{\[}}{{\[}}[5.000000e+00, 7.000000e+00], [1.300000e+01, 1.500000e+01]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG: hodu.constant dense<{{\[}}{{\[}}{{\[}}[0.000000e+00, 1.500000e+00], [6.000000e+00, 7.500000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-NOT: hodu.conv
// CHECK-NOT: hodu.reduce_window
func.func @conv_and_pool() -> (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %x = hodu.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]],
                             [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]]]> : tensor<1x2x4x4xf32>
  %w = hodu.constant dense<[[[[0.0, 0.0], [0.0, 1.0]]], [[[0.0, 0.0], [0.0, -2.0]]]]> : tensor<2x1x2x2xf32>
  %0 = hodu.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64}
       : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = hodu.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]]]> : tensor<1x1x4x4xf32>
  %1 = hodu.reduce_window %p {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>,
       pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %2 = hodu.reduce_window %p {kind = #hodu<window_kind mean>, window_dims = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>,
       pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0, %1, %2 : tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// reduce_all / reduce_any along a dim.
// CHECK-LABEL: func.func @logical_reductions
// CHECK-DAG: hodu.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: hodu.constant dense<true> : tensor<2xi1>
func.func @logical_reductions() -> (tensor<2xi1>, tensor<2xi1>) {
  %x = hodu.constant dense<[[true, true], [false, true]]> : tensor<2x2xi1>
  %0 = hodu.reduce_all %x {dims = array<i64: 1>} : (tensor<2x2xi1>) -> tensor<2xi1>
  %1 = hodu.reduce_any %x {dims = array<i64: 1>} : (tensor<2x2xi1>) -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}
