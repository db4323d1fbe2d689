// odm::renamed_from (the expand phase of a rename, odm/evolution/rename.hpp): which name a
// document is read from, what is written, how typed filters and updates address both
// names; odm::rename_field, the contract step.

#include "test_support.hpp"
#include "evolution/schema_check.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>
#include <odm/evolution/schema.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/query.hpp>

#include <cstdint>
#include <string>

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
            canonical(R"({"label": "a", "$and": [{"$or": [{"hits": {"$gt": {"$numberLong": "3"}}},
                           {"hits": {"$exists": false}, "visits": {"$gt": {"$numberLong": "3"}}}]}]})"));
  // Inside $or, and next to the filter's own $and.
  const odm::Filter<Counter> either = odm::field(&Counter::visits) == std::int64_t{1} || odm::field(&Counter::label) == "b";
  EXPECT_EQ(canonical(either.bson()),
            canonical(R"({"$or": [{"$and": [{"$or": [{"hits": {"$numberLong": "1"}},
                                                     {"hits": {"$exists": false}, "visits": {"$numberLong": "1"}}]}]},
                                  {"label": "b"}]})"));
  const odm::Filter<Counter> twice = odm::field(&Counter::visits) > std::int64_t{1} && odm::field(&Counter::visits) < std::int64_t{5};
  EXPECT_EQ(canonical(twice.bson()),
            canonical(R"({"$and": [{"$and": [{"$or": [{"hits": {"$gt": {"$numberLong": "1"}}},
                                                     {"hits": {"$exists": false}, "visits": {"$gt": {"$numberLong": "1"}}}]}]},
                                   {"$and": [{"$or": [{"hits": {"$lt": {"$numberLong": "5"}}},
                                                     {"hits": {"$exists": false}, "visits": {"$lt": {"$numberLong": "5"}}}]}]}]})"));
  // A raw filter is sent as written.
  EXPECT_EQ(canonical(odm::Filter<Counter>::raw(doc_from_json(R"({"visits": 1})")).bson()), canonical(R"({"visits": 1})"));
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

TEST(RenameField, TheContractStepMovesTheOldValueAndDropsTheOldName) {
  const auto step = odm::rename_field("hits", "visits");
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "hits": 4, "x": 1})"))), canonical(R"({"_id": 1, "visits": 4, "x": 1})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "visits": 2, "hits": 4})"))), canonical(R"({"_id": 1, "visits": 4})"));
  EXPECT_EQ(canonical(step(doc_from_json(R"({"_id": 1, "visits": 2})"))), canonical(R"({"_id": 1, "visits": 2})"));
  EXPECT_EQ(decode<Contracted>(R"({"_id": 1, "visits": {"$numberLong": "2"}, "hits": {"$numberLong": "4"}})").visits, 4);
}

}  // namespace
