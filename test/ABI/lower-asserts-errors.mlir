// hodu-lower-asserts: a check must be in @main of a module with an entry
// point.
// RUN: hodu-opt %s --convert-hodu-to-linalg --hodu-lower-asserts --verify-diagnostics


// Without an entry point (a CPU partition of a heterogeneous bundle) the
// checks have no status word to write.
module {
  func.func @main(%ok: tensor<i1>) {
    // expected-error @below {{a run-time check (the data fits) outside the entry function of a whole-CPU model}}
    hodu.assert %ok : tensor<i1> {message = "node 'c' (Expand): the data fits"}
    return
  }
}
