//===- Passes.td - the artifact ABI and phase boundaries ------*- tablegen -*-===//
//
// The steps between a model function and the entry points its artifact
// exports (runtime/include/hodu/abi.h), as passes: every target runs them,
// `--compile-to` shows their results and `hodu-opt` replays them.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_ABI_PASSES_TD
#define HODU_ABI_PASSES_TD

include "mlir/Pass/PassBase.td"

def RecordEntryPoint : Pass<"hodu-record-entry-point", "mlir::ModuleOp"> {
  let summary = "Record the model's entry point and signature as hodu.entry_point";
  let description = [{
    Finds the model function (`@main`, or else the module's only public
    function, which is renamed `@main`), checks that every input and output
    is a tensor with a static shape and an element type the artifact ABI can
    describe, and records them in a `hodu.entry_point` op with their names
    (the `hodu.name` argument and result attributes, which are then dropped:
    from here on the names live in the entry point). Runs at the start of the
    linalg phase, while the tensor types still carry the model's dtypes.
    A module that already has an entry point (IR printed by `--compile-to`
    and fed back) is left alone.
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", "\"\"",
           "Symbol prefix of the artifact (default: the module's "
           "hodu.model_name made a C identifier)">,
    Option<"target", "target", "std::string", "\"cpu\"",
           "The target, named in errors">,
  ];
  let dependentDialects = ["hodu::HoduDialect"];
}

def CheckLowered : Pass<"hodu-check-lowered", "mlir::ModuleOp"> {
  let summary = "Fail on hodu ops that the lowering to linalg left behind";
  let description = [{
    The end of the linalg phase: an op still in the hodu dialect (other than
    `hodu.entry_point`) has no lowering for the target, and is reported as
    "'hodu.X' cannot be lowered for the T target".
  }];
  let options = [
    Option<"target", "target", "std::string", "\"cpu\"",
           "The target, named in errors">,
  ];
}

def ArenaToWorkspace : Pass<"hodu-arena-to-workspace", "mlir::ModuleOp"> {
  let summary = "Make @main's arena the run's workspace, a trailing argument";
  let description = [{
    After bufferization and `hodu-plan-memory`: the `memref.alloc` of
    `@main` marked `hodu.arena` becomes a trailing `memref<Nxi8>` argument,
    its deallocation goes, and the module records the size as
    `hodu.workspace_size`. The entry point then passes the caller's
    workspace (kept across runs) or one allocated for the run. An arena
    aligned to more than the ABI's 64 bytes is left alone.
  }];
}

def LowerAsserts : Pass<"hodu-lower-asserts", "mlir::ModuleOp"> {
  let summary = "Turn @main's hodu.assert ops into writes of a run status, a trailing argument";
  let description = [{
    After `hodu-arena-to-workspace`: when `@main` holds `hodu.assert` ops
    (on an `i1`), it gains a trailing `memref<i32>` argument, the run's
    status word, which the entry point zeroes before the run and returns
    after it. The k-th assert (k = 0, 1, ... in the order of the function)
    becomes `status = (status == 0 && !condition) ? k + 2 : status`, so the
    status names the first assert that failed (0 and 1 are the entry
    point's own: success, no memory for the workspace). The module records
    the messages, in that order, as `hodu.asserts`; the descriptor carries
    them for libhodurt's error.

    In the CPU partitions of a heterogeneous bundle (a module without a
    `hodu.entry_point`), each function marked `hodu.host_call` that holds
    asserts gains the status word the same way, and the mark
    `hodu.host_call_status` for `hodu-lower-host-calls`, which returns it
    from the partition's HOST_CALL wrapper and exports the messages. The
    codes count over the whole module. An assert anywhere else (a function
    that is neither) is an error: nothing would report it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def LowerEntryPoint : Pass<"hodu-lower-entry-point", "mlir::ModuleOp"> {
  let summary = "Lower hodu.entry_point to the artifact's descriptor and entry wrapper (LLVM dialect)";
  let description = [{
    The last step of the CPU's llvm phase, once `@main` is an `llvm.func`
    taking bare pointers (inputs, outputs, then the workspace when the
    module has `hodu.workspace_size`). Builds, in the LLVM dialect:

    - `<prefix>_entry(inputs, outputs, ctx)`, the `hodu_entry_fn` of
      abi.h: loads the tensor pointers, applies the run's thread budget
      (`ctx->num_threads`) when the model uses OpenMP, passes
      `ctx->workspace` when it is large enough or else allocates one for the
      run (64-byte aligned, freed before returning; an allocation failure
      returns 1), and calls `@main`, renamed `<prefix>_main`;
    - the descriptor `<prefix>_hodu_descriptor` (`hodu_model_desc`): ABI
      version, struct size, model and target names, tensor descriptors
      with names, dtypes and shapes, the entry, the workspace size;
    - with `export-alias`, its alias `hodu_model_descriptor` (shared
      libraries and executables, which the runtime dlopens).

    Everything else the module defines becomes internal, so an artifact
    exports only its descriptors. Offsets and sizes come from abi.h itself
    (checked with `static_assert`), not from literals.
  }];
  let options = [
    Option<"exportAlias", "export-alias", "bool", "true",
           "Also export the descriptor as hodu_model_descriptor">,
    Option<"target", "target", "std::string", "\"cpu\"",
           "The target name recorded in the descriptor">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def LowerHostCalls : Pass<"hodu-lower-host-calls", "mlir::ModuleOp"> {
  let summary = "Export each CPU partition of a heterogeneous bundle for its HOST_CALL steps";
  let description = [{
    Runs at the end of the CPU target's llvm phase when it compiles the CPU
    partitions of a heterogeneous plan (a library, with no entry point).
    Every function marked `hodu.host_call` (bare-pointer arguments: its
    inputs, then its outputs) gets an exported wrapper with the calling
    convention of a bundle's HOST_CALL step (runtime/include/hodu/bundle.h)
    and is made internal:

    ```c
    int32_t hodu_host_<name>(void *const *buffers); // returns 0, or 2 + k
    ```

    A partition marked `hodu.host_call_status` (`hodu-lower-asserts`: it
    runs run-time checks) takes the status word as a last pointer, which
    the wrapper zeroes on its stack and returns; the module's checks'
    messages (`hodu.asserts`) are exported as `hodu_host_checks` (each
    NUL-terminated, one after another, in the order of their codes) and
    `int32_t hodu_host_num_checks` (runtime/include/hodu/bundle.h).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // HODU_ABI_PASSES_TD
