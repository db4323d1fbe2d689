// expect: odm: a referenced model's id must be odm::ObjectId, std::string, std::int64_t, std::int32_t, or a type with an odm::codec specialization
// A reference to a model whose id type odm cannot store: the message says which id types
// work. The twin's Sensor has a string id.
#include "models.hpp"

namespace cf {
class Opaque {
 public:
  explicit Opaque(int value) : value_(value) {}
  int value() const { return value_; }

 private:
  int value_;
};

struct Sensor {
#ifdef ODM_COMPILE_FAIL
  Opaque id{0};  // no odm::codec<Opaque>
#else
  std::string id;
#endif
  std::string name;
};

struct Reading {
  std::string id;
  double celsius = 0;
  odm::Ref<Sensor> sensor;
};
}  // namespace cf

cf::Reading load(const odm::Document& document) { return odm::from_bson<cf::Reading>(document); }
