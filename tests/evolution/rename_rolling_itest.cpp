// Renamed members through a whole rolling deploy, randomized against a reference model
// (README "Renaming a field while both versions run"): v1 (old names only) and v2 (the
// expand release, both names) write, update, tracked-save, replace and query one
// collection from several threads; then (second test) v1 is gone and the contract release
// v3 (new names only, a rename_field step) runs beside v2; then the contract Migration. After every
// operation the document reads the same under every version that can read it, and typed
// filters and a $group find what the reference model says. Seed printed on failure;
// ODM_RENAME_SEED replays one.

#include "driver/support.hpp"

#include <odm/aggregation/pipeline.hpp>
#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
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
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rename_rolling_itest {

struct Line {
  std::string sku;
  std::int32_t qty = 0;
  bool operator==(const Line&) const = default;
};

struct OrderV1 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t hits = 0;
  std::vector<Line> items;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

struct OrderV2 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::vector<Line> lines;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&OrderV2::visits>("hits"), odm::renamed_from<&OrderV2::lines>("items"));
  };
};

/// The contract release: both old names are a schema step's to move.
struct OrderV3 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::vector<Line> lines;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto schema = odm::schema_versions<2>(
        odm::upgrade<1>(odm::chain(odm::rename_field("hits", "visits"), odm::rename_field("items", "lines"))));
  };
};

/// A $group's output: the sum of the counters.
struct Sum {
  std::int64_t visits = 0;
};

}  // namespace rename_rolling_itest

