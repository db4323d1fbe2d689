# Starts or stops the odm test server for the driver tests' CTest fixture, unless
# MONGODB_URI names a server to use instead.
#   cmake -DACTION=start|stop -DDIR=<state dir> -DCTL=<tests/server/ctl.sh> -P server_fixture.cmake
if(DEFINED ENV{MONGODB_URI} AND NOT "$ENV{MONGODB_URI}" STREQUAL "")
  message(STATUS "MONGODB_URI is set: the driver tests use that server; the odm test server is not ${ACTION}ed")
  return()
endif()
execute_process(COMMAND ${CTL} ${ACTION} ${DIR} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "tests/server/ctl.sh ${ACTION} ${DIR} failed (${result})")
endif()
