#pragma once
// A model with a member of each kind the $jsonSchema generator handles, shared by the
// schema's unit and integration tests (tests/evolution/schema_*test.cpp).

#include <odm/odm.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace schema_models {

enum class Status { draft, paid, shipped };

struct Line {
  std::string sku;
  std::int32_t quantity = 0;
  odm::Decimal unit_price;
};

struct Order {
  odm::ObjectId id;
  std::string customer;
  std::int64_t number = 0;
  double weight = 0;
  bool gift = false;
  std::chrono::system_clock::time_point placed;
  odm::Money total;
  Status status = Status::draft;
  std::optional<std::string> note;
  std::vector<Line> lines;
  std::map<std::string, std::int32_t> counters;
  std::variant<std::string, std::vector<std::string>> author;
  odm::Binary receipt;
  std::int32_t retries = 3;
  std::int32_t renamed = 0;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::defaulted(&Order::retries), odm::rename(&Order::renamed, "r"));
  };
};

/// An order as odm writes it, every member set.
inline Order sample_order() {
  Order order;
  order.customer = "ana";
  order.number = 7;
  order.placed = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'764'000'000'000));
  order.total = odm::Money(odm::Decimal("19.99"), "EUR");
  order.status = Status::paid;
  order.lines = {Line{"a-1", 2, odm::Decimal("9.995")}};
  order.counters = {{"views", 3}};
  order.author = std::vector<std::string>{"x", "y"};
  order.receipt.bytes = {1, 2, 3};
  return order;
}

}  // namespace schema_models
