// Typed paths to Money's parts against a server: a catalogue filtered by amount and
// currency, sorted by amount, repriced with $inc, and read back, checked against the same
// questions asked of the values in memory (MongoDB compares Decimal128 numerically:
// 9.5 < 10.00 < 10.5, trailing zeros aside).

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace query_parts_itest {

struct Product {
  std::int32_t id = 0;
  std::string name;
  odm::Money price;
  std::optional<odm::Money> discount;
  odm::DisplayMoney shown;
  struct odm_model {
    static constexpr std::string_view collection = "products";
    static constexpr auto indexes = odm::indexes(odm::index("price.currency", "price.value"));
  };
  bool operator==(const Product&) const = default;
};

// Discounts per currency: documents without a discount form the group whose key is null.
struct DiscountsIn {
  std::optional<std::string> id;
  odm::Decimal total;
  std::int64_t products = 0;
};

}  // namespace query_parts_itest

namespace {

using namespace query_parts_itest;
using odm::field;
using odm_test::DriverTest;

class MoneyPartsIT : public DriverTest {};

constexpr auto price = field(&Product::price);

/// 60 products, amounts written with 2 to 4 decimals (so equal amounts differ in form),
/// in three currencies, a third with a discount. The seed is printed on failure.
std::vector<Product> catalogue(std::uint32_t seed) {
  std::mt19937 random(seed);
  const char* currencies[] = {"USD", "EUR", "JPY"};
  std::vector<Product> products;
  for (std::int32_t i = 1; i <= 60; ++i) {
    const auto cents = static_cast<std::int64_t>(random() % 3000);
    const int places = 2 + static_cast<int>(random() % 3);  // 12.50, 12.500 or 12.5000
    std::int64_t coefficient = cents;
    for (int p = 2; p < places; ++p) coefficient *= 10;
    const odm::Decimal amount(coefficient, -places);
    Product product{i, "p" + std::to_string(i), odm::Money(amount, currencies[random() % 3]), std::nullopt, {}};
    if (i % 3 == 0) product.discount = odm::Money(odm::Decimal(static_cast<std::int64_t>(random() % 500), -2), "USD");
    product.shown = odm::DisplayMoney(product.price);
    products.push_back(product);
  }
  return products;
}

TEST_F(MoneyPartsIT, FilterSortAndRepriceByAmountAndCurrency) {
  const std::uint32_t seed = 20261203;
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto products = db().collection<Product>();
  odm::sync_indexes<Product>(db());
  std::vector<Product> expected = catalogue(seed);
  products.insert_many(expected);

  const odm::Decimal low("5.00"), high("20");
  // Euros from 5 to 20, cheapest first (ties by id), as the reference orders them.
  std::vector<std::int32_t> want;
  std::vector<Product> euros;
  for (const Product& p : expected)
    if (p.price.currency() == "EUR" && p.price.amount() >= low && p.price.amount() <= high) euros.push_back(p);
  std::sort(euros.begin(), euros.end(), [](const Product& a, const Product& b) {
    return a.price.amount() != b.price.amount() ? a.price.amount() < b.price.amount() : a.id < b.id;
  });
  for (const Product& p : euros) want.push_back(p.id);
  ASSERT_GE(want.size(), 2u) << "the seed gives too few euro prices to test the order";
  std::vector<std::int32_t> got;
  for (const Product& p : products.find(odm::currency(price) == "EUR" && odm::amount(price) >= low &&
                                            odm::amount(price) <= high,
                                        odm::FindOptions<Product>{}.sort(
                                            odm::sort(odm::asc(odm::amount(price)), odm::asc(&Product::id)))))
    got.push_back(p.id);
  EXPECT_EQ(got, want);

  // The approximate double of a DisplayMoney answers range queries on the server.
  const auto approx_count = products.count(odm::approx(field(&Product::shown)) < 10.0);
  EXPECT_EQ(approx_count, std::count_if(expected.begin(), expected.end(),
                                        [](const Product& p) { return p.shown.approx() < 10.0; }));

  // A document without the optional Money matches no condition on its amount.
  const auto discounted = products.count(odm::amount(field(&Product::discount)) >= odm::Decimal("0"));
  EXPECT_EQ(discounted, std::count_if(expected.begin(), expected.end(),
                                      [](const Product& p) { return p.discount.has_value(); }));

  // Every yen price goes up by 1.25; what is read back is the Money the reference computes.
  const auto result = products.update_many(odm::currency(price) == "JPY", odm::amount(price).inc(odm::Decimal("1.25")));
  std::int64_t yen = 0;
  for (Product& p : expected)
    if (p.price.currency() == "JPY") {
      ++yen;
      p.price = odm::Money(p.price.amount() + odm::Decimal("1.25"), "JPY");
    }
  EXPECT_EQ(result.modified, yen);
  for (const Product& p : expected) {
    const std::optional<Product> stored = products.find_by_id(p.id);
    ASSERT_TRUE(stored.has_value()) << p.id;
    EXPECT_EQ(stored->price, p.price) << p.id;
  }
}

TEST_F(MoneyPartsIT, GroupsByTheCurrencyOfAnOptionalMoneyIncludingThoseWithout) {
  const std::uint32_t seed = 20261203;
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto products = db().collection<Product>();
  std::vector<Product> expected = catalogue(seed);
  expected[1].discount = odm::Money(odm::Decimal("0.50"), "EUR");
  products.insert_many(expected);
  const auto discount = field(&Product::discount);
  const auto per_currency = odm::pipeline<Product>()
                                .group<DiscountsIn>(odm::agg::by(odm::agg::currency(discount)),
                                                    odm::agg::sum<&DiscountsIn::total>(discount),
                                                    odm::agg::count<&DiscountsIn::products>())
                                .sort(odm::sort(odm::asc(&DiscountsIn::id)));
  std::map<std::optional<std::string>, std::pair<odm::Decimal, std::int64_t>> want;  // nullopt sorts first, as null
  for (const Product& p : expected) {
    auto& [total, count] = want[p.discount ? std::optional<std::string>(p.discount->currency()) : std::nullopt];
    if (p.discount) total = total + p.discount->amount();
    ++count;
  }
  std::vector<DiscountsIn> got = products.aggregate(per_currency).to_vector();
  ASSERT_EQ(got.size(), want.size());
  std::size_t i = 0;
  for (const auto& [currency, totals] : want) {
    EXPECT_EQ(got[i].id, currency) << i;
    EXPECT_EQ(got[i].total, totals.first) << i;
    EXPECT_EQ(got[i].products, totals.second) << i;
    ++i;
  }
}

// A part is never set to null, nor a currency to something else, so no update leaves a
// document behind that does not decode; refused before anything is sent.
TEST_F(MoneyPartsIT, AnUpdateThatWouldLeaveAMoneyUndecodableIsRefusedAndNothingIsWritten) {
  auto products = db().collection<Product>();
  Product product{1, "p", odm::Money(odm::Decimal("100"), "USD"), odm::Money(odm::Decimal("1"), "USD"), {}};
  product.shown = odm::DisplayMoney(product.price);
  products.insert_one(product);
  EXPECT_THROW(products.update_one(field(&Product::id) == 1, odm::currency(price).set("usd")), odm::ValueError);
  EXPECT_THROW(products.update_one(field(&Product::id) == 1, odm::amount(field(&Product::discount)).set(std::nullopt)),
               odm::ValueError);
  products.update_one(field(&Product::id) == 1, odm::currency(price).set("EUR"));
  product.price = odm::Money(odm::Decimal("100"), "EUR");
  EXPECT_EQ(products.get_by_id(1), product);
}

}  // namespace
