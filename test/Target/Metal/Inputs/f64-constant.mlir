// An f64 constant returned as the model's output (what ONNX's EyeLike with
// dtype double folds to): it belongs to no node.
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf64> {hodu.name = "y"}) {
  %c = hodu.constant dense<[1.0, 2.0]> : tensor<2xf64>
  return %c : tensor<2xf64>
}
