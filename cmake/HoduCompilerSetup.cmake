# Build-time hygiene shared by every Hodu target: ccache when present,
# lld for linking when present (much faster than bfd on 2 cores).
find_program(HODU_CCACHE ccache)
if(HODU_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${HODU_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${HODU_CCACHE})
  message(STATUS "ccache: ${HODU_CCACHE}")
endif()

find_program(HODU_LLD NAMES ld.lld-22 ld.lld HINTS /usr/lib/llvm-22/bin)
if(HODU_LLD AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_link_options("--ld-path=${HODU_LLD}")
endif()

# Sanitizer and fuzzing builds (scripts/fuzz.sh; docs/security.md): every
# Hodu target, the runtime included, compiled with -fsanitize=<value>
# (address,undefined or thread), and with HODU_FUZZ_INSTRUMENT the coverage
# instrumentation libFuzzer steers by, so that the fuzz targets see into the
# importers and readers and not only into their harnesses. Use a separate
# build directory.
set(HODU_SANITIZE "" CACHE STRING
    "Build every target with -fsanitize=<value>, e.g. address,undefined")
option(HODU_FUZZ_INSTRUMENT
       "Instrument every target for libFuzzer (-fsanitize=fuzzer-no-link)" OFF)
set(HODU_SANITIZE_FLAGS ${HODU_SANITIZE})
if(HODU_FUZZ_INSTRUMENT)
  list(APPEND HODU_SANITIZE_FLAGS fuzzer-no-link)
endif()
if(HODU_SANITIZE_FLAGS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "HODU_SANITIZE and HODU_FUZZ_INSTRUMENT need clang")
  endif()
  string(JOIN "," HODU_SANITIZE_FLAGS ${HODU_SANITIZE_FLAGS})
  add_compile_options(-fsanitize=${HODU_SANITIZE_FLAGS} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${HODU_SANITIZE_FLAGS})
endif()
