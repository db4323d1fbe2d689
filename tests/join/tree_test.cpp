// Trees in one collection (the guides' categories), with parent references and with
// child references: one query per level.

#include <odm/join/tree.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

struct Category {
  std::string id;
  odm::ParentRef<Category> parent;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

struct CategoryNode {
  std::string id;
  odm::RefMany<CategoryNode> children;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

/// Both shapes in one document, as the test stores them.
struct CategoryRecord {
  std::string id;
  std::optional<std::string> parent;
  std::vector<std::string> children;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

std::vector<std::string> ids_of(const auto& nodes) {
  std::vector<std::string> ids;
  for (const auto& node : nodes) ids.push_back(node.id);
  return ids;
}

class Tree : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    odm_test::DriverTest::SetUp();
    // The guides' hierarchy, both shapes in the same documents.
    db().collection<CategoryRecord>().insert_many(std::vector<CategoryRecord>{
        {"MongoDB", "Databases", {}},
        {"dbm", "Databases", {}},
        {"Databases", "Programming", {"MongoDB", "dbm"}},
        {"Languages", "Programming", {}},
        {"Programming", "Books", {"Databases", "Languages"}},
        {"Books", std::nullopt, {"Programming"}}});
    log_.clear();
  }
  odm::Collection<Category> categories() { return db().collection<Category>(); }
  odm::Collection<CategoryNode> nodes() { return db().collection<CategoryNode>(); }
};

TEST_F(Tree, ParentReferences) {
  const Category mongodb = categories().get_by_id("MongoDB");
  EXPECT_EQ(odm::tree::parent(categories(), mongodb, &Category::parent)->id, "Databases");
  const Category books = categories().get_by_id("Books");
  EXPECT_FALSE(books.parent.has_parent()) << "the root's parent is null";
  EXPECT_FALSE(odm::tree::parent(categories(), books, &Category::parent).has_value());

  auto children = ids_of(odm::tree::children(categories(), categories().get_by_id("Databases"), &Category::parent));
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<std::string>{"MongoDB", "dbm"}));

  log_.clear();
  EXPECT_EQ(ids_of(odm::tree::ancestors(categories(), mongodb, &Category::parent)),
            (std::vector<std::string>{"Databases", "Programming", "Books"}));
  EXPECT_EQ(log_.started("find"), 3) << "one query per level";

  log_.clear();
  auto below = ids_of(odm::tree::descendants(categories(), books, &Category::parent));
  EXPECT_EQ(log_.started("find"), 4) << "levels: Programming | Databases, Languages | MongoDB, dbm | (none)";
  EXPECT_EQ(below.front(), "Programming") << "breadth first";
  std::sort(below.begin(), below.end());
  EXPECT_EQ(below, (std::vector<std::string>{"Databases", "Languages", "MongoDB", "Programming", "dbm"}));
}

// The walks' own queries are all their work: JoinSide::server (odm::find_joined's) is
// refused before anything is sent, never silently ignored.
TEST_F(Tree, TheWalksRefuseTheServerSideBeforeSendingAnything) {
  const Category books = categories().get_by_id("Books");
  const CategoryNode programming = nodes().get_by_id("Programming");
  odm::JoinOptions on_server;
  on_server.side = odm::JoinSide::server;
  log_.clear();
  EXPECT_THROW((void)odm::tree::descendants(categories(), books, &Category::parent, on_server), odm::UsageError);
  EXPECT_THROW((void)odm::tree::descendants(nodes(), programming, &CategoryNode::children, on_server), odm::UsageError);
  EXPECT_THROW((void)odm::tree::children(nodes(), programming, &CategoryNode::children, on_server), odm::UsageError);
  std::vector<std::vector<Category>> grouped;
  odm::ChildrenOptions<Category> children;
  children.join = on_server;
  EXPECT_THROW(grouped = odm::children_of(db(), std::vector<Category>{books}, &Category::parent, children),
               odm::UsageError);
  EXPECT_EQ(log_.started("find"), 0);
  EXPECT_EQ(log_.started("aggregate"), 0);
}

