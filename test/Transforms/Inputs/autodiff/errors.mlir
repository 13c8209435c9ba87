func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
  %l = hodu.reduce_prod %x {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @main(%x: tensor<6xf32>) -> tensor<f32> {
  %s = hodu.cumsum %x {dim = 0 : i64} : (tensor<6xf32>) -> tensor<6xf32>
  %l = hodu.reduce_sum %s {dims = array<i64: 0>} : (tensor<6xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
