// Golden BSON of every stage of the typed pipeline, and the run-time checks of the
// values a stage takes (the compile-time ones are in tests/compile_fail/pipeline_*.cpp).

#include "aggregation/aggregation_models.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

namespace {

using namespace agg_test;
using odm::field;
namespace agg = odm::agg;

/// The pipeline's stages equal the array written as (relaxed) Extended JSON, types included.
template <class P>
void expect_stages(const P& pipeline, std::string_view stages_json) {
  odm::Document wrapped;
  EXPECT_TRUE(bson_append_array(wrapped.get_mutable(), "stages", 6, pipeline.bson().get()));
  EXPECT_EQ(wrapped.to_canonical_json(),
            odm::Document::from_json("{\"stages\": " + std::string(stages_json) + "}").to_canonical_json());
}

TEST(PipelineTest, EmptyPipelineIsAnEmptyArray) {
  const auto pipeline = odm::pipeline<Order>();
  EXPECT_EQ(pipeline.size(), 0u);
  expect_stages(pipeline, "[]");
}

TEST(PipelineTest, MatchSortSkipLimit) {
  const auto pipeline = odm::pipeline<Order>()
                            .match(field(&Order::status) == "paid" && field(&Order::items) > 2)
                            .sort(odm::sort(odm::desc(&Order::items), odm::asc(&Order::id)))
                            .skip(5)
                            .limit(10);
  expect_stages(pipeline, R"([{"$match": {"status": "paid", "items": {"$gt": 2}}},
                              {"$sort": {"items": -1, "_id": 1}},
                              {"$skip": {"$numberLong": "5"}}, {"$limit": {"$numberLong": "10"}}])");
  static_assert(std::is_same_v<decltype(pipeline)::output_type, Order>);
}

TEST(PipelineTest, ProjectIntoAStruct) {
  const auto pipeline = odm::pipeline<Order>().project<OrderSummary>();
  expect_stages(pipeline, R"([{"$project": {"_id": 1, "status": 1, "items": 1}}])");
  static_assert(std::is_same_v<decltype(pipeline)::output_type, OrderSummary>);
}

TEST(PipelineTest, UnwindPassesTheElementOn) {
  const auto pipeline = odm::pipeline<Order>()
                            .unwind<&OrderLine::lines>()
                            .match(field(&OrderLine::lines) / &Line::quantity > 1)
                            .group<PerSku>(agg::by(field(&OrderLine::lines) / &Line::sku),
                                           agg::sum<&PerSku::quantity>(field(&OrderLine::lines) / &Line::quantity),
                                           agg::max<&PerSku::max_price>(field(&OrderLine::lines) / &Line::price));
  expect_stages(pipeline, R"([{"$unwind": "$lines"}, {"$match": {"lines.quantity": {"$gt": 1}}},
      {"$group": {"_id": "$lines.sku", "quantity": {"$sum": {"$ifNull": ["$lines.quantity", {"$numberLong": "0"}]}},
                  "max_price": {"$max": "$lines.price"}}}])");
}

struct TagAt {
  std::int32_t id = 0;
  Line lines;
  std::int64_t at = 0;
};
struct MaybeLine {
  std::int32_t id = 0;
  std::optional<Line> lines;
  std::optional<std::int64_t> at;
};
struct LineOrNone {
  std::int32_t id = 0;
  std::optional<Line> lines;
};
TEST(PipelineTest, UnwindOptions) {
  expect_stages(odm::pipeline<Order>().unwind<&TagAt::lines, &TagAt::at>(),
                R"([{"$unwind": {"path": "$lines", "includeArrayIndex": "at"}}])");
  expect_stages(odm::pipeline<Order>().unwind_preserving<&LineOrNone::lines>(),
                R"([{"$unwind": {"path": "$lines", "preserveNullAndEmptyArrays": true}}])");
  expect_stages(odm::pipeline<Order>().unwind_preserving<&MaybeLine::lines, &MaybeLine::at>(),
                R"([{"$unwind": {"path": "$lines", "includeArrayIndex": "at", "preserveNullAndEmptyArrays": true}}])");
}

