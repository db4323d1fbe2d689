// The index plan of a model: declared indexes plus those its field kinds imply.

#include "models.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace index_models;

std::vector<std::string> describe(const std::vector<odm::IndexModel>& plan) {
  std::vector<std::string> lines;
  for (const auto& index : plan) {
    std::string line = index.collection + " " + index.keys.to_json() + " " + index.name;
    if (index.unique) line += " unique";
    if (index.sparse) line += " sparse";
    if (index.partial_filter) line += " partial " + index.partial_filter->to_json();
    if (index.expire_after_seconds) line += " ttl " + std::to_string(*index.expire_after_seconds);
    lines.push_back(line);
  }
  return lines;
}

TEST(IndexPlan, KeywordSearchIndexIsOneLine) {
  EXPECT_EQ(describe(odm::index_plan<Volume>()),
            (std::vector<std::string>{R"(volumes { "topics" : 1 } topics_1)"}));
}

TEST(IndexPlan, ParentRefIsIndexed) {
  EXPECT_EQ(describe(odm::index_plan<TreeNode>()),
            (std::vector<std::string>{R"(categories { "parent" : 1 } parent_1)"}));
  const auto plan = odm::index_plan<TreeNode>();
  EXPECT_NE(plan.at(0).reason.find("ParentRef"), std::string::npos) << plan.at(0).reason;
}

TEST(IndexPlan, DeclaredCompoundIndexCoversTheImpliedOneItStartsWith) {
  // {host: 1, time: -1} is declared; it serves {host: ...} queries, so no {host: 1} is added.
  EXPECT_EQ(describe(odm::index_plan<LogMessage>()),
            (std::vector<std::string>{R"(logmsg { "host" : 1, "time" : -1 } host_1_time_-1)"}));
}

TEST(IndexPlan, ChildReferencesToTheSameModelGetAMultikeyIndex) {
  EXPECT_EQ(describe(odm::index_plan<Category>()),
            (std::vector<std::string>{R"(categories { "children" : 1 } children_1)"}));
}

TEST(IndexPlan, SubsetIndexesItsFullCollectionOnOwnerOrderKeyAndItemKey) {
  // The refill reads the N first of an owner by order key, ties broken by the item key:
  // N entries of this index.
  EXPECT_EQ(describe(odm::index_plan<Product>()),
            (std::vector<std::string>{
                R"(review { "product_id" : 1, "published_date" : -1, "review_id" : -1 } product_id_1_published_date_-1_review_id_-1)"}));
  // Review's own ParentRef is indexed on its own.
  EXPECT_EQ(describe(odm::index_plan<Review>()),
            (std::vector<std::string>{R"(review { "product_id" : 1 } product_id_1)"}));
}

TEST(IndexPlan, DeclaredOptions) {
  EXPECT_EQ(describe(odm::index_plan<Session>()),
            (std::vector<std::string>{
                R"(sessions { "created" : 1 } created_1 ttl 3600)",
                R"(sessions { "user" : 1, "rating" : -1 } user_rating)",
                R"(sessions { "email" : 1 } email_1 unique sparse)",
                R"(sessions { "rating" : 1 } rating_1 partial { "rating" : { "$gt" : 5 } })"}));
  const auto spec = odm::index_plan<Session>().at(2).specification();
  EXPECT_EQ(spec.to_json(), R"({ "key" : { "email" : 1 }, "name" : "email_1", "unique" : true, "sparse" : true })");
}

TEST(IndexPlan, SeveralModelsPlanEachIndexOnce) {
  // Review's implied {product_id: 1} is covered by the Subset's index, whichever model comes first.
  const std::vector<std::string> expected{
      R"(hosts { "ipaddr" : 1 } ipaddr_1 unique)",
      R"(logmsg { "host" : 1, "time" : -1 } host_1_time_-1)",
      R"(review { "product_id" : 1, "published_date" : -1, "review_id" : -1 } product_id_1_published_date_-1_review_id_-1)",
      R"(categories { "children" : 1 } children_1)",
      R"(categories { "parent" : 1 } parent_1)"};
  EXPECT_EQ(describe(odm::index_plan_of<Host, LogMessage, Review, Product, Category, TreeNode>()), expected);
  EXPECT_EQ(describe(odm::index_plan_of<Host, LogMessage, Product, Review, Category, TreeNode>()), expected);
}

// A partial or sparse index leaves documents out, so it never stands in for the full index
// a ParentRef implies ("all messages of a host" could not use it). With the same keys as
// the declared one, the implied index takes _id last (MongoDB refuses two indexes with one
// key pattern that differ only in options); it serves the same queries.
TEST(IndexPlan, APartialIndexNeverReplacesTheImpliedFullOne) {
  EXPECT_EQ(describe(odm::index_plan<SevereMessage>()),
            (std::vector<std::string>{R"(severe_logmsg { "host" : 1 } host_1 partial { "severity" : { "$gt" : 3 } })",
                                      R"(severe_logmsg { "host" : 1, "_id" : 1 } host_1__id_1)"}));
  EXPECT_EQ(describe(odm::index_plan<SparseNode>()),
            (std::vector<std::string>{R"(sparse_nodes { "parent" : 1 } parent_1 sparse)",
                                      R"(sparse_nodes { "parent" : 1, "_id" : 1 } parent_1__id_1)"}));
  const auto plan = odm::index_plan<SparseNode>();
  EXPECT_NE(plan.at(1).reason.find("ParentRef SparseNode::parent"), std::string::npos) << plan.at(1).reason;
}

TEST(IndexPlan, APartialCompoundIndexDoesNotCoverItsPrefix) {
  const auto lines = describe(odm::index_plan<RecentMessage>());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].substr(0, lines[0].find(" partial")), R"(recent_logmsg { "host" : 1, "time" : -1 } host_1_time_-1)");
  EXPECT_EQ(lines[1], R"(recent_logmsg { "host" : 1 } host_1)");
}

}  // namespace
