// Round trip of the Reduce, Windowing, Scan and Sort families.
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s

// Every value-keeping Reduce op, with and without keep_dim, over one, two and
// no dims.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>, %[[I:[a-z0-9]+]]: tensor<2x3xi32>)
// CHECK-NEXT: hodu.reduce_sum %[[X]] {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: hodu.reduce_mean %[[X]] {dims = array<i64: 0, 2>, keep_dim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// CHECK-NEXT: hodu.reduce_max %[[I]] {dims = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
// CHECK-NEXT: hodu.reduce_min %[[I]] {dims = array<i64: 1>, keep_dim = true} : (tensor<2x3xi32>) -> tensor<2x1xi32>
// CHECK-NEXT: hodu.reduce_prod %[[I]] {dims = array<i64>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT: hodu.reduce_std %[[X]] {dims = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: hodu.reduce_var %[[X]] {dims = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: hodu.reduce_norm %[[X]] {dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK-NEXT: hodu.reduce_logsum %[[X]] {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: hodu.reduce_logsumexp %[[X]] {dims = array<i64: 1>, keep_dim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
func.func @reduce(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) {
  %0 = hodu.reduce_sum %x {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = hodu.reduce_mean %x {dims = array<i64: 0, 2>, keep_dim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %2 = hodu.reduce_max %i {dims = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
  %3 = hodu.reduce_min %i {dims = array<i64: 1>, keep_dim = true} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  %4 = hodu.reduce_prod %i {dims = array<i64>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %5 = hodu.reduce_std %x {dims = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %6 = hodu.reduce_var %x {dims = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %7 = hodu.reduce_norm %x {dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  %8 = hodu.reduce_logsum %x {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %9 = hodu.reduce_logsumexp %x {dims = array<i64: 1>, keep_dim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

// Reductions on the remaining dtypes; a dynamic dim survives when not reduced.
// CHECK-LABEL: func.func @reduce_dtypes
// CHECK-NEXT: hodu.reduce_sum %{{.*}} {dims = array<i64: 0>} : (tensor<8xui8>) -> tensor<ui8>
// CHECK-NEXT: hodu.reduce_max %{{.*}} {dims = array<i64: 1>} : (tensor<?x8xf8E4M3FN>) -> tensor<?xf8E4M3FN>
// CHECK-NEXT: hodu.reduce_mean %{{.*}} {dims = array<i64: 0>} : (tensor<8xf64>) -> tensor<f64>
func.func @reduce_dtypes(%a: tensor<8xui8>, %b: tensor<?x8xf8E4M3FN>, %c: tensor<8xf64>) {
  %0 = hodu.reduce_sum %a {dims = array<i64: 0>} : (tensor<8xui8>) -> tensor<ui8>
  %1 = hodu.reduce_max %b {dims = array<i64: 1>} : (tensor<?x8xf8E4M3FN>) -> tensor<?xf8E4M3FN>
  %2 = hodu.reduce_mean %c {dims = array<i64: 0>} : (tensor<8xf64>) -> tensor<f64>
  return
}

// -----

// Arg reductions give i64 indices; reduce_any/all give i1.
// CHECK-LABEL: func.func @reduce_index_and_bool
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3x5xf16>, %[[P:[a-z0-9]+]]: tensor<3x5xi1>)
// CHECK-NEXT: hodu.argmax %[[X]] {dims = array<i64: 1>} : (tensor<3x5xf16>) -> tensor<3xi64>
// CHECK-NEXT: hodu.argmin %[[X]] {dims = array<i64: 0>, keep_dim = true, select_last_index} : (tensor<3x5xf16>) -> tensor<1x5xi64>
// CHECK-NEXT: hodu.reduce_any %[[P]] {dims = array<i64: 1>} : (tensor<3x5xi1>) -> tensor<3xi1>
// CHECK-NEXT: hodu.reduce_all %[[X]] {dims = array<i64: 0, 1>} : (tensor<3x5xf16>) -> tensor<i1>
func.func @reduce_index_and_bool(%x: tensor<3x5xf16>, %p: tensor<3x5xi1>) {
  %0 = hodu.argmax %x {dims = array<i64: 1>} : (tensor<3x5xf16>) -> tensor<3xi64>
  %1 = hodu.argmin %x {dims = array<i64: 0>, keep_dim = true, select_last_index} : (tensor<3x5xf16>) -> tensor<1x5xi64>
  %2 = hodu.reduce_any %p {dims = array<i64: 1>} : (tensor<3x5xi1>) -> tensor<3xi1>
  %3 = hodu.reduce_all %x {dims = array<i64: 0, 1>} : (tensor<3x5xf16>) -> tensor<i1>
  return
}

// -----

// Pooling: 2x2 max pool with stride 2, and a padded, dilated mean window.
// CHECK-LABEL: func.func @reduce_window
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3x8x8xf32>, %[[Y:[a-z0-9]+]]: tensor<5xi32>)
// CHECK-NEXT: hodu.reduce_window %[[X]] {dilations = array<i64: 1, 1, 1, 1>, kind = #hodu<window_kind max>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 2, 2>, window_dims = array<i64: 1, 1, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT: hodu.reduce_window %[[X]] {count_include_pad = true, dilations = array<i64: 1, 1, 2, 2>, kind = #hodu<window_kind mean>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, strides = array<i64: 1, 1, 1, 1>, window_dims = array<i64: 1, 1, 3, 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32>
// CHECK-NEXT: hodu.reduce_window %[[Y]] {dilations = array<i64: 1>, kind = #hodu<window_kind sum>, pads = array<i64: 0, 0>, strides = array<i64: 1>, window_dims = array<i64: 3>} : (tensor<5xi32>) -> tensor<3xi32>
// CHECK-NEXT: hodu.reduce_window %[[Y]] {dilations = array<i64: 1>, kind = #hodu<window_kind min>, pads = array<i64: 1, 1>, strides = array<i64: 2>, window_dims = array<i64: 2>} : (tensor<5xi32>) -> tensor<3xi32>
func.func @reduce_window(%x: tensor<1x3x8x8xf32>, %y: tensor<5xi32>) {
  %0 = hodu.reduce_window %x {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 2, 2>,
         strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>,
         dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %1 = hodu.reduce_window %x {kind = #hodu<window_kind mean>, window_dims = array<i64: 1, 1, 3, 3>,
         strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>,
         dilations = array<i64: 1, 1, 2, 2>, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32>
  %2 = hodu.reduce_window %y {kind = #hodu<window_kind sum>, window_dims = array<i64: 3>,
         strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<5xi32>) -> tensor<3xi32>
  %3 = hodu.reduce_window %y {kind = #hodu<window_kind min>, window_dims = array<i64: 2>,
         strides = array<i64: 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1>} : (tensor<5xi32>) -> tensor<3xi32>
  return
}

// -----

// Cumulative sum with the exclusive and reverse flags.
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x5xf32>, %[[I:[a-z0-9]+]]: tensor<7xi64>)
// CHECK-NEXT: hodu.cumsum %[[X]] {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: hodu.cumsum %[[I]] {dim = 0 : i64, exclusive, reverse} : (tensor<7xi64>) -> tensor<7xi64>
func.func @cumsum(%x: tensor<2x5xf32>, %i: tensor<7xi64>) {
  %0 = hodu.cumsum %x {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = hodu.cumsum %i {dim = 0 : i64, exclusive, reverse} : (tensor<7xi64>) -> tensor<7xi64>
  return
}

// -----

// TopK has two results: the values and their i64 indices.
// CHECK-LABEL: func.func @topk
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3x4xf32>, %[[U:[a-z0-9]+]]: tensor<6xui16>)
// CHECK-NEXT: %[[V:.*]], %[[I:.*]] = hodu.topk %[[X]] {dim = 1 : i64, k = 2 : i64} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK-NEXT: %{{.*}}, %[[J:.*]] = hodu.topk %[[U]] {dim = 0 : i64, k = 6 : i64, largest = false, sorted = false} : (tensor<6xui16>) -> (tensor<6xui16>, tensor<6xi64>)
// CHECK-NEXT: return %[[V]], %[[I]], %[[J]]
func.func @topk(%x: tensor<3x4xf32>, %u: tensor<6xui16>) -> (tensor<3x2xf32>, tensor<3x2xi64>, tensor<6xi64>) {
  %v, %i = hodu.topk %x {k = 2 : i64, dim = 1 : i64, largest = true, sorted = true}
         : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  %w, %j = hodu.topk %u {k = 6 : i64, dim = 0 : i64, largest = false, sorted = false}
         : (tensor<6xui16>) -> (tensor<6xui16>, tensor<6xi64>)
  return %v, %i, %j : tensor<3x2xf32>, tensor<3x2xi64>, tensor<6xi64>
}
