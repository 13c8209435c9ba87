// Round trip of the data-movement families: Concat, Split, Shape,
// ShapeScalars, ShapeMemory, Padding, Resize, Memory and Dummy.
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s

// Concat of two and of three inputs; one input is allowed.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[C:[a-z0-9]+]]: tensor<2x1xi1>)
// CHECK-NEXT: hodu.concat %[[A]], %[[B]] {dim = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: hodu.concat %[[C]], %[[C]], %[[C]] {dim = 1 : i64} : (tensor<2x1xi1>, tensor<2x1xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: hodu.concat %[[A]] {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x1xi1>) {
  %0 = hodu.concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %1 = hodu.concat %c, %c, %c {dim = 1 : i64} : (tensor<2x1xi1>, tensor<2x1xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  %2 = hodu.concat %a {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Split gives one result per size; a zero-sized piece is allowed.
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x5xui8>)
// CHECK-NEXT: %[[S:.*]]:2 = hodu.split %[[X]] {dim = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<4x5xui8>) -> (tensor<4x2xui8>, tensor<4x3xui8>)
// CHECK-NEXT: %[[T:.*]]:3 = hodu.split %[[X]] {dim = 0 : i64, sizes = array<i64: 1, 0, 3>} : (tensor<4x5xui8>) -> (tensor<1x5xui8>, tensor<0x5xui8>, tensor<3x5xui8>)
// CHECK-NEXT: return %[[S]]#1, %[[T]]#2
func.func @split(%x: tensor<4x5xui8>) -> (tensor<4x3xui8>, tensor<3x5xui8>) {
  %a:2 = hodu.split %x {dim = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<4x5xui8>) -> (tensor<4x2xui8>, tensor<4x3xui8>)
  %b:3 = hodu.split %x {dim = 0 : i64, sizes = array<i64: 1, 0, 3>} : (tensor<4x5xui8>) -> (tensor<1x5xui8>, tensor<0x5xui8>, tensor<3x5xui8>)
  return %a#1, %b#2 : tensor<4x3xui8>, tensor<3x5xui8>
}

// -----

// Reshape: to fewer dims, to 0-d, and with a dynamic dim.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xi16>, %[[S:[a-z0-9]+]]: tensor<1x1xf32>, %[[D:[a-z0-9]+]]: tensor<?x4xf32>)
// CHECK-NEXT: hodu.reshape %[[X]] : (tensor<2x3xi16>) -> tensor<6xi16>
// CHECK-NEXT: hodu.reshape %[[S]] : (tensor<1x1xf32>) -> tensor<f32>
// CHECK-NEXT: hodu.reshape %[[D]] : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
func.func @reshape(%x: tensor<2x3xi16>, %s: tensor<1x1xf32>, %d: tensor<?x4xf32>) {
  %0 = hodu.reshape %x : (tensor<2x3xi16>) -> tensor<6xi16>
  %1 = hodu.reshape %s : (tensor<1x1xf32>) -> tensor<f32>
  %2 = hodu.reshape %d : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  return
}

// -----

// Flatten with a negative end, a middle range, and a 0-d input.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>, %[[S:[a-z0-9]+]]: tensor<i64>)
// CHECK-NEXT: hodu.flatten %[[X]] {end_dim = -1 : i64, start_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: hodu.flatten %[[X]] {end_dim = 1 : i64, start_dim = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: hodu.flatten %[[S]] {end_dim = 0 : i64, start_dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
func.func @flatten(%x: tensor<2x3x4xf32>, %s: tensor<i64>) {
  %0 = hodu.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = hodu.flatten %x {start_dim = 0 : i64, end_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = hodu.flatten %s {start_dim = 0 : i64, end_dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  return
}

// -----

// Squeeze and unsqueeze add and remove size-1 dims.
// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3x1xf64>, %[[Y:[a-z0-9]+]]: tensor<3xf64>)
// CHECK-NEXT: hodu.squeeze %[[X]] {dims = array<i64: 0, 2>} : (tensor<1x3x1xf64>) -> tensor<3xf64>
// CHECK-NEXT: hodu.unsqueeze %[[Y]] {dims = array<i64: 0, 2>} : (tensor<3xf64>) -> tensor<1x3x1xf64>
// CHECK-NEXT: hodu.unsqueeze %[[Y]] {dims = array<i64: 1>} : (tensor<3xf64>) -> tensor<3x1xf64>
func.func @squeeze_unsqueeze(%x: tensor<1x3x1xf64>, %y: tensor<3xf64>) {
  %0 = hodu.squeeze %x {dims = array<i64: 0, 2>} : (tensor<1x3x1xf64>) -> tensor<3xf64>
  %1 = hodu.unsqueeze %y {dims = array<i64: 0, 2>} : (tensor<3xf64>) -> tensor<1x3x1xf64>
  %2 = hodu.unsqueeze %y {dims = array<i64: 1>} : (tensor<3xf64>) -> tensor<3x1xf64>
  return
}

// -----

// Broadcast adds leading dims and stretches size-1 dims.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3xi8>, %[[Y:[a-z0-9]+]]: tensor<2x1xi8>)
// CHECK-NEXT: hodu.broadcast %[[X]] : (tensor<3xi8>) -> tensor<2x3xi8>
// CHECK-NEXT: hodu.broadcast %[[Y]] : (tensor<2x1xi8>) -> tensor<5x2x4xi8>
func.func @broadcast(%x: tensor<3xi8>, %y: tensor<2x1xi8>) {
  %0 = hodu.broadcast %x : (tensor<3xi8>) -> tensor<2x3xi8>
  %1 = hodu.broadcast %y : (tensor<2x1xi8>) -> tensor<5x2x4xi8>
  return
}

// -----

// Transpose permutes dims.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xbf16>)
// CHECK-NEXT: %[[R:.*]] = hodu.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16>
// CHECK-NEXT: return %[[R]]
func.func @transpose(%x: tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16> {
  %0 = hodu.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16>
  return %0 : tensor<4x2x3xbf16>
}

// -----

// Slice with steps, a backwards slice through element 0, and an empty slice.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x6xf32>)
// CHECK-NEXT: hodu.slice %[[X]] {ends = array<i64: 2, 5>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : (tensor<2x6xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: hodu.slice %[[X]] {ends = array<i64: -1, -1>, starts = array<i64: 1, 5>, steps = array<i64: -1, -2>} : (tensor<2x6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: hodu.slice %[[X]] {ends = array<i64: 2, 3>, starts = array<i64: 0, 3>, steps = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x0xf32>
func.func @slice(%x: tensor<2x6xf32>) {
  %0 = hodu.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 2, 5>, steps = array<i64: 1, 2>} : (tensor<2x6xf32>) -> tensor<2x2xf32>
  %1 = hodu.slice %x {starts = array<i64: 1, 5>, ends = array<i64: -1, -1>, steps = array<i64: -1, -2>} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %2 = hodu.slice %x {starts = array<i64: 0, 3>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x0xf32>
  return
}

// -----

// Flip keeps the type.
// CHECK-LABEL: func.func @flip
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xui32>)
// CHECK-NEXT: hodu.flip %[[X]] {dims = array<i64: 0, 1>} : (tensor<2x3xui32>) -> tensor<2x3xui32>
func.func @flip(%x: tensor<2x3xui32>) {
  %0 = hodu.flip %x {dims = array<i64: 0, 1>} : (tensor<2x3xui32>) -> tensor<2x3xui32>
  return
}

// -----

// Pad in every mode; constant mode takes an optional typed value.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[I:[a-z0-9]+]]: tensor<4xi32>)
// CHECK-NEXT: hodu.pad %[[X]] {mode = #hodu<pad_mode constant>, pads = array<i64: 1, 0, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: hodu.pad %[[I]] {mode = #hodu<pad_mode constant>, pads = array<i64: 2, 2>, value = -1 : i32} : (tensor<4xi32>) -> tensor<8xi32>
// CHECK-NEXT: hodu.pad %[[X]] {mode = #hodu<pad_mode reflect>, pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: hodu.pad %[[X]] {mode = #hodu<pad_mode replicate>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: hodu.pad %[[I]] {mode = #hodu<pad_mode circular>, pads = array<i64: 3, 0>} : (tensor<4xi32>) -> tensor<7xi32>
func.func @pad(%x: tensor<2x3xf32>, %i: tensor<4xi32>) {
  %0 = hodu.pad %x {mode = #hodu<pad_mode constant>, pads = array<i64: 1, 0, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x5xf32>
  %1 = hodu.pad %i {mode = #hodu<pad_mode constant>, pads = array<i64: 2, 2>, value = -1 : i32} : (tensor<4xi32>) -> tensor<8xi32>
  %2 = hodu.pad %x {mode = #hodu<pad_mode reflect>, pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  %3 = hodu.pad %x {mode = #hodu<pad_mode replicate>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %4 = hodu.pad %i {mode = #hodu<pad_mode circular>, pads = array<i64: 3, 0>} : (tensor<4xi32>) -> tensor<7xi32>
  return
}

// -----

// Resize: nearest with its rounding mode, linear, and cubic with every option.
// CHECK-LABEL: func.func @resize
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x1x2x2xf32>)
// CHECK-NEXT: hodu.resize %[[X]] {coord_transform = #hodu<coord_transform asymmetric>, mode = #hodu<resize_mode nearest>, nearest_mode = #hodu<nearest_mode floor>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT: hodu.resize %[[X]] {coord_transform = #hodu<coord_transform half_pixel>, mode = #hodu<resize_mode linear>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x5xf32>
// CHECK-NEXT: hodu.resize %[[X]] {coord_transform = #hodu<coord_transform align_corners>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside, mode = #hodu<resize_mode cubic>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
func.func @resize(%x: tensor<1x1x2x2xf32>) {
  %0 = hodu.resize %x {mode = #hodu<resize_mode nearest>, coord_transform = #hodu<coord_transform asymmetric>,
         nearest_mode = #hodu<nearest_mode floor>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %1 = hodu.resize %x {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>}
         : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x5xf32>
  %2 = hodu.resize %x {mode = #hodu<resize_mode cubic>, coord_transform = #hodu<coord_transform align_corners>,
         cubic_coeff_a = -0.5 : f32, exclude_outside} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
  return
}

// Scales and a region of interest read when the model runs.
// CHECK-LABEL: func.func @resize_operands
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x1x4x4xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>, %[[R:[a-z0-9]+]]: tensor<8xf16>)
// CHECK-NEXT: hodu.resize %[[X]] scales(%[[S]]) {coord_transform = #hodu<coord_transform tf_half_pixel_for_nn>, mode = #hodu<resize_mode nearest>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<1x1x2x3xf32>
// CHECK-NEXT: hodu.resize %[[X]] roi(%[[R]]) {coord_transform = #hodu<coord_transform tf_crop_and_resize>, extrapolation_value = 1.000000e+01 : f32, mode = #hodu<resize_mode linear>} : (tensor<1x1x4x4xf32>, tensor<8xf16>) -> tensor<1x1x3x3xf32>
func.func @resize_operands(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>, %roi: tensor<8xf16>) {
  %0 = hodu.resize %x scales(%s) {mode = #hodu<resize_mode nearest>, coord_transform = #hodu<coord_transform tf_half_pixel_for_nn>}
         : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<1x1x2x3xf32>
  %1 = hodu.resize %x roi(%roi) {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform tf_crop_and_resize>,
         extrapolation_value = 10.0 : f32} : (tensor<1x1x4x4xf32>, tensor<8xf16>) -> tensor<1x1x3x3xf32>
  return
}

// -----

// Memory (contiguous) and Dummy are identities on values.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x2xf8E5M2>)
// CHECK-NEXT: %[[C:.*]] = hodu.contiguous %[[X]] : (tensor<2x2xf8E5M2>) -> tensor<2x2xf8E5M2>
// CHECK-NEXT: %[[D:.*]] = hodu.dummy %[[C]] : (tensor<2x2xf8E5M2>) -> tensor<2x2xf8E5M2>
// CHECK-NEXT: return %[[D]]
func.func @identities(%x: tensor<2x2xf8E5M2>) -> tensor<2x2xf8E5M2> {
  %0 = hodu.contiguous %x : (tensor<2x2xf8E5M2>) -> tensor<2x2xf8E5M2>
  %1 = hodu.dummy %0 : (tensor<2x2xf8E5M2>) -> tensor<2x2xf8E5M2>
  return %1 : tensor<2x2xf8E5M2>
}
