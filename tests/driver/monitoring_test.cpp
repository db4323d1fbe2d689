// Command monitoring: every command is seen once when it starts and once when it ends,
// so tests can count round trips exactly.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace odm_test {
namespace {

class Monitoring : public DriverTest {};

TEST_F(Monitoring, CountsEachCommandExactly) {
  auto coll = db().collection<Counter>();
  std::vector<Counter> all;
  for (int i = 0; i < 5; ++i) all.push_back(Counter{i, i, "g"});
  coll.insert_many(all);
  EXPECT_EQ(log_.started("insert"), 1);
  EXPECT_EQ(log_.succeeded("insert"), 1);

  log_.clear();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(coll.find_by_id(i));
  EXPECT_EQ(log_.started("find"), 3);
  EXPECT_EQ(log_.succeeded("find"), 3);
  EXPECT_EQ(log_.started("getMore"), 0);

  log_.clear();
  coll.count();
  coll.delete_one(odm::Filter<Counter>::raw(json(R"({"_id": 4})")));
  EXPECT_EQ(log_.started("aggregate"), 1);  // count_documents is an aggregate
  EXPECT_EQ(log_.started("delete"), 1);
  EXPECT_EQ(log_.started("find"), 0);
}

TEST_F(Monitoring, EventsCarryNamesIdsDurationAndOptionallyTheCommand) {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::vector<std::int64_t> started_ids;
  std::vector<std::int64_t> finished_ids;
  bool documents_seen = false;
  odm::ClientOptions options;
  options
      .on_command_started([&](const odm::CommandEvent& event) {
        std::lock_guard lock(mutex);
        lines.push_back(std::string(event.command_name) + " on " + std::string(event.database_name) + " at " +
                        std::string(event.host));
        started_ids.push_back(event.request_id);
        documents_seen = documents_seen || event.document != nullptr;
      })
      .on_command_succeeded([&](const odm::CommandEvent& event) {
        std::lock_guard lock(mutex);
        EXPECT_GE(event.duration.count(), 0);
        finished_ids.push_back(event.request_id);
      });
  odm::Client logging(uri_, options);
  auto coll = logging.database(db_name_).collection<Counter>();
  coll.insert_one(Counter{1, 1, "a"});
  coll.find().to_vector();

  std::lock_guard lock(mutex);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("insert on " + db_name_ + " at ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("find on " + db_name_ + " at ", 0), 0u) << lines[1];
  EXPECT_EQ(started_ids, finished_ids);
  EXPECT_FALSE(documents_seen) << "documents are copied only when asked";
}

TEST_F(Monitoring, FailedCommandsAreReported) {
  std::atomic<int> failures{0};
  odm::Client failing(uri_, odm::ClientOptions{}.on_command_failed([&](const odm::CommandEvent& event) {
    EXPECT_FALSE(event.error_message.empty());
    ++failures;
  }));
  EXPECT_THROW(failing.database(db_name_).run_command(json(R"({"noSuchCommandForOdm": 1})")), odm::ServerError);
  EXPECT_EQ(failures.load(), 1);
}

TEST_F(Monitoring, AnExceptionInACallbackDoesNotEscape) {
  odm::Client throwing(uri_, odm::ClientOptions{}.on_command_started([](const odm::CommandEvent&) {
    throw std::runtime_error("callback failure");
  }));
  auto coll = throwing.database(db_name_).collection<Counter>();
  EXPECT_NO_THROW(coll.insert_one(Counter{1, 1, "a"}));
  EXPECT_EQ(coll.count(), 1);
}

}  // namespace
}  // namespace odm_test
