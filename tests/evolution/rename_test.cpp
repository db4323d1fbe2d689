// odm::renamed_from (the expand phase of a rename, odm/evolution/rename.hpp): which name a
// document is read from, what is written, how typed filters and updates address both
// names; odm::rename_field, the contract step.

#include "test_support.hpp"
#include "evolution/schema_check.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>
#include <odm/evolution/schema.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/index/index.hpp>
#include <odm/aggregation/pipeline.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/query.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace renamed_from_test {

struct Counter {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  std::string label;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Counter::visits>("hits"));
  };
};

struct Place {
  std::string city;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Place::city>("town"));
  };
};
struct Visitor {
  std::int64_t id = 0;
  Place place;
  odm::Extra rest;
};

struct Line {
  std::string sku;
  std::int32_t qty = 0;
};
struct Cart {
  std::int64_t id = 0;
  std::vector<Line> lines;
  std::string label;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Cart::lines>("items"));
    static constexpr auto indexes =
        odm::indexes(odm::index(&Cart::label, "lines.sku").unique(),
                     odm::index(odm::key(&Cart::lines, odm::descending)).named("by_lines"));
  };
};

struct Total {
  std::int64_t visits = 0;
};
/// Counter with a computed copy of its counter.
struct Copied {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  std::string label;
  std::int64_t copy = 0;
};

struct Contracted {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
  };
};

}  // namespace renamed_from_test

namespace {

using namespace renamed_from_test;
using namespace odm_test;

TEST(RenamedFrom, TheMemberTableSaysWhatTheOptionStates) {
  static_assert(odm::member_of<&Counter::visits>::previous_name == "hits");
  static_assert(odm::member_of<&Counter::visits>::writes_previous_name);
  static_assert(odm::member_of<&Counter::label>::previous_name.empty());
  static_assert(!odm::member_of<&Counter::label>::writes_previous_name);
}

TEST(RenamedFrom, WritesBothNamesRightAfterEachOther) {
  EXPECT_EQ(encoded(Counter{1, 7, "a"}),
            canonical(R"({"_id": {"$numberLong": "1"}, "visits": {"$numberLong": "7"}, "hits": {"$numberLong": "7"},
                          "label": "a"})"));
  EXPECT_EQ(encoded(Visitor{2, Place{"Oslo"}, {}}),
            canonical(R"({"_id": {"$numberLong": "2"}, "place": {"city": "Oslo", "town": "Oslo"}})"));
}

TEST(RenamedFrom, ReadsTheOldNameFirstWhileItIsWritten) {
  // Only the old name (v1 wrote it), only the new one, both (v1 wrote the old one last),
  // in either order.
  EXPECT_EQ(decode<Counter>(R"({"_id": 1, "hits": {"$numberLong": "4"}, "label": ""})").visits, 4);
  EXPECT_EQ(decode<Counter>(R"({"_id": 1, "visits": {"$numberLong": "5"}, "label": ""})").visits, 5);
  EXPECT_EQ(decode<Counter>(R"({"_id": 1, "visits": {"$numberLong": "5"}, "hits": {"$numberLong": "9"}, "label": ""})")
                .visits,
            9);
  EXPECT_EQ(decode<Counter>(R"({"_id": 1, "hits": {"$numberLong": "9"}, "label": "", "visits": {"$numberLong": "5"}})")
                .visits,
            9);
  EXPECT_EQ(decode<Visitor>(R"({"_id": 1, "place": {"town": "Bergen"}})").place.city, "Bergen");
  // The old name is the member's, not an unknown field an Extra keeps (and writes twice).
  const Visitor read = decode<Visitor>(R"({"_id": 1, "place": {"city": "Oslo", "town": "Bergen"}, "x": 1})");
  EXPECT_EQ(read.place.city, "Bergen");
  EXPECT_EQ(read.rest.size(), 1u);
}

TEST(RenamedFrom, RefusesWhatItCannotRead) {
  EXPECT_NE(decode_error<Counter>(R"({"_id": 1, "label": ""})").find("visits: missing required field"),
            std::string::npos);
  const std::string wrong = decode_error<Counter>(R"({"_id": 1, "hits": "many", "label": ""})");
  EXPECT_NE(wrong.find("hits: expected"), std::string::npos) << "a wrong type names the old field: " << wrong;
  EXPECT_NE(decode_error<Counter>(R"({"_id": 1, "hits": {"$numberLong": "1"}, "hits": {"$numberLong": "2"},
                                       "label": ""})")
                .find("field appears twice"),
            std::string::npos);
}

