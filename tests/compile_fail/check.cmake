# A compile-fail case is a pair (tests/compile_fail/models.hpp says why):
#   - SOURCE built with -DODM_COMPILE_FAIL must be refused, and the compiler's output must
#     contain the message its first line names ("// expect: <message>"), and the message
#     of each "// expect: " line right after it (a type the error must name, say);
#   - SOURCE built without it (the twin) must compile.
# (file(READ), not file(STRINGS): a message may contain ';', a list separator to CMake.)
file(READ ${SOURCE} content)
if(NOT content MATCHES "^// expect: ([^\n]+)")
  message(FATAL_ERROR "${SOURCE}: the first line must be '// expect: <message>'")
endif()
set(expected "${CMAKE_MATCH_1}")
# The further lines, with each ';' kept from CMake's list splitting as "<semicolon>".
set(also_expected)
string(REGEX MATCH "^(// expect: [^\n]*\n)+" head "${content}")
string(REPLACE ";" "<semicolon>" head "${head}")
string(REGEX MATCHALL "// expect: [^\n]*" lines "${head}")
list(POP_FRONT lines)
foreach(line IN LISTS lines)
  string(SUBSTRING "${line}" 11 -1 line)
  list(APPEND also_expected "${line}")
endforeach()
if(NOT content MATCHES "#ifn?def ODM_COMPILE_FAIL\n")
  message(FATAL_ERROR "${SOURCE}: a case needs its twin: '#ifdef ODM_COMPILE_FAIL' ... '#else' ... '#endif'")
endif()
set(flags -std=c++20 -fsyntax-only)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
# PCH: a forwarding header whose .gch holds what the case includes first (tests/CMakeLists.txt);
# the case is compiled as if that header came first, which it does. g++ does not check
# that a .gch still matches the headers it was made from: one older than any of them (a
# header edited since the last build) is not used, and the headers are read as written.
if(PCH AND EXISTS ${PCH}.gch AND EXISTS ${PCH}.d)
  file(READ ${PCH}.d made_from)
  string(REPLACE "\\\n" " " made_from "${made_from}")
  string(REGEX REPLACE "^[^:]*: *" "" made_from "${made_from}")  # the rule's target
  string(REGEX REPLACE "[ \t\n]+" ";" made_from "${made_from}")
  set(fresh TRUE)
  foreach(header IN LISTS made_from)
    if(header AND EXISTS ${header} AND ${header} IS_NEWER_THAN ${PCH}.gch)
      set(fresh FALSE)
      message(STATUS "${PCH}.gch is older than ${header}: compiled without it")
      break()
    endif()
  endforeach()
  if(fresh)
    list(APPEND flags -include ${PCH} -Winvalid-pch)
  endif()
endif()

execute_process(COMMAND ${CXX} ${flags} -DODM_COMPILE_FAIL ${SOURCE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with -DODM_COMPILE_FAIL, but it must not")
endif()
foreach(wanted IN ITEMS "${expected}" LISTS also_expected)
  string(REPLACE "<semicolon>" ";" wanted "${wanted}")
  string(FIND "${out}${err}" "${wanted}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE} failed to compile, but without the expected message\n  ${wanted}\ncompiler said:\n${err}")
  endif()
endforeach()

execute_process(COMMAND ${CXX} ${flags} ${SOURCE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: the twin (without -DODM_COMPILE_FAIL) must compile, but the compiler said:\n${err}")
endif()
message(STATUS "refused as expected: ${expected}; the twin compiles")
