// The typed pipeline against the server: every stage, the report per currency (exact
// Decimal128 sums), and a randomized $group checked against the same grouping computed
// in C++. A failure of the random test prints its seed; rerun it with
// ODM_PIPELINE_SEED=<seed>.

#include "aggregation/aggregation_models.hpp"
#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace agg_test {

/// The raw stage's output: a field the typed stages cannot compute.
struct Doubled {
  std::int32_t id = 0;
  std::int32_t doubled = 0;
};

}  // namespace agg_test

namespace {

using namespace agg_test;
using odm::field;
namespace agg = odm::agg;

Order order(std::int32_t id, std::string customer, std::string status, const char* amount, const char* currency,
            std::int32_t items, std::vector<Line> lines = {}) {
  Order o;
  o.id = id;
  o.customer = std::move(customer);
  o.status = std::move(status);
  o.total = odm::Money(amount, currency);
  o.items = items;
  o.points = std::int64_t{items} * 1'000'000'000'000;
  o.weight = items * 0.5;
  o.lines = std::move(lines);
  return o;
}

/// Groups what `before` passes on per customer, with every accumulator.
odm::Pipeline<Order, PerCustomer> per_customer(odm::Pipeline<Order> before) {
  return std::move(before).group<PerCustomer>(
      agg::by(field(&Order::customer)), agg::sum<&PerCustomer::spent>(agg::amount(field(&Order::total))),
      agg::count<&PerCustomer::orders>(), agg::sum<&PerCustomer::items>(field(&Order::items)),
      agg::sum<&PerCustomer::points>(field(&Order::points)), agg::sum<&PerCustomer::weight>(field(&Order::weight)),
      agg::avg<&PerCustomer::avg_items>(field(&Order::items)), agg::min<&PerCustomer::fewest>(field(&Order::items)),
      agg::max<&PerCustomer::most>(field(&Order::items)),
      agg::first<&PerCustomer::first_status>(field(&Order::status)),
      agg::last<&PerCustomer::last_status>(field(&Order::status)), agg::push<&PerCustomer::order_ids>(field(&Order::id)),
      agg::add_to_set<&PerCustomer::statuses>(field(&Order::status)));
}

class Pipeline : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    if (HasFatalFailure()) return;
    customers().insert_many(std::vector<Customer>{{"ada", "Ada"}, {"bob", "Bob"}});
    orders().insert_many(std::vector<Order>{
        order(1, "ada", "paid", "0.10", "EUR", 1, {{"pen", 2, odm::Decimal("0.10")}, {"ink", 1, odm::Decimal("2.50")}}),
        order(2, "ada", "paid", "0.20", "EUR", 2, {{"pen", 3, odm::Decimal("0.10")}}),
        order(3, "ada", "open", "19.99", "USD", 3),
        order(4, "bob", "paid", "0.30", "EUR", 4, {{"ink", 4, odm::Decimal("2.40")}}),
        order(5, "bob", "paid", "1000000000000.01", "USD", 5),
        order(6, "zed", "void", "5.00", "USD", 6),  // a customer that does not exist
    });
  }
  odm::Collection<Order> orders() { return db().collection<Order>(); }
  odm::Collection<Customer> customers() { return db().collection<Customer>(); }
};

TEST_F(Pipeline, MatchSortSkipLimit) {
  const auto found = orders()
                         .aggregate(odm::pipeline<Order>()
                                        .match(field(&Order::status) == "paid")
                                        .sort(odm::sort(odm::desc(&Order::items)))
                                        .skip(1)
                                        .limit(2))
                         .to_vector();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, 4);
  EXPECT_EQ(found[1].id, 2);
  EXPECT_EQ(found[0].total, odm::Money("0.30", "EUR"));
  ASSERT_EQ(found[0].lines.size(), 1u);
  EXPECT_EQ(found[0].lines[0].price, odm::Decimal("2.40"));
}

TEST_F(Pipeline, ProjectIntoASummary) {
  const auto found =
      orders().aggregate(odm::pipeline<Order>().sort(odm::sort(odm::asc(&Order::id))).project<OrderSummary>()).to_vector();
  ASSERT_EQ(found.size(), 6u);
  EXPECT_EQ(found[2].id, 3);
  EXPECT_EQ(found[2].status, "open");
  EXPECT_EQ(found[2].items, 3);
}

