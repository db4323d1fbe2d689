// db.collection<odm::Document>("name"): a collection read and written as raw documents, by
// code with no model of it (an admin tool, a reader of another team's collection). Checked
// against what MongoDB's CRUD documentation says each command does, and over random
// operations against a reference model of the collection.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace document_collection_test {

// What another service wrote: the raw view sees every field, also those this model lacks.
struct Account {
  std::int32_t id = 0;
  std::string owner;
  struct odm_model {
    static constexpr std::string_view collection = "accounts";
  };
};

}  // namespace document_collection_test

namespace {

using namespace document_collection_test;
using odm::Document;
using odm_test::DriverTest;

class DocumentCollectionIT : public DriverTest {};

Document json(const std::string& text) { return Document::from_json(text); }

std::vector<std::string> as_json(odm::Cursor<Document> cursor) {
  std::vector<std::string> out;
  for (const Document& document : cursor) out.push_back(document.to_json());
  return out;
}

TEST_F(DocumentCollectionIT, ReadsWhatAnotherProgramStoredAsStored) {
  auto typed = db().collection<Account>();
  typed.insert_one(Account{1, "ann"});
  odm::DocumentCollection accounts = db().collection<odm::Document>("accounts");
  EXPECT_EQ(accounts.name(), "accounts");
  EXPECT_EQ(accounts.database_name(), db_name_);
  accounts.insert_one(json(R"({"_id": 2, "owner": "bob", "flags": ["new"], "balance": {"$numberDecimal": "10.50"}})"));
  accounts.insert_one(json(R"({"_id": 3, "owner": "cy", "balance": {"$numberDecimal": "2"}})"));

  EXPECT_EQ(accounts.count(), 3);
  EXPECT_EQ(accounts.count(json(R"({"balance": {"$exists": true}})")), 2);
  const auto sorted = as_json(accounts.find(
      odm::Document::from_json(R"({"_id": {"$gte": 2}})"),
      odm::FindOptions<odm::Document>{}
          .sort(odm::Sort<odm::Document>::raw(odm::Document::from_json(R"({"_id": -1})")))
          .projection(odm::Projection<odm::Document>::raw(odm::Document::from_json(R"({"owner": 1, "balance": 1})")))));
  EXPECT_EQ(sorted, (std::vector<std::string>{
                        R"({ "_id" : 3, "owner" : "cy", "balance" : { "$numberDecimal" : "2" } })",
                        R"({ "_id" : 2, "owner" : "bob", "balance" : { "$numberDecimal" : "10.50" } })"}));
  const std::optional<Document> ann = accounts.find_one(json(R"({"owner": "ann"})"));
  ASSERT_TRUE(ann.has_value());
  EXPECT_EQ(ann->to_json(), R"({ "_id" : 1, "owner" : "ann" })");
  EXPECT_FALSE(accounts.find_one(json(R"({"owner": "nobody"})")).has_value());
  // The typed collection still reads what the raw one wrote, unknown fields aside.
  EXPECT_EQ(typed.get_by_id(2).owner, "bob");

  const auto grouped = as_json(accounts.aggregate({json(R"({"$match": {"balance": {"$exists": true}}})"),
                                                   json(R"({"$group": {"_id": null, "n": {"$sum": 1}}})")}));
  EXPECT_EQ(grouped, std::vector<std::string>{R"({ "_id" : null, "n" : 2 })"});
}

TEST_F(DocumentCollectionIT, InsertsReturnTheIdAsADocumentOfWhateverType) {
  auto events = db().collection<Document>("events");
  const odm::InsertOneResult<Document> generated = events.insert_one(json(R"({"kind": "login"})"));
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, generated.inserted_id.get(), "_id"));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_OID);
  const std::optional<Document> stored = events.find_one(generated.inserted_id);
  ASSERT_TRUE(stored.has_value());
  ASSERT_TRUE(bson_iter_init(&it, stored->get()) && bson_iter_next(&it));
  EXPECT_STREQ(bson_iter_key(&it), "_id");  // put first, as MongoDB stores it

  EXPECT_EQ(events.insert_one(json(R"({"_id": "e2", "kind": "logout"})")).inserted_id, json(R"({"_id": "e2"})"));
  const odm::InsertManyResult<Document> many =
      events.insert_many({json(R"({"_id": {"day": 1}, "kind": "a"})"), json(R"({"_id": 7.5, "kind": "b"})")});
  EXPECT_EQ(many.inserted, 2);
  EXPECT_EQ(many.inserted_ids, (std::vector<Document>{json(R"({"_id": {"day": 1}})"), json(R"({"_id": 7.5})")}));
  EXPECT_EQ(events.insert_many({}).inserted, 0);
  EXPECT_EQ(events.count(), 4);
}

