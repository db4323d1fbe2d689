# Keeps the README true:
#  - a ```cpp block announced by `<!-- snippet: examples/NAME.cpp -->` is exactly that file,
#    which the build compiles and the suite runs as the test example.NAME;
#  - a ```cpp or ```cmake block announced by `<!-- excerpt: PATH -->` appears verbatim in
#    PATH, a file the suite builds and runs (an example or the install test's consumer);
#  - no ```cpp or ```cmake block goes unannounced;
#  - the quick-start commands between `<!-- quickstart -->` and `<!-- /quickstart -->`
#    are the commands .ci/run runs, so CI proves a fresh machine can run them; any other
#    ```sh block is run by a test that reads it from here (`<!-- run by the test NAME -->`,
#    NAME a test of tests/CMakeLists.txt) or says why no test runs it
#    (`<!-- not run by the tests: REASON -->`).
file(READ ${SOURCE_DIR}/README.md readme)

include(${CMAKE_CURRENT_LIST_DIR}/block.cmake)

set(announced 0)
set(remaining "${readme}")  # markers repeat (two excerpts of one file): walk them in order
string(REGEX MATCHALL "<!-- (snippet|excerpt): [^ ]+ -->\n```[a-z]+\n" markers "${readme}")
foreach(marker IN LISTS markers)
  string(REGEX REPLACE "<!-- (snippet|excerpt): ([^ ]+) -->.*" "\\1;\\2" parts "${marker}")
  list(GET parts 0 kind)
  list(GET parts 1 path)
  readme_block_after("${remaining}" "${marker}" body)
  string(FIND "${remaining}" "${marker}" at)
  math(EXPR after "${at} + 1")
  string(SUBSTRING "${remaining}" ${after} -1 remaining)
  if(NOT EXISTS ${SOURCE_DIR}/${path})
    message(FATAL_ERROR "README.md quotes ${path}, which does not exist")
  endif()
  file(READ ${SOURCE_DIR}/${path} source)
  if(kind STREQUAL "snippet")
    if(NOT body STREQUAL source)
      message(FATAL_ERROR "README.md's snippet differs from ${path}; paste the file again")
    endif()
  else()
    string(FIND "${source}" "${body}" found)
    if(found EQUAL -1)
      message(FATAL_ERROR "README.md's excerpt of ${path} is not in that file any more:\n${body}")
    endif()
  endif()
  math(EXPR announced "${announced} + 1")
  message(STATUS "README ${kind} matches ${path}")
endforeach()

string(REGEX MATCHALL "\n```(cpp|cmake)\n" code_blocks "${readme}")
list(LENGTH code_blocks code_count)
if(NOT code_count EQUAL announced)
  message(FATAL_ERROR "README.md has ${code_count} C++/CMake blocks but only ${announced} are quoted from files "
                      "the suite builds; announce each with <!-- snippet: ... --> or <!-- excerpt: ... -->")
endif()

string(FIND "${readme}" "<!-- quickstart -->" qs_begin)
string(FIND "${readme}" "<!-- /quickstart -->" qs_end)
if(qs_begin EQUAL -1 OR qs_end EQUAL -1)
  message(FATAL_ERROR "README.md has no quick-start block")
endif()
math(EXPR qs_length "${qs_end} - ${qs_begin}")
string(SUBSTRING "${readme}" ${qs_begin} ${qs_length} quickstart)
string(REGEX MATCHALL "\n[^`\n<#][^\n]*" commands "${quickstart}")
file(READ ${SOURCE_DIR}/.ci/run ci)
set(n 0)
foreach(command IN LISTS commands)
  string(STRIP "${command}" command)
  if(command STREQUAL "")
    continue()
  endif()
  math(EXPR n "${n} + 1")
  string(FIND "${ci}" "\n${command}\n" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the README's quick-start command `${command}` is not what .ci/run runs")
  endif()
endforeach()
if(NOT n EQUAL 2)
  message(FATAL_ERROR "the README's quick start must have exactly two commands, found ${n}")
endif()

string(REGEX MATCHALL "\n```sh\n" sh_blocks "${readme}")
string(REGEX MATCHALL "<!-- not run by the tests: [^>]+ -->\n```sh\n" excused "${readme}")
string(REGEX MATCHALL "<!-- run by the test [^ ]+ -->\n```sh\n" run_blocks "${readme}")
file(READ ${SOURCE_DIR}/tests/CMakeLists.txt test_list)
foreach(block IN LISTS run_blocks)
  string(REGEX REPLACE "<!-- run by the test ([^ ]+) -->.*" "\\1" test_name "${block}")
  string(FIND "${test_list}" "${test_name}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "README.md says the test ${test_name} runs a block, but tests/CMakeLists.txt has no such test")
  endif()
endforeach()
list(LENGTH sh_blocks sh_count)
list(LENGTH excused excused_count)
list(LENGTH run_blocks run_count)
math(EXPR expected_sh "${excused_count} + ${run_count} + 1")
if(NOT sh_count EQUAL expected_sh)
  message(FATAL_ERROR "every shell block but the quick start must be run by a test (<!-- run by the test NAME -->) "
                      "or say why no test runs it (<!-- not run by the tests: REASON -->)")
endif()
message(STATUS "README quick-start commands are the ones CI runs")