TEST_F(Pipeline, UnwindThenGroupTheElements) {
  // One document per line (orders without lines pass on nothing), then per sku.
  const auto lines = orders()
                         .aggregate(odm::pipeline<Order>()
                                        .unwind<&OrderLine::lines>()
                                        .sort(odm::sort(odm::asc(&OrderLine::id))))
                         .to_vector();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].id, 1);
  EXPECT_EQ(lines[1].id, 1);
  EXPECT_EQ(lines[1].lines.sku, "ink");
  EXPECT_EQ(lines[3].lines.quantity, 4);

  const auto per_sku = orders()
                           .aggregate(odm::pipeline<Order>()
                                          .unwind<&OrderLine::lines>()
                                          .group<PerSku>(agg::by(field(&OrderLine::lines) / &Line::sku),
                                                         agg::sum<&PerSku::quantity>(field(&OrderLine::lines) /
                                                                                     &Line::quantity),
                                                         agg::max<&PerSku::max_price>(field(&OrderLine::lines) /
                                                                                      &Line::price))
                                          .sort(odm::sort(odm::asc(&PerSku::id))))
                           .to_vector();
  ASSERT_EQ(per_sku.size(), 2u);
  EXPECT_EQ(per_sku[0].id, "ink");
  EXPECT_EQ(per_sku[0].quantity, 5);
  EXPECT_EQ(per_sku[0].max_price, odm::Decimal("2.50"));
  EXPECT_EQ(per_sku[1].id, "pen");
  EXPECT_EQ(per_sku[1].quantity, 5);
  EXPECT_EQ(per_sku[1].max_price, odm::Decimal("0.10"));
}