TEST(PipelineTest, GroupWithEveryAccumulator) {
  const auto pipeline = odm::pipeline<Order>().group<PerCustomer>(
      agg::by(field(&Order::customer)), agg::sum<&PerCustomer::spent>(agg::amount(field(&Order::total))),
      agg::count<&PerCustomer::orders>(), agg::sum<&PerCustomer::items>(field(&Order::items)),
      agg::sum<&PerCustomer::points>(field(&Order::points)), agg::sum<&PerCustomer::weight>(field(&Order::weight)),
      agg::avg<&PerCustomer::avg_items>(field(&Order::items)),
      agg::min<&PerCustomer::fewest>(field(&Order::items)), agg::max<&PerCustomer::most>(field(&Order::items)),
      agg::first<&PerCustomer::first_status>(field(&Order::status)),
      agg::last<&PerCustomer::last_status>(field(&Order::status)),
      agg::push<&PerCustomer::order_ids>(field(&Order::id)),
      agg::add_to_set<&PerCustomer::statuses>(field(&Order::status)));
  expect_stages(pipeline, R"([{"$group": {"_id": "$customer",
      "spent": {"$sum": {"$ifNull": ["$total.value", {"$numberDecimal": "0"}]}}, "orders": {"$sum": 1},
      "items": {"$sum": {"$ifNull": ["$items", {"$numberLong": "0"}]}}, "points": {"$sum": {"$ifNull": ["$points", {"$numberLong": "0"}]}},
      "weight": {"$sum": {"$ifNull": ["$weight", 0.0]}}, "avg_items": {"$avg": "$items"},
      "fewest": {"$min": "$items"}, "most": {"$max": "$items"},
      "first_status": {"$first": "$status"}, "last_status": {"$last": "$status"},
      "order_ids": {"$push": "$_id"}, "statuses": {"$addToSet": "$status"}}}])");
}

TEST(PipelineTest, AverageOfMoneyIsOfItsAmountPerCurrency) {
  const auto pipeline = odm::pipeline<Order>().group<AveragePerCurrency>(
      agg::by(agg::currency(field(&Order::total))), agg::avg<&AveragePerCurrency::average>(field(&Order::total)));
  expect_stages(pipeline, R"([{"$group": {"_id": "$total.currency", "average": {"$avg": "$total.value"}}}])");
}

// A Money's sum needs its own currency in the key: the currency of another Money does not
// make the amounts comparable (the compile-time half is compile_fail/pipeline_sum_of_money_*).
struct Refunded {
  std::int32_t id = 0;
  odm::Money total;
  odm::Money refund;
};
TEST(PipelineTest, SumOfMoneyKeyedByAnotherMoneysCurrencyIsRefused) {
  try {
    (void)odm::pipeline<Refunded>().group<AveragePerCurrency>(agg::by(agg::currency(field(&Refunded::refund))),
                                                              agg::avg<&AveragePerCurrency::average>(field(&Refunded::total)));
    FAIL() << "a $group summing `total` by the currency of `refund` was built";
  } catch (const odm::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("`total`"), std::string::npos) << error.what();
  }
}

TEST(PipelineTest, SumIntoEachTypeStartsFromItsZero) {
  const auto pipeline = odm::pipeline<Order>().group<GrandTotal>(agg::count<&GrandTotal::orders>(),
                                                                 agg::sum<&GrandTotal::items>(field(&Order::items)));
  // MongoDB's sum of a group without the field is the int32 0; the zero keeps it an int64.
  expect_stages(pipeline, R"([{"$group": {"_id": null, "orders": {"$sum": 1},
                                          "items": {"$sum": {"$ifNull": ["$items", {"$numberLong": "0"}]}}}}])");
}

TEST(PipelineTest, GroupByAKeyStruct) {
  const auto pipeline = odm::pipeline<Order>()
                            .group<SpentPerCurrency>(
                                agg::by(agg::key<&CustomerCurrency::customer>(field(&Order::customer)),
                                        agg::key<&CustomerCurrency::currency>(agg::currency(field(&Order::total)))),
                                agg::sum<&SpentPerCurrency::spent>(agg::amount(field(&Order::total))))
                            .sort(odm::sort(odm::asc(field(&SpentPerCurrency::id) / &CustomerCurrency::customer)));
  expect_stages(pipeline, R"([{"$group": {"_id": {"customer": "$customer", "currency": "$total.currency"},
                                          "spent": {"$sum": {"$ifNull": ["$total.value", {"$numberDecimal": "0"}]}}}},
                              {"$sort": {"_id.customer": 1}}])");
}

TEST(PipelineTest, GroupWithoutKeyIsNull) {
  const auto pipeline = odm::pipeline<Order>().group<GrandTotal>(agg::count<&GrandTotal::orders>(),
                                                                 agg::sum<&GrandTotal::items>(field(&Order::items)));
  expect_stages(pipeline,
                R"([{"$group": {"_id": null, "orders": {"$sum": 1}, "items": {"$sum": {"$ifNull": ["$items", {"$numberLong": "0"}]}}}}])");
}

TEST(PipelineTest, Count) {
  expect_stages(odm::pipeline<Order>().count<&Counted::orders>(), R"([{"$count": "orders"}])");
}