TEST(RenamedFrom, TypedFiltersMatchTheOldNameWhereADocumentHasIt) {
  const odm::Filter<Counter> filter = odm::field(&Counter::visits) > std::int64_t{3} && odm::field(&Counter::label) == "a";
  EXPECT_EQ(canonical(filter.bson()),
            canonical(R"({"label": "a", "$and": [{"$or": [{"$and": [{"hits": {"$exists": true}}, {"hits": {"$gt": {"$numberLong": "3"}}}]},
                           {"hits": {"$exists": false}, "visits": {"$gt": {"$numberLong": "3"}}}]}]})"));
  // Inside $or, and next to the filter's own $and.
  const odm::Filter<Counter> either = odm::field(&Counter::visits) == std::int64_t{1} || odm::field(&Counter::label) == "b";
  EXPECT_EQ(canonical(either.bson()),
            canonical(R"({"$or": [{"$and": [{"$or": [{"$and": [{"hits": {"$exists": true}}, {"hits": {"$numberLong": "1"}}]},
                                                     {"hits": {"$exists": false}, "visits": {"$numberLong": "1"}}]}]},
                                  {"label": "b"}]})"));
  const odm::Filter<Counter> twice = odm::field(&Counter::visits) > std::int64_t{1} && odm::field(&Counter::visits) < std::int64_t{5};
  EXPECT_EQ(canonical(twice.bson()),
            canonical(R"({"$and": [{"$and": [{"$or": [{"$and": [{"hits": {"$exists": true}}, {"hits": {"$gt": {"$numberLong": "1"}}}]},
                                                     {"hits": {"$exists": false}, "visits": {"$gt": {"$numberLong": "1"}}}]}]},
                                   {"$and": [{"$or": [{"$and": [{"hits": {"$exists": true}}, {"hits": {"$lt": {"$numberLong": "5"}}}]},
                                                     {"hits": {"$exists": false}, "visits": {"$lt": {"$numberLong": "5"}}}]}]}]})"));
  // A raw filter is sent as written.
  EXPECT_EQ(canonical(odm::Filter<Counter>::raw(doc_from_json(R"({"visits": 1})")).bson()), canonical(R"({"visits": 1})"));
}

// Each branch holds only where its name is the one read, so a negation is negated within
// the name read: a document with only the new name is no match of `visits != 3` through an
// absent old name.
TEST(RenamedFrom, NegatedFiltersAreNegatedWithinTheNameRead) {
  const odm::Filter<Counter> filter = odm::field(&Counter::visits) != std::int64_t{3};
  EXPECT_EQ(canonical(filter.bson()),
            canonical(R"({"$and": [{"$or": [{"$and": [{"hits": {"$exists": true}}, {"hits": {"$ne": {"$numberLong": "3"}}}]},
                                            {"hits": {"$exists": false}, "visits": {"$ne": {"$numberLong": "3"}}}]}]})"));
  const odm::Filter<Counter> absent = odm::field(&Counter::visits).exists(false);
  EXPECT_EQ(canonical(absent.bson()),
            canonical(R"({"$and": [{"$or": [{"$and": [{"hits": {"$exists": true}}, {"hits": {"$exists": false}}]},
                                            {"hits": {"$exists": false}, "visits": {"$exists": false}}]}]})"));
}

// A member renamed inside an embedded struct: typed filters and updates address
// `place.town` beside `place.city`.
TEST(RenamedFrom, EmbeddedRenamesAreAddressedByTheirPaths) {
  static_assert(odm::detail::written_previous_names<Visitor>.size() == 1);
  const odm::Filter<Visitor> filter = (odm::field(&Visitor::place) / &Place::city) == std::string("Oslo");
  EXPECT_EQ(canonical(filter.bson()),
            canonical(R"({"$and": [{"$or": [{"$and": [{"place.town": {"$exists": true}}, {"place.town": "Oslo"}]},
                                            {"place.town": {"$exists": false}, "place.city": "Oslo"}]}]})"));
  const odm::Update<Visitor> update = (odm::field(&Visitor::place) / &Place::city).set(std::string("Bergen"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(update)),
            canonical(R"({"$set": {"place.city": "Bergen", "place.town": "Bergen"}})"));
}

