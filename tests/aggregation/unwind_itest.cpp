// $unwind's options against the server, from MongoDB's manual for $unwind:
// includeArrayIndex holds the element's index (a long), and preserveNullAndEmptyArrays
// passes on a document whose array is null, missing or empty once, without the field
// (its index null). The golden BSON is in pipeline_test.cpp.

#include "aggregation/aggregation_models.hpp"
#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace unwind_test {

struct Tagged {
  std::int32_t id = 0;
  std::vector<std::int32_t> tags;
  struct odm_model {
    static constexpr std::string_view collection = "tagged";
  };
};
struct OneTag {
  std::int32_t id = 0;
  std::int32_t tags = 0;
  std::int64_t at = -1;
};
struct MaybeTag {
  std::int32_t id = 0;
  std::optional<std::int32_t> tags;
  std::optional<std::int64_t> at;
};

}  // namespace unwind_test

namespace {

using namespace unwind_test;
using odm::field;

class Unwind : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    if (HasFatalFailure()) return;
    db().run_command(odm_test::json(R"({"insert": "tagged", "documents": [{"_id": 1, "tags": []}, {"_id": 2},
        {"_id": 3, "tags": null}, {"_id": 4, "tags": [5, 6]}]})"));
  }
  odm::Collection<Tagged> tagged() { return db().collection<Tagged>(); }
};

TEST_F(Unwind, IncludeArrayIndex) {
  const auto found = tagged()
                         .aggregate(odm::pipeline<Tagged>()
                                        .unwind<&OneTag::tags, &OneTag::at>()
                                        .sort(odm::sort(odm::asc(&OneTag::at))))
                         .to_vector();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, 4);
  EXPECT_EQ(found[0].tags, 5);
  EXPECT_EQ(found[0].at, 0);
  EXPECT_EQ(found[1].tags, 6);
  EXPECT_EQ(found[1].at, 1);
}

TEST_F(Unwind, PreservingKeepsDocumentsWithoutAnElement) {
  const auto found = tagged()
                         .aggregate(odm::pipeline<Tagged>()
                                        .unwind_preserving<&MaybeTag::tags, &MaybeTag::at>()
                                        .sort(odm::sort(odm::asc(&MaybeTag::id), odm::asc(&MaybeTag::at))))
                         .to_vector();
  ASSERT_EQ(found.size(), 5u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(found[i].id, i + 1);
    EXPECT_FALSE(found[i].tags.has_value()) << found[i].id;
    EXPECT_FALSE(found[i].at.has_value()) << found[i].id;
  }
  EXPECT_EQ(found[3].id, 4);
  EXPECT_EQ(found[3].tags, 5);
  EXPECT_EQ(found[3].at, 0);
  EXPECT_EQ(found[4].tags, 6);
  EXPECT_EQ(found[4].at, 1);
}

// A $lookup then a preserving $unwind: an order whose reference finds nothing stays, with
// no customer (a left outer join).
struct OrderRef {
  std::int32_t id = 0;
  odm::Ref<agg_test::Customer> customer;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};
struct OrderWithCustomers {
  std::int32_t id = 0;
  odm::Joined<agg_test::Customer> buyer;
};
struct OrderMaybeCustomer {
  std::int32_t id = 0;
  std::optional<odm::JoinedOne<agg_test::Customer>> buyer;
};
TEST_F(Unwind, LookupThenPreservingUnwindIsALeftJoin) {
  db().collection<agg_test::Customer>().insert_one({"ada", "Ada"});
  db().run_command(odm_test::json(
      R"({"insert": "orders", "documents": [{"_id": 1, "customer": "ada"}, {"_id": 2, "customer": "nobody"}]})"));
  const auto found = db().collection<OrderRef>()
                         .aggregate(odm::pipeline<OrderRef>()
                                        .lookup<&OrderRef::customer, &OrderWithCustomers::buyer>()
                                        .unwind_preserving<&OrderMaybeCustomer::buyer>()
                                        .sort(odm::sort(odm::asc(&OrderMaybeCustomer::id))))
                         .to_vector();
  ASSERT_EQ(found.size(), 2u);
  ASSERT_TRUE(found[0].buyer.has_value());
  EXPECT_EQ(found[0].buyer->id, "ada");
  EXPECT_EQ(found[0].buyer->name, "Ada");
  EXPECT_FALSE(found[1].buyer.has_value());
}

}  // namespace
