// hodu-cpu-omp-nowait: a worksharing loop that ends its parallel region
// (what convert-scf-to-openmp makes of every parallel tile loop) drops its
// closing barrier, which the region's end repeats (the fork waits for the
// team); a loop followed by more of the region, or with a reduction, keeps
// it. The compiled model then calls no __kmpc_barrier.
// RUN: hodu-opt %s --hodu-cpu-omp-nowait | FileCheck %s
// RUN: hoduc %S/Inputs/narrow-rows.mlir --compile-to=bufferized -o - | FileCheck %s --check-prefix=MODEL
// RUN: hoduc %S/Inputs/narrow-rows.mlir -o %t.s
// RUN: not grep -q __kmpc_barrier %t.s

// CHECK-LABEL: func.func @last
// CHECK: omp.wsloop nowait
func.func @last(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %v, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// CHECK-LABEL: func.func @not_last
// CHECK: omp.wsloop {
// CHECK-NOT: nowait
// CHECK: omp.terminator
func.func @not_last(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %v, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    memref.store %v, %buf[%c0] : memref<?xf32>
    omp.terminator
  }
  return
}

omp.declare_reduction @add_f32 : f32 init {
^bb0(%x: f32):
  %z = arith.constant 0.0 : f32
  omp.yield(%z : f32)
} combiner {
^bb0(%a: f32, %b: f32):
  %s = arith.addf %a, %b : f32
  omp.yield(%s : f32)
}

// CHECK-LABEL: func.func @reduction
// CHECK: omp.wsloop reduction
// CHECK-NOT: nowait
// CHECK: omp.terminator
func.func @reduction(%n: index, %buf: memref<?xf32>, %acc: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop reduction(@add_f32 %acc -> %r : !llvm.ptr) {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// MODEL: omp.wsloop nowait
// MODEL-NOT: omp.wsloop {
