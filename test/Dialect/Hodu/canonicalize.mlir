// RUN: hodu-opt %s --canonicalize --split-input-file | FileCheck %s

// Two negations cancel, a multiply by one folds away.
// CHECK-LABEL: func.func @neg_neg_mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @neg_neg_mul_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = hodu.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %nn = hodu.neg %n : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = hodu.constant dense<1.0> : tensor<2x3xf32>
  %r = hodu.mul %nn, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// x + (-0.0) is x for every x (also -0.0), so it folds; x + 0 (int) folds,
// with the constant on either side (add is commutative).
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[I:[a-z0-9]+]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[I]], %[[I]]
func.func @add_zero(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %nz = hodu.constant dense<-0.0> : tensor<4xf32>
  %z = hodu.constant dense<0> : tensor<4xi32>
  %0 = hodu.add %x, %nz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = hodu.add %i, %z : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = hodu.add %z, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// x + (+0.0) is not x when x is -0.0: no fold.
// CHECK-LABEL: func.func @add_pos_zero_float
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:.*]] = hodu.constant dense<0.000000e+00>
// CHECK-NEXT: %[[R:.*]] = hodu.add %[[X]], %[[Z]]
// CHECK-NEXT: return %[[R]]
func.func @add_pos_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = hodu.constant dense<0.0> : tensor<4xf32>
  %0 = hodu.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x - (+0.0) and x - 0 fold to x; x - (-0.0) does not (it is x + 0.0).
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf16>, %[[U:[a-z0-9]+]]: tensor<4xui8>)
// CHECK-NEXT: %[[NZ:.*]] = hodu.constant dense<-0.000000e+00>
// CHECK-NEXT: %[[R:.*]] = hodu.sub %[[X]], %[[NZ]]
// CHECK-NEXT: return %[[X]], %[[U]], %[[R]]
func.func @sub_zero(%x: tensor<4xf16>, %u: tensor<4xui8>) -> (tensor<4xf16>, tensor<4xui8>, tensor<4xf16>) {
  %z = hodu.constant dense<0.0> : tensor<4xf16>
  %nz = hodu.constant dense<-0.0> : tensor<4xf16>
  %zu = hodu.constant dense<0> : tensor<4xui8>
  %0 = hodu.sub %x, %z : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %1 = hodu.sub %u, %zu : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = hodu.sub %x, %nz : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xui8>, tensor<4xf16>
}

// -----

// Multiplying, dividing and raising to one fold away (float and int; the
// one may be a 0-d or smaller-shape constant that broadcasts into x).
// CHECK-LABEL: func.func @mul_div_pow_one
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[I:[a-z0-9]+]]: tensor<2x3xi64>)
// CHECK-NEXT: return %[[X]], %[[I]], %[[X]], %[[I]], %[[X]]
func.func @mul_div_pow_one(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>)
    -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) {
  %one = hodu.constant dense<1.0> : tensor<f32>
  %onei = hodu.constant dense<1> : tensor<3xi64>
  %0 = hodu.mul %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = hodu.mul %onei, %i : (tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %2 = hodu.div %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = hodu.div %i, %onei : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %4 = hodu.pow %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>
}

// -----

// No identity fold when the constant broadcasts x to a larger shape: the
// result type differs from x's.
// CHECK-LABEL: func.func @mul_one_broadcasts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[ONE:.*]] = hodu.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = hodu.mul %[[X]], %[[ONE]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @mul_one_broadcasts(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %one = hodu.constant dense<1.0> : tensor<2x3xf32>
  %0 = hodu.mul %x, %one : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// maximum(x, x) and minimum(x, x) are x.
// CHECK-LABEL: func.func @max_min_self
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @max_min_self(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = hodu.maximum %x, %x : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %1 = hodu.minimum %x, %x : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

// Float constant folding of add, sub, mul, div, maximum and minimum;
// division by zero gives inf and maximum propagates NaN.
// CHECK-LABEL: func.func @fold_float
// CHECK-DAG: %[[ADD:.*]] = hodu.constant dense<[5.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[SUB:.*]] = hodu.constant dense<[-3.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MUL:.*]] = hodu.constant dense<[4.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[DIV:.*]] = hodu.constant dense<[2.500000e-01, 0x7F800000]> : tensor<2xf32>
// CHECK-DAG: %[[MAX:.*]] = hodu.constant dense<[4.000000e+00, 0x7FC00000]> : tensor<2xf32>
// CHECK-DAG: %[[MIN:.*]] = hodu.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: hodu.add
// CHECK-NOT: hodu.sub
// CHECK-NOT: hodu.mul
// CHECK-NOT: hodu.div
// CHECK-NOT: hodu.maximum
// CHECK-NOT: hodu.minimum
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]]
func.func @fold_float() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = hodu.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = hodu.constant dense<[4.0, -2.0]> : tensor<2xf32>
  %c = hodu.constant dense<[4.0, 0.0]> : tensor<2xf32>
  %nan = hodu.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %0 = hodu.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = hodu.sub %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = hodu.mul %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = hodu.div %a, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %4 = hodu.maximum %b, %nan : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %5 = hodu.minimum %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Integer constant folding wraps; maximum/minimum honour the signedness of
