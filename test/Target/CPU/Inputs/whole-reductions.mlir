// Whole-tensor reductions (whole-reductions.test): a DynamicQuantizeLinear's
// min and max of one input (merged into one op by hodu-cpu-parallelize),
// a sum and a mean, an integer max, and a 3-D tensor whose best reduced
// dim to split is its middle one.
module attributes {hodu.model_name = "whole_reductions"} {
  func.func @main(%x: tensor<1x64x32x64xf32> {hodu.name = "x"},
                  %y: tensor<3x96x512xf32> {hodu.name = "y"},
                  %k: tensor<2x64x1024xi32> {hodu.name = "k"})
      -> (tensor<f32> {hodu.name = "max_x"}, tensor<f32> {hodu.name = "min_x"},
          tensor<f32> {hodu.name = "sum_x"}, tensor<f32> {hodu.name = "mean_y"},
          tensor<f32> {hodu.name = "max_y"}, tensor<i32> {hodu.name = "max_k"}) {
    %mx = hodu.reduce_max %x {dims = array<i64: 0, 1, 2, 3>} : (tensor<1x64x32x64xf32>) -> tensor<f32>
    %mn = hodu.reduce_min %x {dims = array<i64: 0, 1, 2, 3>} : (tensor<1x64x32x64xf32>) -> tensor<f32>
    %s = hodu.reduce_sum %x {dims = array<i64: 0, 1, 2, 3>} : (tensor<1x64x32x64xf32>) -> tensor<f32>
    %m = hodu.reduce_mean %y {dims = array<i64: 0, 1, 2>} : (tensor<3x96x512xf32>) -> tensor<f32>
    %my = hodu.reduce_max %y {dims = array<i64: 0, 1, 2>} : (tensor<3x96x512xf32>) -> tensor<f32>
    %mk = hodu.reduce_max %k {dims = array<i64: 0, 1, 2>} : (tensor<2x64x1024xi32>) -> tensor<i32>
    return %mx, %mn, %s, %m, %my, %mk : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>
  }
}
