// What a write command carries as `ordered`: libmongoc 1.23 writes it into every insert,
// update and delete command (mongoc-write-command.c), so odm cannot leave it out; the
// options say so, and this checks the value sent is MongoDB's default, true, unless
// ordered(false) asks otherwise (https://www.mongodb.com/docs/manual/reference/command/insert/).

#include "support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fix14_ordered {
namespace {

struct Tally {
  std::int32_t id = 0;
  std::int32_t n = 0;
};

class Fix14Ordered : public odm_test::DriverTest {
 protected:
  /// The `ordered` value of the last `name` command sent, as JSON ("" when absent).
  std::string last_ordered(const std::string& name) {
    const auto command = log_.last(name);
    if (!command) return "<no " + std::string(name) + " command>";
    bson_iter_t it;
    if (!bson_iter_init_find(&it, command->get(), "ordered")) return "";
    return BSON_ITER_HOLDS_BOOL(&it) ? (bson_iter_bool(&it) ? "true" : "false") : "<not a bool>";
  }
};

TEST_F(Fix14Ordered, UnsetOrderedIsSentAsMongoDbsDefaultTrue) {
  auto tallies = db().collection<Tally>("tallies");
  log_.clear();
  tallies.insert_many(std::vector<Tally>{{1, 1}, {2, 2}});
  EXPECT_EQ(last_ordered("insert"), "true");
  tallies.bulk_write().update_one(odm::field(&Tally::id) == 1, odm::field(&Tally::n).inc(1)).execute();
  EXPECT_EQ(last_ordered("update"), "true");
  tallies.insert_many(std::vector<Tally>{{3, 3}}, odm::InsertManyOptions<Tally>{}.ordered(false));
  EXPECT_EQ(last_ordered("insert"), "false");
  tallies.bulk_write(odm::BulkWriteOptions<Tally>{}.ordered(false))
      .delete_one(odm::field(&Tally::id) == 3)
      .execute();
  EXPECT_EQ(last_ordered("delete"), "false");
}

}  // namespace
}  // namespace fix14_ordered
