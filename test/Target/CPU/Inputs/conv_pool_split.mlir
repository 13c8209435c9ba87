// A 3x3 convolution 3 -> 32 channels at 224x224 (6.4 MB of output) and a
// ReLU and 2x2 max-pool after it (one generic, as elementwise fusion
// leaves the bench CNN's first block).
module attributes {hodu.model_name = "conv_pool_split"} {
  func.func @main(%x: tensor<1x3x224x224xf32> {hodu.name = "x"}, %w: tensor<32x3x3x3xf32> {hodu.name = "w"}) -> (tensor<1x32x112x112xf32> {hodu.name = "y"}) {
    %zero = arith.constant 0.0 : f32
    %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<1x3x224x224xf32> to tensor<1x3x226x226xf32>
    %e = tensor.empty() : tensor<1x32x224x224xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x224x224xf32>) -> tensor<1x32x224x224xf32>
    %c = linalg.conv_2d_nchw_fchw ins(%padded, %w : tensor<1x3x226x226xf32>, tensor<32x3x3x3xf32>) outs(%init : tensor<1x32x224x224xf32>) -> tensor<1x32x224x224xf32>
    %ninf = arith.constant 0xFF800000 : f32
    %pe = tensor.empty() : tensor<1x32x112x112xf32>
    %pinit = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32>
    %win = tensor.empty() : tensor<2x2xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(n, c, h, w, kh, kw) -> (n, c, h * 2 + kh, w * 2 + kw)>,
                                          affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>,
                                          affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
         ins(%c, %win : tensor<1x32x224x224xf32>, tensor<2x2xf32>) outs(%pinit : tensor<1x32x112x112xf32>) {
    ^bb0(%v: f32, %unused: f32, %acc: f32):
      %r = arith.maximumf %v, %zero : f32
      %m = arith.maximumf %acc, %r : f32
      linalg.yield %m : f32
    } -> tensor<1x32x112x112xf32>
    return %y : tensor<1x32x112x112xf32>
  }
}
