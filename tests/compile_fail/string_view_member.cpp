// expect: odm: std::string_view does not own its characters, so a decoded document could not hold them
// (The expected text stops before the message's ";": check.cmake reads the first line
// as a CMake list, so a semicolon in it would never match.)
// A decoded std::string_view would point into the BSON buffer, which is gone once the
// document is destroyed. Everything else in this file is valid: built with
// -DODM_COMPILE_FAIL_VALID_ONLY it compiles.

#include <odm/odm.hpp>

#include <string>
#include <string_view>

struct Message {
  std::string id;
  std::string subject;  // fine
#ifndef ODM_COMPILE_FAIL_VALID_ONLY
  std::string_view body;  // refused
#endif
};

Message load(const odm::Document& doc) { return odm::from_bson<Message>(doc); }
