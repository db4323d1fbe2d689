# Runs the README's commands for testing one's own program against a bundled engine (the
# block announced by `<!-- run by the test readme.engine_commands -->`), once with the
# odm test server and once with mongo-java-server; an example that needs a server stands
# in for `./your_tests`.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DPROGRAM=... -P engine.cmake
include(${CMAKE_CURRENT_LIST_DIR}/block.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
readme_block(${SOURCE_DIR}/README.md readme.engine_commands commands)
string(REPLACE "/tmp/odm-engine" "${WORK_DIR}/engine" commands "${commands}")
string(REPLACE "./your_tests" "${PROGRAM}" commands "${commands}")
readme_run("${commands}" ${WORK_DIR} test_server)
string(REPLACE "tests/server/ctl.sh" "tests/java-server/ctl.sh" commands "${commands}")
readme_run("${commands}" ${WORK_DIR} java_server)
