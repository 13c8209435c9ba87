//===- Passes.td - Hodu passes ---------------------------------*- tablegen -*-===//

#ifndef HODU_PASSES_TD
#define HODU_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // HODU_PASSES_TD
