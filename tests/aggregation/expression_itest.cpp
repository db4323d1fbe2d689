// Typed aggregation expressions against servers: a revenue report (quantity × unit price
// in Decimal, per product and month) over random order lines, checked against the same
// report computed in memory with odm::Decimal; the money guide's cents-to-decimal
// conversion; conditions, defaults for missing values, strings, $expr in a $match, and
// $dateTrunc.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace aggregation_expression_itest {

using Time = std::chrono::sys_time<std::chrono::milliseconds>;

struct Line {
  std::int32_t id = 0;
  std::string product;
  std::int32_t quantity = 0;
  odm::Money unit_price;
  std::optional<odm::Decimal> discount;  // per unit; none for most lines
  Time sold_at;
  struct odm_model {
    static constexpr std::string_view collection = "lines";
  };
};

struct PricedLine {
  std::int32_t id = 0;
  std::string product;
  odm::Decimal revenue;
  std::int32_t month = 0;
};

struct ProductMonth {
  std::string product;
  std::int32_t month = 0;
};
struct Revenue {
  ProductMonth id;
  odm::Decimal total;
  std::int64_t lines = 0;
};

struct Labelled {
  std::int32_t id = 0;
  std::string label;
  odm::Decimal net;
  std::string size;
};

struct PerProduct {
  std::string id;
  odm::Decimal total;
};

struct Clothes {
  std::int32_t id = 0;
  std::int64_t price = 0;  // NumberLong cents
  struct odm_model {
    static constexpr std::string_view collection = "clothes";
  };
};
struct WithDecimal {
  std::int32_t id = 0;
  std::int64_t price = 0;
  odm::Decimal price_dec;
};

struct MonthRevenue {
  std::int32_t id = 0;  // the month
  odm::Decimal total;
};
struct LineSummary {
  std::int32_t id = 0;
  std::string product;
  odm::Decimal net;
};

struct Truncated {
  std::int32_t id = 0;
  Time month_start;
};
struct Monthly {
  Time id;
  std::int64_t lines = 0;
};

}  // namespace aggregation_expression_itest

namespace {

using namespace aggregation_expression_itest;
namespace agg = odm::agg;
using odm::field;
using odm_test::DriverTest;

class AggregationExpressionIT : public DriverTest {};

constexpr auto quantity = field(&Line::quantity);
constexpr auto unit_price = field(&Line::unit_price);

Time day(int year, unsigned month, unsigned d) {
  return Time(std::chrono::sys_days(std::chrono::year(year) / month / d));
}

std::vector<Line> random_lines(std::uint32_t seed) {
  std::mt19937 random(seed);
  const char* products[] = {"pen", "ink", "pad"};
  std::vector<Line> lines;
  for (std::int32_t id = 1; id <= 120; ++id) {
    Line line;
    line.id = id;
    line.product = products[random() % 3];
    line.quantity = static_cast<std::int32_t>(1 + random() % 20);
    // Prices with 2 to 4 decimals, in USD: exact amounts a double would not hold.
    line.unit_price = odm::Money(odm::Decimal(static_cast<std::int64_t>(random() % 100000), -static_cast<int>(2 + random() % 3)), "USD");
    if (random() % 4 == 0) line.discount = odm::Decimal(static_cast<std::int64_t>(random() % 50), -2);
    line.sold_at = day(2026, 1 + random() % 12, 1 + random() % 28) + std::chrono::hours(random() % 24);
    lines.push_back(line);
  }
  return lines;
}

std::int32_t month_of(Time t) {
  return static_cast<std::int32_t>(
      static_cast<unsigned>(std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(t)).month()));
}

