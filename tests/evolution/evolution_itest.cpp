// Models that outlive their documents, against a server: a field added with a default
// reads old documents; a replace never erases the fields a model does not know (kept in
// odm::Extra, or left in place); a tracked object saves only what changed, so two writers
// of different fields both keep their change.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <atomic>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace evolution_itest {
namespace {

std::string canonical(const odm::Document& document) { return document.to_canonical_json(); }
std::string canonical(std::string_view json) { return odm::Document::from_json(json).to_canonical_json(); }

/// what() of the odm::Error `fn` throws ("<no error>" if none).
template <class Fn>
std::string error_text(Fn&& fn) {
  try {
    fn();
  } catch (const odm::Error& error) {
    return error.what();
  }
  return "<no error>";
}

/// The first version of an order.
struct OrderV1 {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total = 0;
};

/// The second: two fields more, defaulted so that it reads v1's documents.
struct OrderV2 {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total = 0;
  std::string channel = "web";
  std::vector<std::int32_t> ratings;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};

/// v1 again, keeping what it does not know.
struct OrderKeeping {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total = 0;
  odm::Extra extra;
};

class Evolution : public odm_test::DriverTest {
 protected:
  template <class T>
  odm::Collection<T> orders() {
    return db().collection<T>("orders");
  }
  odm::Document stored(std::int64_t id) {
    auto found = orders<OrderV1>().find_one<odm::Document>(odm::Filter<OrderV1>::raw(odm::detail::id_filter(id)));
    EXPECT_TRUE(found.has_value());
    return found ? *found : odm::Document();
  }
  /// The `u` of the last update command sent.
  odm::Document last_update_document() {
    const std::optional<odm::Document> command = log_.last("update");
    if (!command) return {};
    bson_iter_t it;
    bson_iter_t u;
    if (!bson_iter_init(&it, command->get()) || !bson_iter_find_descendant(&it, "updates.0.u", &u)) return {};
    const std::uint8_t* data = nullptr;
    std::uint32_t length = 0;
    bson_iter_document(&u, &length, &data);
    bson_t view;
    bson_init_static(&view, data, length);
    return odm::Document::copy_of(&view);
  }
};

TEST_F(Evolution, AFieldAddedWithADefaultReadsTheDocumentsWrittenBeforeIt) {
  orders<OrderV1>().insert_one(OrderV1{1, "ana", 990});
  const OrderV2 order = orders<OrderV2>().get_by_id(1);
  EXPECT_EQ(order.customer, "ana");
  EXPECT_EQ(order.channel, "web");
  EXPECT_TRUE(order.ratings.empty());
}

TEST_F(Evolution, AReplaceByAnOlderModelKeepsTheFieldsOnlyTheNewerOneKnows) {
  orders<OrderV2>().insert_one(OrderV2{1, "ana", 990, "shop", {5, 4}});
  OrderV1 old = orders<OrderV1>().get_by_id(1);
  old.total = 1000;
  log_.clear();
  const auto result = orders<OrderV1>().replace_one(odm::Filter<OrderV1>::raw(odm::detail::id_filter(1)), old);
  EXPECT_EQ(result.matched, 1);
  EXPECT_EQ(result.modified, 1);
  EXPECT_EQ(log_.started("update"), 1);
  EXPECT_EQ(canonical(last_update_document()),
            canonical(R"({"$set": {"_id": {"$numberLong": "1"}, "customer": "ana", "total": {"$numberLong": "1000"}}})"));
  const OrderV2 now = orders<OrderV2>().get_by_id(1);
  EXPECT_EQ(now.total, 1000);
  EXPECT_EQ(now.channel, "shop") << "v2's field survived v1's replace";
  EXPECT_EQ(now.ratings, (std::vector<std::int32_t>{5, 4}));
}

TEST_F(Evolution, FindOneAndReplaceAndBulkReplacesKeepUnknownFieldsToo) {
  orders<OrderV2>().insert_one(OrderV2{1, "ana", 1, "shop", {1}});
  orders<OrderV2>().insert_one(OrderV2{2, "bo", 2, "app", {2}});
  auto v1 = orders<OrderV1>();
  const auto before = v1.find_one_and_replace(odm::Filter<OrderV1>::raw(odm::detail::id_filter(1)), OrderV1{1, "ann", 10});
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->customer, "ana");
  v1.bulk_write().replace_one(odm::Filter<OrderV1>::raw(odm::detail::id_filter(2)), OrderV1{2, "bob", 20}).execute();
  const OrderV2 first = orders<OrderV2>().get_by_id(1);
  const OrderV2 second = orders<OrderV2>().get_by_id(2);
  EXPECT_EQ(first.customer, "ann");
  EXPECT_EQ(first.channel, "shop");
  EXPECT_EQ(second.customer, "bob");
  EXPECT_EQ(second.total, 20);
  EXPECT_EQ(second.channel, "app");
  EXPECT_EQ(second.ratings, std::vector<std::int32_t>{2});
}

