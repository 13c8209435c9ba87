/*===- ort_api.h - the part of ONNX Runtime's C API the engine uses --------===*
 *
 * Hodu's own minimal declarations of ONNX Runtime's C API: only the opaque
 * types, enums and function pointers hodu-engine-onnxruntime calls. ONNX
 * Runtime is not linked at build time; the engine dlopen()s it and reads
 * the function table that OrtGetApiBase()->GetApi(HODU_ORT_API_VERSION)
 * returns.
 *
 * struct OrtApi is a table of function pointers whose order ONNX Runtime
 * only ever appends to: a slot keeps its index in every later release. The
 * indices below follow that order as of API version 13 (ONNX Runtime 1.13);
 * every slot named here has existed since long before it. The slots the
 * engine does not call are kept as `void *` padding so that each named one
 * sits at its index, and the static asserts at the end check each index.
 * The engine also checks the table at run time (CreateStatus, GetErrorCode,
 * GetErrorMessage and ReleaseStatus must round-trip a status) before using
 * it.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_PLUGINS_ONNXRUNTIME_ORT_API_H
#define HODU_PLUGINS_ONNXRUNTIME_ORT_API_H

#include <stddef.h>
#include <stdint.h>

/* The OrtApi version the engine asks GetApi for: the version whose table
 * the indices below were checked against. A library older than this
 * (ONNX Runtime < 1.13) returns NULL and is refused. */
#define HODU_ORT_API_VERSION 13u

/* ONNX Runtime's entry point, the one symbol the engine dlsym()s. */
#define HODU_ORT_GET_API_BASE_SYMBOL "OrtGetApiBase"

/* Opaque handles. */
typedef struct OrtEnv OrtEnv;
typedef struct OrtStatus OrtStatus; /* NULL: success */
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtSession OrtSession;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtSessionOptions OrtSessionOptions;
/* A struct of ONNX Runtime's; the engine only passes pointers to it. */
typedef struct OrtAllocator OrtAllocator;

/* ONNX's TensorProto.DataType numbering (onnx.proto), which ONNX Runtime
 * uses for its element types. */
typedef enum ONNXTensorElementDataType {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 = 4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 = 5,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING = 8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 = 12,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 = 13,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 = 14,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128 = 15,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 = 16,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN = 17,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ = 18,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2 = 19,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ = 20,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT4 = 21,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4 = 22,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1 = 23
} ONNXTensorElementDataType;

/* What an input or output is (ONNX's TypeProto oneof). */
typedef enum ONNXType {
  ONNX_TYPE_UNKNOWN = 0,
  ONNX_TYPE_TENSOR = 1,
  ONNX_TYPE_SEQUENCE = 2,
  ONNX_TYPE_MAP = 3,
  ONNX_TYPE_OPAQUE = 4,
  ONNX_TYPE_SPARSETENSOR = 5,
  ONNX_TYPE_OPTIONAL = 6
} ONNXType;

typedef enum OrtLoggingLevel {
  ORT_LOGGING_LEVEL_VERBOSE = 0,
  ORT_LOGGING_LEVEL_INFO = 1,
  ORT_LOGGING_LEVEL_WARNING = 2,
  ORT_LOGGING_LEVEL_ERROR = 3,
  ORT_LOGGING_LEVEL_FATAL = 4
} OrtLoggingLevel;

typedef enum OrtErrorCode {
  ORT_OK = 0,
  ORT_FAIL = 1,
  ORT_INVALID_ARGUMENT = 2,
  ORT_NO_SUCHFILE = 3,
  ORT_NO_MODEL = 4,
  ORT_ENGINE_ERROR = 5,
  ORT_RUNTIME_EXCEPTION = 6,
  ORT_INVALID_PROTOBUF = 7,
  ORT_MODEL_LOADED = 8,
  ORT_NOT_IMPLEMENTED = 9,
  ORT_INVALID_GRAPH = 10,
  ORT_EP_FAIL = 11
} OrtErrorCode;

typedef enum GraphOptimizationLevel {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_ALL = 99
} GraphOptimizationLevel;

typedef enum OrtAllocatorType {
  OrtInvalidAllocator = -1,
  OrtDeviceAllocator = 0,
  OrtArenaAllocator = 1
} OrtAllocatorType;

typedef enum OrtMemType {
  OrtMemTypeCPUInput = -2,
  OrtMemTypeCPUOutput = -1,
  OrtMemTypeDefault = 0
} OrtMemType;

/* The logging callback of CreateEnvWithCustomLogger. */
typedef void (*OrtLoggingFunction)(void *param, OrtLoggingLevel severity,
                                   const char *category, const char *logid,
                                   const char *code_location,
                                   const char *message);

typedef struct OrtApi OrtApi;

/* What OrtGetApiBase() returns. */
typedef struct OrtApiBase {
  const OrtApi *(*GetApi)(uint32_t version);
  const char *(*GetVersionString)(void); /* "1.30.0" */
} OrtApiBase;

typedef const OrtApiBase *(*OrtGetApiBaseFn)(void);

