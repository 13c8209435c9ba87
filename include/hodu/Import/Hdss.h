//===- Hdss.h - upstream Hodu snapshots (.hdss) -----------------*- C++ -*-===//
//
// A `.hdss` file is upstream Hodu's `Snapshot` serialised with postcard (serde,
// varint-encoded, no magic and no version). This header gives
//
//   - the Snapshot data model as plain C++ structs,
//   - a bounds-checked reader and a writer of the postcard bytes,
//   - the importer (Snapshot -> hodu dialect) registered as "hdss".
//
// Every encoding assumption (enum orders, how Scalar floats are written, the
// HEAD-only fields) is listed in docs/hdss.md. No MLIR headers here.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_IMPORT_HDSS_H
#define HODU_IMPORT_HDSS_H

#include "hodu/Registry/Registry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hodu {
namespace hdss {

/// Upstream DType (`#[repr(u8)]`, serde_repr): one raw byte in the file.
enum class DType : uint8_t {
  Bool = 0, F8E4M3 = 1, F8E5M2 = 2, BF16 = 3, F16 = 4, F32 = 5, F64 = 6,
  U8 = 7, U16 = 8, U32 = 9, U64 = 10, I8 = 11, I16 = 12, I32 = 13, I64 = 14,
};
constexpr unsigned kNumDTypes = 15;
const char *dtypeName(DType dtype);
/// Bytes per element in constant data (bool: one byte).
unsigned dtypeSize(DType dtype);

/// Upstream `Scalar`: one variant per DType. The value is kept as a double
/// (float kinds, also f8/bf16/f16, which upstream writes as f32) or as a
/// 64-bit integer (bool and integer kinds).
struct Scalar {
  DType dtype = DType::F32;
  double f = 0;    // float kinds
  int64_t i = 0;   // bool and integer kinds (u64 values above 2^63 wrap)
  static Scalar ofF32(float v) { Scalar s; s.dtype = DType::F32; s.f = v; return s; }
  static Scalar ofI64(int64_t v) { Scalar s; s.dtype = DType::I64; s.i = v; return s; }
  bool isFloat() const;
  double asDouble() const { return isFloat() ? f : double(i); }
  /// Float kinds truncate toward zero, saturating at the int64 range (NaN
  /// gives 0): an attribute from a file must not be undefined behaviour.
  int64_t asInt() const {
    if (!isFloat())
      return i;
    if (!(f == f))
      return 0;
    if (f >= 9223372036854775808.0)
      return INT64_MAX;
    if (f <= -9223372036854775808.0)
      return INT64_MIN;
    return int64_t(f);
  }
  bool operator==(const Scalar &o) const {
    return dtype == o.dtype && f == o.f && i == o.i;
  }
};

struct Layout {
  std::vector<uint64_t> shape;
  std::vector<uint64_t> strides;
  uint64_t offset = 0;
  /// A contiguous row-major layout of `shape`.
  static Layout contiguous(std::vector<uint64_t> shape);
  bool operator==(const Layout &o) const {
    return shape == o.shape && strides == o.strides && offset == o.offset;
  }
};

/// `Op` is a two-level enum: the family (outer variant) and the op in it.
/// The orders are those of upstream `ops.rs` at HEAD (docs/hdss.md).
enum class OpFamily : uint32_t {
  Binary, BinaryLogical, Cmp, CmpScalar, Unary, UnaryLogical, UnaryScalar,
  Matrix, Linalg, Reduce, Concat, Split, Indexing, Conv, Windowing, Resize,
  Padding, Scan, Sort, Einsum, Shape, ShapeScalars, ShapeMemory, Cast, Memory,
  Dummy,
};
constexpr unsigned kNumOpFamilies = 26;
/// Number of ops in a family (0 for the unit variant Dummy).
unsigned familySize(OpFamily family);
/// Upstream display name of an op ("add", "relu", "reduce_window_max").
std::string opName(OpFamily family, uint32_t op);

struct Op {
  OpFamily family = OpFamily::Dummy;
  uint32_t op = 0;
  bool operator==(const Op &o) const { return family == o.family && op == o.op; }
};

/// `OpParams` variants, in upstream `op_params.rs` order.
enum class ParamsKind : uint32_t {
  Binary, BinaryLogical, Cmp, CmpScalar, Unary, UnaryLogical, UnaryScalar,
  Matmul, Dot, Reduce, Concat, Split, IndexSelect, IndexPut, Gather, Scatter,
  ScatterAdd, ScatterMax, ScatterMin, Onehoto, Nonzero, Unique, Conv1d, Conv2d,
  Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, Conv1dGradWeight,
  Conv2dGradWeight, Conv3dGradWeight, ConvTranspose1dGradWeight,
  ConvTranspose2dGradWeight, ConvTranspose3dGradWeight, ReduceWindow, Padding,
  Scan, TopK, Einsum, Resize, Reshape, Flatten, Squeeze, Unsqueeze, Broadcast,
  Transpose, Permute, Flip, Slice, ToDType, ToDevice, Contiguous, Set,
};
constexpr unsigned kNumParamsKinds = 53;
const char *paramsKindName(ParamsKind kind);

/// One field of a params struct. Which members are used depends on the
/// field's kind in the variant's schema (see paramsSchema()).
struct Field {
  Scalar scalar;                         // Scalar
  std::vector<Scalar> scalars;           // Vec<Scalar>
  uint64_t u = 0;                        // usize, TensorId, enum index, bool, DType
  int64_t i = 0;                         // i32
  bool present = false;                  // Option<..>
  std::string str;                       // String
  std::vector<uint64_t> list;            // Vec<usize>, Vec<(usize,usize)> flattened, Vec<char>
  std::vector<std::vector<uint64_t>> lists; // Vec<Vec<char>>
  bool operator==(const Field &o) const {
    return scalar == o.scalar && scalars == o.scalars && u == o.u && i == o.i &&
           present == o.present && str == o.str && list == o.list &&
           lists == o.lists;
  }
};

/// The fields of a params variant as a string of kind letters:
///   S Scalar, V Vec<Scalar>, u usize, i i32, b bool, d DType, o Option<usize>,
///   U Vec<usize>, P Vec<(usize,usize)>, s String, c Vec<char>,
///   C Vec<Vec<char>>, e unit enum (variant index).
const char *paramsSchema(ParamsKind kind);

struct OpParams {
  ParamsKind kind = ParamsKind::Binary;
  std::vector<Field> fields; // one per schema letter
  bool operator==(const OpParams &o) const {
    return kind == o.kind && fields == o.fields;
  }
};

struct Input {
  std::string name;
  uint64_t id = 0;
  std::vector<uint64_t> shape;
  DType dtype = DType::F32;
  bool operator==(const Input &o) const {
    return name == o.name && id == o.id && shape == o.shape && dtype == o.dtype;
  }
};
struct Target {
  std::string name;
  uint64_t id = 0;
  bool operator==(const Target &o) const { return name == o.name && id == o.id; }
};
struct Constant {
  uint64_t id = 0;
  bool hasName = false;
  std::string name;
  std::vector<uint64_t> shape;
  DType dtype = DType::F32;
  std::vector<uint8_t> data; // raw little-endian elements
  bool operator==(const Constant &o) const {
    return id == o.id && hasName == o.hasName && name == o.name &&
           shape == o.shape && dtype == o.dtype && data == o.data;
  }
};
struct Node {
  Op op;
  bool hasParams = false;
  OpParams params;
  std::vector<uint64_t> inputIds;
  uint64_t outputId = 0;
  std::vector<Layout> inputLayouts;
  Layout outputLayout;
  DType outputDType = DType::F32;
  // symbolic_output_layout is always None: Some is rejected by the reader.
  bool operator==(const Node &o) const {
    return op == o.op && hasParams == o.hasParams &&
           (!hasParams || params == o.params) && inputIds == o.inputIds &&
           outputId == o.outputId && inputLayouts == o.inputLayouts &&
           outputLayout == o.outputLayout && outputDType == o.outputDType;
  }
};
struct Snapshot {
  bool hasName = false;
  std::string name;
  std::vector<Input> inputs;
  std::vector<Constant> constants;
  std::vector<Target> targets;
  std::vector<Node> nodes;
  bool operator==(const Snapshot &o) const {
    return hasName == o.hasName && name == o.name && inputs == o.inputs &&
           constants == o.constants && targets == o.targets && nodes == o.nodes;
  }
};

/// Decodes postcard bytes. On malformed input returns false and sets `error`
/// to a message naming the byte offset and what was being read; never reads
/// out of bounds and never allocates more than the input could describe.
bool readSnapshot(const uint8_t *data, size_t size, Snapshot &out,
                  std::string &error);
bool readSnapshotFile(const std::string &path, Snapshot &out,
                      std::string &error);
/// Encodes a snapshot as postcard bytes.
std::vector<uint8_t> writeSnapshot(const Snapshot &snapshot);
bool writeSnapshotFile(const std::string &path, const Snapshot &snapshot,
                       std::string &error);

} // namespace hdss

/// Imports the .hdss file at `path` into the hodu dialect (module convention
/// of docs/architecture.md). Errors are diagnostics on `context`; the result
/// is then null.
mlir::OwningOpRef<mlir::ModuleOp> importHdssModel(const std::string &path,
                                                  mlir::MLIRContext &context,
                                                  const ImportOptions &options);

/// Imports a snapshot held in memory (the capture API's path); a snapshot
/// without a name is named `defaultName`.
mlir::OwningOpRef<mlir::ModuleOp>
importHdssSnapshot(const hdss::Snapshot &snapshot, mlir::MLIRContext &context,
                   const std::string &defaultName);

/// Adds the "hdss" importer (extension ".hdss") to the ComponentRegistry.
void registerHdssImporter();

} // namespace hodu

#endif // HODU_IMPORT_HDSS_H