TEST_F(AggregationExpressionIT, ARevenueReportInDecimalMatchesTheSameReportComputedInMemory) {
  const std::uint32_t seed = 20261204;
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto lines = db().collection<Line>();
  const std::vector<Line> stored = random_lines(seed);
  lines.insert_many(stored);

  // Revenue per product and month, of the lines worth more than 50.
  const auto revenue = agg::multiply(quantity, odm::amount(unit_price));
  const auto report =
      odm::pipeline<Line>()
          .add_fields<PricedLine>(agg::compute<&PricedLine::revenue>(revenue),
                                  agg::compute<&PricedLine::month>(agg::month(field(&Line::sold_at))))
          .match(agg::where(agg::gt(field(&PricedLine::revenue), odm::Decimal("50"))))
          .group<Revenue>(agg::by(agg::key<&ProductMonth::product>(field(&PricedLine::product)),
                                  agg::key<&ProductMonth::month>(field(&PricedLine::month))),
                          agg::sum<&Revenue::total>(field(&PricedLine::revenue)), agg::count<&Revenue::lines>())
          .sort(odm::sort(odm::asc(field(&Revenue::id) / &ProductMonth::product),
                          odm::asc(field(&Revenue::id) / &ProductMonth::month)));
  std::map<std::pair<std::string, std::int32_t>, std::pair<odm::Decimal, std::int64_t>> expected;
  for (const Line& line : stored) {
    const odm::Decimal worth = odm::Decimal(line.quantity) * line.unit_price.amount();
    if (!(worth > odm::Decimal("50"))) continue;
    auto& [total, count] = expected[{line.product, month_of(line.sold_at)}];
    total = total + worth;
    ++count;
  }
  std::vector<Revenue> got = lines.aggregate(report).to_vector();
  ASSERT_EQ(got.size(), expected.size());
  std::size_t i = 0;
  for (const auto& [key, value] : expected) {
    SCOPED_TRACE(key.first + " in month " + std::to_string(key.second));
    EXPECT_EQ(got[i].id.product, key.first);
    EXPECT_EQ(got[i].id.month, key.second);
    EXPECT_EQ(got[i].total, value.first) << got[i].total.to_string() << " vs " << value.first.to_string();
    EXPECT_EQ(got[i].lines, value.second);
    ++i;
  }

  // The same totals per product straight from an accumulator over the expression.
  std::map<std::string, odm::Decimal> per_product;
  for (const Line& line : stored) per_product[line.product] += odm::Decimal(line.quantity) * line.unit_price.amount();
  const auto totals = lines.aggregate(odm::pipeline<Line>()
                                          .group<PerProduct>(agg::by(field(&Line::product)),
                                                             agg::sum<&PerProduct::total>(revenue))
                                          .sort(odm::sort(odm::asc(&PerProduct::id))))
                          .to_vector();
  ASSERT_EQ(totals.size(), per_product.size());
  for (const PerProduct& p : totals) EXPECT_EQ(p.total, per_product[p.id]) << p.id;
}

TEST_F(AggregationExpressionIT, ConditionsDefaultsAndStrings) {
  auto lines = db().collection<Line>();
  const std::vector<Line> stored = random_lines(7);
  lines.insert_many(stored);
  // net: (unit price - discount, none counting as 0) × quantity, a size by quantity, and a
  // label that would be a field path if it were not written as a literal.
  const auto net = agg::multiply(
      agg::subtract(odm::amount(unit_price), agg::if_null(field(&Line::discount), odm::Decimal("0"))), quantity);
  const auto size = agg::cond(agg::gte(quantity, 10), std::string("bulk"), std::string("single"));
  const auto pipeline = odm::pipeline<Line>()
                            .add_fields<Labelled>(agg::compute<&Labelled::net>(net), agg::compute<&Labelled::size>(size),
                                                  agg::compute<&Labelled::label>(agg::concat("$", field(&Line::product))))
                            .sort(odm::sort(odm::asc(&Labelled::id)));
  const std::vector<Labelled> got = lines.aggregate(pipeline).to_vector();
  ASSERT_EQ(got.size(), stored.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const Line& line = stored[i];
    SCOPED_TRACE("line " + std::to_string(line.id));
    const odm::Decimal unit = line.unit_price.amount() - line.discount.value_or(odm::Decimal("0"));
    EXPECT_EQ(got[i].net, unit * odm::Decimal(line.quantity)) << got[i].net.to_string();
    EXPECT_EQ(got[i].size, line.quantity >= 10 ? "bulk" : "single");
    EXPECT_EQ(got[i].label, "$" + line.product);
  }
}

TEST_F(AggregationExpressionIT, RoundingToCentsIsHalfToEven) {
  if (auto gap = missing_capability(odm_test::Capability::round_expression)) GTEST_SKIP() << *gap;
  auto lines = db().collection<Line>();
  const std::vector<Line> stored = random_lines(9);
  lines.insert_many(stored);
  const auto pipeline =
      odm::pipeline<Line>()
          .add_fields<PricedLine>(
              agg::compute<&PricedLine::revenue>(agg::round(agg::multiply(quantity, odm::amount(unit_price)), 2)),
              agg::compute<&PricedLine::month>(agg::month(field(&Line::sold_at))))
          .sort(odm::sort(odm::asc(&PricedLine::id)));
  const std::vector<PricedLine> got = lines.aggregate(pipeline).to_vector();
  ASSERT_EQ(got.size(), stored.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const odm::Decimal exact = odm::Decimal(stored[i].quantity) * stored[i].unit_price.amount();
    EXPECT_EQ(got[i].revenue, exact.round(2)) << "line " << stored[i].id << ": " << got[i].revenue.to_string() << " vs "
                                              << exact.to_string();
    EXPECT_EQ(got[i].month, month_of(stored[i].sold_at));
  }
}

