// Compiled on its own (target odm_compiled_once_declared) for compiled_once_check.cmake: a
// file that encodes and decodes an Order, whose codecs compiled_once_models.hpp declares
// compiled elsewhere, and a Parcel, whose codecs it compiles itself.
#include "bson/compiled_once_models.hpp"

namespace compiled_once_test {

struct Parcel {
  std::string label;
  std::int32_t weight = 0;
};

odm::Document encode_order(const Order& order) { return odm::to_bson(order); }
Order decode_order(const odm::Document& document) { return odm::from_bson<Order>(document); }
odm::Document encode_parcel(const Parcel& parcel) { return odm::to_bson(parcel); }
Parcel decode_parcel(const odm::Document& document) { return odm::from_bson<Parcel>(document); }

}  // namespace compiled_once_test
