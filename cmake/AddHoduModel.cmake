# add_hodu_model: compile a model with hoduc at build time and link it like a
# library (in the style of IREE's iree_bytecode_module).
#
#   add_hodu_model(<name>
#     SOURCE <model>              model file: .onnx, .mlir/.mlirbc or .hdss
#                                 (relative paths are from the current source dir)
#     [TARGET <device>]           cpu (default) | cuda | rocm | vulkan | metal;
#                                 a device this Hodu build lacks is a configure
#                                 error naming the available ones
#     [GPU_ARCH <arch>...]        GPU architectures (sm_80, gfx90a, ...); only
#                                 meaningful for GPU targets
#     [INPUT_SHAPES <n:dims>...]  pins for dynamic input dims, passed as
#                                 --input-shape=<n:dims> (e.g. x:1x3x224x224)
#     [FLAGS <flag>...]           extra hoduc flags (-O3, -mcpu=..., ...)
#     [TEST_DATA <dir>]           an ONNX-style test_data_set directory
#                                 (input_N.pb / output_N.pb); adds <name>_test
#     [BENCHMARK_RUNS <n>])       timed runs of <name>_benchmark (default 100)
#
# Creates:
#   <name>            STATIC library holding the compiled model object. Its
#                     usage requirements put <name>.h (written by
#                     `hoduc --header`) and hodu/abi.h on the include path. It
#                     needs no runtime library: link several models into one
#                     program and call `<name>_run(...)` or use the
#                     `<name>_hodu_descriptor` from the header.
#   <name>_benchmark  executable timing the model's entry point; prints the
#                     median and minimum latency (`<name>_benchmark [runs]`).
#   <name>_test       (TEST_DATA only) a ctest test: compiles lib<name>.so as
#                     well and runs `hodu-run lib<name>.so --test-data <dir>`.
#
# The compile step re-runs when the model file or the hoduc executable
# changes, and only then. Outputs go to ${CMAKE_CURRENT_BINARY_DIR}:
# <name>.o, <name>.h, lib<name>.so (TEST_DATA), <name>_benchmark.c.
include_guard(GLOBAL)

set(_HODU_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")
if(NOT DEFINED HODU_AVAILABLE_TARGETS)
  set(HODU_AVAILABLE_TARGETS cpu)
endif()

function(add_hodu_model name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "SOURCE;TARGET;TEST_DATA;BENCHMARK_RUNS" "GPU_ARCH;INPUT_SHAPES;FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "add_hodu_model(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "add_hodu_model(${name}): the name prefixes C symbols "
      "and must be a C identifier")
  endif()
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "add_hodu_model(${name}): SOURCE is required")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET cpu)
  endif()
  set(known_targets cpu cuda rocm vulkan metal)
  if(NOT ARG_TARGET IN_LIST known_targets)
    message(FATAL_ERROR "add_hodu_model(${name}): unknown TARGET ${ARG_TARGET} "
      "(known: cpu, cuda, rocm, vulkan, metal)")
  endif()
  if(NOT ARG_TARGET IN_LIST HODU_AVAILABLE_TARGETS)
    string(REPLACE ";" ", " available "${HODU_AVAILABLE_TARGETS}")
    message(FATAL_ERROR "add_hodu_model(${name}): TARGET ${ARG_TARGET} is not "
      "available in this Hodu build (available: ${available})")
  endif()
  if(ARG_GPU_ARCH AND ARG_TARGET STREQUAL "cpu")
    message(FATAL_ERROR "add_hodu_model(${name}): GPU_ARCH needs a GPU TARGET")
  endif()
  if(NOT TARGET Hodu::hoduc)
    message(FATAL_ERROR "add_hodu_model(${name}): Hodu::hoduc is not defined; "
      "call find_package(Hodu CONFIG REQUIRED) first")
  endif()

  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "add_hodu_model(${name}): SOURCE ${source} does not exist")
  endif()

  set(outdir "${CMAKE_CURRENT_BINARY_DIR}")
  set(object "${outdir}/${name}.o")
  set(header "${outdir}/${name}.h")
  set(hoduc_args --name=${name} --device=${ARG_TARGET})
  foreach(pin IN LISTS ARG_INPUT_SHAPES)
    list(APPEND hoduc_args "--input-shape=${pin}")
  endforeach()
  list(APPEND hoduc_args ${ARG_FLAGS})

  # A file-level dependency on hoduc re-runs the compile when hoduc changes;
  # in Hodu's own build the target-level one also builds hoduc first.
  set(hoduc_deps "$<TARGET_FILE:Hodu::hoduc>")
  get_target_property(hoduc_real Hodu::hoduc ALIASED_TARGET)
  if(hoduc_real)
    list(APPEND hoduc_deps ${hoduc_real})
  endif()

  add_custom_command(OUTPUT "${object}" "${header}"
    COMMAND Hodu::hoduc "${source}" -o "${object}" "--header=${header}" ${hoduc_args}
    DEPENDS "${source}" ${hoduc_deps}
    COMMENT "Compiling Hodu model ${name} (${ARG_TARGET})"
    VERBATIM)
  add_custom_target(${name}_compile DEPENDS "${object}" "${header}")

  # The archive holds only the model object; it needs nothing from libhodurt.
  add_library(${name} STATIC "${object}")
  set_source_files_properties("${object}" PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  add_dependencies(${name} ${name}_compile)
  target_include_directories(${name} INTERFACE
    "${outdir}"
    "$<TARGET_PROPERTY:Hodu::hodurt_static,INTERFACE_INCLUDE_DIRECTORIES>")
  # Generated code calls libm (expf, tanhf, ...) and, for multi-threaded
  # kernels, LLVM's OpenMP runtime.
  if(UNIX AND NOT APPLE)
    target_link_libraries(${name} INTERFACE m)
  endif()
  if(HODU_OPENMP_LIBRARY)
    target_link_libraries(${name} INTERFACE "${HODU_OPENMP_LIBRARY}")
  endif()

  # <name>_benchmark: times the entry point through the descriptor.
  if(NOT ARG_BENCHMARK_RUNS)
    set(ARG_BENCHMARK_RUNS 100)
  endif()
  set(HODU_MODEL_NAME ${name})
  set(HODU_BENCHMARK_RUNS ${ARG_BENCHMARK_RUNS})
  configure_file("${_HODU_MODULE_DIR}/hodu_benchmark.c.in"
    "${outdir}/${name}_benchmark.c" @ONLY)
  add_executable(${name}_benchmark "${outdir}/${name}_benchmark.c")
  set_target_properties(${name}_benchmark PROPERTIES C_STANDARD 11)
  target_link_libraries(${name}_benchmark PRIVATE ${name})

  if(ARG_TEST_DATA)
    get_filename_component(test_data "${ARG_TEST_DATA}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(shared "${outdir}/lib${name}.so")
    add_custom_command(OUTPUT "${shared}"
      COMMAND Hodu::hoduc "${source}" -o "${shared}" ${hoduc_args}
      DEPENDS "${source}" ${hoduc_deps}
      COMMENT "Compiling Hodu model ${name} as a shared library for its test"
      VERBATIM)
    add_custom_target(${name}_shared ALL DEPENDS "${shared}")
    add_test(NAME ${name}_test
      COMMAND Hodu::hodu-run "${shared}" --test-data "${test_data}")
  endif()
endfunction()
