// Adversarial probes of issue 11 against a server, written from the README's "Models that
// change": a replace without Extra (the $set/$setOnInsert form) of a model with only an id,
// of an object whose id is not the matched document's, with upsert; tracked saves compared
// with a full encode (optional going null, nested Extra); versions stored by another
// program with another BSON type, and a version at the top of its range.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace adversary_11_itest {
namespace {

using odm_test::json;

std::string canonical(const odm::Document& document) { return document.to_canonical_json(); }
std::string canonical(std::string_view text) { return odm::Document::from_json(text).to_canonical_json(); }

struct OnlyId {
  std::int64_t id = 0;
};

struct Order {
  std::int64_t id = 0;
  std::string customer;
  std::optional<std::string> note;
};

struct Line {
  std::string sku;
  std::int32_t qty = 0;
  odm::Extra extra;
};

struct Keeping {
  std::int64_t id = 0;
  std::vector<Line> lines;
  std::optional<std::int32_t> rating;
  odm::Extra extra;
};

struct Account {
  std::int64_t id = 0;
  std::int64_t balance = 0;
  std::int64_t version = 0;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::version(&Account::version), odm::defaulted(&Account::version));
  };
};

class Adversary11 : public odm_test::DriverTest {
 protected:
  void insert_raw(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
  template <class T>
  odm::Document stored(const std::string& collection, std::int64_t id) {
    auto found = db().collection<T>(collection).template find_one<odm::Document>(
        odm::Filter<T>::raw(odm::detail::id_filter(id)));
    EXPECT_TRUE(found.has_value());
    return found ? *found : odm::Document();
  }
};

TEST_F(Adversary11, ReplacingAModelWithOnlyAnIdMatchesAndKeepsTheOtherFields) {
  insert_raw("only", R"([{"_id": {"$numberLong": "1"}, "other": "kept"}])");
  auto coll = db().collection<OnlyId>("only");
  const auto result = coll.replace_one(odm::Filter<OnlyId>::raw(odm::detail::id_filter(std::int64_t{1})), OnlyId{1});
  EXPECT_EQ(result.matched, 1);
  EXPECT_EQ(canonical(stored<OnlyId>("only", 1)),
            canonical(R"({"_id": {"$numberLong": "1"}, "other": "kept"})"));
}

// MongoDB refuses a replacement whose _id differs from the matched document's ("the
// (immutable) field '_id' was found to have been altered"): a replace of document 1 by an
// object with id 2 must not report success while storing no document 2.
TEST_F(Adversary11, AReplacementWithAnotherIdThanTheMatchedDocumentIsRefused) {
  insert_raw("orders", R"([{"_id": {"$numberLong": "1"}, "customer": "ana"}])");
  auto coll = db().collection<Order>("orders");
  std::string error = "<no error>";
  try {
    coll.replace_one(odm::Filter<Order>::raw(odm::detail::id_filter(std::int64_t{1})), Order{2, "bo", std::nullopt});
  } catch (const odm::Error& e) {
    error = e.what();
  }
  EXPECT_NE(error, "<no error>") << "MongoDB refuses a replacement that alters _id";
  EXPECT_EQ(canonical(stored<Order>("orders", 1)), canonical(R"({"_id": {"$numberLong": "1"}, "customer": "ana"})"));
  EXPECT_FALSE(db().collection<Order>("orders").find_by_id(2).has_value());
}

// MongoDB before 5.0 refuses an update with an empty operator ("'$set' is empty. You must
// specify a field like so: ..."): no replace may send one, whatever the model writes.
TEST_F(Adversary11, AReplaceNeverSendsAnEmptyOperator) {
  insert_raw("only", R"([{"_id": {"$numberLong": "1"}, "other": "kept"}])");
  const auto check_last_update = [&](const char* what) {
    const auto command = log_.last("update");
    ASSERT_TRUE(command.has_value()) << what;
    bson_iter_t u;
    ASSERT_TRUE(bson_iter_init_find(&u, command->get(), "updates")) << what;
    bson_iter_t statement;
    ASSERT_TRUE(bson_iter_recurse(&u, &statement) && bson_iter_next(&statement)) << what;
    bson_iter_t field;
    ASSERT_TRUE(bson_iter_recurse(&statement, &field) && bson_iter_find(&field, "u")) << what;
    bson_iter_t op;
    ASSERT_TRUE(bson_iter_recurse(&field, &op)) << what;
    int operators = 0;
    while (bson_iter_next(&op)) {
      ++operators;
      ASSERT_EQ(bson_iter_type(&op), BSON_TYPE_DOCUMENT) << what;
      bson_iter_t inside;
      ASSERT_TRUE(bson_iter_recurse(&op, &inside)) << what;
      EXPECT_TRUE(bson_iter_next(&inside)) << what << ": " << bson_iter_key(&op) << " is empty in "
                                           << command->to_json();
    }
    EXPECT_GT(operators, 0) << what;
  };
  auto only = db().collection<OnlyId>("only");
  log_.clear();
  EXPECT_EQ(only.replace_one(odm::Filter<OnlyId>::raw(odm::detail::id_filter(std::int64_t{1})), OnlyId{1}).matched, 1);
  check_last_update("a model with only an id");
  auto orders = db().collection<Order>("only");
  log_.clear();
  orders.replace_one(odm::Filter<Order>::raw(odm::detail::id_filter(std::int64_t{1})), Order{1, "c", std::nullopt});
  check_last_update("a model with an unset optional");
  log_.clear();
  orders.bulk_write().replace_one(odm::Filter<Order>::raw(odm::detail::id_filter(std::int64_t{1})), Order{1, "d", std::nullopt}).execute();
  check_last_update("a bulk replace");
  EXPECT_EQ(canonical(stored<Order>("only", 1)),
            canonical(R"({"_id": {"$numberLong": "1"}, "other": "kept", "customer": "d", "note": null})"));
}

TEST_F(Adversary11, AnUpsertThatInsertsStoresTheWholeObjectUnderItsId) {
  auto coll = db().collection<Order>("orders");
  const auto result = coll.replace_one(odm::Filter<Order>::raw(json(R"({"customer": "nobody"})")),
                                       Order{5, "new", std::string("n")}, odm::ReplaceOptions<Order>().upsert());
  EXPECT_EQ(result.matched, 0);
  EXPECT_EQ(canonical(stored<Order>("orders", 5)),
            canonical(R"({"_id": {"$numberLong": "5"}, "customer": "new", "note": "n"})"));
}

// After each save the stored document is the object's full encode (the documents hold no
// fields the model does not know, so they must be equal field for field).
TEST_F(Adversary11, TrackedSavesLeaveTheStoredDocumentEqualToAFullEncode) {
  insert_raw("keeping", R"([{"_id": {"$numberLong": "1"},
                             "lines": [{"sku": "a", "qty": 1, "gift": true}, {"sku": "b", "qty": 2, "x": {"y.z": 1}}],
                             "rating": 4, "other": {"deep": [1, 2]}}])");
  auto coll = db().collection<Keeping>("keeping");
  odm::Tracked<Keeping> doc = odm::track(coll.get_by_id(1));
  const auto check = [&](const char* step) {
    doc.save(coll);
    EXPECT_EQ(canonical(stored<Keeping>("keeping", 1)), canonical(odm::to_bson(*doc))) << step;
    EXPECT_FALSE(doc.changed()) << step;
  };
  doc->rating.reset();
  check("optional going null");
  doc->lines[1].qty = 3;
  check("deepest path inside an array element");
  doc->lines.push_back(Line{"c", 1, {}});
  check("array grown");
  doc->lines.erase(doc->lines.begin());
  check("array shrunk");
  std::swap(doc->lines[0], doc->lines[1]);
  check("array reordered");
  doc->lines[0].extra.clear();
  check("a nested Extra cleared");
  doc->extra.clear();
  check("the top-level Extra cleared");
  doc->rating = 5;
  doc->lines.clear();
  check("array emptied, optional set again");
}

