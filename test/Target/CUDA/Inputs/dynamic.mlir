// Row sums of f32[?x100]: the number of rows is only known at run time.
module attributes {hodu.model_name = "dynamic"} {
  func.func @main(%a: tensor<?x100xf32> {hodu.name = "a"}) -> (tensor<?xf32> {hodu.name = "s"}) {
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?x100xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %r = linalg.reduce ins(%a : tensor<?x100xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
      (%x: f32, %acc: f32) {
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
    return %r : tensor<?xf32>
  }
}
