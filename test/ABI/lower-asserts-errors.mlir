// hodu-lower-asserts: a check must be in @main of a module with an entry
// point, or in a CPU partition of a heterogeneous bundle (hodu.host_call).
// RUN: hodu-opt %s --convert-hodu-to-linalg --hodu-lower-asserts --verify-diagnostics


// Without an entry point, a function that is no CPU partition has no
// status word to write, and nothing would report its check.
module {
  func.func @main(%ok: tensor<i1>) {
    // expected-error @below {{a run-time check (the data fits) outside the entry function of a CPU model and outside the CPU partitions of a bundle: nothing would report it}}
    hodu.assert %ok : tensor<i1> {message = "node 'c' (Expand): the data fits"}
    return
  }
}
