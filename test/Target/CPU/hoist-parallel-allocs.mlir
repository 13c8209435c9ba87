// hodu-cpu-hoist-parallel-allocs: scratch of each scf.forall iteration that
// fits max-stack-bytes (all of an iteration's buffers together) goes on the
// stack, in a scope around the iteration, whatever the loop's iteration
// count. Larger scratch becomes one allocation before the loop, a
// 64-byte-aligned part per iteration; with more iterations than
// max-iterations, or parts that would take more than max-bytes together
// (768 bytes here), the iterations are regrouped into slots (a parallel
// loop of at most max-iterations slots, each running its share of the
// iterations in order) and each slot gets a part. Buffers that may outlive
// the iteration or are freed in it, loops of unknown iterations and
// allocations inside nested loops are left alone; scratch that can have
// neither parts nor two slots goes on the stack up to max-stack-bytes per
// iteration, and stays a malloc past that.
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs))' | FileCheck %s --check-prefix=FEW
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs{max-stack-bytes=64}))' | FileCheck %s
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs{max-iterations=2}))' | FileCheck %s --check-prefix=FEW
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs{max-bytes=700 max-stack-bytes=64}))' | FileCheck %s --check-prefix=SLOTS
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs{max-iterations=2 max-stack-bytes=64}))' | FileCheck %s --check-prefix=SLOTS2
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs{max-bytes=200 max-stack-bytes=64}))' | FileCheck %s --check-prefix=HEAP

// CHECK-LABEL: func.func @scratch
// CHECK: %[[ALL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<768xi8>
// CHECK: scf.forall (%[[I:.*]], %[[J:.*]]) in (2, 3)
// CHECK-NOT: memref.alloc
// CHECK: %[[ROW:.*]] = arith.muli {{.*}}, %c3
// CHECK: %[[LIN:.*]] = arith.addi %[[ROW]], {{.*}}
// CHECK: %[[OFF:.*]] = arith.muli %[[LIN]], %c128
// CHECK: memref.view %[[ALL]][%[[OFF]]][] : memref<768xi8> to memref<5x5xf32>
// FEW-LABEL: func.func @scratch
// FEW: scf.forall
// FEW-NEXT: memref.alloca_scope {
// FEW-NEXT: %[[S:.*]] = memref.alloca() : memref<5x5xf32>
// FEW-NEXT: linalg.fill {{.*}} outs(%[[S]] : memref<5x5xf32>)
// FEW: memref.store
// FEW-NEXT: }
// FEW-NEXT: }
// FEW-NEXT: return
// Six iterations of 128 bytes within 700: five slots would do, so two
// iterations a slot, three slots (384 bytes); each slot runs its
// iterations in order, their (i, j) delinearized from the linear index.
// SLOTS-LABEL: func.func @scratch
// SLOTS: %[[ALL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<384xi8>
// SLOTS: scf.forall (%[[S:.*]]) in (3)
// SLOTS: %[[BASE:.*]] = arith.muli %[[S]], %c128
// SLOTS: %[[LO:.*]] = arith.muli %[[S]], %c2
// SLOTS: %[[HI:.*]] = arith.minsi {{.*}}, %c6
// SLOTS: scf.for %[[K:.*]] = %[[LO]] to %[[HI]]
// SLOTS: %[[IJ:.*]]:2 = affine.delinearize_index %[[K]] into (2, 3)
// SLOTS: memref.view %[[ALL]][{{.*}}][] : memref<384xi8> to memref<5x5xf32>
// SLOTS: memref.store {{.*}}[%[[IJ]]#0, %[[IJ]]#1]
// SLOTS-NOT: memref.alloc
// SLOTS: return
// At most two slots: three iterations each.
// SLOTS2-LABEL: func.func @scratch
// SLOTS2: memref.alloc() {alignment = 64 : i64} : memref<256xi8>
// SLOTS2: scf.forall (%{{.*}}) in (2)
// SLOTS2: scf.for
// Not even two slots fit 200 bytes: a malloc per iteration.
// HEAP-LABEL: func.func @scratch
// HEAP: scf.forall
// HEAP-NEXT: memref.alloc() : memref<5x5xf32>
func.func @scratch(%out: memref<2x3xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  scf.forall (%i, %j) in (2, 3) {
    %s = memref.alloc() : memref<5x5xf32>
    linalg.fill ins(%cst : f32) outs(%s : memref<5x5xf32>)
    %v = memref.load %s[%c0, %c0] : memref<5x5xf32>
    memref.store %v, %out[%i, %j] : memref<2x3xf32>
  }
  return
}

func.func private @keep(memref<8xf32>)

// CHECK-LABEL: func.func @left_alone
// CHECK: scf.forall
// CHECK-NEXT: memref.alloc() : memref<8xf32>
// CHECK: scf.forall
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() : memref<8xf32>
// CHECK: scf.forall
// CHECK-NEXT: memref.alloc() : memref<8xf32>
func.func @left_alone(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // Passed to a call through a view: may outlive the iteration.
  scf.forall (%i) in (4) {
    %s = memref.alloc() : memref<8xf32>
    %v = memref.subview %s[0] [8] [1] : memref<8xf32> to memref<8xf32, strided<[1]>>
    %c = memref.cast %v : memref<8xf32, strided<[1]>> to memref<8xf32>
    func.call @keep(%c) : (memref<8xf32>) -> ()
  }
  // Inside a loop nested in the forall.
  scf.forall (%i) in (4) {
    scf.for %k = %c0 to %c4 step %c1 {
      %s = memref.alloc() : memref<8xf32>
      memref.dealloc %s : memref<8xf32>
    }
  }
  // A trip count known only at run time (and a buffer freed in the body).
  scf.forall (%i) in (%n) {
    %s = memref.alloc() : memref<8xf32>
    memref.dealloc %s : memref<8xf32>
  }
  return
}

// An iteration's stack holds at most max-stack-bytes in all: of two
// 128-byte buffers of a loop whose iterations are known only at run time
// (no parts, no slots), one goes on the stack and the other stays a malloc.
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-hoist-parallel-allocs{max-iterations=2 max-stack-bytes=128}))' | FileCheck %s --check-prefix=TOTAL
// TOTAL-LABEL: func.func @two_buffers
// TOTAL: scf.forall
// TOTAL-NEXT: memref.alloca_scope {
// TOTAL-NEXT: memref.alloca() : memref<5x5xf32>
// TOTAL-NEXT: memref.alloc() : memref<5x5xf32>
func.func @two_buffers(%n: index, %out: memref<?x3xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  scf.forall (%i, %j) in (%n, 3) {
    %s = memref.alloc() : memref<5x5xf32>
    %t = memref.alloc() : memref<5x5xf32>
    linalg.fill ins(%cst : f32) outs(%s : memref<5x5xf32>)
    linalg.fill ins(%cst : f32) outs(%t : memref<5x5xf32>)
    %v = memref.load %s[%c0, %c0] : memref<5x5xf32>
    %w = memref.load %t[%c0, %c0] : memref<5x5xf32>
    %x = arith.addf %v, %w : f32
    memref.store %x, %out[%i, %j] : memref<?x3xf32>
  }
  return
}
