// Row sums of f32[8x100]: a reduction, one thread per output row.
module attributes {hodu.model_name = "rowsum"} {
  func.func @main(%a: tensor<8x100xf32> {hodu.name = "a"}) -> (tensor<8xf32> {hodu.name = "s"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %r = linalg.reduce ins(%a : tensor<8x100xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
      (%x: f32, %acc: f32) {
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
    return %r : tensor<8xf32>
  }
}
