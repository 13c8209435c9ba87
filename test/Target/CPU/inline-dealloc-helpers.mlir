// hodu-cpu-inline-dealloc-helpers: calls of the private helper that buffer
// deallocation creates (memrefs of dynamic size, which the bare-pointer
// calling convention cannot pass) are inlined and the helper erased; other
// functions stay. openWakeWord's hey_jarvis (a run-time If) needed it at -O0
// (test/models).
// RUN: hodu-opt %s --hodu-cpu-inline-dealloc-helpers | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: call @dealloc_helper
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi1>
// CHECK: call @keep
// CHECK-NOT: func.func private @dealloc_helper
// CHECK: func.func private @keep
func.func @main(%a: memref<?xi1>, %b: memref<2xf32>) {
  call @dealloc_helper(%a) : (memref<?xi1>) -> ()
  call @keep(%b) : (memref<2xf32>) -> ()
  return
}
func.func private @dealloc_helper(%m: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %t = arith.constant true
  memref.store %t, %m[%c0] : memref<?xi1>
  return
}
func.func private @keep(%m: memref<2xf32>) {
  return
}