// the dtype (i8 is signed, ui8 unsigned: 255 > 1).
// CHECK-LABEL: func.func @fold_int
// CHECK-DAG: %[[ADD:.*]] = hodu.constant dense<[4, 2]> : tensor<2xui8>
// CHECK-DAG: %[[MUL:.*]] = hodu.constant dense<[-6, 0]> : tensor<2xi8>
// CHECK-DAG: %[[SMAX:.*]] = hodu.constant dense<[3, 0]> : tensor<2xi8>
// CHECK-DAG: %[[UMAX:.*]] = hodu.constant dense<[255, 1]> : tensor<2xui8>
// CHECK-DAG: %[[SMIN:.*]] = hodu.constant dense<[-1, -128]> : tensor<2xi8>
// CHECK-DAG: %[[SUB:.*]] = hodu.constant dense<-2> : tensor<2xi64>
// CHECK: return %[[ADD]], %[[MUL]], %[[SMAX]], %[[UMAX]], %[[SMIN]], %[[SUB]]
func.func @fold_int() -> (tensor<2xui8>, tensor<2xi8>, tensor<2xi8>, tensor<2xui8>, tensor<2xi8>, tensor<2xi64>) {
  %u1 = hodu.constant dense<[250, 1]> : tensor<2xui8>
  %u2 = hodu.constant dense<[10, 1]> : tensor<2xui8>
  %u3 = hodu.constant dense<[255, 0]> : tensor<2xui8>
  %i1 = hodu.constant dense<[-1, 0]> : tensor<2xi8>
  %i2 = hodu.constant dense<[6, -128]> : tensor<2xi8>
  %i3 = hodu.constant dense<[3, -128]> : tensor<2xi8>
  %l1 = hodu.constant dense<3> : tensor<2xi64>
  %l2 = hodu.constant dense<5> : tensor<2xi64>
  %0 = hodu.add %u1, %u2 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %1 = hodu.mul %i1, %i2 : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %2 = hodu.maximum %i1, %i3 : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %3 = hodu.maximum %u3, %u2 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %4 = hodu.minimum %i1, %i2 : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %5 = hodu.sub %l1, %l2 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2xui8>, tensor<2xi8>, tensor<2xi8>, tensor<2xui8>, tensor<2xi8>, tensor<2xi64>
}

// -----

// Integer division by a constant is left alone (division by zero, signedness),
// and so is folding across broadcasting operands.
// CHECK-LABEL: func.func @no_fold
// CHECK: hodu.div
// CHECK: hodu.add
// CHECK-SAME: (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
func.func @no_fold() -> (tensor<2xi32>, tensor<2xf32>) {
  %a = hodu.constant dense<[7, 8]> : tensor<2xi32>
  %b = hodu.constant dense<[2, 0]> : tensor<2xi32>
  %0 = hodu.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %c = hodu.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = hodu.constant dense<3.0> : tensor<f32>
  %1 = hodu.add %c, %d : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xi32>, tensor<2xf32>
}

// -----

// Casting to the operand's own type folds; a real cast stays.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[C:.*]] = hodu.cast %[[X]] : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @cast(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = hodu.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = hodu.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}

// -----

