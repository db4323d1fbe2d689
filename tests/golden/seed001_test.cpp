// Golden tests of seed 001 (Chinese/English guide: patron and addresses, the subset
// pattern). The product with its price is money-dependent: money_seeds_test.cpp.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace golden_seed001_test {

using odm_test::day;
using odm_test::golden;

TEST(Seed001, PatronDocument) {
  const seed::Client patron{"joe", "Joe Bookreader"};
  EXPECT_TRUE(golden(patron, R"json({"_id": "joe", "name": "Joe Bookreader"})json",
                     R"json({
                        "_id": "joe",
                        "name": "Joe Bookreader"
                     })json"));
}

TEST(Seed001, NormalizedAddressDocuments) {
  const seed::PatronAddress first{"joe", "123 Fake Street", "Faketon", "MA", "12345"};
  const seed::PatronAddress second{"joe", "1 Some Other Street", "Boston", "MA", "12345"};
  EXPECT_TRUE(golden(first,
                     R"json({"patron_id": "joe", "street": "123 Fake Street", "city": "Faketon", "state": "MA",
                             "zip": "12345"})json",
                     R"json({
                        "patron_id": "joe",
                        "street": "123 Fake Street",
                        "city": "Faketon",
                        "state": "MA",
                        "zip": "12345"
                     })json"));
  EXPECT_TRUE(golden(second,
                     R"json({"patron_id": "joe", "street": "1 Some Other Street", "city": "Boston", "state": "MA",
                             "zip": "12345"})json",
                     R"json({
                        "patron_id": "joe",
                        "street": "1 Some Other Street",
                        "city": "Boston",
                        "state": "MA",
                        "zip": "12345"
                     })json"));
}

TEST(Seed001, PatronWithEmbeddedAddresses) {
  const seed::Patron joe{"joe",
                         "Joe Bookreader",
                         {seed::Address{"123 Fake Street", "Faketon", "MA", "12345"},
                          seed::Address{"1 Some Other Street", "Boston", "MA", "12345"}}};
  EXPECT_TRUE(golden(joe, R"json({
    "_id": "joe",
    "name": "Joe Bookreader",
    "addresses": [
      {"street": "123 Fake Street", "city": "Faketon", "state": "MA", "zip": "12345"},
      {"street": "1 Some Other Street", "city": "Boston", "state": "MA", "zip": "12345"}
    ]
  })json",
                     R"json({
   "_id": "joe",
   "name": "Joe Bookreader",
   "addresses": [
                {
                  "street": "123 Fake Street",
                  "city": "Faketon",
                  "state": "MA",
                  "zip": "12345"
                },
                {
                  "street": "1 Some Other Street",
                  "city": "Boston",
                  "state": "MA",
                  "zip": "12345"
                }
              ]
 })json"));
  EXPECT_EQ(joe.addresses.at(1)->city, "Boston");
}

TEST(Seed001, ReviewDocuments) {
  // The review collection: the last review the seed shows (the others equal seed 000's).
  const seed::Review hans{1, 1, "Hans", "Meh, it's okay.", day(2017, 12, 6)};
  EXPECT_TRUE(golden(hans, R"json({
    "review_id": {"$numberInt": "1"},
    "product_id": {"$numberInt": "1"},
    "review_author": "Hans",
    "review_text": "Meh, it's okay.",
    "published_date": {"$date": {"$numberLong": "1512518400000"}}
  })json",
                     R"json({
      "review_id": 1,
      "product_id": 1,
      "review_author": "Hans",
      "review_text": "Meh, it's okay.",
      "published_date": {"$date": "2017-12-06T00:00:00Z"}
    })json"));
}

}  // namespace golden_seed001_test