TEST_F(Tree, ChildReferences) {
  const CategoryNode programming = nodes().get_by_id("Programming");
  log_.clear();
  EXPECT_EQ(ids_of(odm::tree::children(nodes(), programming, &CategoryNode::children)),
            (std::vector<std::string>{"Databases", "Languages"}))
      << "in the order the node lists them";
  EXPECT_EQ(log_.started("find"), 1);
  EXPECT_EQ(odm::tree::parent(nodes(), nodes().get_by_id("MongoDB"), &CategoryNode::children)->id, "Databases");
  EXPECT_FALSE(odm::tree::parent(nodes(), nodes().get_by_id("Books"), &CategoryNode::children).has_value());
}

TEST_F(Tree, ACycleInTheDataIsAnErrorNotAHang) {
  db().collection<CategoryRecord>().update_one(
      odm::Filter<CategoryRecord>::raw(odm_test::json(R"({"_id": "Books"})")),
      odm::Update<CategoryRecord>::raw(odm_test::json(R"({"$set": {"parent": "MongoDB"}})")));
  EXPECT_THROW(odm::tree::ancestors(categories(), categories().get_by_id("MongoDB"), &Category::parent), odm::DataError);
  const auto below = odm::tree::descendants(categories(), categories().get_by_id("Books"), &Category::parent);
  EXPECT_EQ(below.size(), 5u) << "each node once";
}

TEST_F(Tree, ChildReferencesAncestorsAndDescendants) {
  const CategoryNode mongodb = nodes().get_by_id("MongoDB");
  log_.clear();
  EXPECT_EQ(ids_of(odm::tree::ancestors(nodes(), mongodb, &CategoryNode::children)),
            (std::vector<std::string>{"Databases", "Programming", "Books"}));
  EXPECT_EQ(log_.started("find"), 4) << "one {children: id} query per level, the last finding the root has none";

  const CategoryNode books = nodes().get_by_id("Books");
  log_.clear();
  EXPECT_EQ(ids_of(odm::tree::descendants(nodes(), books, &CategoryNode::children)),
            (std::vector<std::string>{"Programming", "Databases", "Languages", "MongoDB", "dbm"}))
      << "breadth first, each level in the order its parents list it";
  EXPECT_EQ(log_.started("find"), 3) << "levels: Programming | Databases, Languages | MongoDB, dbm";

  EXPECT_TRUE(odm::tree::ancestors(nodes(), nodes().get_by_id("Books"), &CategoryNode::children).empty());
  EXPECT_TRUE(odm::tree::descendants(nodes(), nodes().get_by_id("dbm"), &CategoryNode::children).empty());
}

TEST_F(Tree, ChildReferencesSharedMissingAndCyclicNodes) {
  auto records = db().collection<CategoryRecord>();
  // dbm is listed by Languages too, and Languages lists a child that does not exist.
  records.update_one(odm::Filter<CategoryRecord>::raw(odm_test::json(R"({"_id": "Languages"})")),
                     odm::Update<CategoryRecord>::raw(odm_test::json(R"({"$set": {"children": ["dbm", "gone"]}})")));
  EXPECT_EQ(odm::tree::parent(nodes(), nodes().get_by_id("dbm"), &CategoryNode::children)->id, "Databases")
      << "of two parents, the one with the smallest _id";
  EXPECT_EQ(ids_of(odm::tree::descendants(nodes(), nodes().get_by_id("Books"), &CategoryNode::children)),
            (std::vector<std::string>{"Programming", "Databases", "Languages", "MongoDB", "dbm"}))
      << "dbm once; the missing child skipped";

  // MongoDB lists Books: a cycle.
  records.update_one(odm::Filter<CategoryRecord>::raw(odm_test::json(R"({"_id": "MongoDB"})")),
                     odm::Update<CategoryRecord>::raw(odm_test::json(R"({"$set": {"children": ["Books"]}})")));
  try {
    (void)odm::tree::ancestors(nodes(), nodes().get_by_id("MongoDB"), &CategoryNode::children);
    ADD_FAILURE() << "a cycle must be an error, not a hang";
  } catch (const odm::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  const auto below = ids_of(odm::tree::descendants(nodes(), nodes().get_by_id("Books"), &CategoryNode::children));
  EXPECT_EQ(below.size(), 5u) << "each node once";
  EXPECT_EQ(std::count(below.begin(), below.end(), "Books"), 0) << "the start node is not its own descendant";
}

}  // namespace
