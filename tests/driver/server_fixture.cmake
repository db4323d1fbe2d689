# Starts or stops the engine the driver tests and examples run against, for their CTest
# fixture, unless MONGODB_URI names a server to use instead. ODM_TEST_ENGINE, when ctest
# runs, picks the engine: `test-server` (the default: tests/server, odm's own stand-in)
# or `java-server` (tests/java-server: mongo-java-server, an independent engine).
#   cmake -DACTION=start|stop -DDIR=<state dir> -DSOURCE_DIR=<odm's tests/> -P server_fixture.cmake
if(DEFINED ENV{MONGODB_URI} AND NOT "$ENV{MONGODB_URI}" STREQUAL "")
  message(STATUS "MONGODB_URI is set: the driver tests use that server; no engine is ${ACTION}ed")
  return()
endif()
set(engine "$ENV{ODM_TEST_ENGINE}")
if(engine STREQUAL "" OR engine STREQUAL "test-server")
  set(ctl ${SOURCE_DIR}/server/ctl.sh)
elseif(engine STREQUAL "java-server")
  set(ctl ${SOURCE_DIR}/java-server/ctl.sh)
else()
  message(FATAL_ERROR "ODM_TEST_ENGINE=${engine}: expected test-server or java-server")
endif()
execute_process(COMMAND ${ctl} ${ACTION} ${DIR} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${ctl} ${ACTION} ${DIR} failed (${result})")
endif()
