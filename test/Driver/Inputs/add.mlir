// y = a + b over i32[5]: a second model for the two-models-in-one-program test.
module attributes {hodu.model_name = "adder"} {
  func.func @main(%a: tensor<5xi32> {hodu.name = "a"}, %b: tensor<5xi32> {hodu.name = "b"}) -> (tensor<5xi32> {hodu.name = "sum"}) {
    %e = tensor.empty() : tensor<5xi32>
    %r = linalg.add ins(%a, %b : tensor<5xi32>, tensor<5xi32>) outs(%e : tensor<5xi32>) -> tensor<5xi32>
    return %r : tensor<5xi32>
  }
}