TEST_F(DocumentCollectionIT, AFailedInsertManySaysWhatWasWritten) {
  auto events = db().collection<Document>("events");
  events.insert_one(json(R"({"_id": 2})"));
  try {
    events.insert_many({json(R"({"_id": 1})"), json(R"({"_id": 2})"), json(R"({"_id": 3})")});
    FAIL() << "a duplicate _id was accepted";
  } catch (const odm::PartialWrite<Document>& partial) {
    ASSERT_EQ(partial.statuses().size(), 3u);
    if (const auto gap = missing_capability(odm_test::Capability::insert_counts)) {
      // A reply whose count contradicts its write errors: the command's writes are unconfirmed.
      EXPECT_NE(dynamic_cast<const odm::ProtocolError*>(&partial.error()), nullptr) << *gap;
      EXPECT_EQ(partial.statuses()[0], odm::WriteStatus::unconfirmed) << *gap;
    } else {
      EXPECT_NE(dynamic_cast<const odm::DuplicateKeyError*>(&partial.error()), nullptr) << partial.what();
      EXPECT_EQ(partial.statuses()[0], odm::WriteStatus::applied);
      EXPECT_EQ(partial.statuses()[1], odm::WriteStatus::refused);
      EXPECT_EQ(partial.result().inserted_ids, std::vector<Document>{json(R"({"_id": 1})")});
    }
    EXPECT_EQ(partial.id(1), json(R"({"_id": 2})"));
    EXPECT_NE(partial.statuses()[2], odm::WriteStatus::applied);  // ordered: not attempted
  }
  EXPECT_EQ(events.count(), 2);  // 1 and the 2 stored before
}

// As for a typed collection: nothing of an insert_many holding a document MongoDB would not
// store is sent, and every write says so (PartialWrites.ADocumentAboveTheServersLimit...).
TEST_F(DocumentCollectionIT, AnInsertManyWithADocumentAboveTheServersLimitSendsNothing) {
  auto events = db().collection<Document>("events");
  Document huge;
  BSON_APPEND_INT32(huge.get_mutable(), "_id", 2);
  const std::string text((16u << 20) + 64 * 1024, 'x');
  BSON_APPEND_UTF8(huge.get_mutable(), "s", text.c_str());
  try {
    events.insert_many({json(R"({"_id": 1})"), huge, json(R"({"_id": 3})")},
                       odm::InsertManyOptions<Document>{}.ordered(false));
    FAIL() << "a document above 16 MiB was accepted";
  } catch (const odm::PartialWrite<Document>& partial) {
    EXPECT_NE(dynamic_cast<const odm::DriverError*>(&partial.error()), nullptr) << partial.what();
    EXPECT_EQ(partial.statuses(), std::vector<odm::WriteStatus>(3, odm::WriteStatus::not_attempted));
    EXPECT_EQ(partial.id(1), json(R"({"_id": 2})"));
  }
  EXPECT_EQ(events.count(), 0);
}

TEST_F(DocumentCollectionIT, UpdatesReplacesAndDeletesAsMongoDbDocumentsThem) {
  auto stock = db().collection<Document>("stock");
  stock.insert_many({json(R"({"_id": 1, "sku": "a", "qty": 5, "note": "x"})"), json(R"({"_id": 2, "sku": "b", "qty": 0})"),
                     json(R"({"_id": 3, "sku": "c", "qty": 0})")});

  odm::UpdateResult<Document> one = stock.update_one(json(R"({"qty": 0})"), json(R"({"$inc": {"qty": 1}})"));
  EXPECT_EQ(one.matched, 1);
  EXPECT_EQ(one.modified, 1);
  EXPECT_FALSE(one.upserted_id.has_value());
  odm::UpdateResult<Document> many = stock.update_many(json(R"({})"), json(R"({"$set": {"seen": true}})"));
  EXPECT_EQ(many.matched, 3);
  odm::UpdateResult<Document> upsert = stock.update_one(
      json(R"({"_id": 9})"), json(R"({"$set": {"sku": "z"}})"), odm::UpdateOptions<Document>{}.upsert());
  EXPECT_EQ(upsert.upserted_id, json(R"({"_id": 9})"));
  EXPECT_EQ(stock.find_one(json(R"({"_id": 9})"))->to_json(), R"({ "_id" : 9, "sku" : "z" })");

  // A replacement is the whole document: "note" and "seen" are gone, _id stays.
  EXPECT_EQ(stock.replace_one(json(R"({"_id": 1})"), json(R"({"sku": "a2", "qty": 6})")).modified, 1);
  EXPECT_EQ(stock.find_one(json(R"({"_id": 1})"))->to_json(), R"({ "_id" : 1, "sku" : "a2", "qty" : 6 })");

  const std::optional<Document> before = stock.find_one_and_update(json(R"({"_id": 1})"), json(R"({"$inc": {"qty": -1}})"));
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->to_json(), R"({ "_id" : 1, "sku" : "a2", "qty" : 6 })");
  const std::optional<Document> after = stock.find_one_and_update(
      json(R"({"_id": 1})"), json(R"({"$inc": {"qty": -1}})"),
      odm::FindOneAndUpdateOptions<Document>{}.return_document(odm::ReturnDocument::after));
  EXPECT_EQ(after->to_json(), R"({ "_id" : 1, "sku" : "a2", "qty" : 4 })");
  const std::optional<Document> replaced = stock.find_one_and_replace(
      json(R"({"_id": 1})"), json(R"({"sku": "a3"})"),
      odm::FindOneAndReplaceOptions<Document>{}.return_document(odm::ReturnDocument::after));
  EXPECT_EQ(replaced->to_json(), R"({ "_id" : 1, "sku" : "a3" })");
  EXPECT_FALSE(stock.find_one_and_update(json(R"({"_id": 404})"), json(R"({"$set": {"a": 1}})")).has_value());

  const std::optional<Document> removed = stock.find_one_and_delete(json(R"({"_id": 9})"));
  EXPECT_EQ(removed->to_json(), R"({ "_id" : 9, "sku" : "z" })");
  EXPECT_EQ(stock.delete_one(json(R"({"seen": true})")).deleted, 1);
  EXPECT_EQ(stock.delete_many(json(R"({})")).deleted, 2);
  EXPECT_EQ(stock.count(), 0);
}

