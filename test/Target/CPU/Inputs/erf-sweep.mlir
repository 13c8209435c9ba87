module attributes {hodu.model_name = "erf_sweep"} {
  func.func @main(%x: tensor<24016xf32> {hodu.name = "x"}, %s: tensor<7xf32> {hodu.name = "s"}) -> (tensor<24016xf32> {hodu.name = "y"}, tensor<7xf32> {hodu.name = "t"}) {
    %y = hodu.erf %x : (tensor<24016xf32>) -> tensor<24016xf32>
    %t = hodu.erf %s : (tensor<7xf32>) -> tensor<7xf32>
    return %y, %t : tensor<24016xf32>, tensor<7xf32>
  }
}
