# Installs odm into a scratch prefix, then configures, builds and runs a separate
# project that finds it with find_package(odm) and links odm::odm.
file(REMOVE_RECURSE ${WORK_DIR})
set(build ${WORK_DIR}/odm-build)
set(prefix ${WORK_DIR}/prefix)
set(consumer ${WORK_DIR}/consumer-build)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
    -DODM_BUILD_TESTS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_BUILD_BENCHMARKS=OFF -DCMAKE_INSTALL_PREFIX=${prefix})
run(${CMAKE_COMMAND} --build ${build} -j2)
run(${CMAKE_COMMAND} --install ${build})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${consumer} -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${consumer})
run(${consumer}/consumer)
message(STATUS "an installed odm was found, linked and run")