TEST_F(Pipeline, GroupWithEveryAccumulator) {
  const auto groups =
      orders()
          .aggregate(per_customer(odm::pipeline<Order>()
                                      .match(field(&Order::customer) == "ada")
                                      .sort(odm::sort(odm::asc(&Order::id)))))
          .to_vector();
  ASSERT_EQ(groups.size(), 1u);
  const PerCustomer& ada = groups[0];
  EXPECT_EQ(ada.id, "ada");
  // Mixed currencies summed as numbers: exact all the same (0.10 + 0.20 + 19.99).
  EXPECT_EQ(ada.spent, odm::Decimal("20.29"));
  EXPECT_EQ(ada.orders, 3);
  EXPECT_EQ(ada.items, 6);
  EXPECT_EQ(ada.points, 6'000'000'000'000);
  EXPECT_DOUBLE_EQ(ada.weight, 3.0);
  EXPECT_DOUBLE_EQ(ada.avg_items, 2.0);
  EXPECT_EQ(ada.fewest, 1);
  EXPECT_EQ(ada.most, 3);
  EXPECT_EQ(ada.first_status, "paid");
  EXPECT_EQ(ada.last_status, "open");
  EXPECT_EQ(ada.order_ids, (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(std::set<std::string>(ada.statuses.begin(), ada.statuses.end()), (std::set<std::string>{"open", "paid"}));
  EXPECT_EQ(ada.statuses.size(), 2u);
}

TEST_F(Pipeline, AverageOfDecimalsIsDecimal) {
  ODM_REQUIRE(decimal_average);
  const auto averages = orders()
                            .aggregate(odm::pipeline<Order>()
                                           .match(field(&Order::customer) == "ada")
                                           .group<AverageSpent>(agg::by(field(&Order::customer)),
                                                                agg::avg<&AverageSpent::average>(
                                                                    agg::amount(field(&Order::total)))))
                            .to_vector();
  ASSERT_EQ(averages.size(), 1u);
  ASSERT_TRUE(averages[0].average.has_value());
  // (0.10 + 0.20 + 19.99) / 3, rounded as Decimal128 rounds: 34 significant digits, half to even.
  EXPECT_EQ(*averages[0].average, odm::Decimal("20.29") / odm::Decimal(3)) << averages[0].average->to_string();
}

TEST_F(Pipeline, ReportPerCurrencyIsExact) {
  const auto report =
      orders()
          .aggregate(
              odm::pipeline<Order>()
                  .match(field(&Order::status) != "void")
                  .group<SpentPerCurrency>(
                      agg::by(agg::key<&CustomerCurrency::customer>(field(&Order::customer)),
                              agg::key<&CustomerCurrency::currency>(agg::currency(field(&Order::total)))),
                      agg::sum<&SpentPerCurrency::spent>(field(&Order::total)))
                  .sort(odm::sort(odm::asc(field(&SpentPerCurrency::id) / &CustomerCurrency::customer),
                                  odm::asc(field(&SpentPerCurrency::id) / &CustomerCurrency::currency))))
          .to_vector();
  ASSERT_EQ(report.size(), 4u);
  EXPECT_EQ(report[0].id, (CustomerCurrency{"ada", "EUR"}));
  // 0.10 + 0.20 is 0.30 exactly, as Decimal128 (a double sum would be 0.30000000000000004).
  EXPECT_EQ(report[0].spent.to_string(), "0.30");
  EXPECT_EQ(report[1].id, (CustomerCurrency{"ada", "USD"}));
  EXPECT_EQ(report[1].spent.to_string(), "19.99");
  EXPECT_EQ(report[2].id, (CustomerCurrency{"bob", "EUR"}));
  EXPECT_EQ(report[2].spent.to_string(), "0.30");
  EXPECT_EQ(report[3].id, (CustomerCurrency{"bob", "USD"}));
  EXPECT_EQ(report[3].spent.to_string(), "1000000000000.01");
}

TEST_F(Pipeline, GroupWithoutKeyAndCount) {
  const auto totals =
      orders()
          .aggregate(odm::pipeline<Order>().group<GrandTotal>(agg::count<&GrandTotal::orders>(),
                                                              agg::sum<&GrandTotal::items>(field(&Order::items))))
          .to_vector();
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].orders, 6);
  EXPECT_EQ(totals[0].items, 21);

  const auto counted =
      orders().aggregate(odm::pipeline<Order>().match(field(&Order::status) == "paid").count<&Counted::orders>()).to_vector();
  ASSERT_EQ(counted.size(), 1u);
  EXPECT_EQ(counted[0].orders, 4);
  // As MongoDB documents: no document at all when nothing reaches $count.
  EXPECT_TRUE(orders()
                  .aggregate(odm::pipeline<Order>().match(field(&Order::status) == "none").count<&Counted::orders>())
                  .to_vector()
                  .empty());
}

TEST_F(Pipeline, Set) {
  ODM_REQUIRE(set_stage);
  const auto labelled = orders()
                            .aggregate(odm::pipeline<Order>()
                                           .match(field(&Order::id) == 2)
                                           .set<Labelled>(agg::constant<&Labelled::label>(std::string("$literal, kept")),
                                                          agg::assign<&Labelled::copied_points>(field(&Order::points))))
                            .to_vector();
  ASSERT_EQ(labelled.size(), 1u);
  EXPECT_EQ(labelled[0].id, 2);
  EXPECT_EQ(labelled[0].status, "paid");
  EXPECT_EQ(labelled[0].items, 2);
  EXPECT_EQ(labelled[0].label, "$literal, kept");
  EXPECT_EQ(labelled[0].copied_points, 2'000'000'000'000);
}

TEST_F(Pipeline, AddFields) {
  const auto added = orders()
                         .aggregate(odm::pipeline<Order>()
                                        .match(field(&Order::id) == 3)
                                        .add_fields<Labelled>(agg::constant<&Labelled::label>(std::string("x")),
                                                              agg::assign<&Labelled::copied_points>(field(&Order::points))))
                         .to_vector();
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].label, "x");
  EXPECT_EQ(added[0].status, "open");
  EXPECT_EQ(added[0].copied_points, 3'000'000'000'000);
}

