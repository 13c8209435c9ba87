// sum = a + b over i32[5], with b a meta slot whose initial value is
// [100, 200, 300, 400, 500] (test/Runtime/meta-slots.test).
module attributes {hodu.model_name = "adder"} {
  func.func @main(%a: tensor<5xi32> {hodu.name = "a"},
                  %b: tensor<5xi32> {hodu.name = "b",
                                     hodu.meta_slot = dense<[100, 200, 300, 400, 500]> : tensor<5xi32>})
      -> (tensor<5xi32> {hodu.name = "sum"}) {
    %e = tensor.empty() : tensor<5xi32>
    %r = linalg.add ins(%a, %b : tensor<5xi32>, tensor<5xi32>) outs(%e : tensor<5xi32>) -> tensor<5xi32>
    return %r : tensor<5xi32>
  }
}
