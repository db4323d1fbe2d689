// Trees (seed 000): the book categories Books > Programming > {Databases > {MongoDB, dbm},
// Languages}, in one `categories` collection, in both of the guide's shapes at once:
//
//   parent references  {_id: "MongoDB", parent: "Databases"}, the root has parent: null
//   child references   {_id: "Databases", children: ["MongoDB", "dbm"]}
//
// Each document holds both fields ({_id, parent, children}); each shape is read through
// a model of its own, and odm::tree walks the tree one query per level, never one per node.
#include "example_support.hpp"

#include <odm/join/tree.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

/// What is stored: both references.
struct Category {
  std::string id;
  odm::ParentRef<Category> parent;
  odm::RefMany<Category> children;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

/// The parent-reference shape.
struct CategoryWithParent {
  std::string id;
  odm::ParentRef<CategoryWithParent> parent;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

/// The child-reference shape.
struct CategoryWithChildren {
  std::string id;
  odm::RefMany<CategoryWithChildren> children;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

Category node(std::string id, odm::ParentRef<Category> parent, std::vector<std::string> children) {
  Category category;
  category.id = std::move(id);
  category.parent = std::move(parent);
  category.children = odm::RefMany<Category>(children);
  return category;
}

template <class T>
std::vector<std::string> ids(const std::vector<T>& nodes) {
  std::vector<std::string> out;
  for (const T& n : nodes) out.push_back(n.id);
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return "[" + out + "]";
}

}  // namespace

int main() {
  using example::check;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    db.collection<Category>().drop();

    example::step("store the tree: each node with its parent and its children");
    const std::vector<Category> tree{
        node("MongoDB", "Databases", {}),
        node("dbm", "Databases", {}),
        node("Databases", "Programming", {"MongoDB", "dbm"}),
        node("Languages", "Programming", {}),
        node("Programming", "Books", {"Databases", "Languages"}),
        node("Books", std::nullopt, {"Programming"}),
    };
    db.collection<Category>().insert_many(tree);
    example::show_all("categories", tree);
    // {parent: 1} for the parent references, {children: 1} (multikey) for the child references.
    const auto report = example::sync_indexes<CategoryWithParent, CategoryWithChildren>(db);
    check(report.created.size() + report.unchanged.size() == 2, "two indexes planned: parent and children");

    example::step("parent references");
    const auto with_parent = db.collection<CategoryWithParent>();
    const CategoryWithParent mongodb = with_parent.get_by_id("MongoDB");
    example::show("MongoDB", mongodb);
    const auto parent = odm::tree::parent(with_parent, mongodb, &CategoryWithParent::parent);
    check(parent && parent->id == "Databases", "the parent of MongoDB is Databases");
    const CategoryWithParent databases = with_parent.get_by_id("Databases");
    auto children = ids(odm::tree::children(with_parent, databases, &CategoryWithParent::parent));
    std::cout << "children of Databases ({parent: \"Databases\"}): " << joined(children) << "\n";
    std::sort(children.begin(), children.end());
    check(children == std::vector<std::string>{"MongoDB", "dbm"}, "Databases has MongoDB and dbm");
    const auto ancestors = ids(odm::tree::ancestors(with_parent, mongodb, &CategoryWithParent::parent));
    std::cout << "ancestors of MongoDB, nearest first: " << joined(ancestors) << "\n";
    check(ancestors == std::vector<std::string>{"Databases", "Programming", "Books"},
          "MongoDB's ancestors are Databases, Programming, Books");
    const CategoryWithParent books = with_parent.get_by_id("Books");
    check(!books.parent.has_parent(), "Books is the root (parent: null)");
    check(!odm::tree::parent(with_parent, books, &CategoryWithParent::parent), "the root has no parent");
    const CategoryWithParent programming = with_parent.get_by_id("Programming");
    const auto below = ids(odm::tree::descendants(with_parent, programming, &CategoryWithParent::parent));
    std::cout << "descendants of Programming, breadth first: " << joined(below) << "\n";
    check(below.size() == 4 && std::set<std::string>(below.begin(), below.begin() + 2) ==
                                   std::set<std::string>{"Databases", "Languages"} &&
              std::set<std::string>(below.begin() + 2, below.end()) == std::set<std::string>{"MongoDB", "dbm"},
          "Programming has Databases and Languages, then MongoDB and dbm below them");

    example::step("child references");
    const auto with_children = db.collection<CategoryWithChildren>();
    const CategoryWithChildren databases_c = with_children.get_by_id("Databases");
    example::show("Databases", databases_c);
    const auto listed = ids(odm::tree::children(with_children, databases_c, &CategoryWithChildren::children));
    std::cout << "children of Databases ({_id: {$in: [\"MongoDB\", \"dbm\"]}}): " << joined(listed) << "\n";
    check(listed == std::vector<std::string>{"MongoDB", "dbm"}, "the children come in the listed order");
    const CategoryWithChildren mongodb_c = with_children.get_by_id("MongoDB");
    const auto parent_c = odm::tree::parent(with_children, mongodb_c, &CategoryWithChildren::children);
    check(parent_c && parent_c->id == "Databases", "{children: \"MongoDB\"} finds Databases");
    const CategoryWithChildren books_c = with_children.get_by_id("Books");
    check(!odm::tree::parent(with_children, books_c, &CategoryWithChildren::children),
          "no node lists Books as a child");
    check(mongodb_c.children.empty(), "MongoDB is a leaf (children: [])");
    const auto ancestors_c = ids(odm::tree::ancestors(with_children, mongodb_c, &CategoryWithChildren::children));
    std::cout << "ancestors of MongoDB through the child lists ({children: id} per level): " << joined(ancestors_c)
              << "\n";
    check(ancestors_c == std::vector<std::string>{"Databases", "Programming", "Books"},
          "the child lists give MongoDB the same ancestors");
    const auto below_c = ids(odm::tree::descendants(with_children, books_c, &CategoryWithChildren::children));
    std::cout << "descendants of Books ({_id: {$in: level}} per level): " << joined(below_c) << "\n";
    check(below_c == std::vector<std::string>{"Programming", "Databases", "Languages", "MongoDB", "dbm"},
          "breadth first, each level in the listed order");
  });
}
