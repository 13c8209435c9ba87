// Zero padding of f32[4x4] to f32[6x6], which bufferises into a fill and a
// copy outside any tiled op.
module attributes {hodu.model_name = "pad"} {
  func.func @main(%a: tensor<4x4xf32> {hodu.name = "a"}) -> (tensor<6x6xf32> {hodu.name = "p"}) {
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[1, 1] high[1, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<4x4xf32> to tensor<6x6xf32>
    return %p : tensor<6x6xf32>
  }
}
