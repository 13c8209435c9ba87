// RUN: hodu-opt %s --convert-hodu-to-linalg --split-input-file | FileCheck %s

// Unsigned dtypes become signless in the signature; the unsigned meaning
// picks divui, and the operand broadcast reads index 0 of the size-1 dim.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[BC:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xi8> {hodu.name = "a"}, %[[B:.*]]: tensor<1x3xi8>) -> (tensor<2x3xi8> {hodu.name = "y"})
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xi8>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[BC]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xi8>, tensor<1x3xi8>) outs(%[[E]] : tensor<2x3xi8>)
// CHECK: arith.divui
// CHECK-NOT: hodu.
func.func @main(%a: tensor<2x3xui8> {hodu.name = "a"}, %b: tensor<1x3xui8>) -> (tensor<2x3xui8> {hodu.name = "y"}) {
  %0 = hodu.div %a, %b : (tensor<2x3xui8>, tensor<1x3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Constants keep their data and become signless, dense_resource included.
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<[1, -1]> : tensor<2xi8>
// CHECK: arith.constant dense_resource<blob> : tensor<2xi16>
func.func @constants() -> (tensor<2xui8>, tensor<2xui16>) {
  %0 = hodu.constant dense<[1, 255]> : tensor<2xui8>
  %1 = hodu.constant dense_resource<blob> : tensor<2xui16>
  return %0, %1 : tensor<2xui8>, tensor<2xui16>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x020000000100FFFF"
    }
  }
#-}

// -----

// Plain 2-D matmul is linalg.matmul on a zero-filled accumulator. Batched
// activations times one weight matrix fold the batch into M (one named
// matmul between reshapes); equal batch dims collapse into one batch_matmul;
// a batch that only the rhs has is a generic with a reduction.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>)
// CHECK: tensor.collapse_shape {{.*}} tensor<5x2x3xf32> into tensor<10x3xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<10x3xf32>, tensor<3x4xf32>)
// CHECK: tensor.expand_shape {{.*}} tensor<10x4xf32> into tensor<5x2x4xf32>
// CHECK: tensor.collapse_shape {{.*}} tensor<2x3x4x5xf32> into tensor<6x4x5xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<6x4x5xf32>, tensor<6x5x2xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xf32>,
                  %x: tensor<2x3x4x5xf32>, %y: tensor<2x3x5x2xf32>, %w: tensor<5x3x4xf32>)
    -> (tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<2x3x4x2xf32>, tensor<5x2x4xf32>) {
  %0 = hodu.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = hodu.matmul %c, %b : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<5x2x4xf32>
  %2 = hodu.matmul %x, %y : (tensor<2x3x4x5xf32>, tensor<2x3x5x2xf32>) -> tensor<2x3x4x2xf32>
  %3 = hodu.matmul %a, %w : (tensor<2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<2x3x4x2xf32>, tensor<5x2x4xf32>
}

// -----

// Data movement maps onto tensor ops.
// CHECK-LABEL: func.func @movement
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 3] [2, 1] [1, 1]
// (A dim that takes one entry takes it with step 1, whatever the step.)
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 1] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 2] [1, 1]
// CHECK: tensor.pad %{{.*}} low[0, 1] high[1, 0]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
func.func @movement(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<3x2xf32>, tensor<6xf32>) {
  %0 = hodu.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = hodu.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 2, 3>, steps = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %s = hodu.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %2 = hodu.pad %a {mode = #hodu<pad_mode constant>, pads = array<i64: 0, 1, 1, 0>, value = 2.5 : f32} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  %3 = hodu.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = hodu.flatten %a {start_dim = 0 : i64, end_dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0, %s, %2, %3, %4 : tensor<2x4xf32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<3x2xf32>, tensor<6xf32>
}

// -----

// Ungrouped 2-D conv pads with tensor.pad and uses the named op; grouped
// conv is a generic over channel-split views.
// CHECK-LABEL: func.func @conv
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 8]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x6x6xf32> into tensor<1x6x6x6xf32>
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %wg: tensor<6x2x3x3xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x6x6x6xf32>) {
  %0 = hodu.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
  %1 = hodu.conv %x, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0, %1 : tensor<1x6x4x4xf32>, tensor<1x6x6x6xf32>
}

// -----

// Sequential scatters thread the result through scf.for.
// CHECK-LABEL: func.func @scatter
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x3xf32>)
// CHECK: tensor.extract
// CHECK: arith.maximumf
// CHECK: tensor.insert
func.func @scatter(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = hodu.scatter_max %x, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Powers by a constant exponent that one correctly rounded operation gives
// (as powf's result is) are that operation; others stay powf.
// CHECK-LABEL: func.func @pow_constants
// CHECK: ^bb0(%[[X2:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.mulf %[[X2]], %[[X2]] : f32
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf
// CHECK: math.powf
func.func @pow_constants(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = hodu.pow_scalar %x, 2.0 : f32 : (tensor<4xf32>) -> tensor<4xf32>
  %1 = hodu.pow_scalar %x, -1.0 : f32 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = hodu.pow_scalar %x, 3.0 : f32 : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
