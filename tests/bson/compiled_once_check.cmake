# Checks the object of compiled_once_declared.cpp (OBJECTS) with nm: the codec of Order,
# which compiled_once_models.hpp declares compiled elsewhere (extern template struct
# odm::document_code<Order>), is referred to and not defined there, and nothing of its body
# was compiled (no lookup table of Order's members); Parcel's codec, which nothing
# declares, was compiled there (so that the check can tell the two apart).
find_program(NM nm REQUIRED)
execute_process(COMMAND ${NM} -C ${OBJECTS} OUTPUT_VARIABLE symbols RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "nm failed on ${OBJECTS}")
endif()
foreach(function encode decode)
  set(order "odm::document_code<compiled_once_test::Order>::${function}(...)")
  string(REGEX MATCH " U [^\n]*document_code<compiled_once_test::Order>::${function}\\(" used "${symbols}")
  string(REGEX MATCH " [TtWw] [^\n]*document_code<compiled_once_test::Order>::${function}\\(" defined "${symbols}")
  if(NOT used)
    message(FATAL_ERROR "${order} is not referred to: does the file still use the declared codec?")
  endif()
  if(defined)
    message(FATAL_ERROR "${order} is defined in a file that declares it compiled elsewhere")
  endif()
endforeach()
foreach(part "record_layout<compiled_once_test::Order" "record_traits<compiled_once_test::Order"
             "_record<true, compiled_once_test::Order>" "_record<false, compiled_once_test::Order>")
  string(FIND "${symbols}" "${part}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${part}...: Order's codec was compiled in a file that declares it compiled elsewhere")
  endif()
endforeach()
string(FIND "${symbols}" "record_layout<compiled_once_test::Parcel" control)
if(control EQUAL -1)
  message(FATAL_ERROR "no lookup table of Parcel's members in the file that decodes it: the check cannot tell")
endif()
message(STATUS "Order's codec: referred to, not compiled; Parcel's: compiled")
