// expect: odm: unsigned integers have no BSON type
// (The expected text stops before the message's ";": check.cmake reads the first line
// as a CMake list, so a semicolon in it would never match.)
// An unsigned member would have to be stored as int64, where values above INT64_MAX turn
// negative, so the codec refuses it. Everything else in this file is valid: built with
// -DODM_COMPILE_FAIL_VALID_ONLY it compiles.

#include <odm/odm.hpp>

#include <cstdint>
#include <string>

struct Counter {
  std::string id;
  std::int64_t hits;  // fine
#ifndef ODM_COMPILE_FAIL_VALID_ONLY
  std::uint32_t misses;  // refused
#endif
};

odm::Document store(const Counter& counter) { return odm::to_bson(counter); }
