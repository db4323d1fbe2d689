// A rename through a rolling deploy (issue 11 item 7; README "Renaming a field while both
// versions run"): v1 and v2 of one model used at once, from several threads, on one
// collection; then the contract migration. Checked against a reference model of what
// every writer wrote (seed printed; ODM_ROLLING_SEED replays one).

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/rename.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace rolling_itest {

/// What is deployed: the counter is stored as "hits".
struct ItemV1 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t hits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "items";
  };
};

/// The expand release: a defaulted field more, `hits` renamed `visits` (both written
/// while v1 runs), and the fields it does not know kept.
struct ItemV2 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::string tier = "basic";
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "items";
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&ItemV2::visits>("hits"), odm::defaulted(&ItemV2::tier));
  };
};

/// The contract release, once no v1 is left: the old name is a schema step's to remove.
struct ItemV3 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::string tier = "basic";
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "items";
    static constexpr auto fields = odm::fields(odm::defaulted(&ItemV3::tier));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
  };
};

}  // namespace rolling_itest

namespace {

using namespace rolling_itest;
using odm_test::json;

/// What a document must hold: what its last writers wrote.
struct Expected {
  std::string name;
  std::int64_t counter = 0;
  std::string tier = "basic";
  std::map<std::string, std::int32_t> notes;  // fields another program wrote
};

class RollingDeploy : public odm_test::DriverTest {
 protected:
  odm::Collection<ItemV1> v1() { return db().collection<ItemV1>(); }
  odm::Collection<ItemV2> v2() { return db().collection<ItemV2>(); }

  void note(std::int64_t id, const std::string& field, std::int32_t value) {
    db().run_command(json(R"({"update": "items", "updates": [{"q": {"_id": {"$numberLong": ")" + std::to_string(id) +
                          R"("}}, "u": {"$set": {")" + field + R"(": )" + std::to_string(value) + "}}}]}"));
  }

  /// Every document read under v1 and v2 (and its notes in the raw document) is `want`.
  void check_both(std::int64_t id, const Expected& want, const std::string& where) {
    SCOPED_TRACE(where + ", _id " + std::to_string(id));
    const ItemV1 old = v1().get_by_id(id);
    EXPECT_EQ(old.name, want.name);
    EXPECT_EQ(old.hits, want.counter);
    const ItemV2 now = v2().get_by_id(id);
    EXPECT_EQ(now.name, want.name);
    EXPECT_EQ(now.visits, want.counter);
    EXPECT_EQ(now.tier, want.tier);
    for (const auto& [field, value] : want.notes) EXPECT_TRUE(now.rest.contains(field)) << field;
    // A typed filter on the renamed member finds it whichever version wrote last.
    EXPECT_EQ(v2().count(odm::field(&ItemV2::id) == id && odm::field(&ItemV2::visits) == want.counter), 1);
  }
};

// The classic loss, forced: v1 loads a document, v2 writes it (a field v1 does not know,
// the renamed counter, a kept unknown field), then v1 replaces what it loaded. Nothing v1
// does not know is lost, and the counter is v1's, read by both versions.
TEST_F(RollingDeploy, V1ReplacingWhatV2JustWroteLosesNothing) {
  ItemV2 fresh;
  fresh.id = 1;
  fresh.name = "lamp";
  fresh.visits = 3;
  fresh.tier = "gold";
  v2().insert_one(fresh);
  note(1, "audit", 7);

  ItemV1 loaded = v1().get_by_id(1);
  EXPECT_EQ(loaded.hits, 3) << "v2 wrote the old name too";

  auto items = v2();
  odm::Tracked<ItemV2> later = odm::track(items.get_by_id(1));
  later->tier = "platinum";
  later.save(items);
  v2().update_one(odm::field(&ItemV2::id) == std::int64_t{1}, odm::field(&ItemV2::visits).inc(std::int64_t{10}));
  EXPECT_EQ(v2().get_by_id(1).visits, 13);

  loaded.name = "desk lamp";
  loaded.hits = 5;
  v1().replace_one(odm::field(&ItemV1::id) == std::int64_t{1}, loaded);
  check_both(1, Expected{"desk lamp", 5, "platinum", {{"audit", 7}}}, "after v1's replace");

  // And the other way: v2 replaces a document v1 just incremented.
  ItemV2 mine = v2().get_by_id(1);
  v1().update_one(odm::field(&ItemV1::id) == std::int64_t{1}, odm::field(&ItemV1::hits).inc(std::int64_t{2}));
  EXPECT_EQ(v2().get_by_id(1).visits, 7) << "v2 reads the old name v1 incremented";
  mine.tier = "silver";
  mine.visits = 9;
  v2().replace_one(odm::field(&ItemV2::id) == std::int64_t{1}, mine);
  check_both(1, Expected{"desk lamp", 9, "silver", {{"audit", 7}}}, "after v2's replace");
}

