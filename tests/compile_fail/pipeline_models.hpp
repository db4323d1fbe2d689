#pragma once
// The models of the typed pipeline's compile-fail cases: orders of customers, and the
// structs their stages pass on.
#include <odm/odm.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cf {
struct Buyer {
  std::string id;
  std::string name;
};
struct Item {
  std::string sku;
  std::int32_t quantity;
};
struct Sale {
  std::int32_t id;
  odm::Ref<Buyer> buyer;
  std::string status;
  std::int32_t quantity;
  odm::Money total;
  std::vector<Item> items;
};
struct Stock {
  std::int32_t id;
  std::int32_t level;
};
struct PerBuyer {
  std::string id;
  std::int64_t quantity;
};
struct SaleItem {
  std::int32_t id;
  Item items;
};
}  // namespace cf
