# cmake -DHEADER=runtime.h -DOUTPUT=example.c -P ExtractExample.cmake
# Copies the text between the HODU_EXAMPLE_BEGIN and HODU_EXAMPLE_END lines
# of the header's opening comment into OUTPUT.
file(READ ${HEADER} text)
string(FIND "${text}" "HODU_EXAMPLE_BEGIN\n" begin)
string(FIND "${text}" " * HODU_EXAMPLE_END" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${HEADER}: no HODU_EXAMPLE_BEGIN/END block")
endif()
math(EXPR begin "${begin} + 19")
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${text}" ${begin} ${length} example)
file(WRITE ${OUTPUT} "/* Extracted from ${HEADER}; do not edit. */\n${example}")
