// Reports with the typed aggregation pipeline (issue 12, item 1): the money each customer
// spent per currency, exact to the cent, and the guide's conversion of NumberLong cents to
// NumberDecimal as a pipeline.
//
// Every stage is typed by the documents it receives: the $match and $sort are typed
// filters and sorts of that struct, the $group names the member of its result struct each
// accumulator fills (a sum of odm::Money amounts is an odm::Decimal: Decimal128 on the
// server, never double), and the cursor reads the last stage's struct. A field of the
// wrong stage or an accumulator into a member of the wrong type does not compile.
#include "example_support.hpp"

#include <odm/aggregation/pipeline.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

struct Customer {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "report_customers";
  };
};

struct Order {
  std::int32_t id = 0;
  odm::Ref<Customer> customer;
  std::string status;
  odm::Money total;  // {value: NumberDecimal("119.99"), currency: "USD"}
  struct odm_model {
    static constexpr std::string_view collection = "report_orders";
  };
};

// The report: one document per customer and currency.
struct CustomerCurrency {
  std::string customer;
  std::string currency;
};
struct Spent {
  CustomerCurrency id;  // the group key, stored as _id
  odm::Decimal total;
  std::int64_t orders = 0;
};

// Each paid order with its customer's document, joined on the server.
struct OrderWithCustomer {
  std::int32_t id = 0;
  odm::Money total;
  odm::Joined<Customer> buyer;
};

// The guide's clothes, priced in NumberLong cents, and the same with a decimal price added.
struct Clothes {
  std::int32_t id = 0;
  std::string description;
  std::int64_t price = 0;
  struct odm_model {
    static constexpr std::string_view collection = "report_clothes";
  };
};
struct ClothesWithDecimal {
  std::int32_t id = 0;
  std::string description;
  std::int64_t price = 0;
  odm::Decimal price_dec;
};

}  // namespace

int main() {
  odm::Client client = example::connect();
  return example::run([&] {
    const odm::Database db = example::examples_db(client);
    auto customers = db.collection<Customer>();
    auto orders = db.collection<Order>();
    customers.drop();
    orders.drop();
    customers.insert_many(std::vector<Customer>{{"ada", "Ada Lovelace"}, {"bob", "Bob Kahn"}});
    orders.insert_many(std::vector<Order>{
        {1, "ada", "paid", odm::Money("0.10", "EUR")},
        {2, "ada", "paid", odm::Money("0.20", "EUR")},
        {3, "ada", "paid", odm::Money("119.99", "USD")},
        {4, "bob", "paid", odm::Money("2.099", "USD")},
        {5, "bob", "refunded", odm::Money("50.00", "USD")},
        {6, "bob", "paid", odm::Money("0.01", "USD")},
    });

    example::step("total money per customer per currency, paid orders only");
    const auto per_currency =
        odm::pipeline<Order>()
            .match(odm::field(&Order::status) == "paid")
            .group<Spent>(odm::agg::by(odm::agg::key<&CustomerCurrency::customer>(odm::field(&Order::customer)),
                                       odm::agg::key<&CustomerCurrency::currency>(
                                           odm::agg::currency(odm::field(&Order::total)))),
                          odm::agg::sum<&Spent::total>(odm::field(&Order::total)),
                          odm::agg::count<&Spent::orders>())
            .sort(odm::sort(odm::asc(odm::field(&Spent::id) / &CustomerCurrency::customer),
                            odm::asc(odm::field(&Spent::id) / &CustomerCurrency::currency)));
    example::show("pipeline", per_currency.bson());
    const std::vector<Spent> report = orders.aggregate(per_currency).to_vector();
    example::show_all("report", report);
    example::check(report.size() == 3, "three customer-currency pairs paid something");
    example::check(report[0].id.customer == "ada" && report[0].id.currency == "EUR" &&
                       report[0].total.to_string() == "0.30" && report[0].orders == 2,
                   "ada paid 0.10 + 0.20 = 0.30 EUR exactly (a double sum would be 0.30000000000000004)");
    example::check(report[1].total.to_string() == "119.99", "ada paid 119.99 USD");
    example::check(report[2].id.customer == "bob" && report[2].total.to_string() == "2.109" &&
                       report[2].orders == 2,
                   "bob paid 2.099 + 0.01 = 2.109 USD (the refunded order is not counted)");

    example::step("each paid order with its customer, joined on the server ($lookup over Order::customer)");
    const std::vector<OrderWithCustomer> joined =
        orders
            .aggregate(odm::pipeline<Order>()
                           .match(odm::field(&Order::status) == "paid")
                           .sort(odm::sort(odm::asc(&Order::id)))
                           .lookup<&Order::customer, &OrderWithCustomer::buyer>())
            .to_vector();
    example::show_all("orders", joined);
    example::check(joined.size() == 5 && joined[0].buyer.size() == 1 && joined[0].buyer[0].name == "Ada Lovelace",
                   "each order carries its customer's document");

    example::step("the guide's conversion: NumberLong cents to a NumberDecimal priceDec, as a pipeline");
    auto clothes = db.collection<Clothes>();
    clothes.drop();
    clothes.insert_many(std::vector<Clothes>{{1, "T-Shirt", 1999}, {2, "Jeans", 3999}, {3, "Designer Jeans", 8000}});
    // {$addFields: {price_dec: {$multiply: ["$price", {$literal: NumberDecimal("0.01")}]}}}: a
    // long times a Decimal is a Decimal, so price_dec is declared odm::Decimal (a double
    // there, or a double factor, does not compile).
    const auto in_decimal = odm::agg::multiply(odm::field(&Clothes::price), odm::Decimal("0.01"));
    const std::vector<ClothesWithDecimal> converted =
        clothes
            .aggregate(odm::pipeline<Clothes>()
                           .match(odm::field(&Clothes::price) > std::int64_t{0})
                           .add_fields<ClothesWithDecimal>(odm::agg::compute<&ClothesWithDecimal::price_dec>(in_decimal))
                           .sort(odm::sort(odm::asc(&ClothesWithDecimal::id))))
            .to_vector();
    example::show_all("clothes", converted);
    example::check(converted.size() == 3 && converted[0].price_dec == odm::Decimal("19.99") &&
                       converted[2].price_dec == odm::Decimal("80.00"),
                   "1999 cents are 19.99, 8000 cents are 80.00");
  });
}