TEST_F(Evolution, AReplaceWithUpsertInsertsTheWholeObject) {
  const auto result = orders<OrderV1>().replace_one(odm::Filter<OrderV1>::raw(odm::detail::id_filter(9)),
                                                    OrderV1{9, "new", 5}, odm::ReplaceOptions<OrderV1>().upsert());
  EXPECT_EQ(result.matched, 0);
  EXPECT_EQ(result.upserted_id, 9);
  const OrderV1 inserted = orders<OrderV1>().get_by_id(9);
  EXPECT_EQ(inserted.customer, "new");
  EXPECT_EQ(inserted.total, 5);
}

TEST_F(Evolution, AModelWithExtraReplacesTheWholeDocumentUnknownFieldsIncluded) {
  orders<OrderV2>().insert_one(OrderV2{1, "ana", 990, "shop", {5, 4}});
  OrderKeeping keeping = orders<OrderKeeping>().get_by_id(1);
  EXPECT_EQ(keeping.extra.size(), 2u);
  keeping.customer = "bo";
  log_.clear();
  orders<OrderKeeping>().replace_one(odm::Filter<OrderKeeping>::raw(odm::detail::id_filter(1)), keeping);
  // A true replacement (no operator), carrying the unknown fields in their order and types.
  EXPECT_EQ(canonical(last_update_document()),
            canonical(R"({"_id": {"$numberLong": "1"}, "customer": "bo", "total": {"$numberLong": "990"},
                                    "channel": "shop", "ratings": [5, 4]})"));
  EXPECT_EQ(stored(1), odm::to_bson(keeping)) << "same fields, same order, same BSON types";
  const OrderV2 now = orders<OrderV2>().get_by_id(1);
  EXPECT_EQ(now.customer, "bo");
  EXPECT_EQ(now.channel, "shop");
}

TEST_F(Evolution, ATrackedSaveSendsOnlyTheChangedPathsInOneCommand) {
  orders<OrderV2>().insert_one(OrderV2{1, "ana", 990, "shop", {5, 4}});
  auto coll = orders<OrderV2>();
  odm::Tracked<OrderV2> order = odm::track(coll.get_by_id(1));
  log_.clear();
  EXPECT_FALSE(order.save(coll)) << "nothing changed: nothing sent";
  EXPECT_EQ(log_.started("update"), 0);

  order->total = 1000;
  order->ratings.push_back(3);
  EXPECT_TRUE(order.save(coll));
  EXPECT_EQ(log_.started("update"), 1);
  EXPECT_EQ(canonical(last_update_document()),
            canonical(R"({"$set": {"total": {"$numberLong": "1000"}}, "$push": {"ratings": {"$each": [3]}}})"));
  const OrderV2 now = coll.get_by_id(1);
  EXPECT_EQ(now.total, 1000);
  EXPECT_EQ(now.ratings, (std::vector<std::int32_t>{5, 4, 3}));
  log_.clear();
  EXPECT_FALSE(order.save(coll)) << "saved: the object is the stored document again";
  EXPECT_EQ(log_.started("update"), 0);
}

