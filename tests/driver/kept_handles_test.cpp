// Each pooled client keeps the collection handles its operations use (odm/driver/state.hpp,
// ClientState::kept_collection), made with the client's own settings. What a user relies
// on: an operation's, a collection's or a database's read and write concern never stays
// behind on a kept handle for the next operation; every collection keeps its own
// namespace, however many a client uses; many threads share the pool's clients; and a URI
// with minPoolSize (with which libmongoc destroys idle clients) works with nothing kept.

#include "support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kept_handles_test {
namespace {

struct Tally {
  std::int32_t id = 0;
  std::int32_t count = 0;
};

/// The command documents a client sent, by command name.
class Commands {
 public:
  odm::ClientOptions options() {
    return odm::ClientOptions{}.capture_command_documents().on_command_started([this](const odm::CommandEvent& event) {
      const std::lock_guard lock(mutex_);
      if (event.document != nullptr) sent_.push_back(*event.document);
    });
  }
  /// Whether the last command named `name` has a top-level `field` (nullopt: none sent).
  std::optional<bool> last_has(const std::string& name, const char* field) {
    const std::lock_guard lock(mutex_);
    for (auto it = sent_.rbegin(); it != sent_.rend(); ++it) {
      bson_iter_t i;
      if (bson_iter_init(&i, it->get()) && bson_iter_next(&i) && name == bson_iter_key(&i))
        return bson_has_field(it->get(), field);
    }
    return std::nullopt;
  }

 private:
  std::mutex mutex_;
  std::vector<odm::Document> sent_;
};

class KeptHandles : public odm_test::DriverTest {};

TEST_F(KeptHandles, AnOperationsSettingsDoNotStayForTheNextOperation) {
  Commands commands;
  odm::Client client(uri_, commands.options());
  auto plain = client.database(db_name_).collection<Tally>("tallies");

  plain.insert_one(Tally{1, 0});
  EXPECT_EQ(commands.last_has("insert", "writeConcern"), false);
  plain.insert_one(Tally{2, 0}, odm::InsertOneOptions<Tally>{}.write_concern(odm::WriteConcern::majority()));
  EXPECT_EQ(commands.last_has("insert", "writeConcern"), true);
  plain.insert_one(Tally{3, 0});
  EXPECT_EQ(commands.last_has("insert", "writeConcern"), false) << "the write concern of the insert before stayed";

  plain.find({}, odm::FindOptions<Tally>{}.read_concern(odm::ReadConcern::majority())).to_vector();
  EXPECT_EQ(commands.last_has("find", "readConcern"), true);
  EXPECT_EQ(plain.find().to_vector().size(), 3u);
  EXPECT_EQ(commands.last_has("find", "readConcern"), false) << "the read concern of the find before stayed";

  // A collection, and a database, with settings of their own, between plain operations.
  auto own = client.database(db_name_).collection<Tally>("tallies");
  own.write_concern(odm::WriteConcern::majority());
  own.update_one(odm::field(&Tally::id) == 1, odm::field(&Tally::count).inc(1));
  EXPECT_EQ(commands.last_has("update", "writeConcern"), true);
  plain.update_one(odm::field(&Tally::id) == 1, odm::field(&Tally::count).inc(1));
  EXPECT_EQ(commands.last_has("update", "writeConcern"), false) << "the collection's write concern stayed";

  odm::Database db = client.database(db_name_);
  db.read_concern(odm::ReadConcern::majority());
  EXPECT_EQ(db.collection<Tally>("tallies").count(), 3);
  EXPECT_EQ(commands.last_has("aggregate", "readConcern"), true);
  EXPECT_EQ(plain.count(), 3);
  EXPECT_EQ(commands.last_has("aggregate", "readConcern"), false) << "the database's read concern stayed";
  EXPECT_EQ(plain.get_by_id(1).count, 2);
}

TEST_F(KeptHandles, EachCollectionKeepsItsOwnNamespaceOnOneClient) {
  // One pooled client, so that every operation runs on the same client and its handles;
  // more collections than it keeps (64), and one name in two databases.
  odm::Client client(uri_, odm::ClientOptions{}.max_pool_size(1));
  const std::string other_name = db_name_.substr(0, 40) + "_b";
  odm::Database other = client.database(other_name);
  other.drop();
  constexpr std::int32_t collections = 70;
  for (int round = 0; round < 2; ++round) {
    for (std::int32_t i = 0; i < collections; ++i) {
      auto coll = client.database(db_name_).collection<Tally>("c" + std::to_string(i));
      if (round == 0) coll.insert_one(Tally{i, i});
      else coll.update_one(odm::field(&Tally::id) == i, odm::field(&Tally::count).inc(1));
    }
  }
  other.collection<Tally>("c0").insert_one(Tally{1000, 0});
  for (std::int32_t i = 0; i < collections; ++i) {
    auto coll = client.database(db_name_).collection<Tally>("c" + std::to_string(i));
    const std::vector<Tally> found = coll.find().to_vector();
    ASSERT_EQ(found.size(), 1u) << "collection c" << i;
    EXPECT_EQ(found[0].id, i);
    EXPECT_EQ(found[0].count, i + 1);
  }
  const std::vector<Tally> in_other = other.collection<Tally>("c0").find().to_vector();
  ASSERT_EQ(in_other.size(), 1u);
  EXPECT_EQ(in_other[0].id, 1000);
  other.drop();
}

/// `threads` threads, each inserting and updating its own documents in two collections.
void run_threads(odm::Client& client, const std::string& db_name, int threads, int per_thread) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int n = 0; n < per_thread; ++n) {
        const std::int32_t id = t * per_thread + n;
        auto coll = client.database(db_name).collection<Tally>(n % 2 == 0 ? "even" : "odd");
        coll.insert_one(Tally{id, 0});
        coll.update_one(odm::field(&Tally::id) == id, odm::field(&Tally::count).inc(1));
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
}

void expect_all_written(odm::Client& client, const std::string& db_name, int threads, int per_thread) {
  odm::Database db = client.database(db_name);
  const std::vector<Tally> even = db.collection<Tally>("even").find().to_vector();
  const std::vector<Tally> odd = db.collection<Tally>("odd").find().to_vector();
  EXPECT_EQ(even.size() + odd.size(), static_cast<std::size_t>(threads * per_thread));
  for (const auto* side : {&even, &odd})
    for (const Tally& tally : *side) {
      EXPECT_EQ(tally.count, 1) << "id " << tally.id;
      EXPECT_EQ((tally.id % per_thread) % 2 == 0, side == &even) << "id " << tally.id << " in the wrong collection";
    }
}

TEST_F(KeptHandles, ThreadsShareThePoolsClientsAndTheirHandles) {
  odm::Client client(uri_, odm::ClientOptions{}.max_pool_size(3));
  run_threads(client, db_name_, 6, 40);
  expect_all_written(client, db_name_, 6, 40);
}

TEST_F(KeptHandles, AUriWithMinPoolSizeKeepsNothingAndWorks) {
  // libmongoc destroys an idle client beyond minPoolSize when it is pushed back: a handle
  // kept for it would outlive it (AddressSanitizer would see the use after free).
  const std::string separator = uri_.find('?') == std::string::npos ? "/?" : "&";
  odm::Client client(uri_ + separator + "minPoolSize=1&maxPoolSize=4");
  run_threads(client, db_name_, 4, 40);
  expect_all_written(client, db_name_, 4, 40);
}

}  // namespace
}  // namespace kept_handles_test
