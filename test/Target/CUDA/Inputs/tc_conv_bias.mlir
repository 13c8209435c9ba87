// A 1x1 convolution 16 -> 32 on 20x20 with a constant bias [32][1][1]
// added and a ReLU after it,
// as PaddleOCR's exports write Conv, Add and Relu: the bias is read at
// (c, 0, 0) over the plane.
module attributes {hodu.model_name = "conv_bias"} {
  func.func @main(%x: tensor<1x16x20x20xf32> {hodu.name = "x"}, %w: tensor<32x16x1x1xf32> {hodu.name = "w"}) -> (tensor<1x32x20x20xf32> {hodu.name = "y"}) {
    %zero = arith.constant 0.0 : f32
    %b = arith.constant dense<[[[-4.00]], [[-3.75]], [[-3.50]], [[-3.25]], [[-3.00]], [[-2.75]], [[-2.50]], [[-2.25]], [[-2.00]], [[-1.75]], [[-1.50]], [[-1.25]], [[-1.00]], [[-0.75]], [[-0.50]], [[-0.25]], [[0.00]], [[0.25]], [[0.50]], [[0.75]], [[1.00]], [[1.25]], [[1.50]], [[1.75]], [[2.00]], [[2.25]], [[2.50]], [[2.75]], [[3.00]], [[3.25]], [[3.50]], [[3.75]]]> : tensor<32x1x1xf32>
    %e = tensor.empty() : tensor<1x32x20x20xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x20x20xf32>) -> tensor<1x32x20x20xf32>
    %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x16x20x20xf32>, tensor<32x16x1x1xf32>) outs(%init : tensor<1x32x20x20xf32>) -> tensor<1x32x20x20xf32>
    %e2 = tensor.empty() : tensor<1x32x20x20xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%c, %b : tensor<1x32x20x20xf32>, tensor<32x1x1xf32>) outs(%e2 : tensor<1x32x20x20xf32>) {
    ^bb0(%v: f32, %bias: f32, %o: f32):
      %s = arith.addf %v, %bias : f32
      %zf = arith.constant 0.0 : f32
      %r = arith.maximumf %s, %zf : f32
      linalg.yield %r : f32
    } -> tensor<1x32x20x20xf32>
    return %y : tensor<1x32x20x20xf32>
  }
}