// findAndModify takes a document without operators as a replacement: a mistyped update
// would erase every other field. Each is refused before anything is sent, as a typed
// collection's raw update is.
TEST_F(DocumentCollectionIT, AnUpdateWithoutOperatorsOrAReplacementWithThemIsRefusedAndNothingChanges) {
  auto stock = db().collection<Document>("stock");
  const Document original = json(R"({"_id": 1, "sku": "a", "qty": 5})");
  stock.insert_one(original);
  const auto refused = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const odm::ValueError& error) {
      return error.what();
    }
    return "sent";
  };
  const std::string not_an_operator = "` is not an update operator: MongoDB would read the document as a replacement "
                                      "(replace a document with replace_one)";
  const std::string is_an_operator =
      "` is an update operator: MongoDB would apply the document as an update (update a document with update_one)";
  const Document by_id = json(R"({"_id": 1})");
  EXPECT_EQ(refused([&] { stock.find_one_and_update(by_id, json(R"({"qty": 0})")); }),
            "the update's `qty" + not_an_operator);
  EXPECT_EQ(refused([&] { stock.update_one(by_id, json(R"({"$set": {"qty": 0}, "sku": "b"})")); }),
            "the update's `sku" + not_an_operator);
  EXPECT_EQ(refused([&] { stock.update_many(by_id, Document{}); }),
            "the update has no operator: MongoDB would read {} as a replacement document and erase every field but "
            "_id");
  EXPECT_EQ(refused([&] { stock.replace_one(by_id, json(R"({"sku": "b", "$inc": {"qty": 1}})")); }),
            "the replacement's `$inc" + is_an_operator);
  EXPECT_EQ(refused([&] { stock.find_one_and_replace(by_id, json(R"({"$set": {"qty": 0}})")); }),
            "the replacement's `$set" + is_an_operator);
  EXPECT_EQ(stock.find_one(by_id), original);
}

TEST_F(DocumentCollectionIT, HandlesTakeTheirSettingsAndCopiesShareNothingElse) {
  auto events = db().collection<Document>("events");
  auto majority = events;
  majority.write_concern(odm::WriteConcern::majority());
  EXPECT_FALSE(events.write_concern().has_value());
  ASSERT_TRUE(majority.write_concern().has_value());
  majority.insert_one(json(R"({"_id": 1})"));
  EXPECT_EQ(events.count(), 1);
  events.drop();
  EXPECT_EQ(majority.count(), 0);
  events.drop();  // a missing collection: not an error
}

