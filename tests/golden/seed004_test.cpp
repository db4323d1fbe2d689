// Golden tests of seed 004 (Chinese guide, one-to-few / one-to-many / one-to-squillions).
// The seed abbreviates ObjectIds to two bytes ("for readability": ObjectID('AAAA')); the
// tests use real 12-byte ids that end in the seed's digits.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace golden_seed004_test {

using odm_test::golden;
using odm_test::instant;
using odm_test::oid;

const odm::ObjectId kAAAA = oid("00000000000000000000aaaa");
const odm::ObjectId kF17C = oid("00000000000000000000f17c");
const odm::ObjectId kD2AA = oid("00000000000000000000d2aa");
const odm::ObjectId kAAAB = oid("00000000000000000000aaab");

TEST(Seed004, PersonWithEmbeddedAddresses) {
  const seed::Person person{"岳云鹏",
                            "123-456-7890",
                            {seed::PersonAddress{"史各庄东路108号", "北京", "China"},
                             seed::PersonAddress{"王府井大街250号", "北京", "China"}}};
  EXPECT_TRUE(golden(person, R"json({
    "name": "岳云鹏",
    "ssn": "123-456-7890",
    "addresses": [
      {"street": "史各庄东路108号", "city": "北京", "cc": "China"},
      {"street": "王府井大街250号", "city": "北京", "cc": "China"}
    ]
  })json",
                     R"json({
	"name": "岳云鹏",
	"ssn": "123-456-7890",
	"addresses" : [
     { "street": "史各庄东路108号", "city": "北京", "cc": "China" },
     { "street": "王府井大街250号", "city": "北京", "cc": "China" }
  ]
})json"));
}

TEST(Seed004, PartDocument) {
  // (the seed's listing stops before the closing brace)
  const seed::Part grommet{kAAAA, "123-aff-456", "#4 grommet", 94, 0.94, 3.99};
  EXPECT_TRUE(golden(grommet, R"json({
    "_id": {"$oid": "00000000000000000000aaaa"},
    "partno": "123-aff-456",
    "name": "#4 grommet",
    "qty": {"$numberInt": "94"},
    "cost": {"$numberDouble": "0.94"},
    "price": {"$numberDouble": "3.99"}
  })json",
                     R"json({
    "_id" : {"$oid": "00000000000000000000aaaa"},
    "partno" : "123-aff-456",
    "name" : "#4 grommet",
    "qty": 94,
    "cost": 0.94,
    "price": 3.99
  })json"));
}

TEST(Seed004, ProductWithPartIds) {
  // (the seed elides further ids, "// etc", and its listing stops before the closing brace)
  const seed::ProductWithParts product{"left-handed smoke shifter", "Acme Corp", 1234, {kAAAA, kF17C, kD2AA}};
  EXPECT_TRUE(golden(product, R"json({
    "name": "left-handed smoke shifter",
    "manufacturer": "Acme Corp",
    "catalog_number": {"$numberInt": "1234"},
    "parts": [
      {"$oid": "00000000000000000000aaaa"},
      {"$oid": "00000000000000000000f17c"},
      {"$oid": "00000000000000000000d2aa"}
    ]
  })json",
                     R"json({
    "name" : "left-handed smoke shifter",
    "manufacturer" : "Acme Corp",
    "catalog_number": 1234,
    "parts" : [
        {"$oid": "00000000000000000000AAAA"},
        {"$oid": "00000000000000000000F17C"},
        {"$oid": "00000000000000000000D2AA"}
    ]
  })json"));
}

TEST(Seed004, HostDocument) {
  const seed::Host goofy{kAAAB, "goofy.example.com", "127.66.66.66"};
  EXPECT_TRUE(golden(goofy,
                     R"json({"_id": {"$oid": "00000000000000000000aaab"}, "name": "goofy.example.com",
                             "ipaddr": "127.66.66.66"})json",
                     R"json({
    "_id" : {"$oid": "00000000000000000000aaab"},
    "name" : "goofy.example.com",
    "ipaddr" : "127.66.66.66"
  })json"));
}

TEST(Seed004, LogMessageWithHostReference) {
  // The seed's `ISODate(""2014-03-28T09:42:41.284Z".382Z")` is garbled; the instant it
  // evidently means is 2014-03-28T09:42:41.284Z.
  const seed::LogMessage message{instant(2014, 3, 28, 9, 42, 41, 284), "cpu is on fire!", kAAAB};
  EXPECT_TRUE(golden(message, R"json({
    "time": {"$date": {"$numberLong": "1395999761284"}},
    "message": "cpu is on fire!",
    "host": {"$oid": "00000000000000000000aaab"}
  })json",
                     R"json({
    "time" : {"$date": "2014-03-28T09:42:41.284Z"},
    "message" : "cpu is on fire!",
    "host": {"$oid": "00000000000000000000aaab"}
  })json"));
}

}  // namespace golden_seed004_test