TEST_F(Pipeline, LookupFollowsTheReference) {
  const auto joined = orders()
                          .aggregate(odm::pipeline<Order>()
                                         .sort(odm::sort(odm::asc(&Order::id)))
                                         .lookup<&Order::customer, &OrderWithCustomer::buyer>())
                          .to_vector();
  ASSERT_EQ(joined.size(), 6u);
  ASSERT_EQ(joined[0].buyer.size(), 1u);
  EXPECT_EQ(joined[0].buyer[0].name, "Ada");
  ASSERT_EQ(joined[3].buyer.size(), 1u);
  EXPECT_EQ(joined[3].buyer[0].name, "Bob");
  // A dangling reference joins nothing.
  EXPECT_TRUE(joined[5].buyer.empty());
}

// The most common lookup: $lookup, then $unwind, one document per order and customer
// (MongoDB drops an order whose reference found nothing).
TEST_F(Pipeline, LookupThenUnwind) {
  const auto joined = orders()
                          .aggregate(odm::pipeline<Order>()
                                         .lookup<&Order::customer, &OrderWithCustomer::buyer>()
                                         .unwind<&OrderAndCustomer::buyer>()
                                         .sort(odm::sort(odm::asc(&OrderAndCustomer::id))))
                          .to_vector();
  ASSERT_EQ(joined.size(), 5u);
  EXPECT_EQ(joined[0].id, 1);
  EXPECT_EQ(joined[0].buyer.id, "ada");
  EXPECT_EQ(joined[0].buyer.name, "Ada");
  EXPECT_EQ(joined[3].buyer.id, "bob");
  EXPECT_EQ(joined[3].buyer.name, "Bob");
}

// $facet: three sub-pipelines over the paid orders, in one document.
TEST_F(Pipeline, Facet) {
  const auto found =
      orders()
          .aggregate(odm::pipeline<Order>()
                         .match(field(&Order::status) == "paid")
                         .facet<OrdersReport>(
                             agg::facet<&OrdersReport::overall>(odm::pipeline<Order>().group<GrandTotal>(
                                 agg::count<&GrandTotal::orders>(), agg::sum<&GrandTotal::items>(field(&Order::items)))),
                             agg::facet<&OrdersReport::counted>(odm::pipeline<Order>().count<&Counted::orders>()),
                             agg::facet<&OrdersReport::biggest>(odm::pipeline<Order>()
                                                                   .sort(odm::sort(odm::desc(&Order::items)))
                                                                   .limit(1)
                                                                   .project<OrderSummary>())))
          .to_vector();
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].overall.size(), 1u);
  EXPECT_EQ(found[0].overall[0].orders, 4);
  EXPECT_EQ(found[0].overall[0].items, 1 + 2 + 4 + 5);
  ASSERT_EQ(found[0].counted.size(), 1u);
  EXPECT_EQ(found[0].counted[0].orders, 4);
  ASSERT_EQ(found[0].biggest.size(), 1u);
  EXPECT_EQ(found[0].biggest[0].id, 5);
  EXPECT_EQ(found[0].biggest[0].items, 5);
}

TEST_F(Pipeline, RawStageInTheChain) {
  const auto doubled =
      orders()
          .aggregate(odm::pipeline<Order>()
                         .match(field(&Order::items) >= 5)
                         .stage<Doubled>(odm_test::json(R"({"$project": {"doubled": {"$multiply": ["$items", 2]}}})"))
                         .sort(odm::sort(odm::asc(&Doubled::id))))
          .to_vector();
  ASSERT_EQ(doubled.size(), 2u);
  EXPECT_EQ(doubled[0].id, 5);
  EXPECT_EQ(doubled[0].doubled, 10);
  EXPECT_EQ(doubled[1].doubled, 12);
}

TEST_F(Pipeline, TheCommandCarriesTheTypedStages) {
  log_.clear();
  (void)orders().aggregate(odm::pipeline<Order>().match(field(&Order::items) > 100).limit(1)).to_vector();
  ASSERT_EQ(log_.started("aggregate"), 1);
  const std::optional<odm::Document> command = log_.last("aggregate");
  ASSERT_TRUE(command.has_value());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, command->get(), "pipeline"));
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_array(&it, &length, &data);
  bson_t sent;
  ASSERT_TRUE(bson_init_static(&sent, data, length));
  const odm::Document expected =
      odm_test::json(R"({"0": {"$match": {"items": {"$gt": 100}}}, "1": {"$limit": {"$numberLong": "1"}}})");
  EXPECT_TRUE(bson_equal(&sent, expected.get())) << odm::Document::copy_of(&sent).to_json();
}

