# cmake -DSAMPLE=<hodu-sample-capture> -DWORK=<dir> -P capture.cmake
# Runs the capture sample in a fresh directory, checks what it wrote, cleans up.
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${SAMPLE}" "${WORK}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "ok: matches the C\\+\\+ reference")
  message(FATAL_ERROR "hodu-sample-capture failed (${rc})")
endif()
foreach(f tiny_mlp.hdss libtiny_mlp.so tiny_mlp.h)
  if(NOT EXISTS "${WORK}/${f}")
    message(FATAL_ERROR "the sample did not write ${f}")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