TEST(PipelineTest, SetAndAddFields) {
  const auto set = odm::pipeline<Order>().set<Labelled>(agg::constant<&Labelled::label>(std::string("$not an operator")),
                                                        agg::assign<&Labelled::copied_points>(field(&Order::points)));
  expect_stages(set, R"([{"$set": {"label": {"$literal": "$not an operator"}, "copied_points": "$points"}}])");
  const auto added = odm::pipeline<Order>().add_fields<Labelled>(agg::constant<&Labelled::label>(std::string("x")),
                                                                 agg::constant<&Labelled::copied_points>(7));
  expect_stages(added,
                R"([{"$addFields": {"label": {"$literal": "x"}, "copied_points": {"$literal": {"$numberLong": "7"}}}}])");
}

TEST(PipelineTest, LookupFollowsTheReference) {
  const auto pipeline = odm::pipeline<Order>().lookup<&Order::customer, &OrderWithCustomer::buyer>();
  expect_stages(pipeline, R"([{"$lookup": {"from": "customers", "localField": "customer", "foreignField": "_id",
                                           "as": "buyer"}}])");
}

TEST(PipelineTest, UnwindOfALookupPassesTheTargetOn) {
  const auto pipeline = odm::pipeline<Order>()
                            .lookup<&Order::customer, &OrderWithCustomer::buyer>()
                            .unwind<&OrderAndCustomer::buyer>()
                            .sort(odm::sort(odm::asc(&OrderAndCustomer::id)));
  static_assert(std::is_same_v<decltype(pipeline)::output_type, OrderAndCustomer>);
  expect_stages(pipeline, R"([{"$lookup": {"from": "customers", "localField": "customer", "foreignField": "_id",
                                           "as": "buyer"}}, {"$unwind": "$buyer"}, {"$sort": {"_id": 1}}])");
  // The unwound customer is a top-level Customer document: `id` is `_id`.
  const auto read = odm::from_json<OrderAndCustomer>(R"({"_id": 1, "buyer": {"_id": "c1", "name": "Ada"}})");
  EXPECT_EQ(read.buyer.id, "c1");
  EXPECT_EQ(read.buyer.name, "Ada");
}

TEST(PipelineTest, FacetRunsSubPipelinesOverTheSameDocuments) {
  const auto pipeline =
      odm::pipeline<Order>()
          .match(field(&Order::status) == "paid")
          .facet<OrdersReport>(
              agg::facet<&OrdersReport::overall>(odm::pipeline<Order>().group<GrandTotal>(
                  agg::count<&GrandTotal::orders>(), agg::sum<&GrandTotal::items>(field(&Order::items)))),
              agg::facet<&OrdersReport::counted>(odm::pipeline<Order>().count<&Counted::orders>()),
              agg::facet<&OrdersReport::biggest>(
                  odm::pipeline<Order>().sort(odm::sort(odm::desc(&Order::items))).limit(1).project<OrderSummary>()));
  static_assert(std::is_same_v<decltype(pipeline)::output_type, OrdersReport>);
  expect_stages(pipeline, R"([{"$match": {"status": "paid"}}, {"$facet": {
      "overall": [{"$group": {"_id": null, "orders": {"$sum": 1},
                              "items": {"$sum": {"$ifNull": ["$items", {"$numberLong": "0"}]}}}}],
      "counted": [{"$count": "orders"}],
      "biggest": [{"$sort": {"items": -1}}, {"$limit": {"$numberLong": "1"}},
                  {"$project": {"_id": 1, "status": 1, "items": 1}}]}}])");
}

TEST(PipelineTest, FacetRefusesStagesMongoDBDoesNotRunInside) {
  try {
    (void)odm::pipeline<Order>().facet<OrdersReport>(
        agg::facet<&OrdersReport::overall>(
            odm::pipeline<Order>().stage<GrandTotal>(odm::Document::from_json(R"({"$out": "elsewhere"})"))),
        agg::facet<&OrdersReport::counted>(odm::pipeline<Order>().count<&Counted::orders>()),
        agg::facet<&OrdersReport::biggest>(odm::pipeline<Order>().project<OrderSummary>()));
    FAIL() << "a $facet holding $out was built";
  } catch (const odm::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("$out"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("overall"), std::string::npos) << error.what();
  }
}

TEST(PipelineTest, RawStageInTheChain) {
  const auto pipeline = odm::pipeline<Order>()
                            .match(field(&Order::items) >= 1)
                            .stage<OrderSummary>(odm::Document::from_json(R"({"$sample": {"size": 2}})"))
                            .sort(odm::sort(odm::asc(&OrderSummary::items)));
  expect_stages(pipeline, R"([{"$match": {"items": {"$gte": 1}}}, {"$sample": {"size": 2}}, {"$sort": {"items": 1}}])");
}

