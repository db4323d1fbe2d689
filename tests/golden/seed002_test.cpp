// Golden tests of seed 002 (Chinese guide: atomic operations, keyword search, local
// time). Its money documents (gas prices, clothes, scale factor, display + approx) are
// in money_seeds_test.cpp.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace golden_seed002_test {

using odm_test::day;
using odm_test::golden;
using odm_test::instant;

TEST(Seed002, BookWithAvailableAndCheckout) {
  const seed::BookWithCheckout book{123456789,
                                    "MongoDB: The Definitive Guide",
                                    std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                                    day(2010, 9, 24),
                                    216,
                                    "English",
                                    "oreilly",
                                    3,
                                    {seed::Checkout{"joe", instant(2012, 10, 15)}}};
  EXPECT_TRUE(golden(book, R"json({
    "_id": {"$numberInt": "123456789"},
    "title": "MongoDB: The Definitive Guide",
    "author": ["Kristina Chodorow", "Mike Dirolf"],
    "published_date": {"$date": {"$numberLong": "1285286400000"}},
    "pages": {"$numberInt": "216"},
    "language": "English",
    "publisher_id": "oreilly",
    "available": {"$numberInt": "3"},
    "checkout": [{"by": "joe", "date": {"$date": {"$numberLong": "1350259200000"}}}]
  })json",
                     R"json({ "_id": 123456789, "title": "MongoDB: The Definitive Guide", "author": [ "Kristina Chodorow", "Mike Dirolf" ], "published_date": {"$date": "2010-09-24T00:00:00Z"}, "pages": 216, "language": "English", "publisher_id": "oreilly", "available": 3, "checkout": [ { "by": "joe", "date": {"$date": "2012-10-15T00:00:00Z"} } ] })json"));
}

TEST(Seed002, LegacyWriteResult) {
  const seed::WriteResult result{1, 0, 1};
  EXPECT_TRUE(golden(result,
                     R"json({"nMatched": {"$numberInt": "1"}, "nUpserted": {"$numberInt": "0"},
                             "nModified": {"$numberInt": "1"}})json",
                     R"json({ "nMatched" : 1, "nUpserted" : 0, "nModified" : 1 })json"));
}

TEST(Seed002, MobyDickVolumeWithTopics) {
  const seed::Volume moby{"Moby-Dick",
                          "Herman Melville",
                          1851,
                          451526996,
                          {"whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod"}};
  EXPECT_TRUE(golden(moby, R"json({
    "title": "Moby-Dick",
    "author": "Herman Melville",
    "published": {"$numberInt": "1851"},
    "ISBN": {"$numberInt": "451526996"},
    "topics": ["whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod"]
  })json",
                     R"json({ "title" : "Moby-Dick" , "author" : "Herman Melville" , "published" : 1851 , "ISBN" : 451526996 , "topics" : [ "whaling" , "allegory" , "revenge" , "American" , "novel" , "nautical" , "voyage" , "Cape Cod" ] })json"));
}

TEST(Seed002, LocalTimeRecord) {
  // `db.data.save({date: now, offset: now.getTimezoneOffset()})` by a writer in UTC+02:00
  // at 11:26:53.589 local time: the date is UTC, the offset is UTC minus local (-120).
  const auto local = std::chrono::local_time<std::chrono::milliseconds>(
      std::chrono::floor<std::chrono::milliseconds>(instant(2021, 3, 14, 11, 26, 53, 589)).time_since_epoch());
  const odm::LocalTime record = odm::LocalTime::from_local(local, std::chrono::minutes(120));
  EXPECT_EQ(record.offset, -120);
  EXPECT_EQ(record.date, std::chrono::floor<std::chrono::milliseconds>(instant(2021, 3, 14, 9, 26, 53, 589)));
  EXPECT_TRUE(golden(record,
                     R"json({"date": {"$date": {"$numberLong": "1615714013589"}}, "offset": {"$numberInt": "-120"}})json",
                     R"json({ "date": {"$date": "2021-03-14T09:26:53.589Z"}, "offset": -120 })json"));
  // `new Date(record.date.getTime() - (record.offset * 60000))`: the writer's wall clock.
  const auto read = odm_test::decode<odm::LocalTime>(R"json({"date": {"$date": "2021-03-14T09:26:53.589Z"},
                                                             "offset": -120})json");
  EXPECT_EQ(read.local(), local);
  EXPECT_EQ(read.utc_offset(), std::chrono::minutes(120));
}

TEST(Seed002, LocalTimeRecordWestOfUtc) {
  // A writer in UTC-05:00 stores a positive offset (300).
  const auto local = std::chrono::local_time<std::chrono::milliseconds>(
      std::chrono::floor<std::chrono::milliseconds>(instant(2021, 3, 14, 4, 26, 53, 589)).time_since_epoch());
  const odm::LocalTime record = odm::LocalTime::from_local(local, std::chrono::minutes(-300));
  EXPECT_TRUE(golden(record,
                     R"json({"date": {"$date": {"$numberLong": "1615714013589"}}, "offset": {"$numberInt": "300"}})json",
                     R"json({ "date": {"$date": "2021-03-14T09:26:53.589Z"}, "offset": 300 })json"));
  EXPECT_EQ(record.local(), local);
}

/// A local time as a member of a document, stored as the same sub-document.
struct Reading {
  std::int32_t id;
  odm::LocalTime taken;
  bool operator==(const Reading&) const = default;
};

TEST(Seed002, LocalTimeAsMember) {
  const Reading reading{1, odm::LocalTime{std::chrono::floor<std::chrono::milliseconds>(instant(2021, 3, 14, 9, 26, 53, 589)), -120}};
  EXPECT_TRUE(golden(reading, R"json({"_id": {"$numberInt": "1"},
                                      "taken": {"date": {"$date": {"$numberLong": "1615714013589"}},
                                                "offset": {"$numberInt": "-120"}}})json"));
}

}  // namespace golden_seed002_test
