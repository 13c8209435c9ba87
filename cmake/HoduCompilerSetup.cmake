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
