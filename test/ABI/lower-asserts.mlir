// hodu.assert: an assert that folds to true goes; the lowering to linalg
// keeps the op on the condition's element; hodu-lower-asserts gives @main
// a trailing status word (after the workspace) that each assert writes its
// code to, 2 + its index, unless an earlier one failed, and records the
// messages in order; the entry point zeroes the word, passes it and
// returns it, and the descriptor lists the messages.
// RUN: hodu-opt %s --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: hodu-opt %s --convert-hodu-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: hodu-opt %s --canonicalize --hodu-record-entry-point=prefix=m --convert-hodu-to-linalg --hodu-lower-asserts | FileCheck %s
// RUN: hoduc %s --name=m --compile-to=llvm -o - | FileCheck %s --check-prefix=ENTRY

// CANON-LABEL: func.func @main
// CANON-NOT: hodu.assert {{.*}}"always"
// CANON: hodu.assert %{{.*}} : tensor<i1> {message = "node 'a' (Reshape): first"}
// CANON: hodu.assert %{{.*}} : tensor<i1> {message = "node 'b' (Range): second"}

// LINALG: %[[E0:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// LINALG-NEXT: hodu.assert %[[E0]] : i1 {message = "always"}
// LINALG: %[[E1:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// LINALG-NEXT: hodu.assert %[[E1]] : i1 {message = "node 'a' (Reshape): first"}

// CHECK-LABEL: module attributes {hodu.asserts = ["node 'a' (Reshape): first", "node 'b' (Range): second"]
// CHECK: func.func @main(%{{.*}}: tensor<2xi64>, %{{.*}}: tensor<i64>, %[[S:.*]]: memref<i32>)
// CHECK-NOT: hodu.assert
// CHECK: %[[OLD:.*]] = memref.load %[[S]][] : memref<i32>
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[CLEAN:.*]] = arith.cmpi eq, %[[OLD]], %[[Z]]
// CHECK: %[[F:.*]] = arith.select %{{.*}}, %[[OLD]], %[[C2]]
// CHECK: %[[N:.*]] = arith.select %[[CLEAN]], %[[F]], %[[OLD]]
// CHECK: memref.store %[[N]], %[[S]][]
// CHECK: arith.constant 3 : i32
// CHECK: memref.store

// ENTRY: llvm.func internal @m_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// ENTRY: llvm.func internal @m_entry(
// ENTRY: %[[ST:.*]] = llvm.alloca %{{.*}} x i32
// ENTRY: llvm.store %{{.*}}, %[[ST]]
// ENTRY: llvm.call @m_main(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ST]])
// ENTRY: %[[R:.*]] = llvm.load %[[ST]] : !llvm.ptr -> i32
// ENTRY: llvm.br ^[[EXIT:.*]](%[[R]] : i32)
// ENTRY: ^[[EXIT]](%[[CODE:.*]]: i32):
// ENTRY: llvm.return %[[CODE]] : i32
// ENTRY: llvm.mlir.global internal unnamed_addr constant @m_check0("node 'a' (Reshape): first\00")
// ENTRY: llvm.mlir.global internal unnamed_addr constant @m_check1("node 'b' (Range): second\00")
// ENTRY: llvm.mlir.global internal constant @m_checks()
// ENTRY: llvm.mlir.global external constant @m_hodu_descriptor()
// ENTRY: llvm.mlir.constant(2 : i32) : i32
// ENTRY: llvm.mlir.addressof @m_checks
module {
  func.func @main(%s: tensor<2xi64> {hodu.name = "s"}, %n: tensor<i64> {hodu.name = "n"}) -> (tensor<2xi64> {hodu.name = "y"}) {
    %true = hodu.constant dense<true> : tensor<i1>
    hodu.assert %true : tensor<i1> {message = "always"}
    %w = hodu.constant dense<[2, 3]> : tensor<2xi64>
    %eq = hodu.eq %s, %w : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
    %all = hodu.reduce_all %eq {dims = array<i64: 0>} : (tensor<2xi1>) -> tensor<i1>
    hodu.assert %all : tensor<i1> {message = "node 'a' (Reshape): first"}
    %ok = hodu.eq_scalar %n, 4 : i64 : (tensor<i64>) -> tensor<i1>
    hodu.assert %ok : tensor<i1> {message = "node 'b' (Range): second"}
    return %s : tensor<2xi64>
  }
}