TEST_F(Evolution, AppendingToALongArraySendsTheNewElementOnly) {
  OrderV2 big{1, "ana", 1, "shop", {}};
  big.ratings.assign(5000, 7);
  auto coll = orders<OrderV2>();
  coll.insert_one(big);
  odm::Tracked<OrderV2> order = odm::track(coll.get_by_id(1));
  order->ratings.push_back(8);
  order.save(coll);
  const odm::Document sent = last_update_document();
  EXPECT_EQ(canonical(sent), canonical(R"({"$push": {"ratings": {"$each": [8]}}})"));
  EXPECT_LT(sent.size(), 64u);
  EXPECT_EQ(coll.get_by_id(1).ratings.size(), 5001u);
}

TEST_F(Evolution, TwoWritersOfDifferentFieldsBothKeepTheirChange) {
  auto coll = orders<OrderV2>();
  coll.insert_one(OrderV2{1, "ana", 990, "shop", {5}});
  // Forced interleaving: both load, then A saves, then B saves.
  odm::Tracked<OrderV2> a = odm::track(coll.get_by_id(1));
  odm::Tracked<OrderV2> b = odm::track(coll.get_by_id(1));
  a->customer = "ann";
  b->channel = "app";
  b->ratings.push_back(1);
  a.save(coll);
  b.save(coll);
  const OrderV2 now = coll.get_by_id(1);
  EXPECT_EQ(now.customer, "ann") << "A's change survived B's save";
  EXPECT_EQ(now.channel, "app");
  EXPECT_EQ(now.ratings, (std::vector<std::int32_t>{5, 1}));
}

TEST_F(Evolution, SavingADeletedDocumentThrowsAndWritesNothing) {
  auto coll = orders<OrderV2>();
  coll.insert_one(OrderV2{1, "ana", 990, "shop", {}});
  odm::Tracked<OrderV2> order = odm::track(coll.get_by_id(1));
  coll.delete_one(odm::Filter<OrderV2>::raw(odm::detail::id_filter(1)));
  order->total = 1;
  EXPECT_EQ(error_text([&] { order.save(coll); }),
            "odm::Tracked::save: no document with _id 1 in " + db_name_ +
                ".orders (deleted since it was loaded); nothing was written");
  EXPECT_EQ(coll.count(), 0);
  EXPECT_TRUE(order.changed()) << "still unsaved";
}

TEST_F(Evolution, ChangingTheIdOfATrackedObjectIsRefused) {
  auto coll = orders<OrderV2>();
  coll.insert_one(OrderV2{1, "ana", 990, "shop", {}});
  odm::Tracked<OrderV2> order = odm::track(coll.get_by_id(1));
  order->id = 2;
  log_.clear();
  EXPECT_THROW(order.save(coll), odm::UsageError);
  EXPECT_EQ(log_.started("update"), 0);
}

// ---- optimistic concurrency: a version member ----------------------------------------

struct Account {
  std::int64_t id = 0;
  std::string owner;
  std::int64_t balance = 0;
  std::int64_t version = 0;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::version(&Account::version), odm::defaulted(&Account::version));
  };
};

TEST_F(Evolution, AVersionedSaveChecksAndIncrementsTheVersion) {
  auto accounts = db().collection<Account>("accounts");
  accounts.insert_one(Account{1, "ana", 100, 0});
  odm::Tracked<Account> account = odm::track(accounts.get_by_id(1));
  account->balance = 90;
  log_.clear();
  EXPECT_TRUE(account.save(accounts));
  EXPECT_EQ(account->version, 1);
  EXPECT_EQ(log_.started("update"), 1);
  account->balance = 80;
  account.save(accounts);
  EXPECT_EQ(canonical(last_update_document()),
            canonical(R"({"$set": {"balance": {"$numberLong": "80"}}, "$inc": {"version": {"$numberLong": "1"}}})"));
  const Account stored = accounts.get_by_id(1);
  EXPECT_EQ(stored.balance, 80);
  EXPECT_EQ(stored.version, 2);
  EXPECT_FALSE(account.save(accounts)) << "no change: no save, no new version";
  EXPECT_EQ(accounts.get_by_id(1).version, 2);
}