/* The function table, in ONNX Runtime's append-only order (API version
 * 13); `slot_A_B` pads the unused slots A..B. */
struct OrtApi {
  /*  0 */ OrtStatus *(*CreateStatus)(OrtErrorCode code, const char *msg);
  /*  1 */ OrtErrorCode (*GetErrorCode)(const OrtStatus *status);
  /*  2 */ const char *(*GetErrorMessage)(const OrtStatus *status);
  /*  3 */ void *slot_3; /* CreateEnv */
  /*  4 */ OrtStatus *(*CreateEnvWithCustomLogger)(
      OrtLoggingFunction logging_function, void *logger_param,
      OrtLoggingLevel log_severity_level, const char *logid, OrtEnv **out);
  /*  5 */ void *slot_5_6[2]; /* Enable/DisableTelemetryEvents */
  /*  7 */ OrtStatus *(*CreateSession)(const OrtEnv *env,
                                       const char *model_path,
                                       const OrtSessionOptions *options,
                                       OrtSession **out);
  /*  8 */ void *slot_8; /* CreateSessionFromArray */
  /*  9 */ OrtStatus *(*Run)(OrtSession *session,
                             const OrtRunOptions *run_options,
                             const char *const *input_names,
                             const OrtValue *const *inputs, size_t input_len,
                             const char *const *output_names,
                             size_t output_names_len, OrtValue **outputs);
  /* 10 */ OrtStatus *(*CreateSessionOptions)(OrtSessionOptions **options);
  /* 11 */ void *slot_11_22[12]; /* SetOptimizedModelFilePath ..
                                    SetSessionLogSeverityLevel */
  /* 23 */ OrtStatus *(*SetSessionGraphOptimizationLevel)(
      OrtSessionOptions *options, GraphOptimizationLevel level);
  /* 24 */ OrtStatus *(*SetIntraOpNumThreads)(OrtSessionOptions *options,
                                              int intra_op_num_threads);
  /* 25 */ void *slot_25_29[5]; /* SetInterOpNumThreads ..
                                   RegisterCustomOpsLibrary */
  /* 30 */ OrtStatus *(*SessionGetInputCount)(const OrtSession *session,
                                              size_t *out);
  /* 31 */ OrtStatus *(*SessionGetOutputCount)(const OrtSession *session,
                                               size_t *out);
  /* 32 */ void *slot_32; /* SessionGetOverridableInitializerCount */
  /* 33 */ OrtStatus *(*SessionGetInputTypeInfo)(const OrtSession *session,
                                                 size_t index,
                                                 OrtTypeInfo **type_info);
  /* 34 */ OrtStatus *(*SessionGetOutputTypeInfo)(const OrtSession *session,
                                                  size_t index,
                                                  OrtTypeInfo **type_info);
  /* 35 */ void *slot_35; /* SessionGetOverridableInitializerTypeInfo */
  /* 36 */ OrtStatus *(*SessionGetInputName)(const OrtSession *session,
                                             size_t index,
                                             OrtAllocator *allocator,
                                             char **value);
  /* 37 */ OrtStatus *(*SessionGetOutputName)(const OrtSession *session,
                                              size_t index,
                                              OrtAllocator *allocator,
                                              char **value);
  /* 38 */ void *slot_38_48[11]; /* SessionGetOverridableInitializerName ..
                                    CreateTensorAsOrtValue */
  /* 49 */ OrtStatus *(*CreateTensorWithDataAsOrtValue)(
      const OrtMemoryInfo *info, void *p_data, size_t p_data_len,
      const int64_t *shape, size_t shape_len, ONNXTensorElementDataType type,
      OrtValue **out);
  /* 50 */ void *slot_50; /* IsTensor */
  /* 51 */ OrtStatus *(*GetTensorMutableData)(OrtValue *value, void **out);
  /* 52 */ void *slot_52_54[3]; /* FillStringTensor .. GetStringTensorContent */
  /* 55 */ OrtStatus *(*CastTypeInfoToTensorInfo)(
      const OrtTypeInfo *type_info, const OrtTensorTypeAndShapeInfo **out);
  /* 56 */ OrtStatus *(*GetOnnxTypeFromTypeInfo)(const OrtTypeInfo *type_info,
                                                 ONNXType *out);
  /* 57 */ void *slot_57_59[3]; /* CreateTensorTypeAndShapeInfo ..
                                   SetDimensions */
  /* 60 */ OrtStatus *(*GetTensorElementType)(
      const OrtTensorTypeAndShapeInfo *info, ONNXTensorElementDataType *out);
  /* 61 */ OrtStatus *(*GetDimensionsCount)(
      const OrtTensorTypeAndShapeInfo *info, size_t *out);
  /* 62 */ OrtStatus *(*GetDimensions)(const OrtTensorTypeAndShapeInfo *info,
                                       int64_t *dim_values,
                                       size_t dim_values_length);
  /* 63 */ OrtStatus *(*GetSymbolicDimensions)(
      const OrtTensorTypeAndShapeInfo *info, const char *dim_params[],
      size_t dim_params_length);
  /* 64 */ void *slot_64; /* GetTensorShapeElementCount */
  /* 65 */ OrtStatus *(*GetTensorTypeAndShape)(const OrtValue *value,
                                               OrtTensorTypeAndShapeInfo **out);
  /* 66 */ void *slot_66; /* GetTypeInfo */
  /* 67 */ OrtStatus *(*GetValueType)(const OrtValue *value, ONNXType *out);
  /* 68 */ void *slot_68; /* CreateMemoryInfo */
  /* 69 */ OrtStatus *(*CreateCpuMemoryInfo)(OrtAllocatorType type,
                                             OrtMemType mem_type,
                                             OrtMemoryInfo **out);
  /* 70 */ void *slot_70_75[6]; /* CompareMemoryInfo .. AllocatorAlloc */
  /* 76 */ OrtStatus *(*AllocatorFree)(OrtAllocator *allocator, void *p);
  /* 77 */ void *slot_77; /* AllocatorGetInfo */
  /* 78 */ OrtStatus *(*GetAllocatorWithDefaultOptions)(OrtAllocator **out);
  /* 79 */ void *slot_79_91[13]; /* AddFreeDimensionOverride ..
                                    KernelContext_GetOutput */
  /* 92 */ void (*ReleaseEnv)(OrtEnv *input);
  /* 93 */ void (*ReleaseStatus)(OrtStatus *input);
  /* 94 */ void (*ReleaseMemoryInfo)(OrtMemoryInfo *input);
  /* 95 */ void (*ReleaseSession)(OrtSession *input);
  /* 96 */ void (*ReleaseValue)(OrtValue *input);
  /* 97 */ void *slot_97; /* ReleaseRunOptions */
  /* 98 */ void (*ReleaseTypeInfo)(OrtTypeInfo *input);
  /* 99 */ void (*ReleaseTensorTypeAndShapeInfo)(
      OrtTensorTypeAndShapeInfo *input);
  /* 100 */ void (*ReleaseSessionOptions)(OrtSessionOptions *input);
  /* The table goes on (ReleaseCustomOpDomain at 101, ...); nothing past
   * slot 100 is read. */
};