TEST_F(DocumentCollectionIT, EveryOperationRunsInATransaction) {
  auto stock = db().collection<Document>("stock");
  stock.insert_one(json(R"({"_id": 1, "qty": 5})"));  // the collection exists before the transaction
  ODM_REQUIRE(transactions);
  odm::Session session = client().start_session();
  const auto by_id = [](int id) { return json(R"({"_id": )" + std::to_string(id) + "}"); };
  const auto run_all = [&](odm::Session& s) {
    stock.insert_one(s, json(R"({"_id": 2, "qty": 1})"));
    stock.insert_many(s, {json(R"({"_id": 3, "qty": 1})"), json(R"({"_id": 4, "qty": 1})")});
    stock.update_one(s, by_id(1), json(R"({"$inc": {"qty": -1}})"));
    stock.update_many(s, json(R"({"qty": 1})"), json(R"({"$set": {"low": true}})"));
    stock.replace_one(s, by_id(4), json(R"({"qty": 9})"));
    stock.delete_one(s, by_id(3));
    EXPECT_TRUE(stock.find_one_and_update(s, by_id(2), json(R"({"$inc": {"qty": 1}})")).has_value());
    EXPECT_TRUE(stock.find_one_and_replace(s, by_id(2), json(R"({"qty": 7})")).has_value());
    EXPECT_EQ(stock.count(s), 3);
    EXPECT_EQ(stock.find(s, json(R"({"qty": {"$gt": 5}})")).to_vector().size(), 2u);
    EXPECT_EQ(stock.aggregate(s, {json(R"({"$match": {"qty": 7}})")}).to_vector().size(), 1u);
    EXPECT_TRUE(stock.find_one(s, by_id(4)).has_value());
  };
  EXPECT_THROW(session.with_transaction([&](odm::Session& s) {
    run_all(s);
    throw std::runtime_error("give up");
  }),
               std::runtime_error);
  EXPECT_EQ(stock.count(), 1) << "an aborted transaction leaves nothing";
  session.with_transaction(run_all);
  EXPECT_EQ(stock.find({}, odm::FindOptions<Document>{}.sort(odm::Sort<Document>::raw(json(R"({"_id": 1})"))))
                .to_vector(),
            (std::vector<Document>{json(R"({"_id": 1, "qty": 4})"), json(R"({"_id": 2, "qty": 7})"),
                                   json(R"({"_id": 4, "qty": 9})")}));
  EXPECT_TRUE(stock.find_one_and_delete(session, by_id(4)).has_value());
  EXPECT_EQ(stock.delete_many(session, json(R"({})")).deleted, 2);
}

// Random inserts, $inc updates, upserts, replaces and deletes on small integer ids, each
// checked against a std::map holding what MongoDB's documentation says the collection
// then holds.
TEST_F(DocumentCollectionIT, RandomWritesLeaveWhatAReferenceModelHolds) {
  const std::uint32_t seed = 20261203;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  auto counters = db().collection<Document>("counters");
  std::map<std::int32_t, std::int32_t> reference;  // _id -> n
  const auto doc = [](std::int32_t id, std::int32_t n) {
    return json(R"({"_id": )" + std::to_string(id) + R"(, "n": )" + std::to_string(n) + "}");
  };
  const auto by_id = [](std::int32_t id) { return json(R"({"_id": )" + std::to_string(id) + "}"); };
  for (int step = 0; step < 150; ++step) {
    const auto id = static_cast<std::int32_t>(random() % 12);
    const auto n = static_cast<std::int32_t>(random() % 100);
    switch (random() % 5) {
      case 0:
        if (reference.contains(id)) {
          EXPECT_THROW(counters.insert_one(doc(id, n)), odm::DuplicateKeyError) << "step " << step;
        } else {
          counters.insert_one(doc(id, n));
          reference[id] = n;
        }
        break;
      case 1: {
        const auto result = counters.update_one(by_id(id), json(R"({"$inc": {"n": 1}})"));
        EXPECT_EQ(result.matched, reference.contains(id) ? 1 : 0) << "step " << step;
        if (reference.contains(id)) ++reference[id];
        break;
      }
      case 2: {
        const auto result = counters.update_one(by_id(id), json(R"({"$set": {"n": )" + std::to_string(n) + "}}"),
                                                odm::UpdateOptions<Document>{}.upsert());
        EXPECT_EQ(result.upserted_id.has_value(), !reference.contains(id)) << "step " << step;
        reference[id] = n;
        break;
      }
      case 3: {
        const auto before = counters.find_one_and_replace(by_id(id), json(R"({"n": )" + std::to_string(n) + "}"));
        EXPECT_EQ(before.has_value(), reference.contains(id)) << "step " << step;
        if (before) {
          EXPECT_EQ(*before, doc(id, reference[id])) << "step " << step;
        }
        if (reference.contains(id)) reference[id] = n;
        break;
      }
      default: {
        EXPECT_EQ(counters.delete_one(by_id(id)).deleted, static_cast<std::int64_t>(reference.erase(id))) << "step " << step;
        break;
      }
    }
  }
  std::vector<Document> expected;
  for (const auto& [id, n] : reference) expected.push_back(doc(id, n));
  EXPECT_EQ(counters.find({}, odm::FindOptions<Document>{}.sort(odm::Sort<Document>::raw(json(R"({"_id": 1})"))))
                .to_vector(),
            expected);
}

}  // namespace