// A positional step inside a renamed member is refused before anything is sent.
TEST(RenamedFrom, PositionalStepsInsideARenamedMemberAreRefused) {
  const auto update = odm::Update<Cart>::raw(doc_from_json(R"({"$set": {"lines.$.qty": 1}})"));
  EXPECT_THROW((void)update.bson(), odm::UsageError);
  const auto all = odm::Update<Cart>::raw(doc_from_json(R"({"$inc": {"lines.$[].qty": 1}})"));
  EXPECT_THROW((void)all.bson(), odm::UsageError);
  // A whole-array write is fine.
  EXPECT_NO_THROW((void)odm::Update<Cart>::raw(doc_from_json(R"({"$set": {"lines": []}})")).bson());
}

// An upsert seeds the inserted document from the filter's equality conditions, which sit
// inside `$or` for a renamed member: their values are sent as `$setOnInsert` under both
// names, unless the update writes the member itself.
TEST(RenamedFrom, UpsertsSeedTheRenamedMembersEqualityValues) {
  const odm::Filter<Counter> filter = odm::field(&Counter::id) == std::int64_t{5} && odm::field(&Counter::visits) == std::int64_t{7};
  const odm::Update<Counter> update = odm::field(&Counter::label).set(std::string("x"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(update, filter, true)),
            canonical(R"({"$set": {"label": "x"}, "$setOnInsert": {"visits": {"$numberLong": "7"}, "hits": {"$numberLong": "7"}}})"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(update, filter, false)), canonical(R"({"$set": {"label": "x"}})"));
  const odm::Update<Counter> inc = odm::field(&Counter::visits).inc(std::int64_t{1});
  EXPECT_EQ(canonical(odm::detail::update_to_send(inc, filter, true)),
            canonical(R"({"$inc": {"visits": {"$numberLong": "1"}, "hits": {"$numberLong": "1"}}})"));
}

// A renamed member one embedded struct down is seeded beside an update of a sibling
// (`place.city`/`place.town` beside `$set: {place.zip}`: different paths, no conflict);
// only a path the update writes at, above or inside the member drops the seed.
TEST(RenamedFrom, UpsertsSeedANestedRenamedMemberBesideAnUpdateOfItsSibling) {
  const auto city = odm::field(&Visitor::place) / &Place::city;
  const odm::Filter<Visitor> filter = odm::field(&Visitor::id) == std::int64_t{5} && city == std::string("Oslo");
  const odm::Update<Visitor> sibling = odm::Update<Visitor>::raw(doc_from_json(R"({"$set": {"place.zip": 1}})"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(sibling, filter, true)),
            canonical(R"({"$set": {"place.zip": 1}, "$setOnInsert": {"place.city": "Oslo", "place.town": "Oslo"}})"));
  const odm::Update<Visitor> parent = odm::Update<Visitor>::raw(doc_from_json(R"({"$set": {"place": {"city": "Rome"}}})"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(parent, filter, true)),
            canonical(R"({"$set": {"place": {"city": "Rome"}}})"));
  const odm::Update<Visitor> itself = city.set(std::string("Bergen"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(itself, filter, true)),
            canonical(R"({"$set": {"place.city": "Bergen", "place.town": "Bergen"}})"));
}

