func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %h = hodu.cast %x : (tensor<64xf32>) -> tensor<64xf16>
  %hb = hodu.cast %h : (tensor<64xf16>) -> tensor<64xf32>
  %b = hodu.cast %x : (tensor<64xf32>) -> tensor<64xbf16>
  %bb = hodu.cast %b : (tensor<64xbf16>) -> tensor<64xf32>
  return %hb, %bb : tensor<64xf32>, tensor<64xf32>
}