TEST_F(Evolution, TheLoserOfARaceIsToldAndWritesNothing) {
  auto accounts = db().collection<Account>("accounts");
  accounts.insert_one(Account{1, "ana", 100, 4});
  odm::Tracked<Account> a = odm::track(accounts.get_by_id(1));
  odm::Tracked<Account> b = odm::track(accounts.get_by_id(1));
  a->balance = 50;
  b->owner = "bo";  // a different field: still refused, the versions tell the writers apart
  a.save(accounts);
  try {
    b.save(accounts);
    ADD_FAILURE() << "the second save should have lost";
  } catch (const odm::VersionConflict& conflict) {
    EXPECT_EQ(conflict.loaded_version(), 4);
    EXPECT_EQ(conflict.stored_version(), 5);
    EXPECT_EQ(std::string(conflict.what()),
              "odm::Tracked::save: the document with _id 1 in " + db_name_ +
                  ".accounts is at version 5, but this object was loaded at version 4: another write changed it "
                  "since; nothing was written (reload and retry)");
  }
  const Account stored = accounts.get_by_id(1);
  EXPECT_EQ(stored.owner, "ana");
  EXPECT_EQ(stored.balance, 50);
  EXPECT_EQ(stored.version, 5);
  // Reload and retry: the change lands.
  odm::Tracked<Account> again = odm::track(accounts.get_by_id(1));
  again->owner = "bo";
  EXPECT_TRUE(again.save(accounts));
  EXPECT_EQ(accounts.get_by_id(1).owner, "bo");
}

TEST_F(Evolution, ADocumentWrittenBeforeTheVersionMemberIsAtVersionZero) {
  db().collection<OrderV1>("accounts").insert_one(OrderV1{1, "ana", 0});  // no balance, no version
  auto raw = db().collection<OrderV1>("accounts");
  raw.update_one(odm::Filter<OrderV1>::raw(odm::detail::id_filter(1)),
                 odm::Update<OrderV1>::raw(odm_test::json(R"({"$set": {"owner": "ana", "balance": {"$numberLong": "7"}}})")));
  auto accounts = db().collection<Account>("accounts");
  odm::Tracked<Account> account = odm::track(accounts.get_by_id(1));
  EXPECT_EQ(account->version, 0);
  account->balance = 8;
  EXPECT_TRUE(account.save(accounts));
  EXPECT_EQ(accounts.get_by_id(1).version, 1);
  EXPECT_EQ(accounts.get_by_id(1).balance, 8);
}

TEST_F(Evolution, ManyThreadsSavingOneDocumentLoseNoUpdate) {
  auto accounts = db().collection<Account>("accounts");
  accounts.insert_one(Account{1, "ana", 0, 0});
  constexpr int threads = 6;
  constexpr int deposits = 15;
  std::atomic<int> conflicts{0};
  std::latch start(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      start.arrive_and_wait();
      for (int done = 0; done < deposits;) {
        odm::Tracked<Account> account = odm::track(accounts.get_by_id(1));
        account->balance += 1;
        try {
          account.save(accounts);
          ++done;
        } catch (const odm::VersionConflict&) {
          ++conflicts;  // reload and retry
        }
      }
    });
  }
  for (auto& worker : workers) worker.join();
  const Account stored = accounts.get_by_id(1);
  EXPECT_EQ(stored.balance, threads * deposits) << "no deposit lost (" << conflicts.load() << " conflicts retried)";
  EXPECT_EQ(stored.version, threads * deposits);
}

// ---- randomized: random edits, save, the stored document is the object ----------------

struct Address {
  std::string city;
  std::optional<std::string> zip;
  struct odm_model {
    static constexpr bool strict = true;  // a field a save forgot to unset fails the read
  };
};
struct Line {
  std::string sku;
  std::int32_t qty = 0;
  std::optional<double> discount;
  std::vector<std::string> notes;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
struct Customer {
  std::string name;
  Address address;
  std::optional<Address> billing;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
struct Cart {
  std::int64_t id = 0;
  Customer customer;
  std::vector<Line> lines;
  std::vector<std::int32_t> scores;
  std::map<std::string, std::int32_t> counters;
  std::map<std::string, Address> depots;
  std::optional<std::string> note;
  std::int64_t revision = 0;
  struct odm_model {
    static constexpr bool strict = true;
  };
};

class Editor {
 public:
  explicit Editor(std::uint32_t seed) : random_(seed) {}

