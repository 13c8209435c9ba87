// RUN: hodu-opt %s --hodu-cpu-empty-arguments | FileCheck %s
// RUN: hodu-opt %s --hodu-cpu-empty-arguments --finalize-memref-to-llvm \
// RUN:   --convert-func-to-llvm=use-bare-ptr-memref-call-conv=1 \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// hodu-cpu-empty-arguments: arguments without elements become memref<0xT>
// (the bare-pointer convention refuses memref<3x0x5xT>), their uses read
// a zero-byte stack allocation of the original type, and calls pass one
// of the new type. Other arguments, and 1-D empty ones, are left alone.

// CHECK-LABEL: func.func private @kernel(%{{.*}}: memref<0xf32>, %{{.*}}: memref<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = memref.alloca() : memref<2x0xf32>
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<2x0xf32>
func.func private @kernel(%a: memref<2x0xf32>, %b: memref<4xf32>) {
  memref.dealloc %a : memref<2x0xf32>
  return
}

// CHECK-LABEL: func.func @main(%{{.*}}: memref<0xi64>, %{{.*}}: memref<i64>, %{{.*}}: memref<0xi64>, %{{.*}}: memref<0xf32>, %{{.*}}: memref<4xf32>)
// CHECK-NEXT:    %[[X:.*]] = memref.alloca() : memref<3x0x5xi64>
// CHECK-NEXT:    %[[Y:.*]] = memref.alloca() : memref<3x0x5xi64>
// CHECK-NEXT:    %[[E:.*]] = memref.alloca() : memref<2x0xf32>
// CHECK-NEXT:    memref.copy %[[X]], %[[Y]]
// CHECK-NEXT:    %[[F:.*]] = memref.alloca() : memref<0xf32>
// CHECK-NEXT:    call @kernel(%[[F]], %{{.*}}) : (memref<0xf32>, memref<4xf32>) -> ()
func.func @main(%x: memref<3x0x5xi64>, %k: memref<i64>, %y: memref<3x0x5xi64>,
                %e: memref<2x0xf32>, %f: memref<4xf32>) {
  memref.copy %x, %y : memref<3x0x5xi64> to memref<3x0x5xi64>
  call @kernel(%e, %f) : (memref<2x0xf32>, memref<4xf32>) -> ()
  return
}

// Every function converts with the bare-pointer convention.
// LLVM-LABEL: llvm.func @kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM-LABEL: llvm.func @main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
