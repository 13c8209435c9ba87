// RUN: hodu-opt %s --hodu-form-fusion-groups=max-group-size=2 | FileCheck %s --check-prefix=MAX
// RUN: hodu-opt %s --hodu-form-fusion-groups="print-stats" --verify-diagnostics -o /dev/null
// RUN: hodu-opt %s --hodu-form-fusion-groups --hodu-form-fusion-groups | FileCheck %s --check-prefix=AGAIN
// RUN: not hodu-opt %s --hodu-form-fusion-groups=max-group-size=0 2>&1 | FileCheck %s --check-prefix=BAD

// The MLP sample (python-free-samples/models/mlp.onnx) as the ONNX importer
// emits it: 10 ops that each need a kernel without fusion (constants do
// not) become 3 kernels: matmul+add+relu, matmul+add, and the softmax.
// expected-remark @below {{fusion: 10 ops in 3 kernels (3 groups)}}
module attributes {hodu.model_name = "mlp"} {
  func.func @main(%arg0: tensor<1x16xf32>) -> tensor<1x4xf32> {
    %0 = hodu.constant dense<0.5> : tensor<16x32xf32>
    %1 = hodu.matmul %arg0, %0 : (tensor<1x16xf32>, tensor<16x32xf32>) -> tensor<1x32xf32>
    %2 = hodu.constant dense<0.25> : tensor<32xf32>
    %3 = hodu.add %1, %2 : (tensor<1x32xf32>, tensor<32xf32>) -> tensor<1x32xf32>
    %4 = hodu.relu %3 : (tensor<1x32xf32>) -> tensor<1x32xf32>
    %5 = hodu.constant dense<0.125> : tensor<32x4xf32>
    %6 = hodu.matmul %4, %5 : (tensor<1x32xf32>, tensor<32x4xf32>) -> tensor<1x4xf32>
    %7 = hodu.constant dense<1.0> : tensor<4xf32>
    %8 = hodu.add %6, %7 : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    %9 = hodu.reduce_max %8 {dims = array<i64: 1>, keep_dim = true} : (tensor<1x4xf32>) -> tensor<1x1xf32>
    %10 = hodu.sub %8, %9 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    %11 = hodu.exp %10 : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %12 = hodu.reduce_sum %11 {dims = array<i64: 1>, keep_dim = true} : (tensor<1x4xf32>) -> tensor<1x1xf32>
    %13 = hodu.div %11, %12 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    return %13 : tensor<1x4xf32>
  }
}

// With at most 2 ops per group, the first layer keeps matmul+add and the
// relu stays alone; the softmax splits.
// MAX: hodu.matmul {{.*}}{hodu.fusion_group = 0 : i64}
// MAX: hodu.add {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// MAX: hodu.relu %{{[0-9]+}} :
// MAX: hodu.matmul {{.*}}{hodu.fusion_group = 1 : i64}
// MAX: hodu.add {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}

// Running the pass twice gives the same groups (old marks are replaced).
// AGAIN: hodu.relu {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// AGAIN: hodu.add {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}
// AGAIN: hodu.div {{.*}}{hodu.fusion_group = 2 : i64, hodu.fusion_root}

// BAD: error: max-group-size must be at least 1, got 0
