// Syncing the planned indexes with a database: creates what is missing, idempotent,
// reports differences without touching them, drops only when asked, dry run.

#include "models.hpp"

#include <odm/index/sync.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace index_models;

std::vector<std::string> index_names(const odm::Database& db, const std::string& collection) {
  odm::Document reply;
  try {
    reply = db.run_command(odm_test::json(R"({"listIndexes": ")" + collection + R"("})"));
  } catch (const odm::ServerError& error) {
    if (error.code() == 26) return {};  // NamespaceNotFound: the collection does not exist
    throw;
  }
  std::vector<std::string> names;
  bson_iter_t it, child;
  if (bson_iter_init(&it, reply.get()) && bson_iter_find_descendant(&it, "cursor.firstBatch", &child) &&
      bson_iter_recurse(&child, &it))
    while (bson_iter_next(&it)) {
      bson_iter_t name;
      if (bson_iter_recurse(&it, &name) && bson_iter_find(&name, "name")) names.emplace_back(bson_iter_utf8(&name, nullptr));
    }
  std::sort(names.begin(), names.end());
  return names;
}

class IndexSync : public odm_test::DriverTest {};

TEST_F(IndexSync, CreatesWhatIsMissingAndIsIdempotent) {
  const auto first = odm::sync_indexes<Volume, Host, LogMessage>(db());
  EXPECT_EQ(first.created.size(), 3u) << first.to_string();
  EXPECT_TRUE(first.differing.empty()) << first.to_string();
  EXPECT_EQ(index_names(db(), "volumes"), (std::vector<std::string>{"_id_", "topics_1"}));
  EXPECT_EQ(index_names(db(), "logmsg"), (std::vector<std::string>{"_id_", "host_1_time_-1"}));

  log_.clear();
  const auto second = odm::sync_indexes<Volume, Host, LogMessage>(db());
  EXPECT_TRUE(second.created.empty()) << second.to_string();
  EXPECT_EQ(second.unchanged.size(), 3u);
  EXPECT_EQ(log_.started("createIndexes"), 0) << "a second run changes nothing";
}

TEST_F(IndexSync, AFirstSyncOfNewCollectionsSendsNoFailingCommand) {
  // Alerting on failed commands (command monitoring) must not fire for a first deploy.
  log_.clear();
  const auto first = odm::sync_indexes<Volume, Host, LogMessage>(db());
  EXPECT_EQ(first.created.size(), 3u) << first.to_string();
  EXPECT_EQ(log_.failed_names(), std::vector<std::string>{}) << "a command failed on collections that do not exist";
  EXPECT_EQ(log_.started("listIndexes"), 0) << "nothing to list on a collection that does not exist";
  // Nor does a dry run on a database that does not exist.
  odm::IndexSyncOptions dry;
  dry.dry_run = true;
  EXPECT_EQ(odm::sync_indexes<Volume>(client().database(db_name_ + "_none"), dry).created.size(), 1u);
  EXPECT_EQ(log_.failed_names(), std::vector<std::string>{});
}

TEST_F(IndexSync, DryRunPrintsThePlanAndChangesNothing) {
  const auto plan = odm::sync_indexes<Product, Review>(db(), odm::IndexSyncOptions{.dry_run = true});
  EXPECT_EQ(plan.created.size(), 1u) << "Review's {product_id: 1} is covered by the Subset's compound index";
  const std::string text = plan.to_string();
  EXPECT_NE(text.find("would create review: { \"product_id\" : 1, \"published_date\" : -1, \"review_id\" : -1 }"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Subset Product::reviews"), std::string::npos) << text;
  EXPECT_EQ(log_.started("createIndexes"), 0);
  EXPECT_TRUE(index_names(db(), "review").empty());
}

TEST_F(IndexSync, ReportsAnIndexWithOtherOptionsAndLeavesIt) {
  // ipaddr_1 exists, but not unique: odm must not drop and recreate it on its own.
  db().run_command(odm_test::json(R"({"createIndexes": "hosts", "indexes": [{"key": {"ipaddr": 1}, "name": "ipaddr_1"},
                                                                           {"key": {"name": 1}, "name": "name_1"}]})"));
  const auto report = odm::sync_indexes<Host>(db());
  ASSERT_EQ(report.differing.size(), 1u) << report.to_string();
  EXPECT_NE(report.differing[0].what.find("unique"), std::string::npos) << report.differing[0].what;
  EXPECT_TRUE(report.created.empty());
  EXPECT_EQ(report.unplanned, (std::vector<std::string>{"hosts.name_1"}));
  EXPECT_TRUE(report.dropped.empty());
  EXPECT_EQ(index_names(db(), "hosts"), (std::vector<std::string>{"_id_", "ipaddr_1", "name_1"}));

  const auto dropping = odm::sync_indexes<Host>(db(), odm::IndexSyncOptions{.drop_unplanned = true});
  EXPECT_EQ(dropping.dropped, (std::vector<std::string>{"hosts.name_1"}));
  EXPECT_EQ(index_names(db(), "hosts"), (std::vector<std::string>{"_id_", "ipaddr_1"}));
}

TEST_F(IndexSync, DeclaredOptionsReachTheServer) {
  odm::sync_indexes<Session>(db());
  const auto again = odm::sync_indexes<Session>(db());
  EXPECT_EQ(again.unchanged.size(), 4u) << "the server reports the options as planned:\n" << again.to_string();
  EXPECT_TRUE(again.differing.empty()) << again.to_string();
}

TEST_F(IndexSync, UniqueIndexRefusesDuplicates) {
  odm::sync_indexes<Host>(db());
  auto hosts = db().collection<Host>();
  hosts.insert_one(Host{{}, "goofy.example.com", "127.66.66.66"});
  EXPECT_THROW(hosts.insert_one(Host{{}, "other.example.com", "127.66.66.66"}), odm::DuplicateKeyError);
}

TEST_F(IndexSync, APartialIndexAndTheFullOneItWouldHaveHiddenAreBothCreated) {
  const auto first = odm::sync_indexes<SevereMessage, SparseNode>(db());
  EXPECT_EQ(first.created.size(), 4u) << first.to_string();
  EXPECT_EQ(index_names(db(), "severe_logmsg"), (std::vector<std::string>{"_id_", "host_1", "host_1__id_1"}));
  EXPECT_EQ(index_names(db(), "sparse_nodes"), (std::vector<std::string>{"_id_", "parent_1", "parent_1__id_1"}));
  const auto second = odm::sync_indexes<SevereMessage, SparseNode>(db());
  EXPECT_EQ(second.unchanged.size(), 4u) << second.to_string();
  EXPECT_TRUE(second.differing.empty()) << second.to_string();
}

}  // namespace