// Several threads, each using both versions, on documents of their own (every kind of
// write, checked after each) and on shared ones (increments from everyone through both
// names, the name from one owner, fields of another program); then the contract.
TEST_F(RollingDeploy, BothVersionsAtOnceThenTheContractLoseNothing) {
  std::uint64_t seed = 20261124;
  if (const char* given = std::getenv("ODM_ROLLING_SEED")) seed = std::strtoull(given, nullptr, 10);
  SCOPED_TRACE("ODM_ROLLING_SEED=" + std::to_string(seed));
  constexpr int threads = 4;
  constexpr int operations = 120;
  constexpr std::int64_t shared = 3;

  std::map<std::int64_t, Expected> reference;
  std::mutex reference_lock;
  for (std::int64_t id = 1; id <= shared; ++id) {
    ItemV1 item{id, "shared" + std::to_string(id), 0};
    v1().insert_one(item);
    reference[id] = Expected{item.name, 0, "basic", {}};
  }
  std::atomic<std::int64_t> increments[shared] = {};
  std::atomic<int> failures{0};

  auto worker = [&](int t) {
    std::mt19937_64 random(seed + static_cast<std::uint64_t>(t));
    auto pick = [&](int n) { return static_cast<int>(random() % static_cast<std::uint64_t>(n)); };
    odm::Client own(uri_);
    auto c1 = own.database(db_name_).collection<ItemV1>();
    auto c2 = own.database(db_name_).collection<ItemV2>();
    std::map<std::int64_t, Expected> mine;
    std::int64_t next_id = 1000 * (t + 1);
    std::string shared_name;  // the name this thread last gave its shared document
    for (int op = 0; op < operations; ++op) {
      const std::string tag = "t" + std::to_string(t) + "op" + std::to_string(op);
      const int kind = mine.empty() ? 0 : pick(9);
      auto it = mine.begin();
      if (!mine.empty()) std::advance(it, pick(static_cast<int>(mine.size())));
      const std::int64_t id = mine.empty() ? 0 : it->first;
      switch (kind) {
        case 0: {  // insert, by either version
          const std::int64_t fresh = next_id++;
          Expected want{tag, pick(50), "basic", {}};
          if (pick(2) == 0) {
            c1.insert_one(ItemV1{fresh, want.name, want.counter});
          } else {
            want.tier = pick(2) == 0 ? "basic" : "gold";
            ItemV2 item;
            item.id = fresh;
            item.name = want.name;
            item.visits = want.counter;
            item.tier = want.tier;
            c2.insert_one(item);
          }
          mine[fresh] = want;
          break;
        }
        case 1: {  // tracked save under v1
          odm::Tracked<ItemV1> item = odm::track(c1.get_by_id(id));
          item->name = tag;
          item->hits += 1;
          item.save(c1);
          it->second.name = tag;
          it->second.counter += 1;
          break;
        }
        case 2: {  // tracked save under v2
          odm::Tracked<ItemV2> item = odm::track(c2.get_by_id(id));
          item->tier = tag;
          item->visits += 2;
          item.save(c2);
          it->second.tier = tag;
          it->second.counter += 2;
          break;
        }
        case 3: {  // typed updates under each version
          if (pick(2) == 0) {
            c1.update_one(odm::field(&ItemV1::id) == id,
                          odm::field(&ItemV1::hits).inc(std::int64_t{3}) + odm::field(&ItemV1::name).set(tag));
            it->second.name = tag;
          } else {
            c2.update_one(odm::field(&ItemV2::id) == id && odm::field(&ItemV2::visits) == it->second.counter,
                          odm::field(&ItemV2::visits).inc(std::int64_t{3}) + odm::field(&ItemV2::tier).set(tag));
            it->second.tier = tag;
          }
          it->second.counter += 3;
          break;
        }
        case 4: {  // replace under v1
          ItemV1 item = c1.get_by_id(id);
          item.name = tag;
          item.hits = pick(1000);
          c1.replace_one(odm::field(&ItemV1::id) == id, item);
          it->second.name = tag;
          it->second.counter = item.hits;
          break;
        }
        case 5: {  // replace under v2
          ItemV2 item = c2.get_by_id(id);
          item.tier = tag;
          item.visits = pick(1000);
          c2.replace_one(odm::field(&ItemV2::id) == id, item);
          it->second.tier = tag;
          it->second.counter = item.visits;
          break;
        }
        case 6: {  // another program's field
          const std::string field = "note_" + tag;
          db().run_command(json(R"({"update": "items", "updates": [{"q": {"_id": {"$numberLong": ")" +
                                std::to_string(id) + R"("}}, "u": {"$set": {")" + field + R"(": 1}}}]})"));
          it->second.notes[field] = 1;
          break;
        }
        case 7: {  // the shared documents: everyone increments, through either name
          const std::int64_t target = 1 + pick(static_cast<int>(shared));
          if (pick(2) == 0)
            c1.update_one(odm::field(&ItemV1::id) == target, odm::field(&ItemV1::hits).inc(std::int64_t{1}));
          else
            c2.update_one(odm::field(&ItemV2::id) == target, odm::field(&ItemV2::visits).inc(std::int64_t{1}));
          ++increments[target - 1];
          break;
        }
        default: {  // read back under both versions
          const ItemV1 old = c1.get_by_id(id);
          const ItemV2 now = c2.get_by_id(id);
          if (old.name != it->second.name || old.hits != it->second.counter || now.name != it->second.name ||
              now.visits != it->second.counter || now.tier != it->second.tier) {
            ++failures;
            ADD_FAILURE() << "_id " << id << " at " << tag << ": v1 {" << old.name << ", " << old.hits << "}, v2 {"
                          << now.name << ", " << now.visits << ", " << now.tier << "}, expected {"
                          << it->second.name << ", " << it->second.counter << ", " << it->second.tier << "}";
          }
          // The shared document this thread names (its tracked save sends the name only).
          if (t < shared) {
            odm::Tracked<ItemV2> item = odm::track(c2.get_by_id(t + 1));
            shared_name = tag;
            item->name = tag;
            item.save(c2);
          }
        }
      }
    }
    const std::lock_guard lock(reference_lock);
    if (!shared_name.empty()) reference[t + 1].name = shared_name;
    for (auto& [id, want] : mine) reference[id] = std::move(want);
  };
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      try {
        worker(t);
      } catch (const std::exception& error) {
        ++failures;
        ADD_FAILURE() << "thread " << t << ": " << error.what();
      }
    });
  for (std::thread& thread : running) thread.join();
  ASSERT_EQ(failures.load(), 0);
  for (std::int64_t id = 1; id <= shared; ++id) reference[id].counter = increments[id - 1].load();

  for (const auto& [id, want] : reference) check_both(id, want, "while both versions run");

  // The contract: no v1 left; the migration moves "hits" into "visits" and removes it.
  const odm::MigrationReport report = odm::Migration<ItemV3>(db()).batch_size(16).run();
  EXPECT_EQ(report.migrated, static_cast<std::int64_t>(reference.size()));
  auto v3 = db().collection<ItemV3>();
  for (const auto& [id, want] : reference) {
    SCOPED_TRACE("after the contract, _id " + std::to_string(id));
    const ItemV3 item = v3.get_by_id(id);
    EXPECT_EQ(item.name, want.name);
    EXPECT_EQ(item.visits, want.counter);
    EXPECT_EQ(item.tier, want.tier);
    for (const auto& [field, value] : want.notes) EXPECT_TRUE(item.rest.contains(field)) << field;
    const std::optional<odm::Document> stored =
        v3.find_one<odm::Document>(odm::Filter<ItemV3>::raw(json(R"({"_id": {"$numberLong": ")" + std::to_string(id) +
                                                                 "\"}}")));
    ASSERT_TRUE(stored);
    bson_iter_t it;
    EXPECT_FALSE(bson_iter_init_find(&it, stored->get(), "hits")) << stored->to_json();
  }
  EXPECT_EQ(v3.count(odm::field(&ItemV3::visits) >= std::int64_t{0}), static_cast<std::int64_t>(reference.size()));
}

}  // namespace