// A condition comparing the whole parent of a renamed member compares stored bytes, which
// differ by the release that wrote them: refused before anything is sent, naming both;
// conditions that do not compare sub-documents (null, $exists) stay.
TEST(RenamedFrom, ComparingTheWholeParentOfARenamedMemberIsRefused) {
  const odm::Filter<Visitor> whole = odm::field(&Visitor::place) == Place{"Oslo"};
  try {
    (void)whole.bson();
    ADD_FAILURE() << "not refused";
  } catch (const odm::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("\"place\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("place.city"), std::string::npos) << e.what();
  }
  const auto in = odm::Filter<Visitor>::raw(doc_from_json(R"({"place": {"$in": [{"city": "Oslo"}]}})"));
  EXPECT_THROW((void)odm::detail::filter_for_model<Visitor>(in.bson()), odm::UsageError);
  const auto negated = odm::Filter<Visitor>::raw(doc_from_json(R"({"$or": [{"place": {"$not": {"$eq": {}}}}]})"));
  EXPECT_THROW((void)odm::detail::filter_for_model<Visitor>(negated.bson()), odm::UsageError);
  const auto exists = odm::Filter<Visitor>::raw(doc_from_json(R"({"place": {"$exists": true}, "_id": {"$ne": null}})"));
  EXPECT_EQ(canonical(odm::detail::filter_for_model<Visitor>(exists.bson())),
            canonical(R"({"place": {"$exists": true}, "_id": {"$ne": null}})"));
}

// A tracked change inside a renamed member sets the whole member under both names: a
// path inside it would create it under the name a document lacks.
TEST(RenamedFrom, TrackedChangesSetARenamedMemberWhole) {
  odm::Tracked<Cart> cart = odm::track(Cart{1, {{"a", 1}, {"b", 2}}, "x"});
  cart->lines.at(1).qty = 5;
  cart->label = "y";
  EXPECT_EQ(canonical(cart.changes()),
            canonical(R"({"$set": {"label": "y",
                                   "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 5}],
                                   "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 5}]}})"));
  cart->lines.push_back({"c", 3});
  EXPECT_EQ(canonical(cart.changes()),
            canonical(R"({"$set": {"label": "y",
                                   "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 5}, {"sku": "c", "qty": 3}],
                                   "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 5}, {"sku": "c", "qty": 3}]}})"));
}

// A unique index on a renamed member is planned on both names, each partial over the
// documents holding the member under its name (a document with only the other name is no
// null key).
TEST(RenamedFrom, IndexesAreTwinnedOnThePreviousName) {
  const std::vector<odm::IndexModel> plan = odm::index_plan<Cart>();
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(canonical(plan[0].keys), canonical(R"({"label": 1, "lines.sku": 1})"));
  EXPECT_TRUE(plan[0].unique);
  EXPECT_EQ(canonical(*plan[0].partial_filter), canonical(R"({"lines": {"$exists": true}})"));
  EXPECT_EQ(canonical(plan[1].keys), canonical(R"({"lines": -1})"));
  EXPECT_FALSE(plan[1].partial_filter.has_value());
  EXPECT_EQ(canonical(plan[2].keys), canonical(R"({"label": 1, "items.sku": 1})"));
  EXPECT_EQ(plan[2].name, "label_1_items.sku_1");
  EXPECT_TRUE(plan[2].unique);
  EXPECT_EQ(canonical(*plan[2].partial_filter), canonical(R"({"items": {"$exists": true}})"));
  EXPECT_EQ(plan[3].name, "by_lines_previous");
  EXPECT_EQ(canonical(plan[3].keys), canonical(R"({"items": -1})"));
  EXPECT_FALSE(plan[3].unique);
  EXPECT_FALSE(plan[3].partial_filter.has_value());
}

// A $group key or accumulator over a renamed member reads the old name where present.
TEST(RenamedFrom, GroupsReadTheOldNameFirst) {
  const auto pipeline =
      odm::pipeline<Counter>().group<Total>(odm::agg::sum<&Total::visits>(odm::field(&Counter::visits)));
  const odm::Document stages = pipeline.bson();
  bson_iter_t it;
  bson_iter_t group;
  ASSERT_TRUE(bson_iter_init(&it, stages.get()) && bson_iter_find_descendant(&it, "0.$group", &group));
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&group, &length, &data);
  EXPECT_EQ(canonical(odm::Document::from_bytes({data, length})),
            canonical(R"({"_id": null, "visits": {"$sum": {"$ifNull": [{"$ifNull": ["$hits", "$visits"]},
                                                                      {"$numberLong": "0"}]}}})"));
}

// A $set / $addFields assignment from a renamed member reads it as $group does.
TEST(RenamedFrom, AssignmentsReadTheOldNameFirst) {
  const auto pipeline =
      odm::pipeline<Counter>().set<Copied>(odm::agg::assign<&Copied::copy>(odm::field(&Counter::visits)));
  const odm::Document stages = pipeline.bson();
  bson_iter_t it;
  bson_iter_t set;
  ASSERT_TRUE(bson_iter_init(&it, stages.get()) && bson_iter_find_descendant(&it, "0.$set", &set));
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&set, &length, &data);
  EXPECT_EQ(canonical(odm::Document::from_bytes({data, length})),
            canonical(R"({"copy": {"$ifNull": ["$hits", "$visits"]}})"));
  // A member that is not renamed is still a plain reference.
  const auto plain = odm::pipeline<Counter>().add_fields<Copied>(odm::agg::assign<&Copied::copy>(odm::field(&Counter::id)));
  bson_iter_t added;
  const odm::Document plain_stages = plain.bson();
  ASSERT_TRUE(bson_iter_init(&it, plain_stages.get()) && bson_iter_find_descendant(&it, "0.$addFields.copy", &added));
  EXPECT_EQ(std::string(bson_iter_utf8(&added, nullptr)), "$_id");
}