// A report keyed by an expression, and a projection that computes: no stage in between.
TEST_F(AggregationExpressionIT, AGroupByAnExpressionAndAComputingProjection) {
  auto lines = db().collection<Line>();
  const std::vector<Line> stored = random_lines(11);
  lines.insert_many(stored);
  const auto revenue = agg::multiply(quantity, odm::amount(unit_price));
  const auto per_month = lines
                             .aggregate(odm::pipeline<Line>()
                                            .group<MonthRevenue>(agg::by(agg::month(field(&Line::sold_at))),
                                                                 agg::sum<&MonthRevenue::total>(revenue))
                                            .sort(odm::sort(odm::asc(&MonthRevenue::id))))
                             .to_vector();
  std::map<std::int32_t, odm::Decimal> expected;
  for (const Line& line : stored) expected[month_of(line.sold_at)] += odm::Decimal(line.quantity) * line.unit_price.amount();
  ASSERT_EQ(per_month.size(), expected.size());
  for (const MonthRevenue& m : per_month) EXPECT_EQ(m.total, expected[m.id]) << "month " << m.id;

  const auto net = agg::multiply(
      agg::subtract(odm::amount(unit_price), agg::if_null(field(&Line::discount), odm::Decimal("0"))), quantity);
  const auto summaries =
      lines
          .aggregate(odm::pipeline<Line>()
                         .project<LineSummary>(agg::compute<&LineSummary::net>(net))
                         .sort(odm::sort(odm::asc(&LineSummary::id))))
          .to_vector();
  ASSERT_EQ(summaries.size(), stored.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(summaries[i].product, stored[i].product);
    EXPECT_EQ(summaries[i].net, (stored[i].unit_price.amount() - stored[i].discount.value_or(odm::Decimal("0"))) *
                                    odm::Decimal(stored[i].quantity));
  }
}

TEST_F(AggregationExpressionIT, TheGuidesCentsBecomeDecimals) {
  auto clothes = db().collection<Clothes>();
  clothes.insert_many(std::vector<Clothes>{{1, 1999}, {2, 3999}, {3, 2999}, {4, 8000}, {5, 1}});
  const auto converted =
      clothes
          .aggregate(odm::pipeline<Clothes>()
                         .add_fields<WithDecimal>(agg::compute<&WithDecimal::price_dec>(
                             agg::multiply(field(&Clothes::price), odm::Decimal("0.01"))))
                         .sort(odm::sort(odm::asc(&WithDecimal::id))))
          .to_vector();
  ASSERT_EQ(converted.size(), 5u);
  const char* expected[] = {"19.99", "39.99", "29.99", "80.00", "0.01"};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(converted[i].price_dec.to_string(), expected[i]) << i;
}

TEST_F(AggregationExpressionIT, LinesPerMonthByDateTruncation) {
  if (auto gap = missing_capability(odm_test::Capability::date_trunc)) GTEST_SKIP() << *gap;
  auto lines = db().collection<Line>();
  const std::vector<Line> stored = random_lines(3);
  lines.insert_many(stored);
  const auto per_month =
      lines
          .aggregate(odm::pipeline<Line>()
                         .add_fields<Truncated>(agg::compute<&Truncated::month_start>(
                             agg::date_trunc(field(&Line::sold_at), agg::DateUnit::month)))
                         .group<Monthly>(agg::by(field(&Truncated::month_start)), agg::count<&Monthly::lines>())
                         .sort(odm::sort(odm::asc(&Monthly::id))))
          .to_vector();
  std::map<Time, std::int64_t> expected;
  for (const Line& line : stored) {
    const auto ymd = std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(line.sold_at));
    ++expected[Time(std::chrono::sys_days(ymd.year() / ymd.month() / 1))];
  }
  ASSERT_EQ(per_month.size(), expected.size());
  std::size_t i = 0;
  for (const auto& [start, count] : expected) {
    EXPECT_EQ(per_month[i].id, start) << i;
    EXPECT_EQ(per_month[i].lines, count) << i;
    ++i;
  }
}

}  // namespace