// A concat of one input is that input.
// CHECK-LABEL: func.func @concat_single
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xi1>)
// CHECK-NEXT: return %[[X]]
func.func @concat_single(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %0 = hodu.concat %x {dim = 1 : i64} : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// reshape(reshape(x)) is one reshape; a reshape back to x's type is x.
// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x6xf32>)
// CHECK-NEXT: %[[R:.*]] = hodu.reshape %[[X]] : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @reshape_reshape(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<2x6xf32>) {
  %0 = hodu.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = hodu.reshape %0 : (tensor<12xf32>) -> tensor<3x4xf32>
  %2 = hodu.reshape %0 : (tensor<12xf32>) -> tensor<2x6xf32>
  return %1, %2 : tensor<3x4xf32>, tensor<2x6xf32>
}

// -----

// A constant reshapes into a new constant, but not into a dynamic shape
// (which a constant cannot have).
// CHECK-LABEL: func.func @reshape_constant
// CHECK-DAG: %[[C:.*]] = hodu.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi16>
// CHECK-DAG: %[[D:.*]] = hodu.constant dense<[1, 2, 3, 4]> : tensor<4xi16>
// CHECK-DAG: %[[R:.*]] = hodu.reshape %[[D]] : (tensor<4xi16>) -> tensor<?xi16>
// CHECK: return %[[C]], %[[R]]
func.func @reshape_constant() -> (tensor<2x2xi16>, tensor<?xi16>) {
  %c = hodu.constant dense<[1, 2, 3, 4]> : tensor<4xi16>
  %0 = hodu.reshape %c : (tensor<4xi16>) -> tensor<2x2xi16>
  %1 = hodu.reshape %c : (tensor<4xi16>) -> tensor<?xi16>
  return %0, %1 : tensor<2x2xi16>, tensor<?xi16>
}

// -----

// Broadcast to its own type is the identity; a splat constant broadcasts
// into a bigger splat; a non-splat constant and dynamic shapes stay.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-DAG: %[[S:.*]] = hodu.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: %[[N:.*]] = hodu.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[NB:.*]] = hodu.broadcast %[[N]] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-DAG: %[[C:.*]] = hodu.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[DB:.*]] = hodu.broadcast %[[C]] : (tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: return %[[X]], %[[S]], %[[NB]], %[[DB]]
func.func @broadcast(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>) {
  %0 = hodu.broadcast %x : (tensor<3xf32>) -> tensor<3xf32>
  %c = hodu.constant dense<2.0> : tensor<3xf32>
  %1 = hodu.broadcast %c : (tensor<3xf32>) -> tensor<4x3xf32>
  %n = hodu.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %2 = hodu.broadcast %n : (tensor<3xf32>) -> tensor<2x3xf32>
  %3 = hodu.broadcast %c : (tensor<3xf32>) -> tensor<?x3xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>
}

// -----

