#pragma once
// Two models for the compile-fail cases of operation options: an order and a product.
#include <odm/odm.hpp>

#include <cstdint>
#include <string>

namespace cf {
struct Order {
  std::int32_t id;
  std::string customer;
  std::int32_t total;
};
struct Product {
  std::int32_t id;
  std::string name;
  std::int32_t stock;
};
}  // namespace cf
