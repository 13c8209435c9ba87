//===- HoduToLinalg.h - lower the hodu dialect to upstream MLIR -*- C++ -*-===//
//
// The hodu -> linalg/tensor/arith/math/scf conversion. The pass itself is
// declared in include/hodu/Conversion/Passes.td (`convert-hodu-to-linalg`,
// hodu::createConvertHoduToLinalg()); these entry points let other pipelines
// reuse the patterns.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_CONVERSION_HODUTOLINALG_H
#define HODU_CONVERSION_HODUTOLINALG_H

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace hodu {

/// Converts hodu types to signless upstream types (uiN -> iN, also inside
/// tensors); every other type is kept.
void populateHoduToSignlessTypeConversion(mlir::TypeConverter &converter);

/// Adds the patterns that lower every supported hodu op.
void populateHoduToLinalgConversionPatterns(mlir::TypeConverter &converter,
                                            mlir::RewritePatternSet &patterns);

} // namespace hodu

#endif // HODU_CONVERSION_HODUTOLINALG_H