TEST(PipelineTest, BadValuesAreRefusedWhenBuilt) {
  const auto base = odm::pipeline<Order>();
  EXPECT_THROW((void)base.limit(0), odm::ValueError);
  EXPECT_THROW((void)base.limit(-3), odm::ValueError);
  EXPECT_THROW((void)base.skip(-1), odm::ValueError);
  EXPECT_THROW((void)base.sort(odm::Sort<Order>{}), odm::ValueError);
  EXPECT_THROW((void)base.stage<odm::Document>(odm::Document::from_json(R"({"match": {}})")), odm::ValueError);
  EXPECT_THROW((void)base.stage<odm::Document>(odm::Document::from_json(R"({"$match": {}, "$sort": {"a": 1}})")),
               odm::ValueError);
  EXPECT_THROW((void)base.stage<odm::Document>(odm::Document()), odm::ValueError);
  // A refused stage leaves the pipeline it was added to as it was.
  EXPECT_EQ(base.size(), 0u);
}

TEST(PipelineTest, BuildingFromAnLvalueCopies) {
  const auto matched = odm::pipeline<Order>().match(field(&Order::status) == "paid");
  const auto a = matched.limit(1);
  const auto b = matched.skip(1);
  expect_stages(matched, R"([{"$match": {"status": "paid"}}])");
  expect_stages(a, R"([{"$match": {"status": "paid"}}, {"$limit": {"$numberLong": "1"}}])");
  expect_stages(b, R"([{"$match": {"status": "paid"}}, {"$skip": {"$numberLong": "1"}}])");
}

// A pipeline outgrows the room it has inline (odm::detail::StageList): its bytes stay
// the array MongoDB reads, through copies, moves and assignments.
TEST(PipelineTest, LongPipelinesKeepTheirStagesThroughCopiesAndMoves) {
  auto pipeline = odm::pipeline<Order>().match(field(&Order::status) == "paid");
  std::string expected = R"([{"$match": {"status": "paid"}})";
  for (int i = 0; i < 60; ++i) {  // about 1.4 KiB of stages
    pipeline = std::move(pipeline).skip(i);
    expected += R"(, {"$skip": {"$numberLong": ")" + std::to_string(i) + "\"}}";
  }
  const std::string long_stages = expected + "]";
  EXPECT_EQ(pipeline.size(), 61u);
  expect_stages(pipeline, long_stages);

  const auto copy = pipeline;  // copies the heap buffer
  const auto longer = copy.limit(7);
  expect_stages(copy, long_stages);
  expect_stages(longer, expected + R"(, {"$limit": {"$numberLong": "7"}}])");

  auto moved = std::move(pipeline);  // takes the heap buffer
  expect_stages(moved, long_stages);
  EXPECT_EQ(pipeline.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from pipeline is empty
  expect_stages(pipeline, "[]");

  // A short pipeline assigned over a long one, and the other way round.
  auto short_one = odm::pipeline<Order>().limit(3);
  moved = short_one;
  expect_stages(moved, R"([{"$limit": {"$numberLong": "3"}}])");
  short_one = copy;
  expect_stages(short_one, long_stages);

  // What bson() copies and what bson_view() shows are the same bytes.
  const odm::Document copied = copy.bson();
  EXPECT_EQ(copied.size(), copy.bson_view().get()->len);
  EXPECT_TRUE(bson_equal(copied.get(), copy.bson_view().get()));
}

// A stage that fails half written is taken back whole: the stages before it stay a valid
// array, and the next stage is numbered as if it had never been begun.
TEST(PipelineTest, AStageThatFailsWhileWrittenIsTakenBack) {
  odm::detail::StageList stages;
  stages.add_int64("$limit", 5);
  EXPECT_THROW(stages.write_stage("$group",
                                  [](odm::detail::StageList& group) {
                                    group.put_null("_id");
                                    group.put_utf8("n", "half written");
                                    throw odm::ValueError("failed while writing");
                                  }),
               odm::ValueError);
  EXPECT_EQ(stages.size(), 1u);
  stages.add_string("$count", "n");
  const odm::detail::BsonView view(stages.data(), stages.length());
  odm::Document wrapped;
  EXPECT_TRUE(bson_append_array(wrapped.get_mutable(), "stages", 6, view.get()));
  EXPECT_EQ(wrapped.to_canonical_json(),
            odm::Document::from_json(R"({"stages": [{"$limit": {"$numberLong": "5"}}, {"$count": "n"}]})")
                .to_canonical_json());
}

}  // namespace
