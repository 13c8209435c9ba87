// hodu-lower-asserts in the CPU partitions of a heterogeneous bundle: each
// partition with checks takes the status word as a last argument (marked
// hodu.host_call_status for hodu-lower-host-calls, whose HOST_CALL wrapper
// returns it), the codes count over the whole module, and the messages are
// listed in order; a partition without checks is left as it is.
// RUN: hodu-opt %s --convert-hodu-to-linalg --hodu-lower-asserts | FileCheck %s

// CHECK: module attributes {hodu.asserts = ["node 'a' (Pad): first", "node 'b' (Reshape): second", "node 'c' (Tile): third"]}
module {
  // CHECK-LABEL: func.func @cpu_0
  // CHECK-SAME: %{{.*}}: memref<i32>) attributes {hodu.host_call, hodu.host_call_status}
  // CHECK: arith.constant 2 : i32
  // CHECK: arith.constant 3 : i32
  func.func @cpu_0(%a: tensor<i1>, %b: tensor<i1>) attributes {hodu.host_call} {
    hodu.assert %a : tensor<i1> {message = "node 'a' (Pad): first"}
    hodu.assert %b : tensor<i1> {message = "node 'b' (Reshape): second"}
    return
  }
  // CHECK-LABEL: func.func @cpu_1
  // CHECK-NOT: memref<i32>
  // CHECK-SAME: attributes {hodu.host_call}
  func.func @cpu_1(%x: tensor<4xf32>) attributes {hodu.host_call} {
    return
  }
  // CHECK-LABEL: func.func @cpu_2
  // CHECK-SAME: memref<i32>) attributes {hodu.host_call, hodu.host_call_status}
  // CHECK: arith.constant 4 : i32
  func.func @cpu_2(%c: tensor<i1>) attributes {hodu.host_call} {
    hodu.assert %c : tensor<i1> {message = "node 'c' (Tile): third"}
    return
  }
}
