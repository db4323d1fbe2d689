# Checks the object of record_code_declared.cpp (OBJECTS) with nm: the codecs of Order,
# which record_code_models.hpp declares compiled elsewhere (extern template struct
# odm::record_code<Order>), are referred to and not defined there, and nothing of their
# bodies was compiled (no lookup table of Order's members); Parcel's codec, which nothing
# declares, was compiled there (so that the check can tell the two apart).
find_program(NM nm REQUIRED)
execute_process(COMMAND ${NM} -C ${OBJECTS} OUTPUT_VARIABLE symbols RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "nm failed on ${OBJECTS}")
endif()
foreach(function encode_document decode_document)
  set(order "odm::record_code<record_code_test::Order>::${function}(...)")
  string(REGEX MATCH " U [^\n]*record_code<record_code_test::Order>::${function}\\(" used "${symbols}")
  string(REGEX MATCH " [TtWw] [^\n]*record_code<record_code_test::Order>::${function}\\(" defined "${symbols}")
  if(NOT used)
    message(FATAL_ERROR "${order} is not referred to: does the file still use the declared codec?")
  endif()
  if(defined)
    message(FATAL_ERROR "${order} is defined in a file that declares it compiled elsewhere")
  endif()
endforeach()
foreach(part "record_layout<record_code_test::Order" "record_traits<record_code_test::Order"
             "_record<true, record_code_test::Order>" "_record<false, record_code_test::Order>")
  string(FIND "${symbols}" "${part}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${part}...: Order's codec was compiled in a file that declares it compiled elsewhere")
  endif()
endforeach()
string(FIND "${symbols}" "record_layout<record_code_test::Parcel" control)
if(control EQUAL -1)
  message(FATAL_ERROR "no lookup table of Parcel's members in the file that decodes it: the check cannot tell")
endif()
message(STATUS "Order's codec: referred to, not compiled; Parcel's: compiled")
