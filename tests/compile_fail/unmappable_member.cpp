// expect: odm: a member of this struct has a type odm cannot store in BSON
// A member whose type has no odm::codec specialization (here a class that is not an
// aggregate, so odm cannot reflect it either) is named in the instantiation trace.
// Everything else in this file is valid: built with -DODM_COMPILE_FAIL_VALID_ONLY it
// compiles.

#include <odm/odm.hpp>

#include <string>

class Opaque {
 public:
  explicit Opaque(int value) : value_(value) {}
  int value() const { return value_; }

 private:
  int value_;
};

struct Holder {
  std::string id;
  std::vector<std::string> tags;  // fine
#ifndef ODM_COMPILE_FAIL_VALID_ONLY
  Opaque opaque{0};  // refused: odm::codec<Opaque> does not exist
#endif
};

odm::Document store(const Holder& holder) { return odm::to_bson(holder); }