// The identity permutation folds; two transposes compose into one, and into
// nothing when they cancel.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = hodu.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[X]], %[[T]], %[[X]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = hodu.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // [1, 0, 2] then [2, 1, 0]: result dim i = x dim p1[p2[i]] = [2, 0, 1].
  %1 = hodu.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %2 = hodu.transpose %1 {perm = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  // [1, 2, 0] undone by [2, 0, 1].
  %3 = hodu.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %4 = hodu.transpose %3 {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  return %0, %2, %4 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// A slice of everything with step 1 is the identity. A slice that drops
// elements of a dynamic dim has the input's type but is not the identity.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x6xf32>, %[[D:[a-z0-9]+]]: tensor<?xf32>)
// CHECK-NEXT: %[[S:.*]] = hodu.slice %[[D]] {ends = array<i64: 3>, starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return %[[X]], %[[S]]
func.func @slice(%x: tensor<2x6xf32>, %d: tensor<?xf32>) -> (tensor<2x6xf32>, tensor<?xf32>) {
  %0 = hodu.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 6>, steps = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %1 = hodu.slice %d {starts = array<i64: 1>, ends = array<i64: 3>, steps = array<i64: 1>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<2x6xf32>, tensor<?xf32>
}

// -----

// A reversing slice of a size-1 dim keeps the type and is still the identity
// only when its bounds are [0, size) with step 1: this one is not folded.
// CHECK-LABEL: func.func @slice_reverse_one
// CHECK: hodu.slice
func.func @slice_reverse_one(%x: tensor<1xf32>) -> tensor<1xf32> {
  %0 = hodu.slice %x {starts = array<i64: 0>, ends = array<i64: -1>, steps = array<i64: -1>} : (tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Memory and Dummy fold away.
// CHECK-LABEL: func.func @contiguous_dummy
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2xui64>)
// CHECK-NEXT: return %[[X]]
func.func @contiguous_dummy(%x: tensor<2xui64>) -> tensor<2xui64> {
  %0 = hodu.contiguous %x : (tensor<2xui64>) -> tensor<2xui64>
  %1 = hodu.dummy %0 : (tensor<2xui64>) -> tensor<2xui64>
  return %1 : tensor<2xui64>
}

// -----

// neg cancels itself; idempotent ops apply once (abs, relu, ceil, floor,
// round). recip(recip x) is kept: it is not exact (1e-40 -> inf -> 0).
// CHECK-LABEL: func.func @involution_idempotent
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[I:[a-z0-9]+]]: tensor<4xi32>)
// CHECK-NEXT: %[[R1:.*]] = hodu.recip %[[X]]
// CHECK-NEXT: %[[R2:.*]] = hodu.recip %[[R1]]
// CHECK-NEXT: %[[A:.*]] = hodu.abs %[[I]]
// CHECK-NEXT: %[[R:.*]] = hodu.relu %[[X]]
// CHECK-NEXT: %[[C:.*]] = hodu.ceil %[[X]]
// CHECK-NEXT: %[[F:.*]] = hodu.floor %[[X]]
// CHECK-NEXT: %[[RD:.*]] = hodu.round %[[X]]
// CHECK-NEXT: return %[[I]], %[[R2]], %[[A]], %[[R]], %[[C]], %[[F]], %[[RD]]
func.func @involution_idempotent(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n = hodu.neg %i : (tensor<4xi32>) -> tensor<4xi32>
  %nn = hodu.neg %n : (tensor<4xi32>) -> tensor<4xi32>
  %r = hodu.recip %x : (tensor<4xf32>) -> tensor<4xf32>
  %rr = hodu.recip %r : (tensor<4xf32>) -> tensor<4xf32>
  %a = hodu.abs %i : (tensor<4xi32>) -> tensor<4xi32>
  %aa = hodu.abs %a : (tensor<4xi32>) -> tensor<4xi32>
  %l = hodu.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %ll = hodu.relu %l : (tensor<4xf32>) -> tensor<4xf32>
  %c = hodu.ceil %x : (tensor<4xf32>) -> tensor<4xf32>
  %cc = hodu.ceil %c : (tensor<4xf32>) -> tensor<4xf32>
  %f = hodu.floor %x : (tensor<4xf32>) -> tensor<4xf32>
  %ff = hodu.floor %f : (tensor<4xf32>) -> tensor<4xf32>
  %o = hodu.round %x : (tensor<4xf32>) -> tensor<4xf32>
  %oo = hodu.round %o : (tensor<4xf32>) -> tensor<4xf32>
  return %nn, %rr, %aa, %ll, %cc, %ff, %oo : tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops with no folder are not removed, even on constants (rem, sigmoid).
// CHECK-LABEL: func.func @no_folder
// CHECK: hodu.rem
// CHECK: hodu.sigmoid
func.func @no_folder(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = hodu.constant dense<1.0> : tensor<4xf32>
  %0 = hodu.rem %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = hodu.sigmoid %one : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The folders evaluate with the dialect's evaluator: f16 results round to
// f16, and maximum orders -0 below +0 like the compiled code.
// CHECK-LABEL: func.func @fold_f16_signed_zero
// CHECK-DAG: %[[ADD:.*]] = hodu.constant dense<[1.000000e+00, 2.001950e+00]> : tensor<2xf16>
// CHECK-DAG: %[[MAX:.*]] = hodu.constant dense<[5.000000e-01, 0.000000e+00]> : tensor<2xf16>
// CHECK: return %[[ADD]], %[[MAX]]
func.func @fold_f16_signed_zero() -> (tensor<2xf16>, tensor<2xf16>) {
  %a = hodu.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %b = hodu.constant dense<[0.00048828125, 0.001953125]> : tensor<2xf16>
  %c = hodu.constant dense<[0.5, -0.0]> : tensor<2xf16>
  %d = hodu.constant dense<[-1.0, 0.0]> : tensor<2xf16>
  %0 = hodu.add %a, %b : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %1 = hodu.maximum %c, %d : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  return %0, %1 : tensor<2xf16>, tensor<2xf16>
}
