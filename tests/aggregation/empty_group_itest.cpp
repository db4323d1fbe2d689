// Every accumulator over a group whose documents lack the field, for every result type
// the compile checks allow (MongoDB's manual for $group's accumulators: $sum of no number
// is 0, $avg/$min/$max of none null, $first/$last null for a missing field, $push and
// $addToSet collect nothing). A declared type reads its own zero or empty value; a plain
// member for a value that may be null refuses it with a DecodeError naming the member.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace empty_group {

/// The documents as another program left them: only `_id` and `shop` are stored.
struct Sale {
  std::int32_t id = 0;
  std::string shop;
  std::int32_t qty = 0;
  std::int64_t big = 0;
  double weight = 0;
  odm::Decimal price;
  odm::Money paid;
  std::string note;
  struct odm_model {
    static constexpr std::string_view collection = "sales";
  };
};

struct Sums {
  std::string id;
  std::int64_t qty = -1;
  std::int64_t big = -1;
  double weight = -1;
  odm::Decimal price{"-1"};
  odm::Decimal amount{"-1"};
  std::int64_t n = 0;
};
struct SumPerCurrency {
  std::optional<std::string> id;  // the currency: null, since no document has one
  odm::Decimal paid{"-1"};
};
struct AveragePerCurrency {
  std::optional<std::string> id;
  std::optional<odm::Decimal> average;
};
struct Optionals {
  std::string id;
  std::optional<double> avg;
  std::optional<std::int32_t> low;
  std::optional<std::int32_t> high;
  std::optional<std::string> first;
  std::optional<std::string> last;
  std::vector<std::int32_t> pushed;
  std::vector<std::string> distinct;
};

}  // namespace empty_group

namespace {

using namespace empty_group;
using odm::field;
namespace agg = odm::agg;

class EmptyGroup : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    if (HasFatalFailure()) return;
    db().run_command(odm_test::json(
        R"({"insert": "sales", "documents": [{"_id": 1, "shop": "a"}, {"_id": 2, "shop": "a"}]})"));
  }
  odm::Collection<Sale> sales() { return db().collection<Sale>(); }

  /// Runs `pipeline`, which must fail to read with a DecodeError naming `member`.
  template <class P>
  void expect_refused(const P& pipeline, const std::string& member) {
    try {
      const auto found = sales().aggregate(pipeline).to_vector();
      ADD_FAILURE() << "a group without the field read into the plain member `" << member << "`";
    } catch (const odm::DecodeError& error) {
      EXPECT_NE(std::string(error.what()).find(member), std::string::npos) << error.what();
    }
  }
};

TEST_F(EmptyGroup, SumsAreTheZeroOfTheirType) {
  const auto found =
      sales()
          .aggregate(odm::pipeline<Sale>().group<Sums>(
              agg::by(field(&Sale::shop)), agg::sum<&Sums::qty>(field(&Sale::qty)),
              agg::sum<&Sums::big>(field(&Sale::big)), agg::sum<&Sums::weight>(field(&Sale::weight)),
              agg::sum<&Sums::price>(field(&Sale::price)), agg::sum<&Sums::amount>(agg::amount(field(&Sale::paid))),
              agg::count<&Sums::n>()))
          .to_vector();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].qty, 0);
  EXPECT_EQ(found[0].big, 0);
  EXPECT_EQ(found[0].weight, 0.0);
  EXPECT_EQ(found[0].price, odm::Decimal("0"));
  EXPECT_EQ(found[0].amount, odm::Decimal("0"));
  EXPECT_EQ(found[0].n, 2);
}

TEST_F(EmptyGroup, MoneyPerCurrencySumsToZero) {
  const auto found = sales()
                         .aggregate(odm::pipeline<Sale>().group<SumPerCurrency>(
                             agg::by(agg::currency(field(&Sale::paid))),
                             agg::sum<&SumPerCurrency::paid>(field(&Sale::paid))))
                         .to_vector();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].id.has_value());
  EXPECT_EQ(found[0].paid, odm::Decimal("0"));
}

TEST_F(EmptyGroup, MoneyPerCurrencyAveragesToNull) {
  ODM_REQUIRE(decimal_average);
  const auto found = sales()
                         .aggregate(odm::pipeline<Sale>().group<AveragePerCurrency>(
                             agg::by(agg::currency(field(&Sale::paid))),
                             agg::avg<&AveragePerCurrency::average>(field(&Sale::paid))))
                         .to_vector();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].id.has_value());
  EXPECT_FALSE(found[0].average.has_value());
}

TEST_F(EmptyGroup, OptionalsAreEmpty) {
  const auto found =
      sales()
          .aggregate(odm::pipeline<Sale>().group<Optionals>(
              agg::by(field(&Sale::shop)), agg::avg<&Optionals::avg>(field(&Sale::qty)),
              agg::min<&Optionals::low>(field(&Sale::qty)), agg::max<&Optionals::high>(field(&Sale::qty)),
              agg::first<&Optionals::first>(field(&Sale::note)), agg::last<&Optionals::last>(field(&Sale::note)),
              agg::push<&Optionals::pushed>(field(&Sale::qty)),
              agg::add_to_set<&Optionals::distinct>(field(&Sale::note))))
          .to_vector();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].avg.has_value());
  EXPECT_FALSE(found[0].low.has_value());
  EXPECT_FALSE(found[0].high.has_value());
  EXPECT_FALSE(found[0].first.has_value());
  EXPECT_FALSE(found[0].last.has_value());
  EXPECT_TRUE(found[0].pushed.empty());
  EXPECT_TRUE(found[0].distinct.empty());
}

TEST_F(EmptyGroup, PlainMembersRefuseNullNamingTheMember) {
  struct Avg {
    std::string id;
    double mean = 0;
  };
  expect_refused(odm::pipeline<Sale>().group<Avg>(agg::by(field(&Sale::shop)), agg::avg<&Avg::mean>(field(&Sale::qty))),
                 "mean");
  struct Low {
    std::string id;
    std::int32_t lowest = 0;
  };
  expect_refused(
      odm::pipeline<Sale>().group<Low>(agg::by(field(&Sale::shop)), agg::min<&Low::lowest>(field(&Sale::qty))),
      "lowest");
  struct High {
    std::string id;
    odm::Decimal highest;
  };
  expect_refused(
      odm::pipeline<Sale>().group<High>(agg::by(field(&Sale::shop)), agg::max<&High::highest>(field(&Sale::price))),
      "highest");
  struct First {
    std::string id;
    std::string earliest;
  };
  expect_refused(
      odm::pipeline<Sale>().group<First>(agg::by(field(&Sale::shop)), agg::first<&First::earliest>(field(&Sale::note))),
      "earliest");
  struct Last {
    std::string id;
    std::string latest;
  };
  expect_refused(
      odm::pipeline<Sale>().group<Last>(agg::by(field(&Sale::shop)), agg::last<&Last::latest>(field(&Sale::note))),
      "latest");
}

}  // namespace
