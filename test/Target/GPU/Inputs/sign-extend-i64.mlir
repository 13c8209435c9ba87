// A kernel that sign-extends an i32 to i64 and compares it: y = x * 2
// where a < 0, else x.
module attributes {hodu.model_name = "c33"} {
  func.func @main(%x: tensor<2x3xf32> {hodu.name = "x"}, %a: tensor<i32> {hodu.name = "a"}) -> (tensor<2x3xf32> {hodu.name = "y"}) {
    %c = hodu.cast %a : (tensor<i32>) -> tensor<i64>
    %n = hodu.lt_scalar %c, 0 : i64 : (tensor<i64>) -> tensor<i1>
    %d = hodu.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = hodu.select %n, %d, %x : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}
