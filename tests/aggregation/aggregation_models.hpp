#pragma once
// The models of the typed pipeline's tests: orders of customers, each with lines, a Money
// total and a few numbers, and the structs the stages pass on.
#include <odm/odm.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agg_test {

struct Customer {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "customers";
  };
};

struct Line {
  std::string sku;
  std::int32_t quantity = 0;
  odm::Decimal price;
};

struct Order {
  std::int32_t id = 0;
  odm::Ref<Customer> customer;
  std::string status;
  odm::Money total;
  std::int32_t items = 0;
  std::int64_t points = 0;
  double weight = 0;
  std::vector<Line> lines;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

/// $group by customer.
struct PerCustomer {
  std::string id;
  odm::Decimal spent;
  std::int64_t orders = 0;
  std::int64_t items = 0;
  std::int64_t points = 0;
  double weight = 0;
  double avg_items = 0;
  std::int32_t fewest = 0;
  std::int32_t most = 0;
  std::string first_status;
  std::string last_status;
  std::vector<std::int32_t> order_ids;
  std::vector<std::string> statuses;
};

/// $avg of Money amounts: a Decimal (null when the group has no amount).
struct AverageSpent {
  std::string id;
  std::optional<odm::Decimal> average;
};

/// $avg of Money amounts per currency: a Decimal (null when the group has no amount).
struct AveragePerCurrency {
  std::string id;
  std::optional<odm::Decimal> average;
};

/// $group by customer and currency: the report per currency.
struct CustomerCurrency {
  std::string customer;
  std::string currency;
  friend bool operator==(const CustomerCurrency&, const CustomerCurrency&) = default;
};
struct SpentPerCurrency {
  CustomerCurrency id;
  odm::Decimal spent;
};

/// $group with no key.
struct GrandTotal {
  std::int64_t orders = 0;
  std::int64_t items = 0;
};

/// $project.
struct OrderSummary {
  std::int32_t id = 0;
  std::string status;
  std::int32_t items = 0;
};

/// $unwind of Order::lines.
struct OrderLine {
  std::int32_t id = 0;
  std::string status;
  Line lines;
};
/// $group of the unwound lines by sku.
struct PerSku {
  std::string id;
  std::int64_t quantity = 0;
  odm::Decimal max_price;
};

/// $count.
struct Counted {
  std::int64_t orders = 0;
};

/// $set: the summary plus computed members.
struct Labelled {
  std::int32_t id = 0;
  std::string status;
  std::int32_t items = 0;
  std::string label;
  std::int64_t copied_points = 0;
};

/// $lookup of Order::customer.
struct OrderWithCustomer {
  std::int32_t id = 0;
  odm::Joined<Customer> buyer;
};
/// ... then $unwind of it: one order per customer found, the customer read as a Customer.
struct OrderAndCustomer {
  std::int32_t id = 0;
  odm::JoinedOne<Customer> buyer;
};

/// $facet: the orders per customer and their number, from the same documents.
struct OrdersReport {
  odm::Documents<GrandTotal> overall;
  odm::Documents<Counted> counted;
  odm::Documents<OrderSummary> biggest;
};

}  // namespace agg_test
