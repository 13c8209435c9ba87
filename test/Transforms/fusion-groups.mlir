// RUN: hodu-opt %s --hodu-form-fusion-groups --split-input-file | FileCheck %s

// An elementwise chain whose intermediate values each have one user is one
// group; the last op, whose result leaves the group, is its root.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK: hodu.neg %arg0 {hodu.fusion_group = 0 : i64} :
// CHECK: hodu.exp %{{.*}} {hodu.fusion_group = 0 : i64} :
// CHECK: hodu.mul_scalar %{{.*}}, {{.*}} {hodu.fusion_group = 0 : i64} :
// CHECK: hodu.relu %{{.*}} {hodu.fusion_group = 0 : i64, hodu.fusion_root} :
func.func @elementwise_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = hodu.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = hodu.exp %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = hodu.mul_scalar %1, 2.0 : f32 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = hodu.relu %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Broadcasting operands and explicit shape ops (unsqueeze, broadcast) join
// the chain: they only move data. Compare, select and cast are elementwise
// too.
// CHECK-LABEL: func.func @broadcast_chain
// CHECK: hodu.unsqueeze %arg1 {dims = array<i64: 0>, hodu.fusion_group = 0 : i64}
// CHECK: hodu.broadcast %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.sub %arg0, %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.gt_scalar %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.select %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.add %{{.*}}, %arg2 {hodu.fusion_group = 0 : i64}
// CHECK: hodu.cast %{{.*}} {hodu.fusion_group = 0 : i64, hodu.fusion_root}
func.func @broadcast_chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<4x8xf16> {
  %0 = hodu.unsqueeze %b {dims = array<i64: 0>} : (tensor<8xf32>) -> tensor<1x8xf32>
  %1 = hodu.broadcast %0 : (tensor<1x8xf32>) -> tensor<4x8xf32>
  %2 = hodu.sub %x, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = hodu.gt_scalar %2, 0.0 : f32 : (tensor<4x8xf32>) -> tensor<4x8xi1>
  %4 = hodu.select %3, %2, %x : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = hodu.add %4, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = hodu.cast %5 : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return %6 : tensor<4x8xf16>
}

// -----

// matmul + bias + relu, as the ONNX importer emits a Gemm/MatMul+Add layer:
// the matmul anchors the group and its epilogue joins. Constants are
// inputs, never members.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: %[[W:.*]] = hodu.constant dense<{{.*}}> : tensor<16x32xf32>
// CHECK-NOT: fusion
// CHECK: hodu.matmul %arg0, %[[W]] {hodu.fusion_group = 0 : i64}
// CHECK: %[[B:.*]] = hodu.constant dense<{{.*}}> : tensor<32xf32>
// CHECK-NOT: fusion
// CHECK: hodu.add %{{.*}}, %[[B]] {hodu.fusion_group = 0 : i64}
// CHECK: hodu.relu %{{.*}} {hodu.fusion_group = 0 : i64, hodu.fusion_root}
func.func @matmul_bias_relu(%x: tensor<1x16xf32>) -> tensor<1x32xf32> {
  %w = hodu.constant dense<0.5> : tensor<16x32xf32>
  %0 = hodu.matmul %x, %w : (tensor<1x16xf32>, tensor<16x32xf32>) -> tensor<1x32xf32>
  %b = hodu.constant dense<0.25> : tensor<32xf32>
  %1 = hodu.add %0, %b : (tensor<1x32xf32>, tensor<32xf32>) -> tensor<1x32xf32>
  %2 = hodu.relu %1 : (tensor<1x32xf32>) -> tensor<1x32xf32>
  return %2 : tensor<1x32xf32>
}

// -----