namespace {

using namespace rename_rolling_itest;
using odm::field;

/// What a document must read as.
struct Want {
  std::string name;
  std::int64_t counter = 0;
  std::vector<Line> lines;
};

std::string describe(const std::string& name, std::int64_t counter, const std::vector<Line>& lines) {
  std::string out = "{" + name + ", " + std::to_string(counter) + ", [";
  for (const Line& l : lines) out += l.sku + ":" + std::to_string(l.qty) + " ";
  return out + "]}";
}

/// One mismatch with the reference model, kept (threads report them after joining).
struct Problem {
  std::mutex& lock;
  std::vector<std::string>& out;
  std::atomic<int>& count;
  std::ostringstream text{};
  Problem(std::mutex& l, std::vector<std::string>& o, std::atomic<int>& c) : lock(l), out(o), count(c) {}
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
  ~Problem() {
    ++count;
    const std::lock_guard guard(lock);
    out.push_back(text.str());
  }
  template <class V>
  Problem& operator<<(const V& value) {
    text << value;
    return *this;
  }
};

class RenameRolling : public odm_test::DriverTest {
 protected:
  void deploy(bool contract_beside_expand);
};

// v1 and v2 from several threads, then the contract Migration.
TEST_F(RenameRolling, V1AndV2ThenTheContractMigrationAgreeWithTheReferenceModel) { deploy(false); }

// The same, then the contract release v3 beside v2 before the Migration.
TEST_F(RenameRolling, TheContractReleaseBesideTheExpandReleaseAgreesWithTheReferenceModel) { deploy(true); }

void RenameRolling::deploy(bool contract_beside_expand) {
  std::uint64_t seed = 20261125;
  if (const char* given = std::getenv("ODM_RENAME_SEED")) seed = std::strtoull(given, nullptr, 10);
  SCOPED_TRACE("ODM_RENAME_SEED=" + std::to_string(seed));
  constexpr int threads = 3;
  constexpr int operations = 60;

  std::map<std::int64_t, Want> reference;
  std::mutex reference_lock;
  std::atomic<int> failures{0};
  std::vector<std::string> problems;
  std::mutex problems_lock;

  // phase 1: v1 and v2; phase 2: v2 and v3 (v2 changes renamed members only whole, as
  // the README says it must beside the contract release).
  const auto run_phase = [&](int phase) {
    const auto worker = [&](int t) {
      std::mt19937_64 random(seed * 31 + static_cast<std::uint64_t>(phase * 100 + t));
      const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<std::uint64_t>(n)); };
      odm::Client own(uri_);
      auto c1 = own.database(db_name_).collection<OrderV1>();
      auto c2 = own.database(db_name_).collection<OrderV2>();
      auto c3 = own.database(db_name_).collection<OrderV3>();
      std::map<std::int64_t, Want> mine;
      {
        const std::lock_guard lock(reference_lock);
        for (const auto& [id, want] : reference)
          if (id / 1000 == t + 1) mine[id] = want;
      }
      std::int64_t next_id = 1000 * (t + 1) + 100 * phase + 1;
      for (int op = 0; op < operations; ++op) {
        const std::string tag = "p" + std::to_string(phase) + "t" + std::to_string(t) + "o" + std::to_string(op);
        const bool old_side = pick(2) == 0;  // phase 1: v1; phase 2: v3
        const int kind = mine.empty() ? 0 : pick(7);
        auto it = mine.begin();
        if (!mine.empty()) std::advance(it, pick(static_cast<int>(mine.size())));
        std::int64_t id = mine.empty() ? 0 : it->first;
        Want* want = mine.empty() ? nullptr : &it->second;
        const Line line{tag, pick(9)};
        std::string what;
        switch (kind) {
          case 0: {  // insert
            const std::int64_t fresh = next_id++;
            Want made{tag, pick(50), {line}};
            if (phase == 1 && old_side) {
              what = "v1 insert";
              c1.insert_one(OrderV1{fresh, made.name, made.counter, made.lines});
            } else if (phase == 2 && old_side) {
              what = "v3 insert";
              c3.insert_one(OrderV3{fresh, made.name, made.counter, made.lines});
            } else {
              what = "v2 insert";
              c2.insert_one(OrderV2{fresh, made.name, made.counter, made.lines});
            }
            it = mine.emplace(fresh, made).first;
            id = fresh;
            want = &it->second;
            break;
          }
          case 1: {  // increment the counter and append a line, typed
            if (phase == 1 && old_side) {
              what = "v1 $inc + $push";
              c1.update_one(field(&OrderV1::id) == id,
                            field(&OrderV1::hits).inc(std::int64_t{3}) + field(&OrderV1::items).push(line));
            } else if (phase == 2 && old_side) {
              what = "v3 $inc + $push";
              c3.update_one(field(&OrderV3::id) == id,
                            field(&OrderV3::visits).inc(std::int64_t{3}) + field(&OrderV3::lines).push(line));
            } else if (phase == 1) {
              what = "v2 $inc + $push";
              c2.update_one(field(&OrderV2::id) == id && field(&OrderV2::visits) == want->counter,
                            field(&OrderV2::visits).inc(std::int64_t{3}) + field(&OrderV2::lines).push(line));
            } else {  // beside v3: whole values only
              what = "v2 $set whole";
              std::vector<Line> lines = want->lines;
              lines.push_back(line);
              c2.update_one(field(&OrderV2::id) == id && field(&OrderV2::visits) == want->counter,
                            field(&OrderV2::visits).set(want->counter + 3) + field(&OrderV2::lines).set(lines));
            }
            want->counter += 3;
            want->lines.push_back(line);
            break;
          }
          case 2: {  // tracked save: an element changed, the counter changed
            if (phase == 1 && old_side) {
              what = "v1 tracked save";
              odm::Tracked<OrderV1> order = odm::track(c1.get_by_id(id));
              order->items.at(0).qty += 1;
              order->hits += 1;
              order.save(c1);
            } else if (phase == 2 && old_side) {
              what = "v3 tracked save";
              odm::Tracked<OrderV3> order = odm::track(c3.get_by_id(id));
              order->lines.at(0).qty += 1;
              order->visits += 1;
              order.save(c3);
            } else {
              what = "v2 tracked save";
              odm::Tracked<OrderV2> order = odm::track(c2.get_by_id(id));
              order->lines.at(0).qty += 1;
              order->visits += 1;
              order.save(c2);
            }
            want->lines.at(0).qty += 1;
            want->counter += 1;
            break;
          }
          case 3: {  // replace
            const std::int64_t counter = pick(1000);
            if (phase == 1 && old_side) {
              what = "v1 replace";
              OrderV1 order = c1.get_by_id(id);
              order.name = tag;
              order.hits = counter;
              c1.replace_one(field(&OrderV1::id) == id, order);
            } else if (phase == 2 && old_side) {
              what = "v3 replace";
              OrderV3 order = c3.get_by_id(id);
              order.name = tag;
              order.visits = counter;
              c3.replace_one(field(&OrderV3::id) == id, order);
            } else {
              what = "v2 replace";
              OrderV2 order = c2.get_by_id(id);
              order.name = tag;
              order.visits = counter;
              c2.replace_one(field(&OrderV2::id) == id, order);
            }
            want->name = tag;
            want->counter = counter;
            break;
          }
          case 4: {  // a typed $set of a member that is not renamed, by a filter on a renamed one
            what = "v2 $set by a renamed filter";
            const auto result = c2.update_one(field(&OrderV2::id) == id && field(&OrderV2::visits) == want->counter &&
                                                  field(&OrderV2::lines).size(want->lines.size()),
                                              field(&OrderV2::name).set(tag));
            if (result.matched != 1) {
              Problem{problems_lock, problems, failures} << "_id " << id << " at " << tag << ": the filter on the renamed members matched "
                            << result.matched;
            }
            want->name = tag;
            break;
          }
          default: {  // typed filters over this thread's documents, against the reference
            what = "filters";
            std::vector<std::int64_t> ids;
            for (const auto& [key, value] : mine) ids.push_back(key);
            const std::int64_t bar = pick(60);
            std::int64_t above = 0;
            std::int64_t with_sku = 0;
            for (const auto& [key, value] : mine) {
              above += value.counter > bar ? 1 : 0;
              for (const Line& l : value.lines)
                if (l.sku == want->lines.front().sku) {
                  ++with_sku;
                  break;
                }
            }
            const auto own_ids = field(&OrderV2::id).in(ids);
            const std::int64_t total = static_cast<std::int64_t>(mine.size());
            const std::int64_t got_above = c2.count(own_ids && field(&OrderV2::visits) > bar);
            const std::int64_t got_not_above = c2.count(own_ids && !(field(&OrderV2::visits) > bar));
            const std::int64_t got_sku = c2.count(
                own_ids && field(&OrderV2::lines).elem_match(
                               [&](auto l) { return l / &Line::sku == want->lines.front().sku; }));
            const std::int64_t got_ne = c2.count(own_ids && field(&OrderV2::visits) != want->counter);
            std::int64_t equal = 0;
            for (const auto& [key, value] : mine) equal += value.counter == want->counter ? 1 : 0;
            if (got_above != above || got_not_above != total - above || got_sku != with_sku ||
                got_ne != total - equal) {
              Problem{problems_lock, problems, failures} << "at " << tag << ": visits > " << bar << " found " << got_above << " (want " << above
                            << "), its negation " << got_not_above << " (want " << total - above
                            << "), elemMatch " << got_sku << " (want " << with_sku << "), != " << got_ne
                            << " (want " << total - equal << ")";
            }
          }
        }
        // Every version that can read the document reads what the reference says.
        const std::vector<std::pair<std::string, std::string>> reads = [&] {
          std::vector<std::pair<std::string, std::string>> out;
          const OrderV2 b = c2.get_by_id(id);
          out.emplace_back("v2", describe(b.name, b.visits, b.lines));
          if (phase == 1) {
            const OrderV1 a = c1.get_by_id(id);
            out.emplace_back("v1", describe(a.name, a.hits, a.items));
          } else {
            const OrderV3 c = c3.get_by_id(id);
            out.emplace_back("v3", describe(c.name, c.visits, c.lines));
          }
          return out;
        }();
        const std::string expected = describe(want->name, want->counter, want->lines);
        for (const auto& [version, read] : reads)
          if (read != expected) {
            Problem{problems_lock, problems, failures} << "_id " << id << " after " << what << " (" << tag << "): " << version << " reads " << read
                          << ", want " << expected;
          }
        if (failures.load() > 5) return;
      }
      const std::lock_guard lock(reference_lock);
      for (auto& [key, value] : mine) reference[key] = value;
    };
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t)
      running.emplace_back([&, t] {
        try {
          worker(t);
        } catch (const std::exception& error) {
          Problem{problems_lock, problems, failures} << "phase " << phase << ", thread " << t << ": " << error.what();
        }
      });
    for (std::thread& thread : running) thread.join();
  };

  const auto group_sum = [&](const std::string& where) {
    std::int64_t want = 0;
    for (const auto& [id, value] : reference) want += value.counter;
    const auto pipeline = odm::pipeline<OrderV2>().group<Sum>(odm::agg::sum<&Sum::visits>(field(&OrderV2::visits)));
    const std::vector<Sum> sums = db().collection<OrderV2>().aggregate(pipeline).to_vector();
    ASSERT_EQ(sums.size(), 1u) << where;
    EXPECT_EQ(sums[0].visits, want) << where << ": " << pipeline.bson().to_json();
  };

  run_phase(1);
  for (const std::string& problem : problems) ADD_FAILURE() << problem;
  if (!problems.empty()) return;
  group_sum("after v1 and v2");
  if (contract_beside_expand) {
    run_phase(2);
    for (const std::string& problem : problems) ADD_FAILURE() << problem;
    if (!problems.empty()) return;
    group_sum("after v2 and v3");
  }

  // The contract Migration, once no v2 is left: every document reads the same under v3,
  // and no old name is left.
  odm::Migration<OrderV3>(db()).batch_size(7).run();
  auto v3 = db().collection<OrderV3>();
  for (const auto& [id, want] : reference) {
    SCOPED_TRACE("after the Migration, _id " + std::to_string(id));
    const OrderV3 read = v3.get_by_id(id);
    EXPECT_EQ(describe(read.name, read.visits, read.lines), describe(want.name, want.counter, want.lines));
  }
  EXPECT_EQ(v3.count(odm::Filter<OrderV3>::raw(odm_test::json(R"({"$or": [{"hits": {"$exists": true}},
                                                                         {"items": {"$exists": true}}]})"))),
            0);
}

}  // namespace
