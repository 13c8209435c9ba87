# cmake -DMODE=install|buildtree -DHODU_BUILD=... -DSOURCE=... -DWORK=...
#       [-DGENERATOR=...] [-DC_COMPILER=...] -P downstream.cmake
#
# install:   cmake --install HODU_BUILD --prefix WORK/prefix, then builds SOURCE
#            with CMAKE_PREFIX_PATH=WORK/prefix, runs it and its ctest tests.
# buildtree: the same with Hodu_DIR=HODU_BUILD.
# Checks that installed files exist and that the installed tools carry no
# build-tree RPATH. WORK is removed on success.
cmake_minimum_required(VERSION 3.20)
foreach(var MODE HODU_BUILD SOURCE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "downstream.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "command failed (${rc}): ${cmd}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(config_args -S "${SOURCE}" -B "${WORK}/build")
if(GENERATOR)
  list(APPEND config_args -G "${GENERATOR}")
endif()
if(C_COMPILER)
  list(APPEND config_args "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()

if(MODE STREQUAL "install")
  set(prefix "${WORK}/prefix")
  run(${CMAKE_COMMAND} --install "${HODU_BUILD}" --prefix "${prefix}")
  foreach(f bin/hoduc bin/hodu-opt bin/hodu-run lib/libhodurt.so lib/libhodurt.a
            include/hodu/runtime.h include/hodu/abi.h lib/hodu/hodu_exe_main.o
            lib/cmake/Hodu/HoduConfig.cmake lib/cmake/Hodu/HoduConfigVersion.cmake
            lib/cmake/Hodu/HoduTargets.cmake lib/cmake/Hodu/AddHoduModel.cmake
            lib/cmake/Hodu/hodu_benchmark.c.in)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
  # The installed tools must not point into the build tree.
  find_program(READELF NAMES readelf llvm-readelf-22 llvm-readelf)
  if(READELF)
    foreach(tool hoduc hodu-opt hodu-run)
      run(${READELF} -d "${prefix}/bin/${tool}")
      if(last_output MATCHES "${HODU_BUILD}")
        message(FATAL_ERROR "installed ${tool} has a build-tree RPATH:\n${last_output}")
      endif()
    endforeach()
  endif()
  run("${prefix}/bin/hoduc" --version)
  run("${prefix}/bin/hodu-run" --version)
  list(APPEND config_args "-DCMAKE_PREFIX_PATH=${prefix}")
elseif(MODE STREQUAL "buildtree")
  list(APPEND config_args "-DHodu_DIR=${HODU_BUILD}")
else()
  message(FATAL_ERROR "downstream.cmake: MODE must be install or buildtree")
endif()

run(${CMAKE_COMMAND} ${config_args})
run(${CMAKE_COMMAND} --build "${WORK}/build")
run("${WORK}/build/two_models")
if(NOT last_output MATCHES "ok")
  message(FATAL_ERROR "two_models did not report ok:\n${last_output}")
endif()
message(STATUS "two_models:\n${last_output}")
run(${CMAKE_CTEST_COMMAND} --test-dir "${WORK}/build" --output-on-failure)
# A second build must not recompile the models (nothing changed).
run(${CMAKE_COMMAND} --build "${WORK}/build" --verbose)
if(last_output MATCHES "Compiling Hodu model")
  message(FATAL_ERROR "a no-op rebuild recompiled a model:\n${last_output}")
endif()
file(REMOVE_RECURSE "${WORK}")
