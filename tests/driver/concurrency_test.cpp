// One Client shared by 8 threads running mixed reads and writes at once, on a pool
// smaller than the number of threads (so they also wait for each other's connections)
// with command monitoring on. Each phase starts on a barrier, so every thread runs the
// same kind of operation at the same moment; the end state is checked against what each
// thread did. The first test hands each thread a copy of one Collection handle, the second
// has them all use one Database and one Collection object themselves (the README:
// handles may be shared between threads). scripts/test.sh runs this binary under
// ThreadSanitizer too.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace odm_test {
namespace {

constexpr int threads = 8;
constexpr int rounds = 12;
constexpr std::int32_t shared_id = -1;  // the counter every thread increments

class Concurrency : public DriverTest {};

/// Runs body(t, failures) on `threads` threads at once and waits for all of them. A thread
/// that throws an odm::Error is a failure, and it leaves `phase` so that the others go on.
template <class Body>
int run_threads(std::barrier<>& phase, Body body) {
  std::atomic<int> failures{0};
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      try {
        body(t, failures);
      } catch (const odm::Error& error) {
        ADD_FAILURE() << "thread " << t << ": " << error.what();
        ++failures;
        phase.arrive_and_drop();
      }
    });
  }
  for (auto& thread : running) thread.join();
  return failures.load();
}

TEST_F(Concurrency, EightThreadsShareOneClient) {
  CommandLog commands;
  // A pool of 3 for 8 threads: operations queue for connections (within the generous wait).
  odm::Client shared(uri_, commands.attach(odm::ClientOptions{}.max_pool_size(3).pool_wait_timeout(
                               std::chrono::seconds(60))));
  auto coll = shared.database(db_name_).collection<Counter>();
  coll.insert_one(Counter{shared_id, 0, "shared"});

  std::barrier phase(threads);
  const int failed = run_threads(phase, [&](int t, std::atomic<int>& failures) {
    auto mine = coll;  // copies of one handle, as a service would hand them out
    const std::string group = "t" + std::to_string(t);
    const auto in_group = odm::field(&Counter::group) == group;
    for (int r = 0; r < rounds; ++r) {
      const std::int32_t base = t * 10'000 + r * 10;
      phase.arrive_and_wait();  // inserts
      mine.insert_one(Counter{base, 0, group});
      mine.insert_many(std::vector<Counter>{{base + 1, 0, group}, {base + 2, 0, group}});
      phase.arrive_and_wait();  // updates, one document shared by all
      mine.update_one(odm::field(&Counter::id) == shared_id, odm::field(&Counter::value).inc(1));
      mine.find_one_and_update(odm::field(&Counter::id) == base, odm::field(&Counter::value).inc(2));
      phase.arrive_and_wait();  // reads, across batches
      int seen = 0;
      for (const Counter& counter : mine.find(in_group, odm::FindOptions<Counter>{}.batch_size(2))) {
        if (counter.group != group) ++failures;
        ++seen;
      }
      if (seen != 2 * r + 3) ++failures;  // two kept per earlier round, three now
      phase.arrive_and_wait();  // bulk writes and deletes
      auto bulk = mine.bulk_write();
      bulk.update_one(odm::field(&Counter::id) == base + 1, odm::field(&Counter::value).set(r))
          .delete_one(odm::field(&Counter::id) == base + 2);
      const auto result = bulk.execute();
      if (result.modified + result.deleted != (r == 0 ? 1 : 2)) ++failures;  // set(0) changes nothing
      if (mine.count(in_group) != 2 * (r + 1)) ++failures;
    }
  });

  EXPECT_EQ(failed, 0);
  EXPECT_EQ(coll.get_by_id(shared_id).value, threads * rounds);
  EXPECT_EQ(coll.count(), 1 + threads * rounds * 2);
  for (int t = 0; t < threads; ++t) {
    for (int r = 0; r < rounds; ++r) {
      const std::int32_t base = t * 10'000 + r * 10;
      EXPECT_EQ(coll.get_by_id(base).value, 2);
      EXPECT_EQ(coll.get_by_id(base + 1).value, r);
    }
  }
  EXPECT_EQ(commands.started("update"), threads * rounds * 2);  // update_one and the bulk's
  EXPECT_EQ(commands.started("findAndModify"), threads * rounds);
}

TEST_F(Concurrency, EightThreadsShareOneDatabaseAndOneCollectionObject) {
  odm::Client shared(uri_, odm::ClientOptions{}.max_pool_size(3).pool_wait_timeout(std::chrono::seconds(60)));
  const odm::Database db = shared.database(db_name_).write_concern(odm::WriteConcern::nodes(1));
  auto coll = db.collection<Counter>();  // every thread uses this object, not a copy
  coll.insert_one(Counter{shared_id, 0, "shared"});

  std::barrier phase(threads);
  const int failed = run_threads(phase, [&](int t, std::atomic<int>& failures) {
    const std::string group = "t" + std::to_string(t);
    const auto in_group = odm::field(&Counter::group) == group;
    for (int r = 0; r < rounds; ++r) {
      const std::int32_t base = t * 10'000 + r * 10;
      phase.arrive_and_wait();  // writes through the shared handle, and one made from the shared database
      coll.insert_one(Counter{base, 0, group});
      db.collection<Counter>().insert_one(Counter{base + 1, 0, group});
      coll.update_one(odm::field(&Counter::id) == shared_id, odm::field(&Counter::value).inc(1));
      phase.arrive_and_wait();  // reads, copies and settings read while others read too
      const auto copy = coll;
      if (copy.name() != coll.name() || !coll.write_concern().has_value()) ++failures;
      if (coll.count(in_group) != 2 * (r + 1)) ++failures;
      int seen = 0;
      for (const Counter& counter : copy.find(in_group, odm::FindOptions<Counter>{}.batch_size(1))) {
        if (counter.group != group) ++failures;
        ++seen;
      }
      if (seen != 2 * (r + 1)) ++failures;
      (void)db.run_command(odm::Document::from_json(R"({"ping": 1})"));
      phase.arrive_and_wait();  // bulk writes and deletes
      auto bulk = coll.bulk_write();
      bulk.update_one(odm::field(&Counter::id) == base, odm::field(&Counter::value).set(r + 1))
          .insert_one(Counter{base + 2, 0, group})
          .delete_one(odm::field(&Counter::id) == base + 2);
      const auto result = bulk.execute();
      if (result.inserted != 1 || result.modified != 1 || result.deleted != 1) ++failures;
    }
  });

  EXPECT_EQ(failed, 0);
  EXPECT_EQ(coll.get_by_id(shared_id).value, threads * rounds);
  EXPECT_EQ(coll.count(), 1 + threads * rounds * 2);
  for (int t = 0; t < threads; ++t)
    for (int r = 0; r < rounds; ++r) EXPECT_EQ(coll.get_by_id(t * 10'000 + r * 10).value, r + 1);
}

}  // namespace
}  // namespace odm_test