TEST_F(Adversary11, AVersionStoredAsInt32ByAnotherProgramIsCheckedAndIncremented) {
  insert_raw("accounts", R"([{"_id": {"$numberLong": "1"}, "balance": {"$numberLong": "10"}, "version": 3}])");
  auto coll = db().collection<Account>("accounts");
  odm::Tracked<Account> a = odm::track(coll.get_by_id(1));
  odm::Tracked<Account> b = odm::track(coll.get_by_id(1));
  EXPECT_EQ(a->version, 3);
  a->balance = 11;
  EXPECT_TRUE(a.save(coll));
  b->balance = 12;
  EXPECT_THROW(b.save(coll), odm::VersionConflict);
  const Account now = coll.get_by_id(1);
  EXPECT_EQ(now.balance, 11);
  EXPECT_EQ(now.version, 4);
}

TEST_F(Adversary11, AVersionOfAnotherBsonTypeIsRefusedWhenLoading) {
  insert_raw("accounts", R"([{"_id": {"$numberLong": "1"}, "balance": {"$numberLong": "10"}, "version": "3"}])");
  auto coll = db().collection<Account>("accounts");
  EXPECT_THROW((void)coll.get_by_id(1), odm::DecodeError);
}

// A version at INT64_MAX cannot be incremented: MongoDB's $inc fails on overflow. The save
// must fail with an odm::Error, leave the stored document alone and the object's version
// unchanged (never wrap around in C++).
TEST_F(Adversary11, AVersionAtItsMaximumFailsTheSaveAndChangesNothing) {
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  db().collection<Account>("accounts").insert_one(Account{1, 10, top});
  auto coll = db().collection<Account>("accounts");
  odm::Tracked<Account> a = odm::track(coll.get_by_id(1));
  a->balance = 11;
  std::string error = "<no error>";
  try {
    a.save(coll);
  } catch (const odm::VersionConflict& e) {
    error = e.what();
    EXPECT_EQ(e.stored_version(), top);
  }
  const Account now = coll.get_by_id(1);
  EXPECT_NE(error.find("no save can increment it"), std::string::npos)
      << error << "; stored version " << now.version << ", object version " << a->version;
  EXPECT_EQ(now.version, top);
  EXPECT_EQ(now.balance, 10);
  EXPECT_EQ(a->version, top);
}

}  // namespace
}  // namespace adversary_11_itest