/* Each named slot at its index of ONNX Runtime's table. */
#define HODU_ORT_SLOT_(member, index)                                          \
  _Static_assert(offsetof(struct OrtApi, member) == (index) * sizeof(void *),  \
                 "OrtApi::" #member " is not at slot " #index)
HODU_ORT_SLOT_(CreateStatus, 0);
HODU_ORT_SLOT_(GetErrorCode, 1);
HODU_ORT_SLOT_(GetErrorMessage, 2);
HODU_ORT_SLOT_(CreateEnvWithCustomLogger, 4);
HODU_ORT_SLOT_(CreateSession, 7);
HODU_ORT_SLOT_(Run, 9);
HODU_ORT_SLOT_(CreateSessionOptions, 10);
HODU_ORT_SLOT_(SetSessionGraphOptimizationLevel, 23);
HODU_ORT_SLOT_(SetIntraOpNumThreads, 24);
HODU_ORT_SLOT_(SessionGetInputCount, 30);
HODU_ORT_SLOT_(SessionGetOutputCount, 31);
HODU_ORT_SLOT_(SessionGetInputTypeInfo, 33);
HODU_ORT_SLOT_(SessionGetOutputTypeInfo, 34);
HODU_ORT_SLOT_(SessionGetInputName, 36);
HODU_ORT_SLOT_(SessionGetOutputName, 37);
HODU_ORT_SLOT_(CreateTensorWithDataAsOrtValue, 49);
HODU_ORT_SLOT_(GetTensorMutableData, 51);
HODU_ORT_SLOT_(CastTypeInfoToTensorInfo, 55);
HODU_ORT_SLOT_(GetOnnxTypeFromTypeInfo, 56);
HODU_ORT_SLOT_(GetTensorElementType, 60);
HODU_ORT_SLOT_(GetDimensionsCount, 61);
HODU_ORT_SLOT_(GetDimensions, 62);
HODU_ORT_SLOT_(GetSymbolicDimensions, 63);
HODU_ORT_SLOT_(GetTensorTypeAndShape, 65);
HODU_ORT_SLOT_(GetValueType, 67);
HODU_ORT_SLOT_(CreateCpuMemoryInfo, 69);
HODU_ORT_SLOT_(AllocatorFree, 76);
HODU_ORT_SLOT_(GetAllocatorWithDefaultOptions, 78);
HODU_ORT_SLOT_(ReleaseEnv, 92);
HODU_ORT_SLOT_(ReleaseStatus, 93);
HODU_ORT_SLOT_(ReleaseMemoryInfo, 94);
HODU_ORT_SLOT_(ReleaseSession, 95);
HODU_ORT_SLOT_(ReleaseValue, 96);
HODU_ORT_SLOT_(ReleaseTypeInfo, 98);
HODU_ORT_SLOT_(ReleaseTensorTypeAndShapeInfo, 99);
HODU_ORT_SLOT_(ReleaseSessionOptions, 100);
#undef HODU_ORT_SLOT_

#endif /* HODU_PLUGINS_ONNXRUNTIME_ORT_API_H */