  void edit(Cart& cart) {
    switch (pick(14)) {
      case 0: cart.customer.name = word(); break;
      case 1: cart.customer.address.city = word(); break;
      case 2: cart.customer.address.zip = coin() ? std::optional<std::string>(word()) : std::nullopt; break;
      case 3: cart.customer.billing = coin() ? std::optional<Address>(Address{word(), std::nullopt}) : std::nullopt; break;
      case 4: cart.lines.push_back(Line{word(), pick(9), std::nullopt, {}}); break;
      case 5:
        if (!cart.lines.empty()) cart.lines.erase(cart.lines.begin() + pick(static_cast<int>(cart.lines.size())));
        break;
      case 6:
        if (!cart.lines.empty()) {
          Line& line = cart.lines[static_cast<std::size_t>(pick(static_cast<int>(cart.lines.size())))];
          line.qty = pick(100);
          if (coin()) line.discount = coin() ? std::optional<double>(pick(50) / 4.0) : std::nullopt;
          if (coin()) line.notes.push_back(word());
        }
        break;
      case 7: std::shuffle(cart.lines.begin(), cart.lines.end(), random_); break;
      case 8:
        for (int i = pick(3); i >= 0; --i) cart.scores.push_back(pick(1000));
        break;
      case 9:
        if (!cart.scores.empty()) {
          if (coin())
            cart.scores.pop_back();
          else
            cart.scores[static_cast<std::size_t>(pick(static_cast<int>(cart.scores.size())))] = pick(1000);
        }
        break;
      case 10:
        if (coin())
          cart.counters[word()] = pick(10);
        else if (!cart.counters.empty())
          cart.counters.erase(cart.counters.begin());
        break;
      case 11:
        if (coin())
          cart.depots[word()] = Address{word(), coin() ? std::optional<std::string>(word()) : std::nullopt};
        else if (!cart.depots.empty())
          cart.depots.begin()->second.city = word();
        break;
      case 12: cart.note = coin() ? std::optional<std::string>(word()) : std::nullopt; break;
      default: ++cart.revision; break;
    }
  }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

 private:
  bool coin() { return pick(2) == 1; }
  std::string word() {
    static const char* const words[] = {"a", "b", "sofia", "oslo", "x y", "ünï", "k1", "k2", "k3"};
    return words[pick(9)];
  }
  std::mt19937 random_;
};

TEST_F(Evolution, RandomEditsSavedAreTheStoredDocument) {
  const std::uint32_t seed = 20261124;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (RandomEditsSavedAreTheStoredDocument)");
  Editor editor(seed);
  auto coll = db().collection<Cart>("carts");
  Cart initial;
  initial.id = 1;
  initial.customer.name = "ana";
  coll.insert_one(initial);
  odm::Tracked<Cart> cart = odm::track(coll.get_by_id(1));
  int sent = 0;
  for (int round = 0; round < 150; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (int edits = 1 + editor.pick(4); edits > 0; --edits) editor.edit(*cart);
    const std::string update = cart.changes().to_json();
    log_.clear();
    const bool saved = cart.save(coll);
    sent += saved ? 1 : 0;
    ASSERT_EQ(log_.started("update"), saved ? 1 : 0);
    // The reference: the object's full encoding. The stored document, read back (strict
    // models: no leftover field), encodes to exactly that.
    const Cart reloaded = coll.get_by_id(1);
    ASSERT_EQ(odm::to_bson(reloaded).to_json(), odm::to_bson(*cart).to_json()) << "after the update " << update;
  }
  EXPECT_GT(sent, 100) << "the edits changed something in most rounds";
}

}  // namespace
}  // namespace evolution_itest