// conv + bias (reshaped as the ONNX importer does) + relu + residual add:
// one group around the conv. The residual input %x is a function argument.
// CHECK-LABEL: func.func @conv_bias_relu_residual
// CHECK: hodu.conv {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.reshape %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.add %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.relu %{{.*}} {hodu.fusion_group = 0 : i64}
// CHECK: hodu.add %{{.*}}, %arg0 {hodu.fusion_group = 0 : i64, hodu.fusion_root}
func.func @conv_bias_relu_residual(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> {
  %w = hodu.constant dense<0.5> : tensor<2x2x3x3xf32>
  %0 = hodu.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  %b = hodu.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = hodu.reshape %b : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %2 = hodu.add %0, %1 : (tensor<1x2x6x6xf32>, tensor<2x1x1xf32>) -> tensor<1x2x6x6xf32>
  %3 = hodu.relu %2 : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %4 = hodu.add %3, %x : (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %4 : tensor<1x2x6x6xf32>
}

// -----

// Softmax as the ONNX importer emits it (test_softmax_axis_1): both
// reductions and the elementwise ops between them form one group.
// CHECK-LABEL: func.func @softmax
// CHECK: hodu.reduce_max {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.sub {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.exp {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.reduce_sum {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.div {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
func.func @softmax(%x: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %0 = hodu.reduce_max %x {dims = array<i64: 1>, keep_dim = true} : (tensor<3x4x5xf32>) -> tensor<3x1x5xf32>
  %1 = hodu.sub %x, %0 : (tensor<3x4x5xf32>, tensor<3x1x5xf32>) -> tensor<3x4x5xf32>
  %2 = hodu.exp %1 : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %3 = hodu.reduce_sum %2 {dims = array<i64: 1>, keep_dim = true} : (tensor<3x4x5xf32>) -> tensor<3x1x5xf32>
  %4 = hodu.div %2, %3 : (tensor<3x4x5xf32>, tensor<3x1x5xf32>) -> tensor<3x4x5xf32>
  return %4 : tensor<3x4x5xf32>
}

// -----

// A layer norm spelled out (reduce_mean -> sub -> square -> reduce_mean ->
// add eps -> sqrt -> recip -> mul -> scale and shift) whose intermediate
// values have no other users: one group. %d is used twice, both times inside.
// CHECK-LABEL: func.func @layernorm
// CHECK-COUNT-10: hodu.fusion_group = 0 : i64
// CHECK-NOT: hodu.fusion_group
// CHECK: return
func.func @layernorm(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %m = hodu.reduce_mean %x {dims = array<i64: 1>, keep_dim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = hodu.sub %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = hodu.square %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %v = hodu.reduce_mean %sq {dims = array<i64: 1>, keep_dim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %e = hodu.add_scalar %v, 1.0e-5 : f32 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %s = hodu.sqrt %e : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %r = hodu.recip %s : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = hodu.mul %d, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %o = hodu.mul %n, %g : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %y = hodu.add %o, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Layer norm as the ONNX importer emits LayerNormalization
// (test_layer_normalization_4d_axis_negative_1), with Mean and InvStdDev as
// extra model outputs. Those leave the graph, so the mean and the
// sqrt cannot be inside a group whose root is elsewhere: the normalisation
// (sub, div, mul, add) is group 1, the variance with eps and sqrt group 0;
// the mean and the recip stay alone.
// CHECK-LABEL: func.func @layernorm_onnx
// CHECK: hodu.reduce_mean %arg0 {dims = array<i64: 3>, keep_dim = true} :
// CHECK: hodu.reduce_var {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.add_scalar {{.*}}hodu.fusion_group = 0 : i64
// CHECK: hodu.sqrt {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// CHECK: hodu.sub {{.*}}{hodu.fusion_group = 1 : i64}
// CHECK: hodu.div {{.*}}{hodu.fusion_group = 1 : i64}
// CHECK: hodu.recip %{{[0-9]+}} :
// CHECK: hodu.mul {{.*}}{hodu.fusion_group = 1 : i64}
// CHECK: hodu.add {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}
func.func @layernorm_onnx(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>) {
  %0 = hodu.reduce_mean %arg0 {dims = array<i64: 3>, keep_dim = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
  %1 = hodu.reduce_var %arg0 {dims = array<i64: 3>, keep_dim = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
  %2 = hodu.add_scalar %1, 9.99999974E-6 : f32 : (tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %3 = hodu.sqrt %2 : (tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %4 = hodu.sub %arg0, %0 : (tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>) -> tensor<2x3x4x5xf32>
  %5 = hodu.div %4, %3 : (tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>) -> tensor<2x3x4x5xf32>
  %6 = hodu.recip %3 : (tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %7 = hodu.mul %5, %arg1 : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %8 = hodu.add %7, %arg2 : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return %8, %0, %6 : tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>
}

// -----

// A producer with users outside the group is not fused into either user
// (that would recompute it or give the group two results): %0 stays alone,
// and so do its single-op users.
// CHECK-LABEL: func.func @multi_use_producer
// CHECK-NOT: fusion
// CHECK: return
func.func @multi_use_producer(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = hodu.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  %1 = hodu.relu %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = hodu.neg %0 : (tensor<8xf32>) -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Convexity: %a feeds %b directly and through %c, which cannot be fused (a
// scan). Putting %a with %b would make the path %a -> %c -> %b leave the
// group and come back, so %a's group ({%n, %a}) is separate from %b's
// ({%b, %r}).
// CHECK-LABEL: func.func @convexity
// CHECK: hodu.neg {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.exp {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// CHECK: hodu.cumsum %{{[0-9]+}} {dim = 0 : i64} :
// CHECK: hodu.add {{.*}}{hodu.fusion_group = 1 : i64}
// CHECK: hodu.relu {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}
func.func @convexity(%x: tensor<8xf32>) -> tensor<8xf32> {
  %n = hodu.neg %x : (tensor<8xf32>) -> tensor<8xf32>
  %a = hodu.exp %n : (tensor<8xf32>) -> tensor<8xf32>
  %c = hodu.cumsum %a {dim = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  %b = hodu.add %a, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r = hodu.relu %b : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// The same shape with a fusible middle op: the diamond %a -> %b,
// %a -> %c -> %b is one convex group.
// CHECK-LABEL: func.func @diamond
// CHECK-COUNT-3: hodu.fusion_group = 0 : i64
// CHECK-SAME: hodu.fusion_root
func.func @diamond(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = hodu.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  %c = hodu.sin %a : (tensor<8xf32>) -> tensor<8xf32>
  %b = hodu.add %a, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %b : tensor<8xf32>
}

// -----

// Two matmul layers: each matmul anchors its own group with its bias and
// activation; the first layer's relu feeds the second matmul and is not its
// prologue.
// CHECK-LABEL: func.func @two_matmuls
// CHECK: hodu.matmul {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.add {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.relu {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// CHECK: hodu.matmul {{.*}}{hodu.fusion_group = 1 : i64}
// CHECK: hodu.add {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}
func.func @two_matmuls(%x: tensor<2x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = hodu.matmul %x, %w1 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = hodu.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = hodu.relu %1 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = hodu.matmul %2, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %4 = hodu.add %3, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %4 : tensor<2x4xf32>
}

// -----

// Two matmuls added together: the add joins the first matmul's group; the
// second matmul cannot join it (one anchor per group) and stays alone.
// CHECK-LABEL: func.func @sum_of_matmuls
// CHECK: hodu.matmul {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.matmul %arg0, %arg2 :
// CHECK: hodu.add {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
func.func @sum_of_matmuls(%x: tensor<2x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %0 = hodu.matmul %x, %w1 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = hodu.matmul %x, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %2 = hodu.add %0, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// The last layer of the MLP sample: the bias add belongs to the matmul's
// epilogue, not to the softmax after it (a group never holds both an anchor
// and a reduction), and the softmax is a group of its own.
// CHECK-LABEL: func.func @matmul_softmax
// CHECK: hodu.matmul {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.add {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// CHECK: hodu.reduce_max {{.*}}hodu.fusion_group = 1 : i64
// CHECK: hodu.sub {{.*}}hodu.fusion_group = 1 : i64
// CHECK: hodu.exp {{.*}}hodu.fusion_group = 1 : i64
// CHECK: hodu.reduce_sum {{.*}}hodu.fusion_group = 1 : i64
// CHECK: hodu.div {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}
func.func @matmul_softmax(%x: tensor<1x32xf32>, %w: tensor<32x4xf32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {
  %6 = hodu.matmul %x, %w : (tensor<1x32xf32>, tensor<32x4xf32>) -> tensor<1x4xf32>
  %8 = hodu.add %6, %b : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %9 = hodu.reduce_max %8 {dims = array<i64: 1>, keep_dim = true} : (tensor<1x4xf32>) -> tensor<1x1xf32>
  %10 = hodu.sub %8, %9 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %11 = hodu.exp %10 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %12 = hodu.reduce_sum %11 {dims = array<i64: 1>, keep_dim = true} : (tensor<1x4xf32>) -> tensor<1x1xf32>
  %13 = hodu.div %11, %12 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  return %13 : tensor<1x4xf32>
}

// -----

// Reductions of different shapes are not one kernel: the second reduction
// reads the 4-element result of the first, so it starts its own group.
// CHECK-LABEL: func.func @mismatched_reductions
// CHECK: hodu.exp {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.reduce_sum {{.*}}hodu.fusion_group = 0 : i64, hodu.fusion_root
// CHECK: hodu.reduce_max %{{[0-9]+}} {dims = array<i64: 0>} :
func.func @mismatched_reductions(%x: tensor<4x8xf32>) -> tensor<f32> {
  %0 = hodu.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = hodu.reduce_sum %0 {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %2 = hodu.reduce_max %1 {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// LayerNormalization as the ONNX importer emits it when only Y is used (the
// usual case in a transformer): mean, variance, eps, sqrt and the
// normalisation are one group; both reductions read 2x3x4x5 over dim 3.
// CHECK-LABEL: func.func @layernorm_onnx_y_only
// CHECK-COUNT-8: hodu.fusion_group = 0 : i64
// CHECK-SAME: hodu.fusion_root
// CHECK-NEXT: return
func.func @layernorm_onnx_y_only(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = hodu.reduce_mean %arg0 {dims = array<i64: 3>, keep_dim = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
  %1 = hodu.reduce_var %arg0 {dims = array<i64: 3>, keep_dim = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
  %2 = hodu.add_scalar %1, 9.99999974E-6 : f32 : (tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %3 = hodu.sqrt %2 : (tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %4 = hodu.sub %arg0, %0 : (tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>) -> tensor<2x3x4x5xf32>
  %5 = hodu.div %4, %3 : (tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>) -> tensor<2x3x4x5xf32>
  %7 = hodu.mul %5, %arg1 : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %8 = hodu.add %7, %arg2 : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return %8 : tensor<2x3x4x5xf32>
}

// -----

// Shape ops alone are no kernel and make no group; ops that are never
// members (a gather here) stay alone and split chains. Group ids are unique
// across the functions of a module.
// CHECK-LABEL: func.func @shape_only
// CHECK-NOT: fusion
// CHECK-LABEL: func.func @split_by_gather
// CHECK: hodu.neg {{.*}}{hodu.fusion_group = 0 : i64}
// CHECK: hodu.exp {{.*}}{hodu.fusion_group = 0 : i64, hodu.fusion_root}
// CHECK: hodu.index_select %{{[0-9]+}}, %arg1 {dim = 0 : i64} :
// CHECK: hodu.sin {{.*}}{hodu.fusion_group = 1 : i64}
// CHECK: hodu.cos {{.*}}{hodu.fusion_group = 1 : i64, hodu.fusion_root}
func.func @shape_only(%x: tensor<2x3xf32>) -> tensor<1x6xf32> {
  %0 = hodu.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = hodu.unsqueeze %0 {dims = array<i64: 0>} : (tensor<6xf32>) -> tensor<1x6xf32>
  return %1 : tensor<1x6xf32>
}
func.func @split_by_gather(%x: tensor<8xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %0 = hodu.neg %x : (tensor<8xf32>) -> tensor<8xf32>
  %1 = hodu.exp %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = hodu.index_select %1, %i {dim = 0 : i64} : (tensor<8xf32>, tensor<4xi64>) -> tensor<4xf32>
  %3 = hodu.sin %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = hodu.cos %3 : (tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}
