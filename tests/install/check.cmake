# Runs the README's install commands (the block announced by `<!-- run by the test
# install.find_package -->`): build odm alone, install it into a prefix, then configure,
# build and run a separate project (tests/install/consumer) that finds it with
# find_package(odm) and links odm::odm. With -DSHARED=ON the first command also gets
# -DBUILD_SHARED_LIBS=ON, as the README says, and the consumer must load libodm.so.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... [-DSHARED=ON] -P check.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../readme/block.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/home)

readme_block(${SOURCE_DIR}/README.md install.find_package commands)
# The README's paths, moved into the scratch folder; the compiler under test.
string(REPLACE "build/release" "${WORK_DIR}/odm-build" commands "${commands}")
string(REPLACE "your-project/build" "${WORK_DIR}/consumer-build" commands "${commands}")
string(REPLACE "your-project" "${SOURCE_DIR}/tests/install/consumer" commands "${commands}")
string(REPLACE "$HOME" "${WORK_DIR}/home" commands "${commands}")
string(REGEX REPLACE "(cmake -S [^\n]*)" "\\1 -DCMAKE_CXX_COMPILER=${CXX}" commands "${commands}")
if(SHARED)  # the first command is the one that configures odm (cmake -S . ...)
  string(FIND "${commands}" "\n" first_end)
  string(SUBSTRING "${commands}" 0 ${first_end} first)
  string(SUBSTRING "${commands}" ${first_end} -1 rest)
  if(NOT first MATCHES "^cmake -S \\. ")
    message(FATAL_ERROR "the README's install commands must start by configuring odm (cmake -S . ...)")
  endif()
  set(commands "${first} -DBUILD_SHARED_LIBS=ON${rest}")
endif()
readme_run("${commands}" ${WORK_DIR} commands)

# The consumer uses the library it was meant to: libodm.so when shared, none otherwise.
execute_process(COMMAND ldd ${WORK_DIR}/consumer-build/consumer OUTPUT_VARIABLE libraries RESULT_VARIABLE rc)
string(FIND "${libraries}" "libodm.so.0.1 => ${WORK_DIR}/home/" shared_found)
string(FIND "${libraries}" "libodm" any_found)
if(SHARED AND shared_found EQUAL -1)
  message(FATAL_ERROR "the consumer does not load the installed libodm.so.0.1:\n${libraries}")
elseif(NOT SHARED AND NOT any_found EQUAL -1)
  message(FATAL_ERROR "a static odm was installed, yet the consumer loads a shared one:\n${libraries}")
endif()
message(STATUS "an installed odm (${WORK_DIR}/home) was found, linked and run")
