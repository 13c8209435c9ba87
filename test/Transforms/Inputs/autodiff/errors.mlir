func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
  %l = hodu.reduce_max %x {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @main(%x: tensor<4xf32>, %y: tensor<4x2xf32>) -> tensor<f32> {
  %m = hodu.matmul %x, %y : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  %l = hodu.reduce_sum %m {dims = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