// ---- randomized $group against a reference computed in C++ ---------------------------

struct Reference {
  odm::Decimal spent;
  std::int64_t orders = 0;
  std::int64_t items = 0;
  std::int32_t fewest = 0;
  std::int32_t most = 0;
  std::string first_status;
  std::string last_status;
  std::vector<std::int32_t> ids;
  std::set<std::string> statuses;
};

TEST_F(Pipeline, RandomGroupsMatchTheReference) {
  const char* given = std::getenv("ODM_PIPELINE_SEED");
  const std::uint32_t seed = given != nullptr ? static_cast<std::uint32_t>(std::strtoul(given, nullptr, 10))
                                              : std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with ODM_PIPELINE_SEED=" + std::to_string(seed) + ")");
  std::mt19937 random(seed);
  const auto pick = [&](int from, int to) { return std::uniform_int_distribution<int>(from, to)(random); };
  const char* names[] = {"ada", "bob", "cy", "dee", "eve"};
  const char* currencies[] = {"EUR", "USD", "JPY"};
  const char* states[] = {"open", "paid", "void"};

  orders().delete_many({});
  std::vector<Order> stored;
  const int count = pick(1, 300);
  for (int i = 0; i < count; ++i) {
    Order o;
    o.id = 100 + i;
    o.customer = std::string(names[pick(0, 4)]);
    o.status = states[pick(0, 2)];
    // Up to 12 significant digits and 2 places: a sum of 300 of them stays exact.
    o.total = odm::Money(odm::Decimal(pick(0, 999'999) * std::int64_t{1'000'000} + pick(0, 999'999), -2),
                         currencies[pick(0, 2)]);
    // Large enough that a customer's sum passes int32: $sum of int32 values is an int64.
    o.items = pick(0, 1) == 0 ? pick(-5, 5) : pick(1'000'000'000, 2'000'000'000);
    stored.push_back(o);
  }
  orders().insert_many(stored);

  const int threshold = pick(-5, 5);
  std::map<std::string, Reference> expected;
  for (const Order& o : stored) {  // in id order, the order the pipeline sorts by
    if (o.items < threshold) continue;
    Reference& r = expected[o.customer.id()];
    if (r.orders == 0) {
      r.fewest = r.most = o.items;
      r.first_status = o.status;
    }
    r.spent += o.total.amount();
    ++r.orders;
    r.items += o.items;
    r.fewest = std::min(r.fewest, o.items);
    r.most = std::max(r.most, o.items);
    r.last_status = o.status;
    r.ids.push_back(o.id);
    r.statuses.insert(o.status);
  }

  const auto groups =
      orders()
          .aggregate(per_customer(odm::pipeline<Order>()
                                      .match(field(&Order::items) >= threshold)
                                      .sort(odm::sort(odm::asc(&Order::id))))
                         .sort(odm::sort(odm::asc(&PerCustomer::id))))
          .to_vector();

  ASSERT_EQ(groups.size(), expected.size());
  auto want = expected.begin();
  for (const PerCustomer& got : groups) {
    SCOPED_TRACE("customer " + got.id);
    ASSERT_EQ(got.id, want->first);
    const Reference& r = want->second;
    EXPECT_EQ(got.spent, r.spent) << got.spent.to_string() << " != " << r.spent.to_string();
    EXPECT_EQ(got.orders, r.orders);
    EXPECT_EQ(got.items, r.items);
    EXPECT_NEAR(got.avg_items, static_cast<double>(r.items) / static_cast<double>(r.orders), 1e-6 * 2e9);
    EXPECT_EQ(got.fewest, r.fewest);
    EXPECT_EQ(got.most, r.most);
    EXPECT_EQ(got.first_status, r.first_status);
    EXPECT_EQ(got.last_status, r.last_status);
    EXPECT_EQ(got.order_ids, r.ids);
    EXPECT_EQ(std::set<std::string>(got.statuses.begin(), got.statuses.end()), r.statuses);
    EXPECT_EQ(got.statuses.size(), r.statuses.size());
    ++want;
  }
}

}  // namespace
