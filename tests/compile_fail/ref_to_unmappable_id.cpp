// expect: odm: a referenced model's id must be odm::ObjectId, std::string, std::int64_t, std::int32_t, or a type with an odm::codec specialization
// A reference to a model whose id type odm cannot store: the message says which id types
// work. Everything else in this file is valid: built with -DODM_COMPILE_FAIL_VALID_ONLY it
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

struct Sensor {
  Opaque id{0};  // no odm::codec<Opaque>
  std::string name;
};

struct Reading {
  std::string id;
  double celsius = 0;
#ifndef ODM_COMPILE_FAIL_VALID_ONLY
  odm::Ref<Sensor> sensor;  // refused: Sensor's id cannot be stored
#endif
};

Reading load(const odm::Document& document) { return odm::from_bson<Reading>(document); }