// A pipeline's $match on a renamed member reads either name, exactly as find's filter does.
TEST(RenamedFrom, APipelineMatchReadsEitherNameAsFindDoes) {
  const odm::Filter<Counter> filter = odm::field(&Counter::visits) > std::int64_t{3};
  const odm::Document stages = odm::pipeline<Counter>().match(filter).bson();
  bson_iter_t it;
  bson_iter_t match;
  ASSERT_TRUE(bson_iter_init(&it, stages.get()) && bson_iter_find_descendant(&it, "0.$match", &match));
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&match, &length, &data);
  const std::string sent = canonical(odm::Document::from_bytes({data, length}));
  EXPECT_EQ(sent, canonical(filter.bson()));
  EXPECT_NE(sent.find("hits"), std::string::npos) << sent;
}

TEST(RenamedFrom, TypedUpdatesWriteBothNames) {
  const odm::Update<Counter> update =
      odm::field(&Counter::visits).inc(std::int64_t{2}) + odm::field(&Counter::label).set(std::string("x"));
  EXPECT_EQ(canonical(odm::detail::update_to_send(update)),
            canonical(R"({"$inc": {"visits": {"$numberLong": "2"}, "hits": {"$numberLong": "2"}},
                          "$set": {"label": "x"}})"));
  // An update that already names the old path is not given it twice.
  EXPECT_EQ(canonical(odm::Update<Counter>::raw(doc_from_json(R"({"$set": {"visits": 1, "hits": 1}})")).bson()),
            canonical(R"({"$set": {"visits": 1, "hits": 1}})"));
}

TEST(RenamedFrom, TheValidatorAcceptsWhatEitherVersionWrites) {
  const odm::Document schema = odm::json_schema<Counter>();
  // v2's own documents (both names), v1's (only the old one), a document of neither.
  EXPECT_EQ(odm_test::schema_violations(schema.get(), odm::to_bson(Counter{1, 7, "a"}).get()).size(), 0u);
  EXPECT_EQ(odm_test::schema_violations(schema.get(),
                                        doc_from_json(R"({"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "3"},
                                                          "label": "a"})").get())
                .size(),
            0u);
  EXPECT_NE(odm_test::schema_violations(schema.get(), doc_from_json(R"({"_id": {"$numberLong": "1"}, "hits": "many",
                                                                         "label": "a"})").get())
                .size(),
            0u)
      << "the old name keeps the member's type";
}

// A member of an embedded struct: both dotted names in one parent; a parent that is an
// array is refused (a step renames nothing inside array elements), and names in two
// parents are refused when the step is made (a compile error in a model's schema:
// compile-fail pair rename_field_two_parents).
TEST(RenameField, ANestedRenameMovesTheOldValueInsideItsParent) {
  const auto step = odm::rename_field("home.road", "home.street");
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "home": {"street": "stale", "road": "fresh", "n": 1}, "x": 2})"))),
            canonical(R"({"_id": 1, "home": {"street": "fresh", "n": 1}, "x": 2})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "home": {"road": "r"}})"))), canonical(R"({"_id": 1, "home": {"street": "r"}})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "road": "top"})"))), canonical(R"({"_id": 1, "road": "top"})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "home": 3})"))), canonical(R"({"_id": 1, "home": 3})"));
  EXPECT_THROW((void)step(doc_from_json(R"({"_id": 1, "home": [{"road": "r"}]})")), odm::ValueError);
  const std::string other = "street";
  EXPECT_THROW((void)odm::rename_field("home.road", other), odm::UsageError);
  EXPECT_THROW((void)odm::rename_field("home..road", "home.street"), odm::UsageError);
  EXPECT_THROW((void)odm::rename_field("hits", "hits"), odm::UsageError);
}

TEST(RenameField, TheContractStepMovesTheOldValueAndDropsTheOldName) {
  const auto step = odm::rename_field("hits", "visits");
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "hits": 4, "x": 1})"))), canonical(R"({"_id": 1, "visits": 4, "x": 1})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "visits": 2, "hits": 4})"))), canonical(R"({"_id": 1, "visits": 4})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "visits": 2})"))), canonical(R"({"_id": 1, "visits": 2})"));
  EXPECT_EQ(decode<Contracted>(R"({"_id": 1, "visits": {"$numberLong": "2"}, "hits": {"$numberLong": "4"}})").visits, 4);
}

}  // namespace
