// Ops for the work split of hodu-cpu-parallelize (work-split.test): a max
// pool whose output starts as -inf, a large elementwise op, and one too
// small for a thread team.
func.func @main(%x: tensor<1x32x112x112xf32>, %y: tensor<1x32x112x112xf32>,
                %s: tensor<1x4x8x8xf32>)
    -> (tensor<1x32x56x56xf32>, tensor<1x32x112x112xf32>, tensor<1x4x8x8xf32>) {
  %p = hodu.reduce_window %x {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x32x112x112xf32>) -> tensor<1x32x56x56xf32>
  %a = hodu.add %x, %y : (tensor<1x32x112x112xf32>, tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32>
  %b = hodu.add %s, %s : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %p, %a, %b : tensor<1x32x56x56xf32>, tensor<1x32x112x112xf32>, tensor<1x4x8x8xf32>
}
